//go:build unix

// Command hostile runs nowhook's setup, doctor and remove against
// repositories built to break them, and checks after every run what the
// writer promises: no command hangs or crashes, exit 2 writes nothing, not
// a byte of a file that was there before is lost, nothing is written
// outside the repository (nowhook's own state folder aside), and setup
// followed by remove gives every file back byte for byte. It prints, per
// category, the inputs tried, the failures and the bytes lost (the goal is
// 0), then each failure.
//
// It is a development script, run by hand (not by CI: it needs Linux, and
// for some categories root, strace, mkfifo and a tmpfs mount; a category
// whose tool is missing says so and is skipped):
//
//	go build -o /tmp/nowhook ./cmd/nowhook
//	go run ./scripts/hostile -nowhook /tmp/nowhook [-only links,special] [-keep]
//
// Categories: links, special (files that are not regular), sizes (and
// depths), concurrent (16 processes at once), kills (SIGKILL between a
// temporary file's write and its rename), errors (injected write errors:
// an immutable folder, a full tmpfs of a few KiB, EIO and ENOSPC on the
// Nth write, rename or fsync), records (tampered records), paths (odd
// bytes in paths), configs (bad configuration files).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

var (
	nowhook = flag.String("nowhook", "", "the nowhook binary to attack (required)")
	only    = flag.String("only", "", "comma-separated categories to run (default: all)")
	keep    = flag.Bool("keep", false, "keep the sandboxes of failed inputs")
	limit   = flag.Duration("limit", 30*time.Second, "the time one command may take before it counts as hung")
)

func main() {
	flag.Parse()
	if *nowhook == "" {
		fmt.Fprintln(os.Stderr, "hostile: -nowhook BINARY is required (go build -o /tmp/nowhook ./cmd/nowhook)")
		os.Exit(2)
	}
	abs, err := filepath.Abs(*nowhook)
	if err != nil {
		fatal(err)
	}
	*nowhook = abs
	base, err := os.MkdirTemp("", "nowhook-hostile-")
	if err != nil {
		fatal(err)
	}
	var results []*category
	for _, c := range categories() {
		if *only != "" && !strings.Contains(","+*only+",", ","+c.name+",") {
			continue
		}
		if c.needs != "" {
			if why := missing(c.needs); why != "" {
				fmt.Printf("%-11s skipped: %s\n", c.name, why)
				continue
			}
		}
		fmt.Fprintf(os.Stderr, "hostile: %s ...\n", c.name)
		c.base = filepath.Join(base, c.name)
		c.run(c)
		results = append(results, c)
	}
	fmt.Printf("\n| category | inputs tried | inputs failed | failed checks | bytes lost |\n|---|---|---|---|---|\n")
	total := category{name: "all"}
	failedInputs := 0
	for _, c := range results {
		fmt.Printf("| %s | %d | %d | %d | %d |\n", c.name, c.tried, c.failedInputs(), len(c.failures), c.lost)
		total.tried += c.tried
		total.lost += c.lost
		total.failures = append(total.failures, c.failures...)
		failedInputs += c.failedInputs()
	}
	fmt.Printf("| **all** | %d | %d | %d | %d |\n", total.tried, failedInputs, len(total.failures), total.lost)
	for _, c := range results {
		for _, f := range c.failures {
			fmt.Printf("\nFAIL %s/%s\n", c.name, f)
		}
	}
	if !*keep {
		os.RemoveAll(base)
	} else {
		fmt.Printf("\nsandboxes kept in %s\n", base)
	}
	if len(total.failures) > 0 || total.lost > 0 {
		os.Exit(1)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "hostile:", err)
	os.Exit(2)
}

// missing says why a category cannot run here ("" when it can): needs
// lists "root" and program names.
func missing(needs string) string {
	for _, n := range strings.Split(needs, ",") {
		if n == "root" {
			if os.Geteuid() != 0 {
				return "needs root"
			}
			continue
		}
		if _, err := exec.LookPath(n); err != nil {
			return "needs " + n
		}
	}
	return ""
}

// A category is a kind of attack and its tally.
type category struct {
	name, needs string
	run         func(*category)
	base        string
	tried       int
	failures    []string
	failed      map[string]bool
	lost        int64
}

func (c *category) fail(input, format string, args ...any) {
	c.failures = append(c.failures, input+": "+fmt.Sprintf(format, args...))
	if c.failed == nil {
		c.failed = map[string]bool{}
	}
	c.failed[input] = true
}

// failedInputs is how many inputs failed at least one check.
func (c *category) failedInputs() int { return len(c.failed) }

// sandbox is one input: a folder holding the repository (repo/), the home
// directory (home/) and files outside both (outside/), and what was there
// before the first command.
type sandbox struct {
	c      *category
	name   string
	dir    string
	repo   string
	home   string
	env    []string
	before map[string]entry
	failed bool
}

