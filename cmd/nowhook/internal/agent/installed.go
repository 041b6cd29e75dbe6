package agent

import (
	"os"
	"path/filepath"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/generate"
)

// Installed is what nowhook has installed for one agent in one
// repository, as each of the agent's artifacts recognises itself in the
// files there. Setup, remove, the wizard and doctor all ask this one
// question, so that they never disagree about the same repository.
type Installed struct {
	// Present are the agent's artifacts (Owned) found in place, each by
	// its own Present.
	Present map[Artifact]bool
	// Mode is the mode set up, "" for none: the first of the agent's
	// modes whose hook entry is in place or whose entry's script exists
	// (a hand-made wrapper at our path counts: the agent runs it); else
	// reinject where a script that mode owns whole is ours (OpenCode's
	// plugin, which is no hook entry); else ondemand where the agent is in
	// use and a file its on-demand mode teaches in (AGENTS.md, or its own:
	// teaches) holds the kbs-now block, in any state (the block is shared,
	// so it says nothing of an agent that is not used).
	Mode Mode
	// Checkpoint: one of the checkpoint's artifacts is in place;
	// CheckpointAt is the threshold its script was rendered with (0 when
	// none says).
	Checkpoint   bool
	CheckpointAt int
	// Sources are the reminder's sources its wrapper was rendered with
	// ("" when no script of the agent's names them).
	Sources string
}

// InstalledIn reads what nowhook installed for the agent in root. inUse
// says the agent is used there (detected), which the shared on-demand
// block alone cannot show.
func (a *Agent) InstalledIn(root string, inUse bool) Installed {
	in := Installed{Present: map[Artifact]bool{}}
	read := func(rel string) ([]byte, bool) {
		b, err := diag.ReadBounded(filepath.Join(root, filepath.FromSlash(rel)))
		return b, err == nil
	}
	for _, art := range a.Owned() {
		if b, ok := read(art.Path()); ok && art.Present(b) {
			in.Present[art] = true
			if s, isScript := art.(*Script); isScript && in.Sources == "" {
				if src, ok := SourcesIn(b); ok && s.Reminder {
					in.Sources = src
				}
			}
		}
	}
	for _, art := range a.Checkpoint {
		if !in.Present[art] {
			continue
		}
		in.Checkpoint = true
		if b, ok := read(art.Path()); ok {
			if n, ok := CheckpointIn(b); ok {
				in.CheckpointAt = n
			}
		}
	}
	for _, mh := range a.HookEntries() {
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(mh.Hook.Script))); in.Present[mh.Hook] || err == nil {
			in.Mode = mh.Mode
			return in
		}
	}
	if spec, ok := a.Spec(Reinject); ok {
		for _, art := range spec.Artifacts {
			if _, whole := art.(*Script); whole && in.Present[art] {
				in.Mode = Reinject
				return in
			}
		}
	}
	if inUse && a.teaches(read) {
		in.Mode = OnDemand
	}
	return in
}

// teaches reports whether a file the agent's on-demand mode writes the
// kbs-now block into holds that block, in any state: AGENTS.md, or the
// agent's own file (Junie's .junie/guidelines.md, a team's CLAUDE.md that
// setup taught instead of creating AGENTS.md).
func (a *Agent) teaches(read func(rel string) ([]byte, bool)) bool {
	files := []string{OnDemandBlock.File}
	if spec, ok := a.Spec(OnDemand); ok {
		for _, art := range spec.Artifacts {
			if b, ok := BlockOf(art); ok && b.Block.Name == OnDemandBlock.Block.Name && !contains(files, b.File) {
				files = append(files, b.File)
			}
		}
	}
	for _, f := range files {
		if b, ok := read(f); ok {
			if _, found, err := generate.FindBlock(b, OnDemandBlock.Block.Name); found || err != nil {
				return true
			}
		}
	}
	return false
}

// HookIn reports whether the hook entries of the agent's re-inject mode
// are in place in dir (a folder set up with nowhook setup --dir).
func (a *Agent) HookIn(dir string) bool {
	spec, ok := a.Spec(Reinject)
	if !ok {
		return false
	}
	in := a.InstalledIn(dir, false)
	found := false
	for _, art := range spec.Artifacts {
		if h, ok := art.(*HookEntry); ok {
			if !in.Present[h] {
				return false
			}
			found = true
		}
	}
	return found
}

// UserInstalled reports whether the agent's user-scope hook is in place
// (setup --scope user): the entry in its user settings and the wrapper it
// runs, executable. It returns the settings file, for messages; getenv
// and home locate the user folder.
func (a *Agent) UserInstalled(getenv func(string) string, home string) (string, bool) {
	if a.Scope.User == nil {
		return "", false
	}
	dir, err := a.Scope.User.Folder(getenv, home)
	if err != nil {
		return "", false
	}
	h := a.UserHook(dir)
	b, err := diag.ReadBounded(h.File.Path)
	if err != nil || !h.Present(b) {
		return h.File.Path, false
	}
	info, err := os.Stat(h.Script)
	return h.File.Path, err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0
}

// Wanted is one artifact an agent owns and whether a desired state keeps it.
type Wanted struct {
	Artifact Artifact
	Keep     bool
}

// Desire is what a desired state makes of the agent's artifacts: every
// artifact it owns (Owned, in order), each kept or not, and whether the
// hooks it keeps need the agent's trust step.
type Desire struct {
	Artifacts []Wanted
	Trust     bool
}

// Desire is the desired state mode m ("" for nothing, as remove wants),
// with the checkpoint or without.
func (a *Agent) Desire(m Mode, checkpoint bool) Desire { return a.DesireNote(m, checkpoint, false) }

// DesireNote is Desire with samemind's pre-compact note chosen or not
// (setup --sources samemind=note): its artifacts are kept in re-inject
// mode where it is.
func (a *Agent) DesireNote(m Mode, checkpoint, note bool) Desire {
	var d Desire
	for _, art := range a.Owned() {
		keep := m != "" && (a.Wants(m, art) || (checkpoint && containsArtifact(a.Checkpoint, art)) ||
			(note && m == Reinject && containsArtifact(a.Note, art)))
		d.Artifacts = append(d.Artifacts, Wanted{Artifact: art, Keep: keep})
		if _, hook := art.(*HookEntry); keep && hook && a.Trust != nil && (art == a.Trust.Hook || containsArtifact(a.Checkpoint, art)) {
			d.Trust = true
		}
	}
	return d
}

// Desired reports whether the desired state mode m, with the checkpoint
// or without, keeps art (Desire's answer for one artifact).
func (a *Agent) Desired(m Mode, checkpoint bool, art Artifact) bool {
	for _, w := range a.Desire(m, checkpoint).Artifacts {
		if w.Artifact == art {
			return w.Keep
		}
	}
	return false
}
