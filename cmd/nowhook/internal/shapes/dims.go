package shapes

// Dim is one way a shape differs from a fresh repository.
type Dim string

// The dimensions. AllDims lists them; every one is reachable from some
// seed (TestEveryDimReachable).
const (
	// Instruction files by depth (0 is the root) and by name below the root.
	DimDepth0       Dim = "instructions-depth-0"
	DimDepth1       Dim = "instructions-depth-1"
	DimDepth2       Dim = "instructions-depth-2"
	DimDepth3       Dim = "instructions-depth-3"
	DimNestedClaude Dim = "nested-CLAUDE.md"
	DimNestedAgents Dim = "nested-AGENTS.md"
	DimNestedGemini Dim = "nested-GEMINI.md"
	DimNestedQwen   Dim = "nested-QWEN.md"
	DimOverride     Dim = "AGENTS.override.md"
	DimClaudeDir    Dim = ".claude/CLAUDE.md"
	DimClaudeLocal  Dim = "CLAUDE.local.md"
	DimClaudeRules  Dim = ".claude/rules"
	DimClineRules   Dim = ".clinerules"
	DimContinueRule Dim = ".continue/rules"

	// Imports and links between instruction files.
	DimImportAgents Dim = "import-@AGENTS.md"
	DimImportPath   Dim = "import-@path"
	DimLinkBeside   Dim = "link-beside"
	DimLinkAcross   Dim = "link-across"

	// Files near a budget.
	DimNearCodex  Dim = "near-codex-budget"
	DimNearClaude Dim = "near-claude-size"

	// The team's own hook groups.
	DimHooksClaude          Dim = "hooks-.claude/settings.json"
	DimHooksClaudeLocal     Dim = "hooks-.claude/settings.local.json"
	DimHooksCodex           Dim = "hooks-.codex/hooks.json"
	DimHooksQwen            Dim = "hooks-.qwen/settings.json"
	DimHooksFactoryHooks    Dim = "hooks-.factory/hooks.json"
	DimHooksFactorySettings Dim = "hooks-.factory/settings.json"
	DimHooksGemini          Dim = "hooks-.gemini/settings.json"
	DimHooksScript          Dim = "hooks-script-file"
	DimHooksAfterOurs       Dim = "hooks-after-ours"
	DimDisableAllHooks      Dim = "disableAllHooks"

	// Custom context file names and Codex's budget settings.
	DimGeminiFileName Dim = "gemini-context.fileName"
	DimQwenFileName   Dim = "qwen-context.fileName"
	DimCodexFallback  Dim = "codex-project_doc_fallback_filenames"
	DimCodexCapProj   Dim = "codex-cap-in-project-config"
	DimCodexCapUser   Dim = "codex-cap-in-user-config"

	// Local settings, linked folders, worktrees, Kanbus projects.
	DimSettingsLocal  Dim = "settings-local"
	DimLinkedFolder   Dim = "linked-folder"
	DimWorktree       Dim = "worktree"
	DimKanbusRoot     Dim = "kanbus-root"
	DimKanbusSub      Dim = "kanbus-sub-project"
	DimKanbusSeveral  Dim = "kanbus-several"
	DimKanbusNone     Dim = "kanbus-none"
	DimDeepFolder     Dim = "start-in-folder"
	DimSeveralPackage Dim = "several-packages"

	// How setup runs.
	DimCompanions     Dim = "companions"
	DimUserScope      Dim = "user-scope-too"
	DimNoNowhook      Dim = "nowhook-not-on-PATH"
	DimNoTrustCodex   Dim = "codex-no-trust-flag"
	DimCodexTrusted   Dim = "codex-project-trusted-before"
	DimClaudeReinject Dim = "claude-reinject"
	DimClaudeOndemand Dim = "claude-ondemand"
)

// AllDims lists every dimension.
var AllDims = []Dim{
	DimDepth0, DimDepth1, DimDepth2, DimDepth3,
	DimNestedClaude, DimNestedAgents, DimNestedGemini, DimNestedQwen,
	DimOverride, DimClaudeDir, DimClaudeLocal, DimClaudeRules, DimClineRules, DimContinueRule,
	DimImportAgents, DimImportPath, DimLinkBeside, DimLinkAcross,
	DimNearCodex, DimNearClaude,
	DimHooksClaude, DimHooksClaudeLocal, DimHooksCodex, DimHooksQwen, DimHooksFactoryHooks,
	DimHooksFactorySettings, DimHooksGemini, DimHooksScript, DimHooksAfterOurs, DimDisableAllHooks,
	DimGeminiFileName, DimQwenFileName, DimCodexFallback, DimCodexCapProj, DimCodexCapUser,
	DimSettingsLocal, DimLinkedFolder, DimWorktree,
	DimKanbusRoot, DimKanbusSub, DimKanbusSeveral, DimKanbusNone, DimDeepFolder, DimSeveralPackage,
	DimCompanions, DimUserScope, DimNoNowhook, DimNoTrustCodex, DimCodexTrusted, DimClaudeReinject, DimClaudeOndemand,
}
