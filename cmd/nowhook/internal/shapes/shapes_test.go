package shapes

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// seeds is the range the generator's own tests cover.
const seeds = 1000

// TestDeterministic: the same seed gives the same shape, byte for byte,
// and different seeds give different shapes.
func TestDeterministic(t *testing.T) {
	for seed := int64(1); seed <= 200; seed++ {
		a, b := Generate(seed), Generate(seed)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d: two calls gave different shapes", seed)
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if !bytes.Equal(ja, jb) {
			t.Fatalf("seed %d: the shapes differ in their bytes", seed)
		}
	}
	distinct := map[string]int64{}
	for seed := int64(1); seed <= 200; seed++ {
		j, _ := json.Marshal(Generate(seed).Files)
		key := string(MarkerPattern.ReplaceAll(j, nil))
		if other, ok := distinct[key]; ok {
			t.Logf("seeds %d and %d give the same files but for the markers", other, seed)
		}
		distinct[key] = seed
	}
	if len(distinct) < 190 {
		t.Errorf("200 seeds give only %d different sets of files", len(distinct))
	}
}

// TestGolden pins one shape's files, so that a change of the generator
// that changes what a seed means (and so what a recorded finding's
// reproduction runs) is seen.
func TestGolden(t *testing.T) {
	s := Generate(7)
	var got strings.Builder
	got.WriteString(s.Tree())
	for _, f := range s.Files {
		if f.Link == "" {
			got.WriteString("== " + f.Path + "\n" + f.Content)
		}
	}
	golden := filepath.Join("testdata", "seed-7.txt")
	if os.Getenv("SHAPES_UPDATE") != "" {
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (SHAPES_UPDATE=1 writes it)", err)
	}
	if got.String() != string(want) {
		t.Errorf("seed 7 no longer gives %s: the generator changed what a seed means (old findings' reproductions now run other shapes); if that is intended, SHAPES_UPDATE=1 go test ./cmd/nowhook/internal/shapes", golden)
	}
}

// TestEveryDimReachable: every dimension is exercised by some seed of the
// range, and by a fair share of them (so a sample of a few hundred
// shapes meets each).
func TestEveryDimReachable(t *testing.T) {
	count := map[Dim]int{}
	for seed := int64(1); seed <= seeds; seed++ {
		for _, d := range Generate(seed).Dims {
			count[d]++
		}
	}
	for _, d := range AllDims {
		switch n := count[d]; {
		case n == 0:
			t.Errorf("no seed in 1..%d exercises %s", seeds, d)
		case n < seeds/200:
			t.Errorf("only %d of %d seeds exercise %s", n, seeds, d)
		default:
			t.Logf("%-40s %4d of %d seeds", d, n, seeds)
		}
	}
}

// TestShapesAreValid: every shape of the range passes Check.
func TestShapesAreValid(t *testing.T) {
	for seed := int64(1); seed <= seeds; seed++ {
		s := Generate(seed)
		if err := s.Check(); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, s.Tree())
		}
	}
	for _, s := range Named() {
		if err := s.Check(); err != nil {
			t.Errorf("%s: %v\n%s", s.Name, err, s.Tree())
		}
	}
}

// TestCheckFails: Check finds what makes a shape invalid.
func TestCheckFails(t *testing.T) {
	good := Generate(3)
	for _, c := range []struct {
		name   string
		change func(*Shape)
		want   string
	}{
		{"twice", func(s *Shape) { s.Files = append(s.Files, s.Files[0]) }, "given twice"},
		{"dangling", func(s *Shape) { s.Files = append(s.Files, File{Path: "X.md", Link: "nowhere.md"}) }, "no such file"},
		{"outside", func(s *Shape) { s.Files = append(s.Files, File{Path: "X.md", Link: "../../etc/passwd"}) }, "leaves the repository"},
		{"marker twice", func(s *Shape) {
			s.Files = append(s.Files, File{Path: "X.md", Content: s.Markers[0].Token})
		}, "in 2 places"},
		{"unrecorded", func(s *Shape) { s.Files = append(s.Files, File{Path: "X.md", Content: "tmk_zz_1"}) }, "recorded"},
		{"trailing comma", func(s *Shape) {
			s.Files = append(s.Files, File{Path: ".claude/settings.local.json", Content: `{"a": 1,}`})
		}, "not strict JSON"},
		{"codex key", func(s *Shape) {
			s.Files = append(s.Files, File{Path: ".codex/hooks.json", Content: `{"$schema": "x", "hooks": {}}`})
		}, "makes Codex drop"},
		{"start", func(s *Shape) { s.Starts = append(s.Starts, Start{Dir: "nowhere", Kind: "package"}) }, "not a folder"},
	} {
		s := good
		s.Files = append([]File(nil), good.Files...)
		s.Starts = append([]Start(nil), good.Starts...)
		c.change(&s)
		err := s.Check()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Check() = %v, want an error saying %q", c.name, err, c.want)
		}
	}
}

