package e2e

import (
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/mockmodel"
)

// The mock model servers live in cmd/nowhook/internal/mockmodel, which
// nowhook doctor --prove starts too; these are the names the tests use.
type (
	recordedRequest = mockmodel.Request
	anthropicMock   = mockmodel.Anthropic
	responsesMock   = mockmodel.Responses
	chatMock        = mockmodel.Chat
	chatRequest     = mockmodel.ChatRequest
	chatReply       = mockmodel.ChatReply
	chatToolCall    = mockmodel.ChatToolCall
	geminiMock      = mockmodel.Gemini
	geminiContent   = mockmodel.GeminiContent
)

// startMock returns m, started, and stops it when the test ends.
func startMock[M interface{ Close() error }](t *testing.T, m M, err error) M {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func newAnthropicMock(t *testing.T) *anthropicMock {
	t.Helper()
	m, err := mockmodel.NewAnthropic(false)
	return startMock(t, m, err)
}

func newResponsesMock(t *testing.T) *responsesMock {
	t.Helper()
	m, err := mockmodel.NewResponses()
	return startMock(t, m, err)
}

func newChatMock(t *testing.T, handle func(r *chatRequest) chatReply) *chatMock {
	t.Helper()
	m, err := mockmodel.NewChat(handle)
	return startMock(t, m, err)
}

func newGeminiMock(t *testing.T, compress bool) *geminiMock {
	t.Helper()
	m, err := mockmodel.NewGemini(compress)
	return startMock(t, m, err)
}

func newGeminiMultiMock(t *testing.T, compressions, continues int) *geminiMock {
	t.Helper()
	m, err := mockmodel.NewGeminiMulti(compressions, continues)
	return startMock(t, m, err)
}
