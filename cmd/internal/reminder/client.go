package reminder

// Which client started the hook (docs/platforms.md, "The Claude Code entry
// in other clients"). Claude Code's .claude/settings.json is loaded by
// other clients too, which run nowhook's Claude Code hooks with their own
// events and do something else with what they print, so the runtime asks,
// before it reads a transcript or starts kbs, whether the client in front
// of it is one whose output would not land where the mode means it to:
//
//   - Cursor (with its third-party configs on) runs Claude Code's hooks,
//     SessionStart at every new conversation, and its payloads carry
//     cursor_version (docs).
//   - GitHub Copilot CLI 1.0.102 runs them too (measured): SessionStart at
//     every session start whatever the group's matcher (source new,
//     startup or resume, never compact), UserPromptSubmit, PostToolUse,
//     and PreCompact before its own compaction, whose output reaches no
//     request; only JSON additionalContext from sessionStart reaches its
//     model (docs). Its hooks get COPILOT_CLI=1, and its payloads carry a
//     timestamp, which Claude Code's do not: both together say Copilot.
//     (COPILOT_CLI alone could be inherited: a claude started from a
//     shell inside a Copilot session passes it to its own hooks. So could
//     a Qwen Code, Gemini CLI or Factory Droid session, whose payloads may
//     carry a timestamp too; each sets a project variable of its own for
//     its hooks, which says it is not Copilot.)
//   - Continue CLI 1.5.47 loads the file and runs none of its hooks
//     (measured), so it never gets here.
//
// The modes that serve Claude Code's entry (the reminder, the checkpoint
// and the summary hint) print nothing for such a client; so do the
// others, whose entries no client but their own loads.

// foreignClient names the client other than the one the hook entry was
// written for that started the hook, and what says so, from the payload
// and the environment; "" when nothing does.
func foreignClient(pl payload, getenv func(string) string) (name, evidence string) {
	switch {
	case pl.cursorVersion:
		return "Cursor", "the payload carries cursor_version"
	case pl.timestamp && getenv("COPILOT_CLI") == "1" && ownProjectVar(getenv) == "":
		return "GitHub Copilot CLI", "COPILOT_CLI=1, and the payload carries a timestamp"
	}
	return "", ""
}

// ownProjectVar is the project variable, if any, that a client other than
// Copilot and Claude Code sets for its hooks (Copilot sets
// CLAUDE_PROJECT_DIR too).
func ownProjectVar(getenv func(string) string) string {
	for _, v := range []string{"QWEN_PROJECT_DIR", "GEMINI_PROJECT_DIR", "FACTORY_PROJECT_DIR"} {
		if getenv(v) != "" {
			return v
		}
	}
	return ""
}

// foreign reports, and says for NOWHOOK_DEBUG, whether another client
// than the entry's started the hook.
func (o options) foreign(pl payload) bool {
	name, evidence := foreignClient(pl, o.getenv)
	if name == "" {
		return false
	}
	o.log.printf("%s started this hook (%s), and what this mode prints is not for it: printing nothing", name, evidence)
	return true
}
