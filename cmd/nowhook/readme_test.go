package main

import (
	"os"
	"strings"
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
)

// TestREADMEMatrix keeps the README's platform matrix equal to the table
// that setup and doctor read.
func TestREADMEMatrix(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), agent.Matrix()) {
		t.Errorf("README.md's platform matrix differs from agent.Matrix(); replace it with:\n%s", agent.Matrix())
	}
}
