package doctor

import (
	"path/filepath"
	"testing"
	"time"
)

// TestClientVersionQuickWaitIsShort: without --live doctor does not wait
// for a client's --version as long as --live does: a client that answers
// after a second, inside --live's 2s and outside the quick 500ms, is not
// waited for. (The quick run cannot see the answer, whatever the load: it
// comes after the second; only a wait raised towards --live's lets it in.)
func TestClientVersionQuickWaitIsShort(t *testing.T) {
	r := newRepo(t)
	r.install("codex", time.Second)
	r.write(filepath.Join(r.bin, "codex"), "#!/bin/sh\nsleep 1\necho 'codex-cli 0.171.0'\n", 0o755)
	expectOne(t, r.run(), "codex.client", Info, "codex --version did not answer within doctor's quick wait of 500ms; nowhook doctor --live waits up to 2s; ")
}

// TestClientVersionOnStderr: a client that prints its version on stderr
// (and nothing on stdout) is read there. (--live: its wait of 2s is
// room for an echo on any machine.)
func TestClientVersionOnStderr(t *testing.T) {
	r := newRepo(t)
	r.install("codex", time.Second)
	r.write(filepath.Join(r.bin, "codex"), "#!/bin/sh\necho 'codex-cli 0.171.0' >&2\n", 0o755)
	f := expectOne(t, r.runLive(), "codex.client", OK, "Codex CLI 0.171.0 (codex --version): proven on 0.171.0")
	if f.Client == nil || f.Client.Installed != "0.171.0" {
		t.Errorf("client: %+v", f.Client)
	}
}
