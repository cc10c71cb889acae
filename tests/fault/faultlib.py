"""Shared part of the fault-injection tiers (nl_fault.py, strace_fault.py).

A private network namespace with two veth pairs, drift that the profile
undoes, and the checks every faulted run must pass:

- exit 0: the host equals what a fault-free apply gives (apply) or what it
  was before the apply (rollback), and the newest journal says so;
- exit 1: the host exactly as before (ethtool -k, -l, -g and ip -d link of
  every device, compared in full), and either no new journal with "nothing
  was changed" on stderr, or the new journal failed (rolled back by the
  apply itself) with the apply's error recorded;
- exit 3: the newest journal rollback-incomplete, stderr names every
  setting that is not restored and no setting that is, and a fault-free
  'nettune rollback' then restores the host exactly;
- any other exit code, or a run still going after RUN_TIMEOUT seconds
  (reported as exit 124), fails;
- after every run: no nettune process left, the lock free, "Rolled back:
  the host is as before." only when it is, no journal entry without a
  previous value.

Each case starts from the state before the apply and is put back there
afterwards (a fault-free rollback, or the namespace made anew).
"""
import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

NETTUNE = os.path.realpath(os.environ["NETTUNE"])
SRCROOT = os.environ["SRCROOT"]
RUN_TIMEOUT = float(os.environ.get("FAULT_RUN_TIMEOUT", "60"))
# a run that outlives RUN_TIMEOUT costs a minute: after this many the
# matrix stops (and fails) instead of running into meson's timeout
MAX_HANGS = int(os.environ.get("FAULT_MAX_HANGS", "3"))

DEVS = ["nfa0", "nfb0", "nfa1", "nfb1"]
# 10 settings (3 MTUs, 5 features, 2 channel counts); TSO off on nfa0
# turns off five kernel features, one of which (tx-tcp-mangleid-segmentation)
# only comes back after tx-tcp-segmentation: the rollback's second pass.
PROFILE = """apiVersion: nettune/v1
kind: HostProfile
metadata: {name: fault-tier, host: any}
target: linux
interfaces:
  - {name: nfa0, nic: veth, mtu: 9000, offloads: {gro: on, tso: off}, channels: {rx: 2, tx: 3}}
  - {name: nfb0, nic: veth, mtu: 4000, offloads: {gro: off, txvlan: off}}
  - {name: nfa1, nic: veth, mtu: 1500, channels: {rx: 1}}
"""

# ethtool -k's legacy names of single kernel features; the other
# top-level names (tx-checksumming, scatter-gather, tcp-segmentation-
# offload) stand for the indented kernel features below them
LEGACY = {
    "rx-checksumming": "rx-checksum",
    "generic-segmentation-offload": "tx-generic-segmentation",
    "generic-receive-offload": "rx-gro",
    "large-receive-offload": "rx-lro",
    "rx-vlan-offload": "rx-vlan-hw-parse",
    "tx-vlan-offload": "tx-vlan-hw-insert",
    "ntuple-filters": "rx-ntuple-filter",
    "receive-hashing": "rx-hashing",
}
AGGREGATE = {"tx-checksumming", "scatter-gather", "tcp-segmentation-offload"}

STATE_SCRIPT = r"""
for d in "$@"; do
	echo "== $d"
	ethtool -k "$d" 2>&1
	echo "-- channels"
	ethtool -l "$d" 2>&1
	echo "-- rings"
	ethtool -g "$d" 2>&1
	echo "-- link"
	ip -d -o link show "$d" 2>&1 | sed 's/ state [A-Z]* / /'
done
"""


def log(msg):
    print(msg, flush=True)


