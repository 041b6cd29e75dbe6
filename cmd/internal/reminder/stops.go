package reminder

import (
	"os"
	"os/signal"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
)

// stopSignals are the signals by which an agent stops its hook.
var stopSignals = []os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP}

// stops hands the stop signals to the channels waiting for them (Run's
// stop, guard's) from the moment the hook starts a child: armStops, called
// by call once kbs or git runs. Before that a stop signal ends the hook at
// once, by the signal's default action, and there is nothing to clean up.
// Catching the signals is what costs: the Go runtime starts a thread of its
// own for it (ensureSigM) and hands it each signal in turn, about 0.3 ms
// of the hook's CPU; taken after the spawn, it runs while kbs does, and a
// hook that never starts a child never pays it.
var stops struct {
	sync.Mutex
	armed bool
	chans []chan<- os.Signal
}

// watchStops sends the stop signals to c from now on if the hook has
// started a child, else from armStops on; unwatch ends that. Where the
// process exits as soon as the hook is done (ExitsAfterRun), the signals
// stay caught after unwatch: handing them back costs the runtime's thread
// a round trip for each.
func watchStops(c chan<- os.Signal) (unwatch func()) {
	stops.Lock()
	defer stops.Unlock()
	stops.chans = append(stops.chans, c)
	if stops.armed {
		signal.Notify(c, stopSignals...)
	}
	return func() {
		stops.Lock()
		defer stops.Unlock()
		stops.chans = slices.DeleteFunc(stops.chans, func(w chan<- os.Signal) bool { return w == c })
		if stops.armed && !exitsAfterRun.Load() {
			signal.Stop(c)
		}
	}
}

// armStops sends the stop signals to every channel watching for them, and
// to every later one: the hook has started a child, which a stop must kill.
func armStops() {
	stops.Lock()
	defer stops.Unlock()
	if stops.armed {
		return
	}
	stops.armed = true
	for _, c := range stops.chans {
		signal.Notify(c, stopSignals...)
	}
}

// exitsAfterRun is set where the process ends as soon as Run returns.
var exitsAfterRun atomic.Bool

// ExitsAfterRun tells Run that the process exits as soon as it returns
// (the hook's own binaries): the stop signals are then left caught rather
// than handed back to the runtime's defaults, a round trip for each.
func ExitsAfterRun() { exitsAfterRun.Store(true) }
