package detect

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRootAndKanbus(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{".git", "sub/dir"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, ".kanbus.yml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	got, err := Root(filepath.Join(root, "sub", "dir"))
	if err != nil || got != root {
		t.Fatalf("Root = %q, %v; want %q", got, err, root)
	}
	if k := DetectKanbus(root); k.Config != filepath.Join(root, ".kanbus.yml") {
		t.Errorf("Kanbus config = %q", k.Config)
	}
	if _, ok := FindKanbusConfig(filepath.Join(root, "sub", "dir")); !ok {
		t.Errorf("FindKanbusConfig from a subdirectory failed")
	}
}
