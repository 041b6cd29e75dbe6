package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/doctor"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/install"
	"github.com/nowhook/nowhook/detect"
)

// doctorUsage is doctor's help, written whole; a usage error repeats it.
const doctorUsage = `Usage: nowhook doctor [--dir DIR] [--from DIR] [--json] [--live] [--prove] [--scope user|managed] [--root DIR]

Checks the repository's hook configuration for every agent that is set up
or detected, the way each agent reads it, then runs each installed hook
with a compact SessionStart payload (with your kbs, a failing one and a
hanging one), and the checkpoint's (setup --checkpoint) on a synthetic
transcript above and below its threshold, with a fake kbs. It names each
agent's installed client version beside the versions nowhook's
real-client tests passed on. It prints one table, RESULT CHECK MESSAGE,
with the command that fixes each problem, and changes no file. (It runs
kbs now --json --list as the hook does; a Kanbus with AI configured may
then refresh its right-now summaries, as it does after every compaction.
With --live and codex on PATH, it asks codex app-server for the hooks'
trust, and codex keeps its usual state in CODEX_HOME; without --live it
reads the trust from Codex's config.toml.)

Without --live it answers within about a second: it runs only nowhook's
own wrappers, under a short probe budget (the hook runtime takes it from
NOWHOOK_PROBE_BUDGET, which only doctor sets and which can only shorten
the budget), while the file checks prove that each wrapper is nowhook's,
unchanged, with its own budget; and it waits for kbs no longer than that.

It judges sessions started at the repository root and in every folder
where one plausibly starts (each folder with an instruction file of some
agent, each package root: go.mod, package.json, pyproject.toml,
Cargo.toml; at most 64, found within half a second, skipping hidden,
dependency and build folders), and the working directory: what each agent
loads there, what a budget cuts, and whether the hook runs there. A row
about such a folder names it ("started in svc/api/: ...", "from" in
--json) where it differs from the root's. --from DIR judges that one folder.

Exit status: 0 when no check found an error, 1 when one did, 2 for usage.

Flags:
  --dir DIR   the repository (default: the git top level of the working directory, else the working directory)
  --from DIR  judge sessions started in DIR alone (absolute, or relative to the working directory;
              it must lie inside the repository)
  --json      print the findings as a JSON array of {check, agent, severity, message, fix, path, from},
              with "client" on the client rows and "proven" on the nowhook row; "from" is the
              start folder the row judges, relative to the repository root ("." for the root)
  --live      the full live runs: each installed hook, scripts of your own too, with the
              wrapper's own budget, and kbs given the whole budget (up to the budget plus 2s)
  --scope S   project (the default): the repository, and whether sessions started in its
              sub-folders get the reminder; user: the hook setup --scope user installed in
              your own agent settings (its file, its wrapper, and live runs with a fake kbs);
              managed: the hook setup --scope managed installed in each client's managed layer
              (the managed file as the client parses it, nowhook's entry, the wrapper in
              /usr/local/libexec/nowhook, the record, the managed-only switches, and live
              runs of the hook with a fake kbs)
  --root DIR  read the managed layers (/etc/claude-code, /etc/codex, ...) in the tree under DIR,
              as setup --scope managed --root DIR builds it, in place of the machine's; in
              every scope, where the rows say which layer's hook prints the reminder
` + proveUsage

// doctorOptions is what doctor checks and how it reports.
type doctorOptions struct {
	dir    string
	from   string
	asJSON bool
	live   bool
	scope  string
	prove  bool
	root   string
}

