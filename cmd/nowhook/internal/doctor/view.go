package doctor

import (
	"context"
	"time"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/generate"
)

// The checks of one agent alone live in the agent's file of the agent
// table (agentpkg.Agent.Doctor.Quirks): quirk runs them, and view is what
// they see of doctor's run.

// quirk is one of an agent's own checks, as doctor's runner runs it.
type quirk struct{ c agentpkg.Check }

func (q quirk) Name() string { return q.c.Name }

func (q quirk) Run(d *doctor, a *agent) []Finding {
	if report, ok := a.started[q.c.Name]; ok {
		return report()
	}
	return q.c.Run(view{d, a})
}

// Start starts the check's slow part, if it has one; its report then
// stands in for Run.
func (q quirk) Start(ctx context.Context, d *doctor, a *agent) {
	if q.c.Start == nil {
		return
	}
	if report := q.c.Start(ctx, view{d, a}); report != nil {
		if a.started == nil {
			a.started = map[string]func() []Finding{}
		}
		a.started[q.c.Name] = report
	}
}

// view is doctor's run as one agent's own checks see it (agentpkg.View).
type view struct {
	d *doctor
	a *agent
}

func (v view) Agent() *agentpkg.Agent           { return v.a.p }
func (v view) Mode() agentpkg.Mode              { return v.a.mode }
func (v view) Root() string                     { return v.d.root }
func (v view) Env() []string                    { return v.d.env }
func (v view) Getenv(key string) string         { return osutil.Getenv(v.d.env, key) }
func (v view) Home() string                     { return v.d.home }
func (v view) HookFiles() []*diag.HookFile      { return v.a.files }
func (v view) RunsReminder(h diag.Handler) bool { return v.d.handlerRunsReminder(v.a, h) }
func (v view) Budget() time.Duration            { return v.d.budget() }
func (v view) Show(abs string) string           { return v.d.show(abs) }
func (v view) ShowFix(abs string) string        { return v.d.showFix(abs) }
func (v view) Live() bool                       { return v.d.live }

func (v view) SetupFix(agents string, extra ...string) string {
	return v.d.setupFix(agents, extra...)
}

func (v view) Block(file, name, purpose, fix string) (diag.Finding, bool) {
	m := readMD(v.d.root, file)
	return v.d.blockFinding(m, name, purpose, fix), m.ReadErr != nil || m.block(name) != nil
}

func (v view) HasBlock(file, name string) bool { return readMD(v.d.root, file).block(name) != nil }

func (v view) BlockSpan(file, name string) (generate.BlockSpan, bool) {
	b := readMD(v.d.root, file).block(name)
	if b == nil || b.err != nil {
		return generate.BlockSpan{}, false
	}
	return b.span, true
}

func (v view) Go(f func()) (wait func()) {
	fu := start(func() struct{} { f(); return struct{}{} })
	wait = func() { fu.wait() }
	v.d.slow.waits = append(v.d.slow.waits, wait)
	return wait
}
