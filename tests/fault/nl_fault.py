#!/usr/bin/env python3
"""Fault tier through the netlink fault switch of the fault build
(-Dfault_injection=true): NETTUNE_NL_FAULT=K:KIND fails the K-th netlink
request of the process (every request on every netlink socket, retries
counted as new ones) with KIND:

  error    not sent; answered as a kernel error (-EBUSY, extack text)
  send     sendmsg fails (EIO), nothing sent
  enobufs  sent; the first receive fails with ENOBUFS, the reply stays queued
  trunc    sent; the first reply datagram reads as truncated (MSG_TRUNC)
  seq      sent; the first reply has a wrong sequence number
  timeout  sent; no reply read: the wait runs to NETTUNE_NL_TIMEOUT_MS (300)

NETTUNE_NL_TRACE=1 prints "nettune: nl request K: NAME" per request; a
fault-free apply of the profile in faultlib.py (two veth pairs, 10
settings) and its rollback are traced first to count their requests.

Rows (each checked as tests/fault/faultlib.py says, with ethtool and ip):
- apply: K over every request of the apply, every KIND;
- rollback: K over every request of 'nettune rollback' after a fault-free
  apply, every KIND;
- apply, its last SET failing (error) and request K2 of its own rollback
  failing too (error, enobufs): the rollback's retries;
- apply, its last SET failing and every request from K2 on (error): its
  rollback cannot restore, exit 3 must list exactly what is not restored
  and a fault-free rollback must finish it;
- rollback with every request from K on failing (error): exit 1 "nothing
  was changed" or exit 3, and a fault-free rollback finishes it;
- signals during a wait (NETTUNE_NL_TIMEOUT_MS=30000, the trace line of
  request K seen first): SIGTERM and SIGINT on an apply's second SET, and
  SIGTERM on its first read after the family lookup and on its last read
  before the first SET, end it within 5 s, exit 1, the host as before;
  SIGKILL on a rollback's SET leaves the journal rolling-back, 'nettune
  history' shows it and 'nettune rollback' finishes it; SIGTERM on a
  rollback's SET (its wait bounded at 3 s) does not stop it (nettune(1)):
  it ends within that bound plus 5 s, exit 0, rolled back.

Every K is run for every KIND: 18 requests x 6 kinds for apply, 39 x 6
for rollback (it reads only the kinds of its journal); in the ASan + UBSan
fault build on 2 cores the parts took 166 s (apply), 140 s (rollback-a)
and 129 s (rollback-b) here; each summary line gives its row's time.  FAULT_NL_SPREAD=N keeps every K for enobufs and send and runs N
evenly spread K for the other kinds.

The rows are run in three parts of about the same time, each a test of
its own (tests/fault/meson.build), so that the two cores of a CI machine
share them: the argument 'rollback-a' runs the rollback matrix of error,
send and enobufs, 'rollback-b' that of trunc, seq and timeout (the slow
kinds), 'apply' every other row; no argument runs all three.  Each part
has its own namespace and state directory (faultlib.Host).  The test
fails if the build has no trace (the switch is missing), if fewer than 10
requests are counted, if no faulted apply rolls back or no case reaches
exit 3 (part 'apply'), or if no faulted rollback ends in exit 0 or no
case ends in exit 1 or 3 (part 'rollback-a': the error kind reaches
exit 3).
"""
import os
import re
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import faultlib as fl  # noqa: E402

KINDS = ["error", "send", "enobufs", "trunc", "seq", "timeout"]
# the parts of the test (the docstring): which kinds each runs the rollback
# matrix for; the apply matrix and the other rows are part 'apply'
PARTS = {"apply": [], "rollback-a": KINDS[:3], "rollback-b": KINDS[3:]}
TRACE = re.compile(r"^nettune: nl request (\d+): (\S+)$", re.M)
SIGNAL_BOUND = 5.0


def trace_of(err):
    """(request names in order, stderr without the trace lines)."""
    names = [m.group(2) for m in TRACE.finditer(err)]
    nums = [int(m.group(1)) for m in TRACE.finditer(err)]
    rest = TRACE.sub("", err)
    return names, nums, rest


def fault_env(spec, timeout_ms=300):
    return {"NETTUNE_NL_FAULT": spec, "NETTUNE_NL_TIMEOUT_MS": str(timeout_ms),
            "NETTUNE_NL_TRACE": "1"}


