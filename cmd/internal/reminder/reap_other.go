//go:build !linux

package reminder

// becomeReaper: only Linux hands a process the orphans below it
// (PR_SET_CHILD_SUBREAPER); elsewhere a process that kbs moves out of its
// process group (setsid) is out of the hook's reach.
func becomeReaper() bool { return false }

// killOrphans has nothing to find where becomeReaper cannot.
func killOrphans(logger) {}

// stopWithParent: only Linux signals a process when its parent ends; here
// a stop meant for the wrapper does not reach the runtime, which ends at
// its own deadline.
func stopWithParent() {}
