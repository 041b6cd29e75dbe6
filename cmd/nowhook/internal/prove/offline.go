package prove

import (
	"context"
	"net"
	"net/http"
)

// offline is where prove runs the clients and everything they talk to:
// on Linux, where it may (as root, in CI and in a container), a network
// namespace whose only interface is the loopback, so that a client
// reaches no address but 127.0.0.1, where the mock model listens in the
// same namespace (offline_linux.go); elsewhere, or where the namespace
// cannot be made, this machine's network, with why set.
type offline struct {
	// id names the namespace (its /proc/PID/ns/net link): every process
	// in it is one prove started, or a descendant of one. "" when the
	// clients are not isolated.
	id string
	// why the clients are not isolated, when they are not.
	why string
	// calls are run on the namespace's thread, done closes when it ends.
	calls chan func()
	done  chan struct{}
}

// do calls f in the namespace: the sockets f creates and the processes
// it starts are there. Without a namespace it calls f at once.
func (n *offline) do(f func()) {
	if n.id == "" {
		f()
		return
	}
	finished := make(chan struct{})
	n.calls <- func() { defer close(finished); f() }
	<-finished
}

// close ends the namespace's thread (the namespace itself ends with the
// last process in it: prove kills those first).
func (n *offline) close() {
	if n.id != "" {
		close(n.calls)
		<-n.done
	}
}

// said is how a row says where the client ran.
func (n *offline) said() string {
	if n.id != "" {
		return "offline: a network namespace with loopback only"
	}
	return "network not isolated: see prove.network"
}

// inNet calls f in w's network namespace and returns what it returns.
func inNet[T any](w *world, f func() (T, error)) (T, error) {
	var v T
	var err error
	w.net.do(func() { v, err = f() })
	return v, err
}

// start starts cmd in w's network namespace.
func (w *world) start(cmd interface{ Start() error }) error {
	var err error
	w.net.do(func() { err = cmd.Start() })
	return err
}

// httpClient is an HTTP client that never goes through a proxy and
// connects from w's network namespace (to a client's own server there).
func (w *world) httpClient() *http.Client {
	var d net.Dialer
	return &http.Client{Transport: &http.Transport{Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return inNet(w, func() (net.Conn, error) { return d.DialContext(ctx, network, addr) })
		}}}
}