def reached(m, k, names, nums, ref):
    """The faulted run made request k, after the same k-1 requests as the
    fault-free run REF."""
    if nums != list(range(1, len(nums) + 1)):
        m.fail(k, "trace numbering is not 1..N: %s" % nums[:12])
    if len(names) < k:
        m.fail(k, "request %d not reached: the run made %d requests" % (k, len(names)))
        return False
    for i in range(min(k, len(ref))):
        if names[i] != ref[i]:
            m.fail(k, "request %d is %s, not %s as in the fault-free run" % (i + 1, names[i],
                                                                             ref[i]))
            return False
    return True


def faulted(h, cmd, spec, timeout_ms=300):
    args = [cmd] + (["--yes", h.profile] if cmd == "apply" else [])
    jcount = len(h.journals())
    rc, out, err, _ = h.run(args, env=fault_env(spec, timeout_ms))
    names, nums, rest = trace_of(err)
    return rc, out, rest, names, nums, jcount


def from_on(k, kind="error", upto=160):
    return ",".join("%d:%s" % (i, kind) for i in range(k, k + upto))


def kset(kind, n, spread):
    if not spread or kind in ("enobufs", "send"):
        return list(range(1, n + 1))
    return fl.spread(n, spread)


def wait_line(path, k, bound):
    """Waits (at most BOUND s) for request K's trace line in the file."""
    want = "nettune: nl request %d:" % k
    limit = time.monotonic() + bound
    while time.monotonic() < limit:
        try:
            with open(path) as f:
                if want in f.read():
                    return True
        except OSError:
            pass
        time.sleep(0.02)
    return False


def signal_case(h, m, cmd, k, sig, converged, ref, timeout_ms=30000):
    """Signal SIG once request K (timeout fault, TIMEOUT_MS bound) is
    waiting; the run must end within SIGNAL_BOUND s of the signal, or for
    a rollback (which a signal does not stop) of the wait's own bound."""
    path = os.path.join(h.work, "sig.err")
    timing = {}

    def on_start(p):
        if not wait_line(path, k, 20):
            timing["missed"] = True
            return
        time.sleep(0.2)  # inside the wait, well before its 30 s bound
        timing["t"] = time.monotonic()
        os.kill(p.pid, sig)
    args = [cmd] + (["--yes", h.profile] if cmd == "apply" else [])
    jcount = len(h.journals())
    rc, out, err, _ = h.run(args, env=fault_env("%d:timeout" % k, timeout_ms),
                            stderr_path=path,
                            on_start=on_start)
    took = time.monotonic() - timing["t"] if "t" in timing else None
    names, nums, rest = trace_of(err)
    label = "%s %s" % (signal.Signals(sig).name, k)
    if timing.get("missed"):
        m.fail(label, "the trace line of request %d did not appear within 20 s" % k,
               fl.tail(rest))
    elif took is not None and rc != 124:
        bound = SIGNAL_BOUND + (timeout_ms / 1000.0 if cmd == "rollback" else 0)
        if took > bound:
            m.fail(label, "ended %.1f s after the signal (bound %g s)" % (took, bound))
    reached(m, k, names, nums, ref)
    return rc, out, rest, jcount, took


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root")
        return 77
    spread = int(os.environ.get("FAULT_NL_SPREAD", "0"))
    parts = sys.argv[1:] or list(PARTS)
    if any(p not in PARTS for p in parts):
        print("usage: nl_fault.py [%s]..." % "|".join(PARTS))
        return 64
    rb_kinds = [k for p in parts for k in PARTS[p]]
    t0 = time.monotonic()
    h = fl.Host("n")
    failures = 0
    rows = []
    try:
        rc, _, err, _ = h.run(["apply", "--yes", h.profile], env={"NETTUNE_NL_TRACE": "1"})
        ap_names, ap_nums, rest = trace_of(err)
        if rc != 0:
            print("FAIL: the fault-free apply: exit %d\n%s" % (rc, fl.tail(rest)))
            return 1
        if not ap_names:
            print("FAIL: NETTUNE_NL_TRACE=1 printed no 'nettune: nl request K: NAME' line: "
                  "this build has no netlink fault switch")
            return 1
        converged = h.state()
        rc, _, err, _ = h.run(["rollback"], env={"NETTUNE_NL_TRACE": "1"})
        rb_names, rb_nums, rest = trace_of(err)
        if rc != 0 or h.state() != h.before:
            print("FAIL: the fault-free rollback: exit %d\n%s" % (rc, fl.tail(rest)))
            return 1
        fl.log("requests of a fault-free apply (%d): %s" % (len(ap_names), " ".join(ap_names)))
        fl.log("requests of its rollback (%d): %s" % (len(rb_names), " ".join(rb_names)))
        if len(ap_names) < 10:
            print("FAIL: only %d requests counted in an apply" % len(ap_names))
            return 1
        if ap_nums != list(range(1, len(ap_nums) + 1)):
            print("FAIL: the trace does not number requests 1..N: %s" % ap_nums)
            return 1
        sets = [i + 1 for i, n in enumerate(ap_names) if n.endswith("-set")]
        rb_sets = [i + 1 for i, n in enumerate(rb_names) if n.endswith("-set")]
        if len(sets) < 2 or not rb_sets:
            print("FAIL: the apply has %d SET requests, its rollback %d" % (len(sets),
                                                                             len(rb_sets)))
            return 1

        def stop(m, k):
            if h.hangs >= fl.MAX_HANGS:
                m.fail(k, "not run: %d runs hung already" % h.hangs)
                return True
            return False

        # apply and rollback, every request, every kind
        for cmd, ref, kinds in (("apply", ap_names, KINDS if "apply" in parts else []),
                                ("rollback", rb_names, rb_kinds)):
            for kind in kinds:
                m = fl.Matrix(cmd, kind)
                t = time.monotonic()
                for k in kset(kind, len(ref), spread):
                    if stop(m, k):
                        break
                    if cmd == "rollback" and not fl.setup_applied(h, m, k, converged):
                        continue
                    rc, out, err, names, nums, jc = faulted(h, cmd, "%d:%s" % (k, kind))
                    reached(m, k, names, nums, ref)
                    if cmd == "apply":
                        fl.check_apply(h, m, k, rc, out, err, jc, converged)
                    else:
                        fl.check_rollback(h, m, k, rc, out, err, converged)
                m.secs = time.monotonic() - t
                rows.append(m)

        if "apply" in parts:
            more_rows(h, stop=stop, rows=rows, converged=converged, sets=sets,
                      ap_names=ap_names, rb_names=rb_names, rb_sets=rb_sets)

        # not vacuous
        ap = [r for r in rows if r.cmd == "apply"]
        if "apply" in parts and not any(r.outcome.get("exit 1 failed") for r in ap):
            print("FAIL: no faulted apply rolled back (exit 1, journal failed)")
            failures += 1
        rb = [r for r in rows if r.cmd == "rollback"]
        if rb_kinds and not any(r.outcome.get("exit 0 rolled-back") for r in rb):
            print("FAIL: no faulted rollback ended rolled back (exit 0)")
            failures += 1
        if "error" in rb_kinds and not any(n for r in rb for o, n in r.outcome.items()
                                           if o.startswith(("exit 1", "exit 3"))):
            print("FAIL: no faulted rollback ended in exit 1 or exit 3")
            failures += 1
        for r in rows:
            fl.log("%s [%.0f s]" % (r.summary(), getattr(r, "secs", 0)))
            failures += len(r.failures)
        fl.log("%d nettune runs in %.0f s" % (h.runs, time.monotonic() - t0))
    finally:
        h.cleanup()
    return 1 if failures else 0