// entry is one path of a snapshot: its kind and content (a file's bytes,
// a link's target).
type entry struct {
	kind byte // 'f' file, 'd' folder, 'l' link, 's' special
	data []byte
	mode fs.FileMode
	uid  uint32
}

func (c *category) sandbox(name string) *sandbox {
	c.tried++
	dir := filepath.Join(c.base, fmt.Sprintf("%03d", c.tried))
	s := &sandbox{c: c, name: name, dir: dir, repo: filepath.Join(dir, "repo"), home: filepath.Join(dir, "home")}
	for _, d := range []string{s.repo + "/.git", s.home, filepath.Join(dir, "outside")} {
		must(os.MkdirAll(d, 0o755))
	}
	s.write(".kanbus.yml", "project_key: kbs\n")
	s.env = []string{"PATH=/usr/bin:/bin", "HOME=" + s.home, "LANG=C.UTF-8", "NOWHOOK_LOCK_WAIT=20s"}
	return s
}

func must(err error) {
	if err != nil {
		fatal(err)
	}
}

// write writes a file of the sandbox: a path relative to the repository,
// or starting with ~/ (home) or ../ (beside the repository).
func (s *sandbox) write(rel, content string) { s.writeMode(rel, content, 0o644) }

func (s *sandbox) writeMode(rel, content string, mode fs.FileMode) {
	p := s.path(rel)
	must(os.MkdirAll(filepath.Dir(p), 0o755))
	must(os.WriteFile(p, []byte(content), mode))
}

func (s *sandbox) path(rel string) string {
	if r, ok := strings.CutPrefix(rel, "~/"); ok {
		return filepath.Join(s.home, r)
	}
	return filepath.Join(s.repo, rel)
}

func (s *sandbox) link(rel, target string) {
	p := s.path(rel)
	must(os.MkdirAll(filepath.Dir(p), 0o755))
	must(os.Symlink(target, p))
}

func (s *sandbox) sh(script string) {
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = s.repo
	cmd.Env = append(os.Environ(), "HOME="+s.home)
	if out, err := cmd.CombinedOutput(); err != nil {
		fatal(fmt.Errorf("%s: %s: %v\n%s", s.name, script, err, out))
	}
}

// snapshot records every path under the sandbox, but nowhook's own state:
// its record and lock in the git directory and its state folder.
func (s *sandbox) snapshot() map[string]entry {
	out := map[string]entry{}
	filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(s.dir, p)
		if ours(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := os.Lstat(p)
		if err != nil {
			return nil
		}
		e := entry{mode: info.Mode()}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			e.uid = st.Uid
		}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			e.kind = 'l'
			t, _ := os.Readlink(p)
			e.data = []byte(t)
		case info.IsDir():
			e.kind = 'd'
		case info.Mode().IsRegular():
			e.kind = 'f'
			e.data, _ = os.ReadFile(p)
		default:
			e.kind = 's'
		}
		out[rel] = e
		return nil
	})
	return out
}

// ours reports whether a sandbox path is nowhook's own state, which it
// may write: the record, lock and rescue copies in the git directory,
// and its state folder in the home directory.
func ours(rel string) bool {
	if rel == "home/.local" || rel == "home/.local/state" { // the XDG state home nowhook's folder lives in
		return false
	}
	for _, p := range []string{"repo/.git/nowhook", "home/.local/state/nowhook", "repo/.git/nowhook.lock"} {
		if rel == p || strings.HasPrefix(rel, p+"/") || strings.HasPrefix(rel, p+".") {
			return true
		}
	}
	return strings.Contains(rel, "/.git/nowhook") || strings.Contains(rel, "/.local/state/nowhook")
}

// result is one command's run.
type result struct {
	code     int
	out, err string
	hung     bool
}

func (s *sandbox) run(args ...string) result {
	return s.runIn(s.repo, args...)
}

func (s *sandbox) runIn(dir string, args ...string) result {
	cmd := exec.Command(*nowhook, args...)
	cmd.Dir = dir
	cmd.Env = s.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	r := result{}
	select {
	case <-done:
	case <-time.After(*limit):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		r.hung = true
	}
	r.code = cmd.ProcessState.ExitCode()
	r.out, r.err = out.String(), errb.String()
	return r
}

