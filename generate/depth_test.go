package generate

import (
	"strings"
	"testing"
)

// TestTooDeep counts the brackets of arrays and objects only: those in
// strings (escaped quotes included) and in comments do not nest.
func TestTooDeep(t *testing.T) {
	for _, c := range []struct {
		src  string
		off  int
		deep bool
	}{
		{`{"a":[1]}`, 0, false},
		{`{"a":[[1]]}`, 6, true},
		{`{"a":"[[[[\"[[[["}`, 0, false},
		{"{// [[[[\n\"a\":1}", 0, false},
		{"{/* [[[[ */\"a\":1}", 0, false},
		{`[][][][]`, 0, false},
	} {
		off, deep := TooDeep([]byte(c.src), 2)
		if off != c.off || deep != c.deep {
			t.Errorf("TooDeep(%q, 2) = %d, %v; want %d, %v", c.src, off, deep, c.off, c.deep)
		}
	}
}

// TestParseTooDeep: a settings file nested a million levels deep is
// refused with its line and column and the limit, without a stack
// overflow (hujson descends once per level); one nested exactly MaxDepth
// levels deep still parses, and the message claims nothing of the agent.
func TestParseTooDeep(t *testing.T) {
	f := HookFile{Path: ".claude/settings.json", Agent: "Claude Code", Strict: true}
	deep := func(n int) []byte { return []byte(strings.Repeat("[", n) + strings.Repeat("]", n)) }
	_, err := f.ParseHookFile(deep(1_000_000))
	fe, ok := err.(*FileError)
	if !ok || fe.Line != 1 || fe.Col != MaxDepth+1 || !strings.Contains(fe.Problem, "more than 10000 levels deep") {
		t.Fatalf("a file nested a million levels deep: %v, want a FileError at 1:%d", err, MaxDepth+1)
	}
	if strings.Contains(err.Error(), "ignores") {
		t.Errorf("the refusal claims what the agent does: %v", err)
	}
	obj := []byte(`{"a": ` + string(deep(MaxDepth-1)) + `}`)
	if _, err := f.ParseHookFile(obj); err != nil {
		t.Errorf("a file nested exactly %d levels deep: %v, want it read", MaxDepth, err)
	}
	if _, err := f.ParseHookFile([]byte(`{"a": ` + string(deep(MaxDepth)) + `}`)); err == nil {
		t.Errorf("a file nested %d levels deep was read", MaxDepth+1)
	}
}
