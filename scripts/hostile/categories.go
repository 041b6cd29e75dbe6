//go:build unix

package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

func categories() []*category {
	return []*category{
		{name: "links", run: links},
		{name: "special", needs: "mkfifo", run: special},
		{name: "sizes", run: sizes},
		{name: "concurrent", run: concurrent},
		{name: "kills", needs: "strace", run: kills},
		{name: "errors", needs: "root,strace,chattr,mount", run: injected},
		{name: "records", run: records},
		{name: "paths", run: paths},
		{name: "configs", run: configs},
	}
}

const settings = "{\n  \"model\": \"opus\",\n  \"permissions\": {\"allow\": [\"Bash(ls)\"]}\n}\n"

// links: every way a link can lead a write out of the repository.
func links(c *category) {
	victim := func(s *sandbox) { s.write("../outside/victim", "precious outside data\n") }
	for _, tc := range []struct {
		name   string
		agents string
		make   func(*sandbox)
		extra  []string
	}{
		{"script path -> outside file", "claude", func(s *sandbox) {
			victim(s)
			s.link(".claude/hooks/kanbus-compaction-right-now.sh", "../../../outside/victim")
		}, nil},
		{"script path -> outside file, --force", "claude", func(s *sandbox) {
			victim(s)
			s.link(".claude/hooks/kanbus-compaction-right-now.sh", "../../../outside/victim")
		}, []string{"--force"}},
		{"codex script path -> outside file, --force", "codex", func(s *sandbox) {
			victim(s)
			s.link(".codex/hooks/kanbus-compaction-right-now.sh", "../../../outside/victim")
		}, []string{"--force"}},
		{".claude -> outside folder", "claude", func(s *sandbox) {
			s.write("../outside/claude/settings.json", settings)
			s.link(".claude", "../outside/claude")
		}, nil},
		{".claude -> ~/.claude", "claude", func(s *sandbox) {
			s.write("~/.claude/settings.json", settings)
			s.link(".claude", s.home+"/.claude")
		}, nil},
		{".claude -> ~/.claude, --follow-outside-links", "claude", func(s *sandbox) {
			s.write("~/.claude/settings.json", settings)
			s.link(".claude", s.home+"/.claude")
		}, []string{"--follow-outside-links"}},
		{".claude -> ~, --follow-outside-links", "claude", func(s *sandbox) { s.link(".claude", s.home) }, []string{"--follow-outside-links"}},
		{"settings.json -> ~/.claude/settings.json via a second link", "claude", func(s *sandbox) {
			s.write("~/.claude/settings.json", settings)
			s.link("homelink", s.home)
			s.link(".claude/settings.json", "../homelink/.claude/settings.json")
		}, []string{"--follow-outside-links"}},
		{"settings.json hard link to ~/.claude/settings.json", "claude", func(s *sandbox) {
			s.write("~/.claude/settings.json", settings)
			must(os.MkdirAll(s.path(".claude"), 0o755))
			must(os.Link(s.path("~/.claude/settings.json"), s.path(".claude/settings.json")))
		}, nil},
		{".codex -> ~/.codex", "codex", func(s *sandbox) {
			s.write("~/.codex/config.toml", "model = \"o3\"\n")
			s.link(".codex", s.home+"/.codex")
		}, []string{"--follow-outside-links"}},
		{"dangling .claude", "claude", func(s *sandbox) { s.link(".claude", "../outside/nowhere/deep") }, nil},
		{"dangling script link", "claude", func(s *sandbox) {
			s.link(".claude/hooks/kanbus-compaction-right-now.sh", "../../../outside/a/b/c.sh")
		}, nil},
		{"dangling absolute script link", "claude", func(s *sandbox) {
			s.link(".claude/hooks/kanbus-compaction-right-now.sh", filepath.Join(s.dir, "outside/x/y.sh"))
		}, nil},
		{"AGENTS.md -> outside file", "codex", func(s *sandbox) {
			s.write("../outside/AGENTS.md", "# shared rules\n")
			s.link("AGENTS.md", "../outside/AGENTS.md")
		}, nil},
		{"CLAUDE.md -> outside file", "claude", func(s *sandbox) {
			s.write("../outside/CLAUDE.md", "# shared\n")
			s.link("CLAUDE.md", "../outside/CLAUDE.md")
		}, nil},
		{"link loop", "claude", func(s *sandbox) { s.link(".claude", ".claude") }, nil},
		{"two-link loop", "claude", func(s *sandbox) { s.link(".claude", "x"); s.link("x", ".claude") }, nil},
		{".claude -> ..", "claude", func(s *sandbox) { s.link(".claude", "..") }, nil},
		{".claude -> /", "claude", func(s *sandbox) { s.link(".claude", "/") }, nil},
		{"link inside the repository (dotfiles in the repo)", "claude", func(s *sandbox) {
			s.write("dotfiles/claude.json", settings)
			s.link(".claude/settings.json", "../dotfiles/claude.json")
		}, nil},
		{"AGENTS.md -> CLAUDE.md", "claude,codex", func(s *sandbox) {
			s.write("CLAUDE.md", "# rules\n")
			s.link("AGENTS.md", "CLAUDE.md")
		}, nil},
		{".claude -> outside folder, --follow-outside-links", "claude", func(s *sandbox) {
			s.write("../outside/claude/settings.json", settings)
			s.link(".claude", "../outside/claude")
		}, []string{"--follow-outside-links"}},
		{"script -> outside file, --force --follow-outside-links", "claude", func(s *sandbox) {
			victim(s)
			s.link(".claude/hooks/kanbus-compaction-right-now.sh", "../../../outside/victim")
		}, []string{"--force", "--follow-outside-links"}},
	} {
		s := c.sandbox(tc.name)
		tc.make(s)
		flagged := strings.Contains(strings.Join(tc.extra, " "), "--follow-outside-links")
		s.before = s.snapshot()
		setup := s.step(flagged, append([]string{"setup", "--yes", "--agents", tc.agents}, tc.extra...)...)
		s.readOnly("doctor")
		remove := s.step(flagged, "remove", "--yes")
		if setup.code == 0 && remove.code == 0 {
			s.roundTrip("setup then remove")
		}
		s.done()
	}
	// User scope: ~/.claude/settings.json linked out of ~/.claude.
	for _, extra := range [][]string{nil, {"--follow-outside-links"}} {
		s := c.sandbox("user scope: ~/.claude/settings.json -> ~/dotfiles " + strings.Join(extra, " "))
		s.write("~/dotfiles/claude.json", settings)
		s.link("~/.claude/settings.json", "../dotfiles/claude.json")
		s.before = s.snapshot()
		setup := s.step(true, append([]string{"setup", "--scope", "user", "--agents", "claude", "--yes"}, extra...)...)
		if extra == nil && setup.code != 2 {
			s.failf("setup --scope user wrote through a link out of ~/.claude without the flag (exit %d)", setup.code)
		}
		remove := s.step(true, "remove", "--scope", "user", "--yes")
		if setup.code == 0 && remove.code == 0 {
			s.roundTrip("setup then remove")
		}
		s.done()
	}
}

