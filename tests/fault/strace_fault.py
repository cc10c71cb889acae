#!/usr/bin/env python3
"""Fault tier with real system calls (the normal build, under strace).

strace's syscall tampering fails one call of a fault-free run's sequence:
for K over every sendto/sendmsg (error=EIO: nothing sent), every
recvfrom/recvmsg (error=ENOBUFS: the reply stays queued, the socket is out
of step; the transport peeks with recv, then reads with recvmsg) and every
poll/ppoll (error=EINTR, no signal pending) that nettune makes in

- 'nettune apply PROFILE' from the drifted state (tests/fault/faultlib.py:
  10 settings on two veth pairs), and
- 'nettune rollback' of a fault-free apply of it,

the run must end in one of the outcomes faultlib.py lists, checked with
ethtool and ip.  The calls of each command are counted first with
'strace -f -e trace=...' on a fault-free run; strace counts injections per
process, and nettune does not fork for these commands.  A case whose
strace log shows no (INJECTED) call fails: the fault was not reached.

Every K is run for every syscall: 312 cases, about 600 nettune runs,
56 s on the 2-core CI machine (measured with the nlio transport; a run
that hangs costs its 60 s bound, and the matrix stops after 3 of them).
FAULT_STRACE_SPREAD=N runs N evenly spread K per syscall instead.
Prints one summary line per command and syscall; exits 1 on any failure.
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import faultlib as fl  # noqa: E402

SYSCALLS = [("sendto", "EIO"), ("sendmsg", "EIO"), ("recvfrom", "ENOBUFS"),
            ("recvmsg", "ENOBUFS"), ("poll", "EINTR"), ("ppoll", "EINTR")]
SENDS, RECEIVES = ("sendto", "sendmsg"), ("recvfrom", "recvmsg")


def strace_prefix(log, sc, err=None, k=None):
    p = ["strace", "-f", "--seccomp-bpf", "-o", log, "-e", "trace=" + sc]
    if err:
        p += ["-e", "inject=%s:error=%s:when=%d" % (sc, err, k)]
    return p


def calls(log):
    """{syscall: count} of the first process in a strace -f log."""
    out, first = {}, None
    with open(log) as f:
        for line in f:
            m = re.match(r"^(\d+)\s+([a-z_0-9]+)\(", line)
            if not m:
                continue
            if first is None:
                first = m.group(1)
            if m.group(1) == first:
                out[m.group(2)] = out.get(m.group(2), 0) + 1
    return out


def injected(log):
    with open(log) as f:
        return "(INJECTED)" in f.read()


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root")
        return 77
    for tool in ("strace", "ethtool", "ip"):
        if not any(os.access(os.path.join(d, tool), os.X_OK)
                   for d in os.environ.get("PATH", "").split(":") + ["/usr/sbin", "/sbin"]):
            print("SKIP: %s missing" % tool)
            return 77
    spread = int(os.environ.get("FAULT_STRACE_SPREAD", "0"))
    h = fl.Host("s")
    tmp = tempfile.mkdtemp(dir=h.work)
    log = os.path.join(tmp, "strace.log")
    failures = 0
    try:
        traced = ",".join(s for s, _ in SYSCALLS)
        rc, _, err, _ = h.run(["apply", "--yes", h.profile], prefix=strace_prefix(log, traced))
        if rc != 0:
            print("FAIL: the fault-free apply under strace: exit %d\n%s" % (rc, fl.tail(err)))
            return 1
        converged = h.state()
        napply = calls(log)
        rc, _, err, _ = h.run(["rollback"], prefix=strace_prefix(log, traced))
        if rc != 0 or h.state() != h.before:
            print("FAIL: the fault-free rollback under strace: exit %d\n%s" % (rc, fl.tail(err)))
            return 1
        nrollback = calls(log)
        fl.log("calls of a fault-free apply: %s; of its rollback: %s" % (napply, nrollback))
        if (sum(napply.get(c, 0) for c in SENDS) < 10 or
                sum(napply.get(c, 0) for c in RECEIVES) < 10):
            print("FAIL: fewer than 10 sends or receives counted in an apply: %s" % napply)
            return 1
        rows = []
        for cmd, counts in (("apply", napply), ("rollback", nrollback)):
            for sc, errno_name in SYSCALLS:
                n = counts.get(sc, 0)
                if not n:
                    continue
                m = fl.Matrix("strace %s" % cmd, "%s=%s" % (sc, errno_name))
                ks = fl.spread(n, spread) if spread else range(1, n + 1)
                for k in ks:
                    if h.hangs >= fl.MAX_HANGS:
                        m.fail(k, "not run: %d runs hung already" % h.hangs)
                        break
                    if cmd == "rollback" and not fl.setup_applied(h, m, k, converged):
                        continue
                    jcount = len(h.journals())
                    rc, out, err, _ = h.run([cmd] + (["--yes", h.profile] if cmd == "apply" else []),
                                            prefix=strace_prefix(log, sc, errno_name, k))
                    if not injected(log):
                        m.fail(k, "%s call %d was not reached (nothing injected)" % (sc, k))
                    if cmd == "apply":
                        fl.check_apply(h, m, k, rc, out, err, jcount, converged)
                    else:
                        fl.check_rollback(h, m, k, rc, out, err, converged)
                rows.append(m)
        # not vacuous: the faults reached both outcomes an apply can take
        ap = [m for m in rows if m.cmd == "strace apply"]
        if not any(m.outcome.get("exit 1 failed") for m in ap):
            print("FAIL: no faulted apply rolled back (exit 1, journal failed)")
            failures += 1
        for m in rows:
            fl.log(m.summary())
            failures += len(m.failures)
        fl.log("%d nettune runs" % h.runs)
    finally:
        h.cleanup()
    return 1 if failures else 0


sys.exit(main())
