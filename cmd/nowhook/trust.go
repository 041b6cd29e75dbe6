package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/codexapp"
	"github.com/nowhook/nowhook/detect"
	"github.com/nowhook/nowhook/generate"
)

// trustTimeout bounds the whole conversation with codex app-server; a
// real run takes one to two seconds.
const trustTimeout = 30 * time.Second

// trustHint is printed when Codex hooks were written without --trust-codex.
const trustHint = "Codex skips untrusted hooks without a word; to trust ours, run: nowhook setup --yes --agents codex --trust-codex"

// codexHooked reports whether the choices set up a Codex hook.
func codexHooked(choices []detect.Choice) bool {
	for _, c := range choices {
		if c.Platform.Name == "codex" && c.Mode == detect.Reinject {
			return true
		}
	}
	return false
}

// findCodex finds the codex that --trust-codex talks to.
func findCodex() (string, error) {
	codex, err := codexapp.Find(nil)
	if err != nil {
		return "", fmt.Errorf("%w, then run nowhook setup --yes --agents codex --trust-codex", err)
	}
	return codex, nil
}

// trustCodex records, through Codex's own app-server, the trust of exactly
// our Codex hook and of the project, when asked; otherwise it tells how to
// do it later. It returns the line to print.
func trustCodex(o setupOptions, root string, choices []detect.Choice, io stdio) (string, error) {
	if !codexHooked(choices) {
		return "", nil
	}
	if !o.trustCodex {
		return trustHint, nil
	}
	codex, err := findCodex()
	if err != nil {
		return "", err
	}
	canonical, err := codexapp.CanonicalRoot(root)
	if err != nil {
		return "", err
	}
	hooksFile := filepath.Join(canonical, filepath.FromSlash(generate.CodexHooks.Path))
	ours := generate.RunsScript(generate.CodexScript)
	ctx, cancel := context.WithTimeout(context.Background(), trustTimeout)
	defer cancel()
	res, err := codexapp.Trust(ctx, codexapp.Options{Codex: codex, Dir: canonical, ClientVersion: "nowhook"}, codexapp.TrustRequest{
		Root:    canonical,
		Project: true,
		Select: func(h codexapp.Hook) bool {
			return h.SourcePath == hooksFile && ours(h.Command)
		},
	})
	if err != nil {
		return "", err
	}
	var done []string
	if res.ProjectTrusted {
		done = append(done, "the project "+canonical)
	}
	if len(res.Recorded) > 0 {
		done = append(done, "hook "+strings.Join(res.Recorded, ", "))
	}
	where := res.ConfigFile
	if where == "" && res.After != nil {
		where = res.After.UserConfig
	}
	if where == "" {
		where = "your Codex config"
	}
	if len(done) == 0 {
		return "codex: our hook and the project were already trusted in " + tildeHome(where), nil
	}
	return "codex: trusted " + strings.Join(done, " and ") + " in " + tildeHome(where), nil
}

// tildeHome shows a path under $HOME as ~/...
func tildeHome(path string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return path
	}
	if rel, err := filepath.Rel(home, path); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.Join("~", rel)
	}
	return path
}
