package reminder

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nowhook/nowhook/detect"
)

// The git source: fresh facts about where the session works, read at
// hook time, never taken from the summary. After a compaction agents have
// worked on the wrong branch or believed nothing had changed, because the
// summary said so or said nothing. The facts: the branch and how far it is
// ahead of and behind its upstream, HEAD's short hash and subject, the
// count of changed files, and the folder the session started in, relative
// to the repository's root.
//
// Two git calls, each bounded: the branch's commit and upstream
// (for-each-ref, which does not look at the work tree), then the changed
// files (status, which does, and takes long in a large repository). A
// status that has not answered within gitStatusMax is dropped, and with it
// only the count; any other failure leaves the git part out.

const (
	// gitOpen heads the git part.
	gitOpen = "Git, read after the compaction (fresh, not from the summary; the commit subject is the repository's text):\n"
	// gitFactsMax bounds the branch query.
	gitFactsMax = 250 * time.Millisecond
	// gitStatusMax bounds the changed-files count: a repository of
	// 50,000 files takes longer (docs/platforms.md, "Sources").
	gitStatusMax = 15 * time.Millisecond
	// maxStatusEntries: a repository whose index holds more files is not
	// asked for its status at all (git status reads every file's
	// metadata: 50,000 took 0.5 s and more on the shared machine).
	maxStatusEntries = 10_000
	// maxSubject bounds the commit subject, in characters.
	maxSubject = 120
	// maxGitHead bounds what is read of a HEAD file.
	maxGitHead = 4096
)

// gitFacts is what the git source found.
type gitFacts struct {
	branch   string // "" when HEAD is detached
	hash     string // HEAD's short hash, "" before the first commit
	subject  string
	upstream string // "" without one
	track    string // "ahead 1, behind 2", "gone", or "" when in step
	changed  int
	counted  bool   // changed was counted (status answered in time)
	start    string // the start folder relative to the root ("." at the root)
}

// gitOptions bounds the git calls (the tests lengthen them).
type gitOptions struct {
	factsMax, statusMax time.Duration
}

var defaultGitOptions = gitOptions{factsMax: gitFactsMax, statusMax: gitStatusMax}

// readGitFacts reads the facts for a session started in start. ok is false
// outside a git repository, without git, or when the branch query fails.
func readGitFacts(start string, deadline time.Time, g gitOptions, stop <-chan os.Signal, log logger) (gitFacts, bool) {
	var f gitFacts
	if start == "" {
		return f, false
	}
	abs, err := filepath.Abs(start)
	if err != nil {
		return f, false
	}
	top, ok := detect.GitTop(abs)
	if !ok {
		log.printf("git: %s is not in a git repository", abs)
		return f, false
	}
	f.start = "."
	if rel, err := filepath.Rel(top, abs); err == nil && rel != "." {
		f.start = filepath.ToSlash(rel)
	}
	head, gitDir, ok := gitHead(top)
	if !ok {
		log.printf("git: no HEAD under %s", top)
		return f, false
	}
	prog, err := lookGit()
	if err != nil {
		log.printf("git: %v", err)
		return f, false
	}
	factsEnd := earliest(deadline, time.Now().Add(g.factsMax))
	var out []byte
	if ref, isRef := strings.CutPrefix(head, "ref: "); isRef {
		f.branch = strings.TrimPrefix(ref, "refs/heads/")
		out, err = callGit(prog, []string{"for-each-ref", "--count=1",
			"--format=%(objectname:short)%00%(contents:subject)%00%(upstream:short)%00%(upstream:track,nobracket)", ref},
			top, factsEnd, stop, log)
	} else {
		out, err = callGit(prog, []string{"log", "-1", "--no-show-signature", "--format=%h%x00%s%x00%x00"}, top, factsEnd, stop, log)
	}
	if err != nil {
		log.printf("git: the branch query failed: %v", err)
		return f, false
	}
	if fields := strings.Split(strings.TrimRight(string(out), "\n"), "\x00"); len(fields) == 4 {
		f.hash, f.subject, f.upstream, f.track = fields[0], fields[1], fields[2], fields[3]
	}
	if n, ok := indexEntries(gitDir); ok && n > maxStatusEntries {
		log.printf("git: the index holds %d files, more than git status reads within its bound: the changed files are not counted", n)
		return f, true
	}
	statusEnd := earliest(deadline, time.Now().Add(g.statusMax))
	out, err = callGit(prog, []string{"--no-optional-locks", "status", "--porcelain", "-z", "--untracked-files=normal", "--no-renames"},
		top, statusEnd, stop, log)
	if err != nil {
		log.printf("git: status did not answer within %s, the changed files are not counted: %v", g.statusMax, err)
	} else {
		f.changed, f.counted = bytes.Count(out, []byte{0}), true
	}
	return f, true
}

