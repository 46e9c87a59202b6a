// Package supervisor launches and owns the external processes engines need
// (Ghidra, a browser, a captured command) and cleans up after them without
// ever touching a process it cannot prove it started.
//
// A [Run] owns, for one analysis run: one launched process, leading a process
// group (or session) of its own; every descendant proven ours; the temporary
// roots it created; and the socket paths registered with it. Every process it
// starts carries the run's ID in REA_PROCESS_RUN_ID.
//
// Ownership is proven, never assumed. A process is ours when it is the
// launcher (PID and start time recorded at launch), was enumerated earlier with
// the same PID and start time, is a child of a process proven ours, or carries
// our run ID in its initial environment (which is how a daemon that called
// setsid and was reparented is still found). Before any signal the PID's start
// time is read again, and a process group is signalled as a whole only when
// it is led by a process proven ours and every live member is proven ours;
// otherwise proven members are signalled one by one (through a pidfd where
// the kernel has them) and the unproven members of an owned group are
// recorded as refused, never signalled. The launcher's group, and its session
// when it leads one, are owned from the launch on (not only from the first
// look at /proc), so an unproven process a short-lived launcher leaves in them
// is reported as remaining, never forgotten and never signalled.
//
// Stopping closes stdin (optionally waiting for the processes to exit by
// themselves), sends SIGTERM, waits a grace delay, sends SIGKILL and waits
// again (a stop whose context has already ended, so with no grace, sends
// SIGKILL only); every attempt is kept as a [ports.SignalAttempt]. Cancelling the
// context given to Start runs the same sequence. [Run.Cleanup]
// also removes temporary roots and sockets and returns a
// [*ports.CleanupError] listing only the owned resources that remain.
// [Run.Lineage] gives the [ports.ProcessLineage] snapshot core renders as
// process_lineage.
//
// Descendants are enumerated from /proc, so Linux is fully supported. On other
// Unix systems a Run starts and stops its launcher, reports its lineage as
// unavailable and its process group as remaining unless the group is empty; on
// other systems Start fails with [ports.ErrUnavailable].
//
// supervisor imports only the standard library and rea/ports; engines under
// adapters/ import it.
package supervisor
