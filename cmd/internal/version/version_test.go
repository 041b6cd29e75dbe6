package version

import "testing"

// TestStampWins: a release's stamp replaces what the build information
// says, and "+modified" on the commit becomes the (modified) mark.
func TestStampWins(t *testing.T) {
	defer func(v, c string) { stamp, stampCommit = v, c }(stamp, stampCommit)
	stamp, stampCommit = "", ""
	plain := Read()
	if plain.Version == "" || plain.Commit == "" || plain.Go == "" {
		t.Fatalf("Read() without a stamp left a field empty: %+v", plain)
	}
	stamp, stampCommit = "v1.2.3", "0123abcd+modified"
	got := Read()
	if got.Version != "v1.2.3" || got.Commit != "0123abcd" || !got.Modified || got.Go != plain.Go {
		t.Errorf("Read() with a stamp = %+v", got)
	}
	if s, want := got.String("nowhook"), "nowhook v1.2.3, commit 0123abcd (modified), built with "+plain.Go; s != want {
		t.Errorf("String = %q, want %q", s, want)
	}
	stampCommit = "0123abcd"
	if s, want := Read().String("nowhook-reminder"), "nowhook-reminder v1.2.3, commit 0123abcd, built with "+plain.Go; s != want {
		t.Errorf("String = %q, want %q", s, want)
	}
}
