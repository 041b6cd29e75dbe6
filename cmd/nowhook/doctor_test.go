package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorUsage: doctor's help, its usage errors and their exit status,
// through the one flag parser and exit mapping: --help prints the whole
// help and exits 0; a bad flag, an argument or a bad --scope says what is
// wrong with the whole help below it, and a bad --dir or --dir with
// --scope user says only what is wrong; each exits 2, prints nothing on
// stdout, and never speaks of writing (doctor writes nothing).
func TestDoctorUsage(t *testing.T) {
	var out, errb bytes.Buffer
	std := stdio{in: strings.NewReader(""), out: &out, err: &errb}
	if got := run([]string{"doctor", "--help"}, std); got != exitOK || out.String() != doctorUsage || errb.Len() != 0 {
		t.Errorf("--help: exit %d, stdout %q, stderr %q", got, out.String(), errb.String())
	}
	for _, c := range []struct {
		args      []string
		withUsage bool
	}{
		{[]string{"--bogus"}, true},
		{[]string{"extra"}, true},
		{[]string{"--dir"}, true},
		{[]string{"--scope", "team"}, true},
		{[]string{"--dir", filepath.Join(t.TempDir(), "missing")}, false},
		{[]string{"--scope", "user", "--dir", "."}, false},
	} {
		out.Reset()
		errb.Reset()
		if got := run(append([]string{"doctor"}, c.args...), std); got != exitUsage {
			t.Errorf("%q: exit %d, want 2", c.args, got)
		}
		msg := errb.String()
		if out.Len() != 0 || !strings.HasPrefix(msg, "nowhook doctor: ") || strings.Count(msg, "nowhook doctor: ") != 1 || strings.Contains(msg, "Nothing was written") {
			t.Errorf("%q: stdout %q stderr %q", c.args, out.String(), msg)
		}
		if got := strings.HasSuffix(msg, "\n\n"+doctorUsage); got != c.withUsage {
			t.Errorf("%q: the help follows the message: %v, want %v\n%s", c.args, got, c.withUsage, msg)
		}
	}
}
