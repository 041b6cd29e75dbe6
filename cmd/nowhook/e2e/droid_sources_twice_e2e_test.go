package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// droidUpdatePhrase is in the request of a second compaction of one Droid
// session: Droid 0.225.2 then asks the model to update its earlier summary
// with the messages since ("Previous summary: ... These messages were sent
// since the previous summary: ..."), not to summarise the conversation
// (measured by TestDroidSourcesTwoCompactions).
const droidUpdatePhrase = "Please incorporate the new messages into the existing summary"

// TestDroidSourcesTwoCompactions: Factory Droid's JSON-RPC, two /compact
// in one session (issue 28), with --sources rules,kanbus: after each, the
// first request holds every constraint of the first message verbatim and
// the reminder that compaction added, once, as the message before the new
// prompt, with the user's words (the newest among them) and the board
// once each, and no earlier reminder of ours inside the quote of the
// user's words.
func TestDroidSourcesTwoCompactions(t *testing.T) {
	bin := findClient(t, "DROID_BIN", "droid")
	ctx := probeCtx(t)
	s := newSandbox(t, kbsFixture)
	setupSources(t, ctx, s, s.env(nil), "droid=reinject", []string{"--sources", "rules,kanbus"})
	chat := &probeChat{}
	m := droidMock(t, chat)
	chat.summaryPhrases = append(chat.summaryPhrases, droidUpdatePhrase)
	home := droidHome(t, m, "")
	env := droidEnv(s, home)
	d := startDroidRPC(t, ctx, bin, env, s.repo)
	d.call(ctx, "droid.initialize_session", map[string]any{"machineId": "e2e", "cwd": s.repo, "modelId": "custom:mock-model"})
	d.say(ctx, retentionFirst)
	d.say(ctx, "List the files you would look at.")
	d.compact(ctx)
	d.say(ctx, "What next?")
	d.say(ctx, "Which test would you write first?")
	d.compact(ctx)
	d.say(ctx, "And now?")
	reqs := chatRecorded(m.Requests())
	summaries := 0
	for i, r := range reqs {
		t.Logf("request %d: kind %s, %d bytes", i, r.Kind, len(r.Body))
		if r.Kind == "summary" {
			summaries++
		}
	}
	if summaries != 2 {
		t.Fatalf("%d summary requests, want 2 (one per /compact)", summaries)
	}
	after := afterSummaries(t, reqs)
	checkRetention(t, "droid", "rules", after, 2)
	// Droid keeps the earlier turns in the request after a /compact
	// (message 1 is the summary, then the whole conversation), our
	// earlier reminder among them as the user message it was. So after
	// compaction k the request holds k reminders, one added by each
	// compaction, each a message of its own with the user's words and
	// the board once, none inside another, the newest last and quoting
	// the user's newest words.
	newest := []string{"List the files you would look at.", "Which test would you write first?"}
	for k, r := range after {
		msgs := chatMessageTexts(t, r.Body)
		var reminders []string
		for _, m := range msgs {
			if strings.Contains(m, rulesOpenLine) {
				reminders = append(reminders, m)
			}
		}
		t.Logf("DROID compaction %d: %d messages in the first request after it, %d reminders among them", k+1, len(msgs), len(reminders))
		if len(reminders) != k+1 {
			t.Errorf("after compaction %d: %d reminders in the request, want %d (one per compaction)", k+1, len(reminders), k+1)
			logChatMessages(t, r.Body)
			continue
		}
		for i, m := range reminders {
			if strings.Count(m, rulesOpenLine) != 1 || strings.Count(m, boardOpenLine) != 1 {
				t.Errorf("after compaction %d, reminder %d: the user's words %d times, the board %d times, want once each",
					k+1, i+1, strings.Count(m, rulesOpenLine), strings.Count(m, boardOpenLine))
			}
		}
		last := reminders[len(reminders)-1]
		if !strings.Contains(last, "> "+newest[k]) {
			t.Errorf("after compaction %d: the newest reminder does not quote the newest words %q:\n%s", k+1, newest[k], last)
		}
		if len(msgs) < 2 || msgs[len(msgs)-2] != last {
			t.Errorf("after compaction %d: the newest reminder is not the message just before the new prompt", k+1)
		}
	}
}

// chatMessageTexts is the text of each message of a chat request, its
// text parts joined.
func chatMessageTexts(t *testing.T, body []byte) []string {
	t.Helper()
	var req struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request body: %v", err)
	}
	var out []string
	for _, m := range req.Messages {
		var text string
		if json.Unmarshal(m.Content, &text) != nil {
			var parts []struct {
				Text string `json:"text"`
			}
			json.Unmarshal(m.Content, &parts)
			var texts []string
			for _, p := range parts {
				texts = append(texts, p.Text)
			}
			text = strings.Join(texts, "\n")
		}
		out = append(out, text)
	}
	return out
}

// logChatMessages logs each message of a chat request: its role and the
// start of its text.
func logChatMessages(t *testing.T, body []byte) {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Logf("request body: %v", err)
		return
	}
	for i, m := range req.Messages {
		t.Logf("message %d: %s, %d bytes: %.160q", i, m.Role, len(m.Content), m.Content)
	}
}
