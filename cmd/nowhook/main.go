// Command nowhook makes coding agents get a team's Kanbus work-in-progress
// back right after a context compaction.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}))
}