// special: files that are not regular, where nowhook reads.
func special(c *category) {
	places := []struct{ rel, agents string }{
		{".claude/settings.json", "claude"},
		{".claude/settings.local.json", "claude"},
		{"CLAUDE.md", "claude"},
		{"AGENTS.md", "codex"},
		{".codex/hooks.json", "codex"},
		{".codex/config.toml", "codex"},
		{"~/.codex/config.toml", "codex"},
		{".claude/hooks/kanbus-compaction-right-now.sh", "claude"},
		{".qwen/settings.json", "qwen"},
		{".gemini/settings.json", "gemini"},
		{".git/nowhook.lock", "claude"},
	}
	for _, p := range places {
		for _, kind := range []string{"fifo", "socket", "/dev/zero", "/dev/null", "directory"} {
			s := c.sandbox(kind + " at " + p.rel)
			path := s.path(p.rel)
			must(os.MkdirAll(filepath.Dir(path), 0o755))
			switch kind {
			case "fifo":
				must(syscall.Mkfifo(path, 0o644))
			case "socket":
				l, err := net.Listen("unix", path)
				if err != nil {
					s.c.tried--
					continue
				}
				defer l.Close()
			case "directory":
				must(os.Mkdir(path, 0o755))
			default:
				must(os.Symlink(kind, path))
			}
			s.cycle(p.agents)
		}
	}
}

