// Command nowhook makes coding agents get a team's Kanbus work-in-progress
// back right after a context compaction.
package main

import (
	"os"

	"github.com/nowhook/nowhook/cmd/internal/reminder"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "reminder" {
		// The hook's process ends with the command.
		reminder.ExitsAfterRun()
	}
	os.Exit(run(os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}))
}
