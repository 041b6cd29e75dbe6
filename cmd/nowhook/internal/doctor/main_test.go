package doctor

import (
	"os"
	"testing"
)

// TestMain widens doctor's margins for process start-up (live.go): the
// rest of the suite keeps the machine busy, and a verdict here must not
// turn on that. No test of this package asserts a "slower than" note.
func TestMain(m *testing.M) {
	WidenMarginsForTests()
	os.Exit(m.Run())
}
