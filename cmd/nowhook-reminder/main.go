// Command nowhook-reminder is the hook runtime alone: `nowhook reminder`
// without the rest of nowhook. The wrapper scripts prefer it because it
// starts in a fraction of the time: the whole nowhook binary also
// initialises the terminal-UI packages of its setup wizard, about 3 ms
// on every compaction.
package main

import (
	"os"

	"github.com/nowhook/nowhook/cmd/internal/reminder"
)

func main() {
	os.Exit(reminder.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