// sizes: large files and deep nesting.
func sizes(c *category) {
	deep := func(n int, open, close string) string {
		return `{"a": ` + strings.Repeat(open, n) + strings.Repeat(close, n) + "}"
	}
	for _, tc := range []struct{ name, rel, content, agents string }{
		{"1M nested arrays", ".claude/settings.json", deep(1_000_000, "[", "]"), "claude"},
		{"1M nested objects", ".claude/settings.json", `{"x": ` + strings.Repeat(`{"a": `, 1_000_000) + "1" + strings.Repeat("}", 1_000_000) + "}", "claude"},
		{"10,000 levels (nowhook's limit)", ".claude/settings.json", deep(9_999, "[", "]"), "claude"},
		{"10,001 levels", ".claude/settings.json", deep(10_000, "[", "]"), "claude"},
		{"1M brackets in a string", ".claude/settings.json", `{"s": "` + strings.Repeat("[", 1_000_000) + `"}`, "claude"},
		{"1M nested arrays in codex hooks.json", ".codex/hooks.json", deep(1_000_000, "[", "]"), "codex"},
		{"1M nested arrays in gemini settings", ".gemini/settings.json", deep(1_000_000, "[", "]"), "gemini"},
		{"1M nested arrays in qwen settings", ".qwen/settings.json", deep(1_000_000, "[", "]"), "qwen"},
		{"1M nested arrays in TOML", ".codex/config.toml", "a = " + strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000) + "\n", "codex"},
		{"9 MiB settings", ".claude/settings.json", `{"pad": "` + strings.Repeat("x", 9<<20) + `"}`, "claude"},
		{"8 MiB settings exactly", ".claude/settings.json", `{"pad": "` + strings.Repeat("x", 8<<20-12) + `"}`, "claude"},
		{"50 MiB settings", ".claude/settings.json", `{"pad": "` + strings.Repeat("x", 50<<20) + `"}`, "claude"},
		{"9 MiB AGENTS.md", "AGENTS.md", strings.Repeat("rule line\n", 9<<20/10), "codex"},
		{"one 5 MiB line in CLAUDE.md", "CLAUDE.md", strings.Repeat("y", 5<<20), "claude"},
		{"empty settings", ".claude/settings.json", "", "claude"},
		{"white space settings", ".claude/settings.json", "\n \t\n", "claude"},
		{"empty AGENTS.md", "AGENTS.md", "", "codex"},
	} {
		s := c.sandbox(tc.name)
		s.write(tc.rel, tc.content)
		s.cycle(tc.agents)
	}
}

// concurrent: 16 nowhook processes at once on one repository.
func concurrent(c *category) {
	for round := 0; round < 5; round++ {
		s := c.sandbox(fmt.Sprintf("round %d: 8 setups and 8 removes at once", round))
		s.write(".claude/settings.json", settings)
		s.write("CLAUDE.md", "# rules\n")
		s.before = s.snapshot()
		var wg sync.WaitGroup
		results := make([]result, 16)
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if i%2 == 0 {
					results[i] = s.run("setup", "--yes", "--agents", "claude,codex")
				} else {
					results[i] = s.run("remove", "--yes")
				}
			}()
		}
		wg.Wait()
		prev := s.before
		for i, r := range results {
			s.check(fmt.Sprintf("process %d", i), r, prev, false)
			if r.code == 1 && !strings.Contains(r.err, "another nowhook is changing") {
				s.failf("process %d failed: %.300s", i, r.err)
			}
		}
		// Whatever order they ran in, the state is whole: a hook entry has
		// its executable wrapper.
		if b, err := os.ReadFile(s.path(".claude/settings.json")); err == nil && strings.Contains(string(b), "kanbus-compaction-right-now") {
			if info, err := os.Stat(s.path(".claude/hooks/kanbus-compaction-right-now.sh")); err != nil || info.Mode()&0o111 == 0 {
				s.failf("a hook entry without its executable wrapper")
			}
		}
		remove := s.step(false, "remove", "--yes")
		if remove.code == 0 {
			s.roundTrip("the last remove")
		}
		s.done()
	}
	// A second setup while one holds the lock: it waits its turn.
	s := c.sandbox("a setup while a remove holds the lock")
	s.before = s.snapshot()
	holder := exec.Command("python3", "-c", "import fcntl,sys,time; f=open(sys.argv[1],'w'); fcntl.flock(f,fcntl.LOCK_EX); f.write('pid 1\\ncommand held\\n'); f.flush(); print('held',flush=True); time.sleep(30)", filepath.Join(s.repo, ".git", "nowhook.lock"))
	out, _ := holder.StdoutPipe()
	if holder.Start() == nil {
		buf := make([]byte, 5)
		out.Read(buf)
		s.env = append(s.env, "NOWHOOK_LOCK_WAIT=0")
		r := s.run("setup", "--yes", "--agents", "claude")
		holder.Process.Kill()
		holder.Wait()
		if r.code != 1 || !strings.Contains(r.err, "another nowhook is changing this repository: pid 1 (held)") {
			s.failf("setup with the lock held: exit %d: %.200s", r.code, r.err)
		}
		s.check("setup with the lock held", r, s.before, false)
	}
	s.done()
}