class Host:
    """The namespace, the state directory, and the before/converged states."""

    def __init__(self, tag):
        self.ns = "ntf%s%x%04x" % (tag, os.getpid(), int.from_bytes(os.urandom(2), "big"))
        self.work = tempfile.mkdtemp(prefix="nt-fault-")
        self.state_dir = os.path.join(self.work, "state")
        self.profile = os.path.join(self.work, "p.yaml")
        with open(self.profile, "w") as f:
            f.write(PROFILE)
        self.hangs = 0
        self.runs = 0
        self.make()
        self.before = self.state()

    # --- the namespace -------------------------------------------------
    def sh(self, *args, check=True):
        return subprocess.run(args, check=check, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True).stdout

    def make(self):
        """The namespace from nothing: two veth pairs and the drift."""
        subprocess.run(["ip", "netns", "del", self.ns], stderr=subprocess.DEVNULL)
        self.sh("ip", "netns", "add", self.ns)
        # fixed addresses: a namespace made anew must read as the first one
        for i, (a, b) in enumerate((("nfa0", "nfb0"), ("nfa1", "nfb1"))):
            self.sh("ip", "-n", self.ns, "link", "add", a, "address", "02:00:00:00:0%d:0a" % i,
                    "numrxqueues", "4", "numtxqueues", "4", "type", "veth", "peer", "name", b,
                    "address", "02:00:00:00:0%d:0b" % i, "numrxqueues", "4", "numtxqueues", "4")
            self.sh("ip", "-n", self.ns, "link", "set", a, "up")
            self.sh("ip", "-n", self.ns, "link", "set", b, "up")
        self.sh("ip", "netns", "exec", self.ns, "ethtool", "-K", "nfb0", "gro", "on")
        self.sh("ip", "-n", self.ns, "link", "set", "nfa1", "mtu", "1400")
        shutil.rmtree(self.state_dir, ignore_errors=True)

    def cleanup(self):
        subprocess.run(["ip", "netns", "del", self.ns], stderr=subprocess.DEVNULL)
        shutil.rmtree(self.work, ignore_errors=True)

    def state(self):
        return self.sh("ip", "netns", "exec", self.ns, "sh", "-c", STATE_SCRIPT, "sh", *DEVS)

    # --- running nettune -----------------------------------------------
    def run(self, args, env=None, prefix=(), stderr_path=None, on_start=None):
        """Runs nettune --netns NS ARGS in a session of its own; returns
        (rc, stdout, stderr, pid).  rc 124: still running after RUN_TIMEOUT
        (then its process group is ended: SIGTERM, 5 s, SIGKILL)."""
        e = dict(os.environ)
        e["NETTUNE_STATE_DIR"] = self.state_dir
        for k in [k for k in e if k.startswith("NETTUNE_NL_") or k == "NETTUNE_FAIL_STEP"]:
            del e[k]
        e.update(env or {})
        out = tempfile.TemporaryFile(mode="w+")
        err = open(stderr_path, "w+") if stderr_path else tempfile.TemporaryFile(mode="w+")
        p = subprocess.Popen(list(prefix) + [NETTUNE, "--netns", self.ns] + list(args), env=e,
                             stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                             start_new_session=True)
        self.runs += 1
        if on_start:
            on_start(p)
        try:
            rc = p.wait(timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            rc = 124
            self.hangs += 1
            for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
                try:
                    os.killpg(p.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    p.wait(timeout=wait)
                    break
                except subprocess.TimeoutExpired:
                    pass
        out.seek(0)
        err.seek(0)
        o, s = out.read(), err.read()
        out.close()
        err.close()
        return rc, o, s, p.pid

    # --- what the checks read ------------------------------------------
    def journals(self):
        d = os.path.join(self.state_dir, "journal")
        out = []
        for name in os.listdir(d) if os.path.isdir(d) else []:
            if name.endswith(".json") and not name.startswith("."):
                try:
                    with open(os.path.join(d, name)) as f:
                        out.append(json.load(f))
                except (OSError, ValueError) as ex:
                    out.append({"id": name, "state": "unreadable: %s" % ex, "created_ns": 0,
                                "entries": []})
        out.sort(key=lambda j: (j.get("created_ns", 0), j.get("id", "")), reverse=True)
        return out

    def newest(self):
        js = self.journals()
        return js[0] if js else None

    def lock_free(self):
        path = os.path.join(self.state_dir, "lock")
        if not os.path.exists(path):
            return True
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(fd, fcntl.LOCK_UN)
            return True
        except BlockingIOError:
            return False
        finally:
            os.close(fd)


def leftover_nettunes(ns):
    """Pids of live processes of this nettune binary run for namespace NS
    (Host.run passes --netns NS; a forked watcher keeps that command
    line): other tests' nettune processes, running beside this one, are
    not this one's leftovers."""
    pids = []
    want = ("--netns", ns)
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            if os.readlink("/proc/%s/exe" % p) != NETTUNE:
                continue
            with open("/proc/%s/cmdline" % p, "rb") as f:
                argv = [a.decode(errors="replace") for a in f.read().split(b"\0")]
            if not any(tuple(argv[i:i + 2]) == want for i in range(len(argv) - 1)):
                continue
            with open("/proc/%s/stat" % p) as f:
                if f.read().rsplit(")", 1)[1].split()[0] in "ZXx":
                    continue
        except OSError:
            continue
        pids.append(int(p))
    return pids


# --- reading states -------------------------------------------------------
def settings(text):
    """{(device, attribute): value} of a state() text; attributes as
    nettune labels them (mtu, feature NAME, channels rx, rings rx), the
    rest of ip -d link as 'link'.  Aggregate ethtool -k lines are kept as
    'feature* NAME' (compared, never expected in a listing)."""
    out = {}
    dev = sect = None
    for line in text.splitlines():
        if line.startswith("== "):
            dev, sect = line[3:], "features"
            continue
        if line.startswith("-- "):
            sect = line[3:]
            cur = False
            continue
        if sect == "features":
            m = re.match(r"^\s*([a-z0-9-]+): (\S+)", line)
            if m:
                name = m.group(1)
                if name in AGGREGATE:
                    out[(dev, "feature* " + name)] = m.group(2)
                else:
                    out[(dev, "feature " + LEGACY.get(name, name))] = m.group(2)
        elif sect in ("channels", "rings"):
            if line.startswith("Current hardware settings"):
                cur = True
            elif line.startswith("Pre-set maximums"):
                cur = False
            m = re.match(r"^([A-Za-z ]+):\s+(\S+)", line)
            if m:
                key = "%s %s" % (sect, m.group(1).strip().lower().replace(" ", "-"))
                out[(dev, key if cur else key + " (max)")] = m.group(2)
            elif line.strip():
                out[(dev, sect + " (reply)")] = line.strip()
        elif sect == "link":
            m = re.search(r" mtu (\d+) ", line)
            if m:
                out[(dev, "mtu")] = m.group(1)
            out[(dev, "link")] = re.sub(r" mtu \d+ ", " ", line)
    return out


def differences(a, b):
    """Keys whose values differ between two state() texts."""
    sa, sb = settings(a), settings(b)
    return sorted(k for k in set(sa) | set(sb) if sa.get(k) != sb.get(k))


def fmt_diff(keys, a, b, limit=8):
    sa, sb = settings(a), settings(b)
    parts = ["%s %s: %s -> %s" % (k[0], k[1], sa.get(k), sb.get(k)) for k in keys[:limit]]
    if len(keys) > limit:
        parts.append("... %d more" % (len(keys) - limit))
    return "; ".join(parts)


def named(err, dev, attr):
    """stderr names DEV ATTR (a whole attribute, not a prefix of another)."""
    return re.search(r"(^|\s)%s %s($|[^A-Za-z0-9_-])" % (re.escape(dev), re.escape(attr)),
                     err, re.M) is not None


def listed_failed(err):
    """{(device, attribute): reason} of each 'rollback FAILED: DEV ATTR back
    to VALUE: REASON' line."""
    out = {}
    for m in re.finditer(r"rollback FAILED: (\S+) (.+?) back to \S+: (.*)$", err, re.M):
        out.setdefault((m.group(1), m.group(2)), m.group(3))
    return out


# A listed setting that reads as before is a false report when the reason
# given is a read-back ("accepted, but it reads off"): nettune says it saw
# a value the host does not have.  When the reason is a failed request
# (the write refused, the read-back impossible) the restore was not
# verified and the host may hold the value through another setting's side
# effect: that is noted, not failed.
UNVERIFIED = re.compile(r"cannot read|could not read|not verified|unknown", re.I)
READ_CLAIM = re.compile(r"\breads\b", re.I)


def tail(s, n=6):
    lines = [l for l in s.splitlines() if l.strip()]
    return "\n".join("      | " + l for l in lines[-n:])


# --- the checks ------------------------------------------------------------
class Matrix:
    """Outcome counts and failures of one (command, kind) row."""

    def __init__(self, cmd, kind):
        self.cmd, self.kind = cmd, kind
        self.cases = 0
        self.outcome = {}
        self.failures = []

    def count(self, what):
        self.outcome[what] = self.outcome.get(what, 0) + 1

    def fail(self, k, what, detail=""):
        self.failures.append((k, what))
        log("FAIL: %s %s at %s: %s" % (self.cmd, self.kind, k, what))
        if detail:
            log(detail)

    def summary(self):
        o = ", ".join("%d %s" % (n, w) for w, n in sorted(self.outcome.items()))
        return "%s %s: %d cases (%s); %d failed" % (self.cmd, self.kind, self.cases,
                                                    o or "none", len(self.failures))


def check_common(h, m, k, rc, out, err, jcount_before):
    """The invariants of every faulted run, whatever its exit code."""
    ok = True
    if rc == 124:
        m.fail(k, "still running after %g s (hang)" % RUN_TIMEOUT, tail(err))
        ok = False
    left = leftover_nettunes(h.ns)
    if left:
        m.fail(k, "nettune processes left running: %s" % left)
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        ok = False
    if not h.lock_free():
        m.fail(k, "the lock is still held after the run")
        ok = False
    if "holds" in err and "lock" in err:
        m.fail(k, "lock held by another nettune at the start of the run", tail(err, 3))
        ok = False
    now = h.state()
    if "the host is as before" in (out + err) and now != h.before:
        m.fail(k, "says 'the host is as before' but it is not: " +
               fmt_diff(differences(h.before, now), h.before, now))
        ok = False
    js = h.journals()
    for j in js[:len(js) - jcount_before]:
        nulls = [e["object"] + " " + e["attribute"] for e in j.get("entries", [])
                 if e.get("before") is None]
        if nulls:
            m.fail(k, "journal %s (%s) has entries without a previous value: %s" %
                   (j["id"], j["state"], ", ".join(nulls[:5])))
            ok = False
    return ok, now


def check_incomplete(h, m, k, err, now):
    """Exit 3: stderr and the journal's not_restored name every setting
    that is not restored, and none that is (unless they say it could not
    be read back), and the journal holds each of them."""
    ok = True
    diff = [d for d in differences(h.before, now)
            if d[1] != "link" and not d[1].startswith("feature* ")
            and not d[1].endswith("(max)")]
    listed = listed_failed(err)
    missing = [d for d in diff if d not in listed and not named(err, d[0], d[1])]
    if missing:
        m.fail(k, "exit 3: not restored and not listed on stderr: " +
               fmt_diff(missing, h.before, now), tail(err))
        ok = False
    dset = set(diff)
    over = [x for x in listed if x not in dset and READ_CLAIM.search(listed[x]) and
            not UNVERIFIED.search(listed[x])]
    for x in listed:
        if x not in dset and x not in over:
            log("note: %s %s at %s: %s %s listed as not restored (%s), reads as before" %
                (m.cmd, m.kind, k, x[0], x[1], listed[x]))
    if over:
        m.fail(k, "exit 3: %d setting%s listed as not restored but read as before "
               "(%s)%s" % (len(over), "" if len(over) == 1 else "s",
                           "; ".join("%s %s: %s" % (x[0], x[1], listed[x]) for x in over[:4]),
                           "; the host is exactly as before" if not diff and
                           now == h.before else ""))
        ok = False
    j = h.newest()
    if j is None:
        return False
    entries = j.get("entries", [])
    known = {(e["object"], e["attribute"]) for e in entries}
    unknown = [d for d in diff if d not in known]
    if unknown:
        m.fail(k, "exit 3: changed settings the journal does not hold: " +
               fmt_diff(unknown, h.before, now))
        ok = False
    if "not_restored" not in j:
        m.fail(k, "exit 3: the journal does not say which settings are not restored")
        return False
    nr = set()
    for x in j["not_restored"]:
        i = x.get("entry")
        if not isinstance(i, int) or not 0 <= i < len(entries):
            m.fail(k, "exit 3: journal not_restored names no entry: %s" % x)
            ok = False
            continue
        nr.add((entries[i]["object"], entries[i]["attribute"]))
    jmiss = [d for d in diff if d in known and d not in nr]
    if jmiss:
        m.fail(k, "exit 3: not restored and not in the journal's not_restored: " +
               fmt_diff(jmiss, h.before, now))
        ok = False
    if nr != set(listed):
        m.fail(k, "exit 3: the journal's not_restored (%s) differs from stderr's list (%s)" %
               (", ".join(sorted("%s %s" % x for x in nr)) or "none",
                ", ".join(sorted("%s %s" % x for x in listed)) or "none"))
        ok = False
    return ok


def finished(j):
    """The state a completed rollback leaves: failed for a failed apply's
    journal (it has an error), rolled-back for one that had succeeded."""
    return "failed" if j.get("error") else "rolled-back"


def restore(h, m, k, why):
    """A fault-free rollback that must complete: exit 0, host as before,
    journal rolled-back (failed: a failed apply's)."""
    rc, out, err, _ = h.run(["rollback"])
    now = h.state()
    j = h.newest()
    good = rc == 0 and now == h.before and j and j["state"] == finished(j)
    if not good:
        m.fail(k, "%s: the fault-free rollback after it: exit %d, journal %s%s" %
               (why, rc, j["state"] if j else "absent",
                "" if now == h.before else ", host differs: " +
                fmt_diff(differences(h.before, now), h.before, now)), tail(err))
    return good


def reset(h, m, k, n0):
    """Back to the state before the apply, for the next case (a failure
    of its own only when the case has none yet: N0 failures before it)."""
    j = h.newest()
    if h.state() == h.before and (j is None or j["state"] not in
                                  ("applying", "applied", "rollback-incomplete",
                                   "rolling-back", "pending-confirm", "confirmed")):
        return
    if j is not None and j["state"] in ("applying", "applied", "rollback-incomplete",
                                        "rolling-back", "confirmed"):
        rc, _, _, _ = h.run(["rollback"])
        j = h.newest()
        if rc == 0 and h.state() == h.before and j["state"] == finished(j):
            return
    if len(m.failures) > n0:
        log("note: %s %s at %s: namespace made anew for the next case" % (m.cmd, m.kind, k))
    else:
        m.fail(k, "a fault-free rollback could not put the host back: namespace made anew")
    h.make()
    if h.state() != h.before:
        raise SystemExit("FAIL: the namespace made anew differs from the first one")


def check_apply(h, m, k, rc, out, err, jcount, converged):
    """One faulted apply against the invariants; then reset."""
    m.cases += 1
    n0 = len(m.failures)
    ok, now = check_common(h, m, k, rc, out, err, jcount)
    j = h.newest()
    new = len(h.journals()) > jcount
    js = j["state"] if (j and new) else "none"
    if rc == 0:
        m.count("exit 0 converged")
        if now != converged:
            m.fail(k, "exit 0 but the host is not converged: " +
                   fmt_diff(differences(converged, now), converged, now), tail(err))
        if js != "applied":
            m.fail(k, "exit 0 but the new journal is %s, not applied" % js)
    elif rc == 1:
        if now != h.before:
            m.fail(k, "exit 1 but the host differs from before (journal %s): %s" %
                   (js, fmt_diff(differences(h.before, now), h.before, now)), tail(err))
        if not new:
            m.count("exit 1 nothing changed")
            if "nothing was changed" not in err:
                m.fail(k, "exit 1, no journal, and stderr does not say nothing was changed",
                       tail(err))
        elif js == "failed" and j.get("error"):
            m.count("exit 1 failed")
        elif js == "failed":
            m.count("exit 1 journal failed without an error")
            m.fail(k, "exit 1, the new journal is failed but records no error", tail(err))
        else:
            m.count("exit 1 journal " + js)
            m.fail(k, "exit 1 but the new journal is %s, not failed" % js, tail(err))
    elif rc == 3:
        m.count("exit 3 rollback-incomplete")
        if js != "rollback-incomplete":
            m.fail(k, "exit 3 but the new journal is %s, not rollback-incomplete" % js)
        check_incomplete(h, m, k, err, now)
        if js in ("rollback-incomplete", "applied", "applying", "rolling-back"):
            restore(h, m, k, "exit 3")
    else:
        m.count("exit %d" % rc)
        if rc != 124:
            m.fail(k, "exit %d (only 0, 1 and 3 are allowed)" % rc, tail(err, 20))
    reset(h, m, k, n0)


def check_rollback(h, m, k, rc, out, err, converged):
    """One faulted rollback of an applied journal; then reset."""
    m.cases += 1
    n0 = len(m.failures)
    ok, now = check_common(h, m, k, rc, out, err, len(h.journals()) - 1)
    j = h.newest()
    js = j["state"] if j else "none"
    if rc == 0:
        m.count("exit 0 rolled-back")
        if now != h.before:
            m.fail(k, "exit 0 but the host differs from before: " +
                   fmt_diff(differences(h.before, now), h.before, now), tail(err))
        if js != "rolled-back":
            m.fail(k, "exit 0 but the journal is %s, not rolled-back" % js)
    elif rc == 3:
        m.count("exit 3 rollback-incomplete")
        if js != "rollback-incomplete":
            m.fail(k, "exit 3 but the journal is %s, not rollback-incomplete" % js)
        check_incomplete(h, m, k, err, now)
        restore(h, m, k, "exit 3")
    elif rc == 1:
        m.count("exit 1 journal " + js)
        if "nothing was changed" not in err:
            m.fail(k, "exit 1 but stderr does not say nothing was changed (journal %s)" % js,
                   tail(err))
        elif now != converged:
            m.fail(k, "exit 1, 'nothing was changed', but the host is not as applied: " +
                   fmt_diff(differences(converged, now), converged, now))
        if js not in ("applied", "rollback-incomplete", "rolling-back"):
            m.fail(k, "exit 1 and the journal is %s: not restorable any more" % js)
        else:
            restore(h, m, k, "exit 1")
    else:
        m.count("exit %d" % rc)
        if rc != 124:
            m.fail(k, "exit %d (only 0, 1 and 3 are allowed)" % rc, tail(err, 20))
    reset(h, m, k, n0)


def setup_applied(h, m, k, converged):
    """A fault-free apply before a faulted rollback; False if it failed."""
    rc, _, err, _ = h.run(["apply", "--yes", h.profile])
    if rc != 0 or h.state() != converged:
        m.fail(k, "the fault-free apply before the rollback: exit %d" % rc, tail(err))
        reset(h, m, k, len(m.failures) - 1)
        return False
    if "holds" in err and "lock" in err:
        m.fail(k, "the fault-free apply found the lock held", tail(err, 3))
    return True


def spread(n, count):
    """count indexes spread evenly over 1..n (all of them if n <= count)."""
    if n <= count:
        return list(range(1, n + 1))
    return sorted({1 + round(i * (n - 1) / (count - 1)) for i in range(count)})
