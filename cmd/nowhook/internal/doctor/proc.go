package doctor

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
)

// future is a result computed in the background.
type future[T any] struct {
	done chan struct{}
	v    T
}

func start[T any](f func() T) *future[T] {
	fu := &future[T]{done: make(chan struct{})}
	go func() {
		defer close(fu.done)
		fu.v = f()
	}()
	return fu
}

func (f *future[T]) wait() T {
	<-f.done
	return f.v
}

// proc is one bounded run of a program.
type proc struct {
	argv  []string
	dir   string
	env   []string
	stdin []byte
	limit time.Duration
}

// procResult is what a run did.
type procResult struct {
	startErr error
	exit     int  // -1 when killed by a signal
	killed   bool // stopped by doctor at the limit
	elapsed  time.Duration
	stdout   []byte
	stderr   []byte
	// leftover is set when the program's process group still had
	// processes after it exited (they were killed).
	leftover bool
	// heldOutput is set when something still held the program's output
	// open after it exited (a process that left its group, e.g. through
	// setsid): an agent reading the hook's output would wait for it.
	heldOutput bool
}

// maxOutput bounds what doctor keeps of a program's output.
const maxOutput = 4 << 20

// runProc runs p in its own process group (where the system has them).
// At the limit (or when ctx ends) the whole group is killed; doctor never waits longer than the
// limit plus a moment, even if a grandchild keeps the output pipe open.
func runProc(ctx context.Context, p proc) procResult {
	var r procResult
	var cmd *exec.Cmd
	stdout := &capped{max: maxOutput}
	stderr := &capped{max: 64 << 10}
	began := time.Now()
	for try := 0; ; try++ {
		cmd = exec.Command(p.argv[0], p.argv[1:]...)
		cmd.Dir = p.dir
		cmd.Env = p.env
		cmd.Stdin = bytes.NewReader(p.stdin)
		cmd.Stdout, cmd.Stderr = stdout, stderr
		cmd.SysProcAttr = osutil.GroupAttr()
		cmd.WaitDelay = 300 * time.Millisecond
		err := cmd.Start()
		if err == nil {
			break
		}
		// A script just written can be busy for a moment: a process
		// forked at the same time holds its write descriptor until it
		// execs (golang.org/issue/22315).
		if errors.Is(err, syscall.ETXTBSY) && try < 20 {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		r.startErr = err
		return r
	}
	timer := time.NewTimer(p.limit)
	defer timer.Stop()
	done := make(chan struct{})
	var killedMu sync.Mutex
	go func() {
		select {
		case <-timer.C:
		case <-ctx.Done():
		case <-done:
			return
		}
		killedMu.Lock()
		r.killed = true
		killedMu.Unlock()
		osutil.KillGroup(cmd.Process)
	}()
	if err := cmd.Wait(); errors.Is(err, exec.ErrWaitDelay) {
		r.heldOutput = true
	}
	r.elapsed = time.Since(began)
	close(done)
	killedMu.Lock()
	killed := r.killed
	killedMu.Unlock()
	if !killed && osutil.GroupAlive(cmd.Process) {
		r.leftover = true
	}
	osutil.KillGroup(cmd.Process)
	r.exit = cmd.ProcessState.ExitCode()
	r.stdout, r.stderr = stdout.bytes(), stderr.bytes()
	return r
}

// capped keeps the first max bytes written to it and drops the rest.
type capped struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *capped) bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]byte(nil), c.buf.Bytes()...)
}
