// Command nowhook-reminder is the hook runtime alone: `nowhook reminder`
// without the rest of nowhook. The wrapper scripts prefer it because it
// starts in a fraction of the time: the whole nowhook binary also
// initialises the terminal-UI packages of its setup wizard, about 3 ms
// on every compaction.
//
// `nowhook-reminder --version` (or `version`) prints the same version line
// as `nowhook version`, so that the two binaries of one install can be
// told apart from a stale one; any other arguments are the reminder's.
package main

import (
	"fmt"
	"os"

	"github.com/nowhook/nowhook/cmd/internal/reminder"
	"github.com/nowhook/nowhook/cmd/internal/version"
)

func main() {
	if len(os.Args) == 2 {
		switch os.Args[1] {
		case "--version", "-version", "version":
			fmt.Println(version.Read().String("nowhook-reminder"))
			os.Exit(0)
		}
	}
	reminder.ExitsAfterRun()
	os.Exit(reminder.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