func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// lookGit finds git on PATH.
func lookGit() (string, error) {
	return lookPath("git")
}

// gitHead reads the repository's HEAD: "ref: refs/heads/NAME" or a hash,
// and names its git directory. The .git of top is a folder, or a file
// naming one (a worktree).
func gitHead(top string) (head, gitDir string, ok bool) {
	dir := filepath.Join(top, ".git")
	fi, err := os.Stat(dir)
	if err != nil {
		return "", "", false
	}
	if !fi.IsDir() {
		b, err := readSmall(dir, maxGitHead)
		if err != nil {
			return "", "", false
		}
		d, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
		if !ok {
			return "", "", false
		}
		d = strings.TrimSpace(d)
		if !filepath.IsAbs(d) {
			d = filepath.Join(top, d)
		}
		dir = d
	}
	b, err := readSmall(filepath.Join(dir, "HEAD"), maxGitHead)
	if err != nil {
		return "", "", false
	}
	head = strings.TrimSpace(string(b))
	return head, dir, head != ""
}

// indexEntries reads the count of files in the index of the git directory
// from its header ("DIRC", version, count; big-endian); ok is false where
// there is no index it can read.
func indexEntries(gitDir string) (n int, ok bool) {
	b, err := readSmall(filepath.Join(gitDir, "index"), 12)
	if err != nil || len(b) < 12 || string(b[:4]) != "DIRC" {
		return 0, false
	}
	return int(b[8])<<24 | int(b[9])<<16 | int(b[10])<<8 | int(b[11]), true
}

// readSmall reads at most limit bytes of a regular file.
func readSmall(path string, limit int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, os.ErrInvalid
	}
	b := make([]byte, limit)
	n, _ := f.Read(b)
	return b[:n], nil
}

// renderGit renders the facts in at most limit bytes, or nil.
func renderGit(f gitFacts, limit int) []byte {
	out := make([]byte, 0, 512)
	out = append(out, gitOpen...)
	out = append(out, "- branch: "...)
	if f.branch != "" {
		out = appendClean(out, f.branch)
	} else {
		out = append(out, "(detached HEAD)"...)
	}
	if f.upstream != "" {
		switch {
		case f.track == "gone":
			out = append(out, " (its upstream "...)
			out = appendClean(out, f.upstream)
			out = append(out, " is gone)"...)
		case f.track == "":
			out = append(out, " (in step with "...)
			out = appendClean(out, f.upstream)
			out = append(out, ')')
		default:
			out = append(out, " ("...)
			out = appendClean(out, f.track)
			out = append(out, " of "...)
			out = appendClean(out, f.upstream)
			out = append(out, ')')
		}
	}
	out = append(out, '\n')
	if f.hash != "" {
		out = append(out, "- HEAD: "...)
		out = appendClean(out, f.hash)
		out = append(out, " \""...)
		start := len(out)
		out = cutAt(appendClean(out, f.subject), start, maxSubject)
		out = append(out, "\"\n"...)
	} else {
		out = append(out, "- HEAD: no commit yet\n"...)
	}
	if f.counted {
		out = append(out, "- changed files (git status): "...)
		out = strconv.AppendInt(out, int64(f.changed), 10)
		out = append(out, '\n')
	}
	out = append(out, "- the session started in: "...)
	if f.start == "." {
		out = append(out, "the repository's root"...)
	} else {
		out = appendClean(out, f.start)
		out = append(out, " (from the repository's root)"...)
	}
	out = append(out, '\n')
	if len(out) > limit {
		return nil
	}
	return out
}
