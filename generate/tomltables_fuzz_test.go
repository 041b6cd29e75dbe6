package generate

import (
	"bytes"
	"testing"
)

// FuzzTOMLTables: for any file Merge accepts, a second Merge changes
// nothing, Remove takes out what Merge added and gives back the file byte
// for byte (when it held none of ours), and the result never holds our
// tables. Seeded with the shapes of TestTOMLTablesRoundTrip; run with
// go test ./generate -run '^$' -fuzz FuzzTOMLTables -fuzztime 30s.
func FuzzTOMLTables(f *testing.F) {
	for _, s := range []string{"", "\n", "a = 1", "a = 1\n", "# c\r\n[t]\r\nk = 'v'\r\n", "[[hooks]]\nevent = \"Stop\"\ncommand = \"x\"\n# after\n",
		"x = '''\n[[hooks]]\n'''\n", "[a.b]\nc = [1,\n 2]\n\n\n", oursBlock, "a = 1\n\n" + oursBlock + "\n[[hooks]]\ncommand = \"mine\"\n"} {
		f.Add([]byte(s))
	}
	tt := testTables(10)
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := tt.Merge(in)
		if err != nil {
			return
		}
		again, err := tt.Merge(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("a second Merge changed %q into %q (%v)", out, again, err)
		}
		back, n, _, err := tt.Remove(out)
		if err != nil || n != len(tt.Tables) {
			t.Fatalf("Remove of %q: %d tables, %v", out, n, err)
		}
		if tt.Present(back) {
			t.Fatalf("our tables left in %q", back)
		}
		if !tt.Present(in) && !bytes.Equal(back, in) {
			t.Fatalf("Remove(Merge(%q)) = %q", in, back)
		}
	})
}