// kills: SIGKILL on a rename's entry, when the temporary file is written
// and not yet renamed: the file itself must be as it was, the next run
// must clean the leftover and finish, and remove must give everything
// back.
func kills(c *category) {
	for n := 1; n <= 8; n++ {
		for _, verb := range []string{"setup", "remove"} {
			s := c.sandbox(fmt.Sprintf("%s killed at rename %d", verb, n))
			s.write(".claude/settings.json", settings)
			s.write("CLAUDE.md", "# rules\n")
			s.write("AGENTS.md", "# agents\n")
			s.before = s.snapshot()
			if verb == "remove" {
				s.step(false, "setup", "--yes", "--agents", "claude,codex")
			}
			prev := s.snapshot()
			args := []string{"-f", "-qq", "-o", "/dev/null", "-e", "trace=renameat,rename,renameat2", "-e", fmt.Sprintf("inject=renameat,rename,renameat2:signal=SIGKILL:when=%d", n), *nowhook}
			if verb == "setup" {
				args = append(args, "setup", "--yes", "--agents", "claude,codex")
			} else {
				args = append(args, "remove", "--yes")
			}
			cmd := exec.Command("strace", args...)
			cmd.Dir, cmd.Env = s.repo, s.env
			cmd.Run()
			s.check(verb+" killed", result{code: 1}, prev, false)
			// The files it changed before the kill are whole: each is old or new.
			again := s.step(false, verb, "--yes", "--agents", "claude,codex")
			if verb == "remove" {
				again = s.step(false, "remove", "--yes")
			}
			if again.code != 0 {
				s.failf("%s after the kill: exit %d: %.300s", verb, again.code, again.err)
			}
			left := 0
			filepath.WalkDir(s.repo, func(p string, d os.DirEntry, err error) error {
				if err == nil && strings.Contains(d.Name(), ".nowhook-") && !strings.Contains(p, "/.git/") {
					left++
				}
				return nil
			})
			if left > 0 {
				s.failf("%d temporary files left after the next run", left)
			}
			if remove := s.step(false, "remove", "--yes"); remove.code == 0 {
				s.roundTrip("remove after the kill")
			}
			s.done()
		}
	}
}

