package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorUsage: doctor's help, its usage errors and their exit status,
// through the one flag parser and exit mapping: --help prints the whole
// help and exits 0; a bad flag, an argument, a bad --scope, a bad --dir or
// --dir with --scope user says what is wrong in one line, a bad flag or
// --scope with the command whose --help lists the flags, as setup's do;
// each exits 2, prints nothing on stdout, and never speaks of writing
// (doctor writes nothing).
func TestDoctorUsage(t *testing.T) {
	var out, errb bytes.Buffer
	std := stdio{in: strings.NewReader(""), out: &out, err: &errb}
	if got := run([]string{"doctor", "--help"}, std); got != exitOK || out.String() != doctorUsage || errb.Len() != 0 {
		t.Errorf("--help: exit %d, stdout %q, stderr %q", got, out.String(), errb.String())
	}
	for _, c := range []struct {
		args      []string
		pointHelp bool
	}{
		{[]string{"--bogus"}, true},
		{[]string{"extra"}, false},
		{[]string{"--dir"}, true},
		{[]string{"--scope", "team"}, true},
		{[]string{"--live=maybe"}, true},
		{[]string{"--dir", filepath.Join(t.TempDir(), "missing")}, false},
		{[]string{"--scope", "user", "--dir", "."}, false},
	} {
		out.Reset()
		errb.Reset()
		if got := run(append([]string{"doctor"}, c.args...), std); got != exitUsage {
			t.Errorf("%q: exit %d, want 2", c.args, got)
		}
		msg := errb.String()
		if out.Len() != 0 || !strings.HasPrefix(msg, "nowhook doctor: ") || strings.Count(msg, "\n") != 1 || strings.Contains(msg, "Nothing was written") || strings.Contains(msg, "Usage:") {
			t.Errorf("%q: not one line: stdout %q stderr %q", c.args, out.String(), msg)
		}
		if got := strings.HasSuffix(msg, " (nowhook doctor --help lists the flags)\n"); got != c.pointHelp {
			t.Errorf("%q: points at --help: %v, want %v\n%s", c.args, got, c.pointHelp, msg)
		}
	}
}
