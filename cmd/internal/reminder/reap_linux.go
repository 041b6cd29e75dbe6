package reminder

import (
	"os"
	"strconv"
	"syscall"
	"time"
)

// prctl's options (linux/prctl.h).
const (
	prSetPdeathsig      = 1
	prSetChildSubreaper = 36
)

// stopWithParent has the kernel send this process SIGTERM when its parent
// ends: the wrappers run the runtime as a child, so that a stop meant for
// the hook (the agent signals the process it started, the wrapper) reaches
// it, and it kills kbs's group and exits as for any stop.
func stopWithParent() {
	_, _, _ = syscall.RawSyscall6(syscall.SYS_PRCTL, prSetPdeathsig, uintptr(syscall.SIGTERM), 0, 0, 0, 0)
}

// becomeReaper makes this process the reaper of the orphans below it: a
// process that kbs moved out of its process group (setsid) comes back to
// this one when its parents end, instead of going to init, so that
// killOrphans finds it. It reports whether the kernel agreed.
func becomeReaper() bool {
	_, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0, 0, 0, 0)
	return errno == 0
}

// killOrphans kills and reaps every process still below this one, for at
// most maxOrphanWait; the caller has had its own child's exit status
// already, or no longer needs it. With nothing left below it costs one
// wait4 call.
func killOrphans(log logger) {
	end := time.Now().Add(maxOrphanWait)
	killed := 0
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		switch {
		case err == syscall.EINTR || pid > 0:
			continue // reaped one: its own children are ours now
		case err != nil: // ECHILD: nothing is left below
			if killed > 0 {
				log.printf("killed %d processes still running below the hook (left by kbs, in its group or out of it)", killed)
			}
			return
		}
		if time.Now().After(end) {
			log.printf("processes are still running below the hook after %s: leaving them", maxOrphanWait)
			return
		}
		for _, c := range children(os.Getpid()) {
			_ = syscall.Kill(-c, syscall.SIGKILL) // its group, if it leads one
			_ = syscall.Kill(c, syscall.SIGKILL)
			killed++
		}
		time.Sleep(time.Millisecond)
	}
}

// children lists the processes whose parent is pid, from /proc.
func children(pid int) []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	var kids []int
	for _, name := range names {
		n, err := strconv.Atoi(name)
		if err != nil || n == pid {
			continue
		}
		b, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue
		}
		if parentOf(b) == pid {
			kids = append(kids, n)
		}
	}
	return kids
}

// parentOf reads the parent pid from a /proc/PID/stat line: "pid (comm)
// state ppid ...", where comm may hold spaces and parentheses.
func parentOf(stat []byte) int {
	i := len(stat) - 1
	for i >= 0 && stat[i] != ')' {
		i--
	}
	// ") S 1234 ..."
	f, field := 0, 0
	for j := i + 1; j < len(stat); j++ {
		if stat[j] == ' ' {
			field++
			continue
		}
		if field == 2 {
			if stat[j] < '0' || stat[j] > '9' {
				return f
			}
			f = f*10 + int(stat[j]-'0')
		}
		if field > 2 {
			break
		}
	}
	return f
}
