package reminder

import (
	"os"
	"path/filepath"
	"strings"
)

// The managed layer (docs/platforms.md, "Managed channels"). An
// organisation installs nowhook's hook in a client's system layer: a
// wrapper in managedDir, run by a hook in one of the managed files the
// client reads. The paths are fixed (Linux); the installer writes exactly
// these. Where that layer holds nowhook's hook, it prints the reminder,
// and the project's and the user's hooks of the same client step aside.

// managedDir is the folder of nowhook's managed wrappers, below the
// system root.
const managedDir = "usr/local/libexec/nowhook"

// managedLayer is where one client's managed layer would hold nowhook's
// hook. Paths are relative to the system root.
type managedLayer struct {
	client  string   // the client's name, as the debug lines give it
	wrapper string   // nowhook's managed wrapper for it, in managedDir
	files   []string // the managed files the client reads
	dropIns string   // a folder whose *.json files not starting with a dot it reads too
	moved   string   // a variable that, set, names the file the client reads in place of files[0]
}

var (
	managedClaude = &managedLayer{client: "Claude Code", wrapper: "claude.sh",
		files: []string{"etc/claude-code/managed-settings.json"}, dropIns: "etc/claude-code/managed-settings.d"}
	managedCodex = &managedLayer{client: "Codex CLI", wrapper: "codex.sh",
		files: []string{"etc/codex/hooks.json", "etc/codex/requirements.toml", "etc/codex/config.toml"}}
	managedGemini = &managedLayer{client: "Gemini CLI", wrapper: "gemini-turn.sh",
		files: []string{"etc/gemini-cli/settings.json"}, moved: "GEMINI_CLI_SYSTEM_SETTINGS_PATH"}
	managedQwen = &managedLayer{client: "Qwen Code", wrapper: "qwen.sh",
		files: []string{"etc/qwen-code/settings.json"}, moved: "QWEN_CODE_SYSTEM_SETTINGS_PATH"}
	managedDroid = &managedLayer{client: "Factory Droid", wrapper: "droid.sh",
		files: []string{"etc/factory/settings.json"}}
)

// hookClient names the client that runs this hook, from what each client
// gives its hooks (docs/platforms.md, "Managed channels: three layers",
// and the clients' hook runners): QWEN_PROJECT_DIR (Qwen Code, which sets
// GEMINI_PROJECT_DIR and CLAUDE_PROJECT_DIR too, qwen-code 0.24.4),
// GEMINI_PROJECT_DIR (Gemini CLI, which sets CLAUDE_PROJECT_DIR too,
// gemini-cli 0.61.0), FACTORY_PROJECT_DIR or DROID_PROJECT_DIR (Factory
// Droid, which sets CLAUDE_PROJECT_DIR too), CLAUDE_PROJECT_DIR with
// CLAUDE_CODE_SESSION_ID (Claude Code), and, with none of those, a payload
// with permission_mode and no prompt_id (Codex CLI, which sets no variable
// for its hooks). So the most particular variable comes first. It returns
// the client's managed layer and what named it, or nil where nothing
// names one.
func hookClient(getenv func(string) string, permissionMode, promptID bool) (*managedLayer, string) {
	switch {
	case getenv("QWEN_PROJECT_DIR") != "":
		return managedQwen, "QWEN_PROJECT_DIR is set"
	case getenv("GEMINI_PROJECT_DIR") != "":
		return managedGemini, "GEMINI_PROJECT_DIR is set"
	case getenv("FACTORY_PROJECT_DIR") != "" || getenv("DROID_PROJECT_DIR") != "":
		return managedDroid, "FACTORY_PROJECT_DIR or DROID_PROJECT_DIR is set"
	case getenv("CLAUDE_PROJECT_DIR") != "" && getenv("CLAUDE_CODE_SESSION_ID") != "":
		return managedClaude, "CLAUDE_PROJECT_DIR and CLAUDE_CODE_SESSION_ID are set"
	case getenv("CLAUDE_PROJECT_DIR") == "" && permissionMode && !promptID:
		return managedCodex, "no project variable, and the payload has permission_mode and no prompt_id"
	}
	return nil, ""
}

// managed is what the managed layer says about this hook.
type managed int