// check is what every command must keep: it ends in time, does not crash,
// exits 0, 1 or 2 (2 only with "Nothing was written." and nothing
// changed), writes nothing outside the repository unless outsideOK, and
// loses no byte of a file that was there before (a file whose old bytes
// are no longer all there, in order, counts the missing ones as lost).
func (s *sandbox) check(what string, r result, prev map[string]entry, outsideOK bool) {
	after := s.snapshot()
	if d := diffSnap(prev, after); r.code == 2 && d != "" {
		s.failf("%s refused (exit 2) but changed %s", what, d)
	}
	if !outsideOK {
		for rel, a := range after {
			p, ok := prev[rel]
			xdg := strings.HasSuffix(rel, "/.local") || strings.HasSuffix(rel, "/.local/state") // made for nowhook's state folder
			if !strings.HasPrefix(rel, "repo/") && !xdg && (!ok || p.kind != a.kind || !bytes.Equal(p.data, a.data)) {
				s.failf("%s wrote %s, outside the repository", what, rel)
			}
		}
	}
	crash := strings.Contains(r.err, "goroutine ") || strings.Contains(r.err, "panic:") || strings.Contains(r.err, "fatal error")
	switch {
	case r.hung:
		s.failf("%s hung (killed after %s)", what, *limit)
	case crash:
		s.failf("%s crashed: %.200s", what, r.err)
	case r.code < 0 || r.code > 2:
		s.failf("%s exited %d: %.200s", what, r.code, r.err)
	case r.code == 2 && !strings.Contains(r.err, "Nothing was written."):
		s.failf("%s exited 2 without saying nothing was written: %.200s", what, r.err)
	}
	for rel, b := range s.before {
		a, ok := after[rel]
		lost := int64(0)
		switch {
		case !ok && b.kind == 'f':
			lost = int64(len(b.data))
		case !ok:
			if !strings.HasPrefix(rel, "repo/") || b.kind != 'd' {
				s.failf("%s deleted %s, which was there before", what, rel)
			}
		case b.kind == 'f' && a.kind == 'f':
			lost = missingBytes(b.data, a.data)
		case b.kind != a.kind:
			s.failf("%s made %s a %c (it was a %c)", what, rel, a.kind, b.kind)
		case b.kind == 'l' && !bytes.Equal(a.data, b.data):
			s.failf("%s changed the link %s", what, rel)
		}
		if ok && b.uid != a.uid {
			s.failf("%s changed the owner of %s (%d -> %d)", what, rel, b.uid, a.uid)
		}
		if lost > 0 {
			s.c.lost += lost
			s.failf("%s lost %d bytes of %s", what, lost, rel)
		}
	}
}

// roundTrip checks, after remove, that every path that was there before
// is there again, byte for byte, and that nothing else is (folders
// nowhook made gone too).
func (s *sandbox) roundTrip(what string) {
	after := s.snapshot()
	for rel, b := range s.before {
		a, ok := after[rel]
		if !ok || a.kind != b.kind || !bytes.Equal(a.data, b.data) || (b.kind == 'f' && a.mode.Perm() != b.mode.Perm()) {
			s.failf("%s: %s is not as it was before setup", what, rel)
		}
	}
	for rel := range after {
		_, ok := s.before[rel]
		// A FILE.bak is setup --force keeping the user's old file, and the
		// XDG state home is where nowhook's own folder was made.
		if !ok && !strings.HasSuffix(rel, ".bak") && !strings.HasSuffix(rel, "/.local") && !strings.HasSuffix(rel, "/.local/state") {
			s.failf("%s: %s is left over", what, rel)
		}
	}
}

func (s *sandbox) failf(format string, args ...any) {
	s.failed = true
	s.c.fail(s.name, format, args...)
}

// missingBytes is how many bytes of old are not found, in order, in now
// (0 when now only adds to old).
func missingBytes(old, now []byte) int64 {
	if bytes.Equal(old, now) {
		return 0
	}
	i := 0
	for j := 0; j < len(now) && i < len(old); j++ {
		if now[j] == old[i] {
			i++
		}
	}
	return int64(len(old) - i)
}

// cycle is the generic attack: setup, doctor, remove, each checked, and
// setup then remove giving everything back when setup succeeded.
func (s *sandbox) cycle(agents string, extra ...string) {
	s.before = s.snapshot()
	setup := s.step(false, append([]string{"setup", "--yes", "--agents", agents}, extra...)...)
	s.readOnly("doctor")
	s.readOnly("setup", "--check", "--agents", agents)
	remove := s.step(false, append([]string{"remove", "--yes"}, extra...)...)
	if setup.code == 0 && remove.code == 0 {
		s.roundTrip("setup then remove")
	}
	s.done()
}

// step runs one command and checks it against the state just before.
func (s *sandbox) step(outsideOK bool, args ...string) result {
	prev := s.snapshot()
	r := s.run(args...)
	s.check(strings.Join(args, " "), r, prev, outsideOK)
	return r
}

// readOnly runs a command that must change nothing at all.
func (s *sandbox) readOnly(args ...string) result {
	prev := s.snapshot()
	r := s.run(args...)
	s.check(strings.Join(args, " "), r, prev, false)
	if d := diffSnap(prev, s.snapshot()); d != "" {
		s.failf("%s changed %s", strings.Join(args, " "), d)
	}
	return r
}

func (s *sandbox) done() {
	if !s.failed && !*keep {
		os.RemoveAll(s.dir)
	}
}

func diffSnap(a, b map[string]entry) string {
	for k, x := range a {
		y, ok := b[k]
		if !ok || x.kind != y.kind || !bytes.Equal(x.data, y.data) {
			return k
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			return k + " (new)"
		}
	}
	return ""
}