// injected: write errors at every step.
func injected(c *category) {
	// An immutable folder: the write fails after the checks passed.
	for _, dir := range []string{".claude", ".", ".codex"} {
		s := c.sandbox("immutable " + dir)
		s.write(".claude/settings.json", settings)
		s.write(".codex/hooks.json", `{"hooks": {}}`+"\n")
		s.write("AGENTS.md", "# agents\n")
		s.before = s.snapshot()
		s.sh("chattr +i " + dir)
		r := s.run("setup", "--yes", "--agents", "claude,codex")
		s.sh("chattr -i " + dir)
		s.check("setup into an immutable folder", r, s.before, false)
		if r.code == 0 {
			s.failf("setup into an immutable %s succeeded", dir)
		} else if d := diffSnap(s.before, s.snapshot()); d != "" {
			s.failf("a failed setup left %s changed (its rollback said: %.300s)", d, r.err)
		}
		s.done()
	}
	// A full tmpfs: the repository on a small file system, filled to
	// several levels, so that some write runs out of room.
	for _, free := range []int{0, 4, 8, 12, 16, 24, 32, 48} {
		s := c.sandbox(fmt.Sprintf("tmpfs with %d KiB free", free))
		mnt := filepath.Join(s.dir, "repo")
		must(os.RemoveAll(mnt))
		must(os.MkdirAll(mnt, 0o755))
		s.sh("mount -t tmpfs -o size=256k tmpfs " + mnt)
		must(os.MkdirAll(filepath.Join(mnt, ".git"), 0o755))
		s.write(".kanbus.yml", "project_key: kbs\n")
		s.write(".claude/settings.json", `{"pad": "`+strings.Repeat("x", 20000)+`"}`+"\n")
		s.write("CLAUDE.md", "# rules\n")
		s.sh(fmt.Sprintf("python3 -c \"import os; st=os.statvfs('.'); free=st.f_bavail*st.f_frsize; open('fill','wb').write(b'x'*max(0, free-%d))\"", free*1024))
		s.before = s.snapshot()
		r := s.run("setup", "--yes", "--agents", "claude")
		s.check("setup on a full disk", r, s.before, false)
		if r.code != 0 {
			if d := diffSnap(s.before, s.snapshot()); d != "" && !strings.Contains(r.err, "could not be undone") {
				s.failf("a failed setup left %s changed and did not say so: %.300s", d, r.err)
			}
		}
		if r.code == 0 {
			remove := s.step(false, "remove", "--yes")
			if remove.code == 0 {
				s.roundTrip("setup then remove")
			}
		}
		exec.Command("umount", "-l", mnt).Run()
		s.done()
	}
	// EIO or ENOSPC on the Nth write, rename, fsync, mkdir or open: once
	// (then every earlier step must be undone, or the error must say which
	// was not), or from then on (nothing can be put back then, nor said
	// once writes to stderr fail too: no byte may be lost all the same).
	// openat starts late: the first opens are the dynamic loader's.
	for _, call := range []string{"write", "renameat", "fsync", "mkdirat", "openat"} {
		for _, errno := range []string{"EIO", "ENOSPC"} {
			for _, n := range []int{2, 4, 6, 9} {
				if call == "openat" {
					n *= 10
				}
				for _, from := range []bool{false, true} {
					when := fmt.Sprint(n)
					if from {
						when += "+"
					}
					s := c.sandbox(fmt.Sprintf("%s fails with %s at call %s", call, errno, when))
					s.write(".claude/settings.json", settings)
					s.write("CLAUDE.md", "# rules\n")
					s.before = s.snapshot()
					cmd := exec.Command("strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace="+call, "-e", fmt.Sprintf("inject=%s:error=%s:when=%s", call, errno, when), *nowhook, "setup", "--yes", "--agents", "claude,codex")
					cmd.Dir, cmd.Env = s.repo, s.env
					var errb strings.Builder
					cmd.Stderr = &errb
					cmd.Run()
					code := cmd.ProcessState.ExitCode()
					r := result{code: code, err: errb.String()}
					s.check("setup with injected "+errno, r, s.before, false)
					written := strings.Contains(r.err, "The files were written")
					if code != 0 && !written && !from {
						if d := diffSnap(s.before, s.snapshot()); d != "" && !strings.Contains(r.err, "could not be undone") {
							s.failf("a failed setup left %s changed and did not say so: %.300s", d, r.err)
						}
					}
					if code == 0 || written {
						if remove := s.step(false, "remove", "--yes"); remove.code == 0 {
							s.roundTrip("setup then remove")
						}
					}
					s.done()
				}
			}
		}
	}
}

