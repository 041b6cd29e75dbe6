package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestRunPanicIsNotRefusal: a panic in a command exits 1 and says it is
// a bug (Go's own status for a panic, 2, means "refused" here); in the
// hook runtime it exits 0, silent.
func TestRunPanicIsNotRefusal(t *testing.T) {
	var out, errb bytes.Buffer
	boom := stdio{in: panicReader{}, out: &out, err: &errb}
	if got := run([]string{"setup", "--accessible", "--dir", t.TempDir()}, boom); got != exitFailed {
		t.Errorf("a panic in setup exits %d, want %d", got, exitFailed)
	}
	if !strings.Contains(errb.String(), "internal error") || !strings.Contains(errb.String(), "bug in nowhook") {
		t.Errorf("stderr does not say it is a bug:\n%s", errb.String())
	}
}

// panicReader panics when read, as a bug deep in a command would.
type panicReader struct{}

func (panicReader) Read([]byte) (int, error) { panic("boom") }