const (
	managedNone managed = iota // no managed hook of nowhook's for this client, or no client named
	managedSelf                // this is the managed hook: it prints, whatever else is installed
	managedRuns                // the managed layer runs nowhook's hook, and this is another: it steps aside
)

// managedDeferred tells whether the managed layer of the client that runs
// this hook (l, named by hookClient; seen is what named it) holds
// nowhook's managed hook: the client's wrapper in managedDir is an
// executable regular file, and one of the client's managed files, each
// read like mentions (bounded, never a FIFO), names its path. self is the
// wrapper that runs this hook (--script): the managed wrapper itself never
// steps aside, and a hook that does not say which wrapper it is does not
// either, since it could be the managed one. Where the wrapper is absent,
// which is every machine without a managed install, it costs one stat.
func managedDeferred(getenv func(string) string, l *managedLayer, seen, self, root string, log logger) managed {
	if l == nil {
		log.printf("the client that runs this hook is not one whose managed layer is known (no project variable of Claude Code, Codex CLI, Gemini CLI, Qwen Code or Factory Droid): not looking at a managed layer")
		return managedNone
	}
	fi, err := os.Stat(filepath.Join(root, managedDir, l.wrapper))
	if err != nil {
		if log.on {
			log.printf("%s's managed wrapper /%s/%s is not there: no managed hook to step aside for", l.client, managedDir, l.wrapper)
		}
		return managedNone
	}
	name := "/" + managedDir + "/" + l.wrapper // as the managed files name it
	if !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
		log.printf("%s's managed wrapper %s is not an executable file: not stepping aside for it", l.client, name)
		return managedNone
	}
	if self == "" {
		log.printf("this hook does not say which wrapper runs it (no --script), and could be %s's managed one (%s): not stepping aside", l.client, name)
		return managedNone
	}
	me, err := os.Stat(self)
	if err != nil {
		log.printf("the wrapper that runs this hook (%s) cannot be found, and could be %s's managed one (%s): not stepping aside", self, l.client, name)
		return managedNone
	}
	if os.SameFile(fi, me) {
		log.printf("this is %s's managed hook (%s), which prints the reminder", l.client, name)
		return managedSelf
	}
	for _, f := range l.managedFiles(getenv, root) {
		if mentions(f, name) {
			log.printf("%s's managed hook runs here (%s runs %s; %s): printing nothing", l.client, f, name, seen)
			return managedRuns
		}
	}
	log.printf("%s's managed wrapper %s is there, but no managed file of %s names it: not stepping aside", l.client, name, l.client)
	return managedNone
}

// managedFiles lists the managed files the client reads, below root: the
// moved file or the first, the others, then the drop-ins in name order.
func (l *managedLayer) managedFiles(getenv func(string) string, root string) []string {
	var files []string
	for i, f := range l.files {
		path := filepath.Join(root, f)
		if i == 0 && l.moved != "" {
			if v := getenv(l.moved); v != "" {
				// An absolute path is below the system root; a relative one,
				// as the client reads it, from the working directory.
				path = v
				if filepath.IsAbs(v) {
					path = filepath.Join(root, v)
				}
			}
		}
		files = append(files, path)
	}
	if l.dropIns != "" {
		dir := filepath.Join(root, l.dropIns)
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if n := e.Name(); strings.HasSuffix(n, ".json") && !strings.HasPrefix(n, ".") {
				files = append(files, filepath.Join(dir, n))
			}
		}
	}
	return files
}

// ManagedFiles are, for the managed wrapper named wrapper ("claude.sh"),
// the absolute paths of the managed files the runtime reads for its
// client (a drop-in folder as "DIR/*.json"), and nil for a name that is
// no client's. The installer's table (cmd/nowhook/internal/agent) must
// write where these look: a test there holds the two together.
func ManagedFiles(wrapper string) (dir string, files []string) {
	for _, l := range []*managedLayer{managedClaude, managedCodex, managedGemini, managedQwen, managedDroid} {
		if l.wrapper != wrapper {
			continue
		}
		for _, f := range l.files {
			files = append(files, "/"+f)
		}
		if l.dropIns != "" {
			files = append(files, "/"+l.dropIns+"/*.json")
		}
		return "/" + managedDir, files
	}
	return "", nil
}