def more_rows(h, stop, rows, converged, sets, ap_names, rb_names, rb_sets):
    """The rows after the apply x KIND matrix: the apply's own rollback
    under faults, rollbacks failing from K on, signals during a wait."""
    # the apply's own rollback under faults
    k1 = sets[-1]
    rc, out, err, names, nums, jc = faulted(h, "apply", "%d:error" % k1)
    m0 = fl.Matrix("apply", "error at its last SET")
    fl.check_apply(h, m0, k1, rc, out, err, jc, converged)
    after = len(names) - k1
    fl.log("apply with request %d (%s) failing: exit %d, %d requests after it" %
           (k1, ap_names[k1 - 1], rc, after))
    if rc != 1 or after < 1:
        m0.fail(k1, "expected exit 1 and a rollback with requests after the failed SET")
    rows.append(m0)
    for kind in ("error", "enobufs"):
        m = fl.Matrix("apply", "SET %d error + its rollback's K2 %s" % (k1, kind))
        t = time.monotonic()
        for k2 in range(k1 + 1, k1 + after + 1):
            if stop(m, k2):
                break
            rc, out, err, names, nums, jc = faulted(h, "apply", "%d:error,%d:%s" %
                                                    (k1, k2, kind))
            reached(m, k2, names, nums, ap_names[:k1])
            fl.check_apply(h, m, k2, rc, out, err, jc, converged)
        m.secs = time.monotonic() - t
        rows.append(m)
    m = fl.Matrix("apply", "SET %d error + every request from K2 on" % k1)
    t = time.monotonic()
    for k2 in fl.spread(after, 6):
        k2 += k1
        if stop(m, k2):
            break
        rc, out, err, names, nums, jc = faulted(h, "apply", "%d:error,%s" %
                                                (k1, from_on(k2)))
        fl.check_apply(h, m, k2, rc, out, err, jc, converged)
    if not m.outcome.get("exit 3 rollback-incomplete"):
        m.fail("-", "no case ended in exit 3 although its rollback could not write")
    m.secs = time.monotonic() - t
    rows.append(m)
    m = fl.Matrix("rollback", "every request from K on")
    t = time.monotonic()
    for k in fl.spread(len(rb_names), 8):
        if stop(m, k) or not fl.setup_applied(h, m, k, converged):
            continue
        rc, out, err, names, nums, jc = faulted(h, "rollback", from_on(k))
        fl.check_rollback(h, m, k, rc, out, err, converged)
    if not m.outcome.get("exit 3 rollback-incomplete"):
        m.fail("-", "no case ended in exit 3 although the rollback could not finish")
    m.secs = time.monotonic() - t
    rows.append(m)

    # signals during a wait
    m = fl.Matrix("apply", "signal during a wait")
    t = time.monotonic()
    reads = [k for k in range(1, sets[0]) if not ap_names[k - 1].endswith("-set")]
    for k, sig in ((sets[1], signal.SIGTERM), (sets[1], signal.SIGINT),
                   (reads[1], signal.SIGTERM), (reads[-1], signal.SIGTERM)):
        rc, out, err, jc, took = signal_case(h, m, "apply", k, sig, converged, ap_names)
        label = "%s %s" % (signal.Signals(sig).name, k)
        m.cases += 1
        fl.check_common(h, m, label, rc, out, err, jc)
        j = h.newest()
        new = len(h.journals()) > jc
        now = h.state()
        if rc != 1:
            m.fail(label, "exit %d, expected 1" % rc, fl.tail(err))
        elif now != h.before:
            m.fail(label, "the host differs from before: " +
                   fl.fmt_diff(fl.differences(h.before, now), h.before, now))
        elif k in sets and not (new and j["state"] == "failed" and
                                (j.get("error") or "").startswith(
                                    "interrupted by signal %d" % sig)):
            m.fail(label, "journal %s (error %r), expected failed, \"interrupted by "
                   "signal %d\"" % (j["state"] if new else "none",
                                    j.get("error") if new else None, sig))
        else:
            m.count("exit 1 in %.1f s" % took if took is not None else "exit 1")
        fl.reset(h, m, label, len(m.failures))
    m.secs = time.monotonic() - t
    rows.append(m)
    m = fl.Matrix("rollback", "signal during a wait")
    t = time.monotonic()
    k = rb_sets[len(rb_sets) // 2]
    if fl.setup_applied(h, m, "SIGKILL %d" % k, converged):
        rc, out, err, jc, took = signal_case(h, m, "rollback", k, signal.SIGKILL,
                                             converged, rb_names)
        m.cases += 1
        label = "SIGKILL %d" % k
        j = h.newest()
        if rc != -signal.SIGKILL:
            m.fail(label, "exit %d, expected the SIGKILL" % rc)
        if j["state"] != "rolling-back":
            m.fail(label, "journal %s after a rollback killed half-way, expected "
                   "rolling-back" % j["state"])
        hrc, hout, herr, _ = h.run(["history"])
        if "rolling-back" not in hout + herr:
            m.fail(label, "'nettune history' does not show the rollback killed half-way",
                   fl.tail(hout + herr))
        if fl.restore(h, m, label, "SIGKILL half-way"):
            m.count("killed, rolling-back, finished")
        fl.reset(h, m, label, len(m.failures))
    if fl.setup_applied(h, m, "SIGTERM %d" % k, converged):
        # nettune(1): a signal does not stop a rollback, whose requests
        # stay bounded: it finishes within the wait's bound (3 s here)
        rc, out, err, jc, took = signal_case(h, m, "rollback", k, signal.SIGTERM,
                                             converged, rb_names, 3000)
        m.cases += 1
        label = "SIGTERM %d" % k
        fl.check_common(h, m, label, rc, out, err, jc)
        j = h.newest()
        if rc != 0:
            m.fail(label, "exit %d, expected 0 (the rollback finishes)" % rc, fl.tail(err))
            fl.restore(h, m, label, "SIGTERM")
        elif h.state() != h.before or j["state"] != "rolled-back":
            m.fail(label, "exit 0 but not rolled back (journal %s)" % j["state"])
        else:
            m.count("exit 0 rolled-back")
        fl.reset(h, m, label, len(m.failures))
    m.secs = time.monotonic() - t
    rows.append(m)


sys.exit(main())