// records: tampered records of what nowhook created.
func records(c *category) {
	rec := func(s *sandbox) string {
		// The record's name is its root's hash; setup writes it, so find it.
		s.run("setup", "--yes", "--agents", "claude")
		m, _ := filepath.Glob(filepath.Join(s.repo, ".git", "nowhook", "created-*"))
		for _, p := range m {
			if !strings.HasSuffix(p, ".saved") {
				return p
			}
		}
		return ""
	}
	for _, tc := range []struct {
		name    string
		content func(s *sandbox) string
	}{
		{"garbage", func(*sandbox) string { return "\x00\xff\xfe garbage\n\n###\nz z z\n" }},
		{"claims an outside file", func(s *sandbox) string { return "f " + filepath.Join(s.dir, "outside/victim") + "\n" }},
		{"claims outside folders", func(s *sandbox) string {
			return "d " + filepath.Join(s.dir, "outside") + "\no " + filepath.Join(s.dir, "outside") + "\nd /\nd " + s.home + "\n"
		}},
		{"claims the user's settings", func(s *sandbox) string {
			return "f " + s.home + "/.claude/settings.json\nk " + s.home + "/.claude/settings.json\n"
		}},
		{"huge", func(*sandbox) string { return strings.Repeat("f /x/"+strings.Repeat("y", 100)+"\n", 100_000) }},
		{"unterminated quotes", func(*sandbox) string { return "f \"/x\nc \"/y#hooks\ne \"/z\" \"not\n" }},
		{"blank that is not blank", func(s *sandbox) string {
			return "e \"" + s.repo + "/.claude/settings.json\" \"{\\\"evil\\\": 1}\"\n"
		}},
	} {
		s := c.sandbox("record: " + tc.name)
		s.write(".claude/settings.json", settings)
		s.write("../outside/victim", "precious\n")
		s.write("~/.claude/settings.json", settings)
		s.before = s.snapshot()
		path := rec(s)
		if path == "" {
			s.failf("setup wrote no record")
			s.done()
			continue
		}
		must(os.WriteFile(path, []byte(tc.content(s)), 0o644))
		s.step(false, "remove", "--yes")
		s.step(false, "setup", "--yes", "--agents", "claude")
		s.step(false, "remove", "--yes")
		s.done()
	}
	for _, kind := range []string{"fifo", "directory", "link to outside"} {
		s := c.sandbox("record is a " + kind)
		s.write(".claude/settings.json", settings)
		s.write("../outside/victim", "precious\n")
		s.before = s.snapshot()
		path := rec(s)
		os.Remove(path)
		switch kind {
		case "fifo":
			must(syscall.Mkfifo(path, 0o644))
		case "directory":
			must(os.Mkdir(path, 0o755))
		default:
			must(os.Symlink(filepath.Join(s.dir, "outside/victim"), path))
		}
		s.step(false, "remove", "--yes")
		s.done()
	}
}

// paths: odd bytes in the repository's and the home's paths.
func paths(c *category) {
	for _, name := range []string{"re\npo", "re po", "it's", `a"b`, `back\slash`, "$HOME", "`x`", "-dash", "ünïcödé", "tab\there", "semi;colon", "star*", strings.Repeat("long", 50), "'and!'", "trail "} {
		s := c.sandbox("repository named " + fmt.Sprintf("%q", name))
		odd := filepath.Join(s.dir, name)
		must(os.MkdirAll(filepath.Join(odd, ".git"), 0o755))
		must(os.WriteFile(filepath.Join(odd, ".kanbus.yml"), []byte("project_key: kbs\n"), 0o644))
		must(os.WriteFile(filepath.Join(odd, "CLAUDE.md"), []byte("# rules\n"), 0o644))
		s.before = s.snapshot()
		for _, args := range [][]string{{"setup", "--yes", "--agents", "claude,codex"}, {"doctor"}, {"remove", "--yes"}} {
			prev := s.snapshot()
			r := s.runIn(odd, args...)
			s.checkOdd(strings.Join(args, " "), r, prev, odd)
		}
		s.roundTrip("setup then remove")
		s.done()
	}
	s := c.sandbox("home with a newline and a space")
	s.home = filepath.Join(s.dir, "ho me\nx")
	must(os.MkdirAll(s.home, 0o755))
	s.env = []string{"PATH=/usr/bin:/bin", "HOME=" + s.home, "NOWHOOK_LOCK_WAIT=20s"}
	s.before = s.snapshot()
	setup := s.step(true, "setup", "--scope", "user", "--agents", "claude", "--yes")
	remove := s.step(true, "remove", "--scope", "user", "--yes")
	if setup.code == 0 && remove.code == 0 {
		s.roundTrip("user scope setup then remove")
	}
	s.done()
}