// TestWriteMakesARepository: shapes written to disk are git repositories
// whose files, links and modes are the shape's, and git can commit them
// (local files stay untracked).
func TestWriteMakesARepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	for _, seed := range []int64{1, 2, 3, 5, 8, 13, 21, 34, 55, 89} {
		s := Generate(seed)
		dir := t.TempDir()
		if err := s.Write(dir); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, f := range s.Files {
			p := filepath.Join(dir, filepath.FromSlash(f.Path))
			fi, err := os.Lstat(p)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			if f.Link != "" {
				if fi.Mode()&os.ModeSymlink == 0 {
					t.Errorf("seed %d: %s is not a link", seed, f.Path)
				}
				if _, err := os.Stat(p); err != nil {
					t.Errorf("seed %d: link %s does not resolve: %v", seed, f.Path, err)
				}
				continue
			}
			b, _ := os.ReadFile(p)
			if string(b) != f.Content {
				t.Errorf("seed %d: %s holds other bytes than the shape", seed, f.Path)
			}
			if f.Exec != (fi.Mode()&0o111 != 0) {
				t.Errorf("seed %d: %s has mode %v", seed, f.Path, fi.Mode())
			}
		}
		env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1"}
		for _, args := range [][]string{
			{"init", "-q"}, {"add", "-A"},
			{"-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "shape"},
		} {
			cmd := exec.Command("git", args...)
			cmd.Dir, cmd.Env = dir, env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("seed %d: git %v: %v\n%s", seed, args, err, out)
			}
		}
		cmd := exec.Command("git", "ls-files")
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		tracked := map[string]bool{}
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			tracked[l] = true
		}
		for _, f := range s.Files {
			if f.Local == tracked[f.Path] {
				t.Errorf("seed %d: %s: local %v, tracked %v", seed, f.Path, f.Local, tracked[f.Path])
			}
		}
	}
}

// TestApplyAppendsBehind: an edit after setup lands after the groups in
// the file, keeps the rest, and creates what is missing.
func TestApplyAppendsBehind(t *testing.T) {
	e := Edit{Path: ".claude/settings.json", Pointer: "/hooks/SessionStart", Group: `{"matcher":"compact","hooks":[]}`}
	cur := "{\n  \"model\": \"x\", // kept\n  \"hooks\": {\"SessionStart\": [{\"matcher\": \"ours\", \"hooks\": []}]}\n}\n"
	out, err := e.Apply([]byte(cur))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "// kept") || strings.Index(string(out), "ours") > strings.Index(string(out), `"compact"`) {
		t.Errorf("Apply: %s", out)
	}
	out, err = e.Apply(nil)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Hooks map[string][]map[string]any `json:"hooks"`
	}
	if err := json.Unmarshal(out, &v); err != nil || len(v.Hooks["SessionStart"]) != 1 {
		t.Errorf("Apply on a missing file: %s (%v)", out, err)
	}
}

// TestMarkersFound: Find returns each marker of a shape's files once.
func TestMarkersFound(t *testing.T) {
	s := Generate(11)
	var all strings.Builder
	for _, f := range s.Files {
		all.WriteString(f.Content + f.Content)
	}
	for _, e := range s.After {
		all.WriteString(e.Group)
	}
	if got := Find(all.String()); len(got) != len(s.Markers) {
		t.Errorf("Find: %d tokens, the shape has %d markers", len(got), len(s.Markers))
	}
}
