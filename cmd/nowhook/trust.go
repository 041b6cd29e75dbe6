package main

import (
	"errors"

	"github.com/nowhook/nowhook/detect"
)

// trustCodex records the trust of our Codex hook when asked, and
// otherwise tells how to do it later. It returns the line to print.
func trustCodex(o setupOptions, root string, choices []detect.Choice, io stdio) (string, error) {
	configured := false
	for _, c := range choices {
		if c.Platform.Name == "codex" && c.Mode == detect.Reinject {
			configured = true
		}
	}
	if !configured {
		return "", nil
	}
	if !o.trustCodex {
		return "Codex skips untrusted hooks without a word; to trust ours, run: nowhook setup --yes --agents codex --trust-codex", nil
	}
	return "", errors.New("not wired yet")
}