func doctorCmd(args []string, io stdio) (err error) {
	var o doctorOptions
	fs := flag.NewFlagSet("nowhook doctor", flag.ContinueOnError)
	fs.StringVar(&o.dir, "dir", "", "")
	fs.StringVar(&o.from, "from", "", "")
	fs.BoolVar(&o.asJSON, "json", false, "")
	fs.BoolVar(&o.live, "live", false, "")
	fs.StringVar(&o.scope, "scope", install.Project.Name, "")
	fs.BoolVar(&o.prove, "prove", false, "")
	fs.StringVar(&o.root, "root", "", "")
	if done, err := parseFlags(fs, args, help{whole: doctorUsage}, io); done || err != nil {
		return err
	}
	ctx := context.Background()
	if o.prove {
		var stopped func() error
		ctx, stopped = proofContext(ctx)
		defer func() { err = errors.Join(err, stopped()) }()
	}
	if err := o.scopeFlags(fs.Name()); err != nil {
		return err
	}
	mroot, err := managedRoot(o.root)
	if err != nil {
		return err
	}
	if o.scope == install.Managed.Name {
		return report(doctor.RunManaged(ctx, doctor.Options{Env: os.Environ(), Live: o.live, Version: versionString(), ManagedRoot: mroot}), o.asJSON, io)
	}
	if o.scope == install.User.Name {
		r := doctor.RunUser(ctx, doctor.Options{Env: os.Environ(), Live: o.live, Version: versionString(), ManagedRoot: mroot})
		if o.prove {
			r = withProof(ctx, r, "", true)
		}
		return report(r, o.asJSON, io)
	}
	root, err := detect.Root(".")
	if o.dir != "" {
		root, err = detect.Dir(o.dir)
	}
	if err != nil {
		return &install.Error{Err: fmt.Errorf("--dir: %w", err), Status: exitUsage}
	}
	wd, _ := os.Getwd()
	start, err := startFolder(root, o.from)
	if err != nil {
		return &install.Error{Err: err, Status: exitUsage}
	}
	r := doctor.Run(ctx, doctor.Options{Root: root, Dir: o.dir, Env: os.Environ(), From: wd, Start: start, Live: o.live, Version: versionString(), ManagedRoot: mroot})
	if o.prove {
		r = withProof(ctx, r, root, false)
	}
	return report(r, o.asJSON, io)
}

// scopeFlags checks --scope and the flags that go with it.
func (o doctorOptions) scopeFlags(name string) error {
	switch {
	case o.scope != install.Project.Name && o.scope != install.User.Name && o.scope != install.Managed.Name:
		return help{whole: doctorUsage}.usageError(fmt.Errorf("--scope %q: the scopes are project (the repository, the default), user (your own agent settings) and managed (the machine's managed layer)", o.scope), name)
	case o.scope == install.Managed.Name && o.from != "":
		return &install.Error{Err: errors.New("--from names a folder of a repository, and --scope managed checks the machine's managed layer outside any repository; drop --from"), Status: exitUsage}
	case o.scope == install.Managed.Name && o.dir != "":
		return &install.Error{Err: errors.New("--dir names a repository, and --scope managed checks the machine's managed layer outside any repository; drop --dir (--root DIR reads that layer's tree under DIR)"), Status: exitUsage}
	case o.scope == install.Managed.Name && o.prove:
		return &install.Error{Err: errors.New("--prove drives each client in a copy of a repository, and --scope managed checks the machine's managed layer; drop --prove (doctor --prove in a repository runs the managed hooks the client runs there)"), Status: exitUsage}
	case o.scope == install.User.Name && o.from != "":
		return &install.Error{Err: errors.New("--from names a folder of a repository, and --scope user checks your own agent settings outside any repository; drop --from"), Status: exitUsage}
	case o.scope == install.User.Name && o.dir != "":
		return &install.Error{Err: errors.New("--dir names a repository, and --scope user checks your own agent settings outside any repository; drop --dir"), Status: exitUsage}
	}
	return nil
}

// managedRoot is doctor --root's tree, absolute ("" for the machine's).
func managedRoot(root string) (string, error) {
	if root == "" {
		return "", nil
	}
	abs, err := detect.Dir(root)
	if err != nil {
		return "", &install.Error{Err: fmt.Errorf("--root: %w", err), Status: exitUsage}
	}
	return abs, nil
}

// startFolder is doctor --from's folder, absolute: dir as given (relative
// to the working directory), a folder inside the repository root; "" for
// none.
func startFolder(root, dir string) (string, error) {
	if dir == "" {
		return "", nil
	}
	abs, err := detect.Dir(dir)
	if err != nil {
		return "", fmt.Errorf("--from: %w", err)
	}
	real, err1 := filepath.EvalSymlinks(abs)
	realRoot, err2 := filepath.EvalSymlinks(root)
	if err1 != nil || err2 != nil {
		real, realRoot = abs, root
	}
	rel, err := filepath.Rel(realRoot, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("--from %s: %s is not inside the repository %s; name a folder of it (a session's start folder), or the repository with --dir", dir, abs, root)
	}
	return filepath.Join(root, rel), nil
}

// report prints the report as a table or JSON; an error-level finding
// is exit 1, with nothing more said.
func report(r doctor.Report, asJSON bool, io stdio) error {
	write := doctor.WriteTable
	if asJSON {
		write = doctor.WriteJSON
	}
	if err := write(io.out, r.Findings); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	if r.Failed() {
		return install.Silent{Status: exitFailed}
	}
	return nil
}
