package e2e

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// probeTests are measurements, not proofs: they skip unless
// NOWHOOK_E2E_PROBE is set (TestReadsProbe uses several clients), so
// neither CI nor a drift run runs them and their names are free.
var probeTests = map[string]bool{
	"TestReadsProbe":                  true,
	"TestReadsProbeQwenWorktreeTrust": true,
	// issue 24's measurements and before/after runs (by hand).
	"TestReadsFoldersProbe":            true,
	"TestReadsBigClaudeMDProbe":        true,
	"TestVerdictCases":                 true,
	"TestReadsDroidLinksProbe":         true,
	"TestReadsQwenFileNameProbe":       true,
	"TestReadsQwenStartupContextProbe": true,
}

// TestClientTestNames keeps scripts/drift.sh honest: it runs one client's
// real-client tests with `go test -run '^Test(Checkpoint|Reads|Shapes)?<Agent>'`
// (Agent is the pin's agent name with a capital, CLAUDE_BIN's tests are
// TestClaude..., TestCheckpointClaude..., TestReadsClaude...), so every
// test that finds a client through findClient, directly or through the
// package's helpers, must be named for that client and use no other, or
// the drift run would skip it or run it against the wrong client. Every
// client a test uses must also be pinned in scripts/pins.tsv, and a pinned
// client must not be found through probeBin (its test would skip in CI).
func TestClientTestNames(t *testing.T) {
	t.Parallel()
	pinned := pinnedAgents(t)
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	funcs := map[string]*ast.FuncDecl{} // package-level functions and methods, by name
	var tests []string
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			funcs[fd.Name.Name] = fd
			if fd.Recv == nil && strings.HasPrefix(fd.Name.Name, "Test") && fd.Name.Name != "TestMain" {
				tests = append(tests, fd.Name.Name)
			}
		}
	}
	uses := clientUses(t, fset, funcs)
	sort.Strings(tests)
	for _, name := range tests {
		vars := uses(name)
		t.Logf("%s: %s", name, strings.Join(vars, ", "))
		for _, v := range vars {
			if agent := strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(v, "~"), "_BIN")); v[0] == '~' && pinned[agent] {
				t.Errorf("%s finds %s through probeBin, which skips in CI, but scripts/pins.tsv pins %q, so CI installs it: find it with findClient", name, v[1:], agent)
			}
		}
		if len(vars) == 0 || probeTests[name] || allUnpinned(vars) {
			continue
		}
		if len(vars) > 1 {
			t.Errorf("%s finds %d clients (%s): a drift run tests one client at a time; split it", name, len(vars), strings.Join(vars, ", "))
			continue
		}
		agent := strings.ToLower(strings.TrimSuffix(vars[0], "_BIN"))
		if !pinned[agent] {
			t.Errorf("%s finds its client through %s, but scripts/pins.tsv pins no agent %q: add its line there", name, vars[0], agent)
		}
		stem := strings.ToUpper(agent[:1]) + agent[1:]
		if re := regexp.MustCompile(`^Test(Checkpoint|Reads|Shapes)?` + stem); !re.MatchString(name) {
			t.Errorf("%s finds its client through %s, but scripts/drift.sh runs that client's tests with -run '%s', which skips it: rename it Test%s...", name, vars[0], re, stem)
		}
	}
}

// lookups are the functions that find a client from the variable in their
// second argument, with the prefix clientUses gives that variable:
// findClient's are pinned clients, which CI installs; probeBin's ("~")
// are the clients that cannot be pinned (Crush, Auggie: probe_helpers_test.go
// says why), whose tests skip in CI and in a drift run.
var lookups = map[string]string{"findClient": "", "probeBin": "~"}

func isLookup(name string) bool {
	_, ok := lookups[name]
	return ok
}

// allUnpinned reports whether every client variable of a test is found
// through probeBin.
func allUnpinned(vars []string) bool {
	for _, v := range vars {
		if !strings.HasPrefix(v, "~") {
			return false
		}
	}
	return true
}

// clientUses returns a function giving the sorted client variables
// (CLAUDE_BIN, ...) that the named function passes to findClient, itself
// or through any package function or method it refers to.
func clientUses(t *testing.T, fset *token.FileSet, funcs map[string]*ast.FuncDecl) func(string) []string {
	memo := map[string]map[string]bool{}
	var walk func(name string) map[string]bool
	walk = func(name string) map[string]bool {
		if got, ok := memo[name]; ok {
			return got
		}
		got := map[string]bool{}
		memo[name] = got // a cycle adds nothing new
		ast.Inspect(funcs[name].Body, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if id, ok := call.Fun.(*ast.Ident); ok && isLookup(id.Name) && len(call.Args) >= 2 {
					lit, ok := call.Args[1].(*ast.BasicLit)
					v, err := strconv.Unquote(litValue(lit, ok))
					if err != nil {
						t.Errorf("%s: %s's variable is not a string literal, so which client this test needs cannot be read", fset.Position(call.Pos()), id.Name)
						return true
					}
					got[lookups[id.Name]+v] = true
				}
			}
			var ref string
			switch x := n.(type) {
			case *ast.Ident:
				ref = x.Name
			case *ast.SelectorExpr:
				ref = x.Sel.Name
			}
			if _, ok := funcs[ref]; ok && ref != name && !isLookup(ref) {
				for v := range walk(ref) {
					got[v] = true
				}
			}
			return true
		})
		return got
	}
	return func(name string) []string {
		var vars []string
		for v := range walk(name) {
			vars = append(vars, v)
		}
		sort.Strings(vars)
		return vars
	}
}

func litValue(lit *ast.BasicLit, ok bool) string {
	if !ok || lit.Kind != token.STRING {
		return ""
	}
	return lit.Value
}

// pinnedAgents reads the agent names of scripts/pins.tsv.
func pinnedAgents(t *testing.T) map[string]bool {
	t.Helper()
	path := filepath.Join("..", "..", "..", "scripts", "pins.tsv")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	agents := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		agents[strings.SplitN(line, "\t", 2)[0]] = true
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(agents) == 0 {
		t.Fatalf("%s: no pins", path)
	}
	return agents
}