// checkOdd is check for a repository that is not repo/.
func (s *sandbox) checkOdd(what string, r result, prev map[string]entry, odd string) {
	rel, _ := filepath.Rel(s.dir, odd)
	keep := s.repo
	s.repo = odd
	// The outside check counts paths under repo/: count the odd folder.
	after := s.snapshot()
	for p, a := range after {
		if b, ok := prev[p]; !strings.HasPrefix(p, rel+"/") && !ours(p) && (!ok || b.kind != a.kind || string(b.data) != string(a.data)) && !strings.HasPrefix(p, "home/.local/state/nowhook") {
			s.failf("%s wrote %s, outside the repository", what, p)
		}
	}
	s.repo = keep
	if r.hung || r.code < 0 || r.code > 2 || strings.Contains(r.err, "goroutine ") {
		s.failf("%s: exit %d hung %v: %.200s", what, r.code, r.hung, r.err)
	}
}

// configs: bad configuration files, each refused or read without harm.
func configs(c *category) {
	for _, tc := range []struct{ name, rel, content, agents string }{
		{"invalid JSON", ".claude/settings.json", `{"model": `, "claude"},
		{"a comment in strict JSON", ".claude/settings.json", "{\n  // mine\n  \"model\": \"opus\"\n}\n", "claude"},
		{"trailing comma", ".claude/settings.json", "{\"model\": \"opus\",}\n", "claude"},
		{"hooks is an array", ".claude/settings.json", `{"hooks": []}`, "claude"},
		{"SessionStart is an object", ".claude/settings.json", `{"hooks": {"SessionStart": {}}}`, "claude"},
		{"hooks is null", ".claude/settings.json", `{"hooks": null}`, "claude"},
		{"top level null", ".claude/settings.json", "null", "claude"},
		{"top level array", ".claude/settings.json", "[]", "claude"},
		{"top level string", ".claude/settings.json", `"x"`, "claude"},
		{"duplicate keys", ".claude/settings.json", `{"hooks": {}, "hooks": {}}`, "claude"},
		{"BOM", ".claude/settings.json", "\xef\xbb\xbf" + settings, "claude"},
		{"CRLF", ".claude/settings.json", strings.ReplaceAll(settings, "\n", "\r\n"), "claude"},
		{"NUL bytes", ".claude/settings.json", "{\"a\": \"\x00\"}", "claude"},
		{"not UTF-8", ".claude/settings.json", "{\"a\": \"\xff\"}", "claude"},
		{"1e400", ".claude/settings.json", `{"n": 1e400}`, "claude"},
		{"one line, no newline", ".claude/settings.json", `{"model":"opus"}`, "claude"},
		{"broken TOML", ".codex/config.toml", "[[[", "codex"},
		{"hooks is a string in TOML", ".codex/config.toml", "hooks = \"x\"\n", "codex"},
		{"broken user TOML", "~/.codex/config.toml", "= =\n", "codex"},
		{"codex hooks.json with an unknown key", ".codex/hooks.json", `{"hooks": {}, "x": 1}`, "codex"},
		{"garbage .kanbus.yml", ".kanbus.yml", "\x00\x01: [", "claude"},
		{"CLAUDE.md with a half block", "CLAUDE.md", "# rules\n<!-- nowhook:begin compact-instructions v4 -->\nmine\n", "claude"},
		{"CLAUDE.md with a newer block", "CLAUDE.md", "<!-- nowhook:begin compact-instructions v99 -->\nx\n<!-- nowhook:end compact-instructions -->\n", "claude"},
		{"AGENTS.md not UTF-8", "AGENTS.md", "\xff\xfe rules\n", "codex"},
		{"read-only settings", ".claude/settings.json", settings, "claude"},
		{"gemini settings with comments", ".gemini/settings.json", "{\n // c\n \"a\": 1,\n}\n", "gemini"},
		{"qwen settings broken", ".qwen/settings.json", "{", "qwen"},
	} {
		s := c.sandbox(tc.name)
		s.write(tc.rel, tc.content)
		if tc.name == "read-only settings" {
			must(os.Chmod(s.path(tc.rel), 0o444))
		}
		s.cycle(tc.agents)
	}
}
