package e2e

import (
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/mockmodel"
)

// The checkpoint's tests need model replies that report a chosen context
// use and call a tool, in a fixed order: these mocks answer the ordinary
// (non-compaction) requests from a script, and compaction requests as the
// other mocks do. They record every request like the other mocks.

// checkpointStep is one scripted model reply.
type checkpointStep = mockmodel.Step

// newCheckpointAnthropic is a Messages API answering from script
// (E2E.md, Claude Code); a tool step calls the Bash tool.
func newCheckpointAnthropic(t *testing.T, script []checkpointStep) *anthropicMock {
	t.Helper()
	m, err := mockmodel.NewAnthropicScript(script)
	return startMock(t, m, err)
}

// newCheckpointResponses is a Responses API answering from script
// (E2E.md, Codex CLI); a tool step is a function call to exec_command.
func newCheckpointResponses(t *testing.T, script []checkpointStep) *responsesMock {
	t.Helper()
	m, err := mockmodel.NewResponsesScript(script)
	return startMock(t, m, err)
}
