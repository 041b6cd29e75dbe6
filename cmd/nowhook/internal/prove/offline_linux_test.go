//go:build linux

package prove

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// dialRole is the test binary's name when it plays a client that tries
// to connect to each address of its arguments and prints, per address,
// "ADDR ok" or "ADDR ERROR", and last its network namespace.
const dialRole = "nowhook-prove-dial"

func dialMain() int {
	for _, addr := range os.Args[1:] {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			println(addr, err.Error())
			continue
		}
		c.Close()
		println(addr, "ok")
	}
	id, _ := os.Readlink("/proc/self/ns/net")
	println("netns", id)
	return 0
}

// TestOfflineReachesOnlyLoopback: a client started in prove's network
// namespace reaches a server on 127.0.0.1 there (the mock model's place)
// and not an address of this machine's network that the same client
// started outside the namespace reaches. (Never timed: in a namespace with
// loopback only, a connection to another address fails at once, "network
// is unreachable".)
func TestOfflineReachesOnlyLoopback(t *testing.T) {
	n := isolate()
	defer n.close()
	if n.why != "" {
		if hasSysAdmin(t) {
			t.Fatalf("with CAP_SYS_ADMIN, prove could not make a network namespace: %s", n.why)
		}
		t.Skipf("no network namespace here without CAP_SYS_ADMIN (%s): prove's rows say so (prove.network)", n.why)
	}
	host, err := net.Listen("tcp", net.JoinHostPort(nonLoopback(t), "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	go acceptAll(host)
	w := &world{net: n}
	inside, err := inNet(w, func() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") })
	if err != nil {
		t.Fatal(err)
	}
	defer inside.Close()
	go acceptAll(inside)

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	role := filepath.Join(t.TempDir(), dialRole)
	if err := os.Symlink(self, role); err != nil {
		t.Fatal(err)
	}
	dial := func(in bool, addrs ...string) []string {
		t.Helper()
		cmd := exec.Command(role, addrs...)
		var out bytes.Buffer
		cmd.Stderr = &out
		start := cmd.Start
		if in {
			start = func() error { return w.start(cmd) }
		}
		if err := start(); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		t.Logf("a client (in the namespace: %v):\n%s", in, out.String())
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != len(addrs)+1 {
			t.Fatalf("want %d lines, got:\n%s", len(addrs)+1, out.String())
		}
		return lines
	}
	out := dial(false, host.Addr().String())
	if out[0] != host.Addr().String()+" ok" {
		t.Fatalf("outside the namespace, %s is not reachable either: %s", host.Addr(), out[0])
	}
	in := dial(true, inside.Addr().String(), host.Addr().String())
	if in[0] != inside.Addr().String()+" ok" {
		t.Errorf("127.0.0.1 in the namespace: %s, want ok", in[0])
	}
	if !strings.HasPrefix(in[1], host.Addr().String()+" ") || !strings.Contains(in[1], "network is unreachable") {
		t.Errorf("%s from the namespace: %s, want network is unreachable", host.Addr(), in[1])
	}
	if got := strings.TrimPrefix(in[2], "netns "); got != n.id || got == strings.TrimPrefix(out[1], "netns ") {
		t.Errorf("the client's network namespace is %s inside, %s outside; prove's is %s", got, out[1], n.id)
	}
}

// hasSysAdmin reports whether this process has CAP_SYS_ADMIN (bit 21 of
// CapEff in /proc/self/status), which unshare(CLONE_NEWNET) needs.
func hasSysAdmin(t *testing.T) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if hex, ok := strings.CutPrefix(line, "CapEff:"); ok {
			caps, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			return caps&(1<<21) != 0
		}
	}
	return false
}

// nonLoopback is an IPv4 address of this machine outside the loopback.
func nonLoopback(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if ip, ok := a.(*net.IPNet); ok && ip.IP.To4() != nil && !ip.IP.IsLoopback() {
			return ip.IP.String()
		}
	}
	t.Skip("this machine has no IPv4 address outside the loopback to try")
	return ""
}

func acceptAll(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		c.Close()
	}
}
