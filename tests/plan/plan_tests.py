#!/usr/bin/env python3
"""CLI tests of `nettune plan` against snapshots.

  golden     every example with a bundled snapshot: text and --json output,
             stderr and exit code compared exactly with golden/
  contract   --json output parses and follows the SPEC contract
  converged  the snapshot with every planned `to` applied re-plans to
             nothing (exit 0, "No changes")
  errors     target mismatch, missing interface, NUMA mismatch, malformed
             snapshot: exit 1 and the exact located stderr in golden/

Runs from SRCROOT so that every path in the output is relative.  Bless
(rewrite) the golden files with: plan_tests.py golden --bless (READ them
against the seeds before committing).
"""
import json
import os
import subprocess
import sys
import tempfile

SRCROOT = os.environ.get("SRCROOT") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))
NETTUNE = os.environ.get("NETTUNE") or os.path.join(SRCROOT, "build", "nettune")
GOLDEN = "tests/plan/golden"

# (name, profile, snapshot): every example that has a bundled snapshot
EXAMPLES = sorted(
    (n[:-5], f"examples/{n[:-5]}.yaml", f"examples/states/{n}")
    for n in os.listdir(os.path.join(SRCROOT, "examples", "states"))
    if n.endswith(".json") and os.path.exists(os.path.join(SRCROOT, "examples", n[:-5] + ".yaml")))

ERRORS = [
    ("target-mismatch", "examples/windows-wireguard-host.yaml",
     "examples/states/x710-wireguard-gateway.json"),
    ("missing-interface", "examples/x710-wireguard-gateway.yaml",
     "tests/plan/states/x710-wg0-down.json"),
    ("missing-adapter", "examples/windows-wireguard-host.yaml",
     "tests/plan/states/windows-wg0-down.json"),
    ("numa-mismatch", "examples/x710-wireguard-gateway.yaml",
     "tests/plan/states/x710-numa-other.json"),
    ("malformed-snapshot", "examples/x710-wireguard-gateway.yaml",
     "tests/plan/states/x710-truncated.json"),
    ("missing-snapshot", "examples/x710-wireguard-gateway.yaml",
     "tests/plan/states/no-such-file.json"),
    ("tunnel-kind-mismatch", "examples/overlay-tunnels.yaml",
     "tests/plan/states/overlay-geneve-is-vxlan.json"),
    ("rss-key-no-key", "tests/plan/profiles/virtio-no-rss.yaml",
     "tests/plan/states/virtio-no-rss.json"),
]

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def plan(*args):
    env = dict(os.environ, NO_COLOR="1")
    r = subprocess.run([NETTUNE, "plan", *args], cwd=SRCROOT, env=env,
                       capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def compare(path, got, bless):
    full = os.path.join(SRCROOT, path)
    if bless:
        with open(full, "w") as f:
            f.write(got)
        return
    try:
        want = open(full).read()
    except FileNotFoundError:
        fail(f"{path} is missing (run with --bless after checking the output)")
        return
    if got != want:
        import difflib
        diff = "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                            path, "actual"))
        fail(f"{path} differs:\n{diff}")


def t_golden(bless):
    if not EXAMPLES:
        fail("no examples with bundled snapshots")
    for name, prof, snap in EXAMPLES:
        for mode, ext in (([], "txt"), (["--json"], "json")):
            rc, out, err = plan(prof, "--state", snap, *mode)
            if rc != 2:
                fail(f"{name} {ext}: exit {rc}, want 2 (changes pending)\n{err}")
            compare(f"{GOLDEN}/{name}.{ext}", out, bless)
            compare(f"{GOLDEN}/{name}.stderr", err, bless)


def t_contract(bless):
    keys = {"object": str, "attribute": str, "disruptive": bool}
    for name, prof, snap in EXAMPLES:
        rc, out, err = plan(prof, "--state", snap, "--json")
        try:
            doc = json.loads(out)
        except ValueError as e:
            fail(f"{name}: plan --json is not JSON: {e}")
            continue
        for k, t in (("host", str), ("target", str), ("changes", int), ("actions", list)):
            if not isinstance(doc.get(k), t):
                fail(f"{name}: top-level {k!r} missing or not {t.__name__}")
        if doc.get("changes") != len(doc.get("actions", [])):
            fail(f"{name}: changes {doc.get('changes')} != {len(doc.get('actions', []))} actions")
        prof_doc = open(os.path.join(SRCROOT, prof)).read()
        if f"target: {doc.get('target')}" not in prof_doc:
            fail(f"{name}: target {doc.get('target')!r} is not the profile's")
        for i, a in enumerate(doc.get("actions", [])):
            for k, t in keys.items():
                if not isinstance(a.get(k), t):
                    fail(f"{name}: actions[{i}].{k} missing or not {t.__name__}")
            for k in ("from", "to", "source"):
                if k not in a:
                    fail(f"{name}: actions[{i}] has no {k!r}")
            if a.get("to") is None:
                fail(f"{name}: actions[{i}].to is null")
            if a.get("from") == a.get("to"):
                fail(f"{name}: actions[{i}] changes nothing ({a.get('from')!r})")
            src = a.get("source")
            if src is not None:
                parts = src.rsplit(":", 2)
                if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit() or \
                        not os.path.exists(os.path.join(SRCROOT, parts[0])):
                    fail(f"{name}: actions[{i}].source {src!r} is not FILE:LINE:COL")
        if doc.get("disruptive") != sum(1 for a in doc.get("actions", []) if a.get("disruptive")):
            fail(f"{name}: disruptive count does not match the actions")


def t_converged(bless):
    for name, prof, snap in EXAMPLES:
        rc, out, err = plan(prof, "--state", snap, "--json")
        doc = json.loads(out)
        state = json.load(open(os.path.join(SRCROOT, snap)))
        settings = state.setdefault("settings", [])
        index = {(s["object"], s["attribute"]): s for s in settings}
        for a in doc["actions"]:
            key = (a["object"], a["attribute"])
            if key in index:
                index[key]["value"] = a["to"]
            else:
                s = {"object": a["object"], "attribute": a["attribute"], "value": a["to"]}
                settings.append(s)
                index[key] = s
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(state, f, indent=2)
            path = f.name
        try:
            for mode in ([], ["--json"]):
                rc, out, err = plan(prof, "--state", path, *mode)
                if rc != 0:
                    fail(f"{name} converged {mode}: exit {rc}, want 0\n{out}{err}")
                if not mode and "No changes" not in out:
                    fail(f"{name} converged: no 'No changes' line\n{out}")
                if mode and json.loads(out)["changes"] != 0:
                    fail(f"{name} converged --json: changes != 0\n{out}")
        finally:
            os.unlink(path)


def t_errors(bless):
    for name, prof, snap in ERRORS:
        for mode in ([], ["--json"]):
            rc, out, err = plan(prof, "--state", snap, *mode)
            if rc != 1:
                fail(f"{name}: exit {rc}, want 1")
            if out:
                fail(f"{name}: printed a plan on stdout despite the error:\n{out}")
            compare(f"{GOLDEN}/error-{name}.stderr", err, bless)


X710_STATE = os.path.join(os.environ.get('SRCROOT', '.'), 'examples', 'states', 'x710-wireguard-gateway.json')


def t_warnings(bless):
    """A per_queue list shorter than the queues wraps, with a located warning."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        prof = os.path.join(d, "pq.yaml")
        with open(prof, "w") as f:
            f.write("apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: sg-gw-01}\n"
                    "target: linux\ninterfaces:\n  - name: enp1s0f0\n"
                    "    irq: {policy: explicit, per_queue: [\"2\", \"3\"]}\n")
        rc, out, err = plan(prof, "--state", X710_STATE)
        want = (f"{prof}:7:40: warning: enp1s0f0 has 56 queues but irq.per_queue lists 2 CPU "
                "sets: queue 2 and later reuse the list from the start (queue N gets entry N mod 2)")
        if rc != 2 or want not in err:
            fail(f"per_queue wrap: exit {rc}, stderr {err!r}")
        # queue 5 wraps to entry 5 mod 2 = 1, CPU 3
        if not any(l.split()[1:3] == ["irq-affinity", "5"] and "-> 3" in l
                   for l in out.splitlines() if len(l.split()) > 3):
            fail(f"per_queue wrap: queue 5 not placed on CPU 3:\n{out}")


def t_values(bless):
    """A snapshot value with a newline (untrusted, or the kernel's own
    kernel.core_modes; other control characters are refused) stays on its line in the plan text and
    the drift report: it cannot forge an 'in sync:' line or a CI annotation;
    --json keeps the exact value."""
    import json
    import tempfile
    evil = "1\nin sync: everything\n::error::x\tz"
    with tempfile.TemporaryDirectory() as d:
        prof = os.path.join(d, "p.yaml")
        snap = os.path.join(d, "s.json")
        with open(prof, "w") as f:
            f.write("apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: h}\n"
                    "target: linux\nsysctl:\n  net.core.somaxconn: \"4096\"\n")
        with open(snap, "w") as f:
            json.dump({"format": "nettune-snapshot/1", "host": {"name": "h"}, "settings": [
                {"object": "sysctl", "attribute": "sysctl net.core.somaxconn", "value": evil}]}, f)
        # newlines escaped; a tab is a field separator (tcp_rmem), shown as a space
        shown = "1\\nin sync: everything\\n::error::x z"
        rc, out, err = plan(prof, "--state", snap)
        line = f"    1  sysctl net.core.somaxconn      {shown} -> 4096  {prof}:6:23"
        if rc != 2 or line not in out.splitlines():
            fail(f"plan text of a multi-line value: exit {rc}:\n{out}{err}")
        rc, out, err = plan(prof, "--state", snap, "--check")
        want = [f"drift: 1 setting of {snap} differs from {prof}",
                f"  sysctl net.core.somaxconn: {shown} (want 4096)"]
        if rc != 2 or out.splitlines() != want:
            fail(f"drift report of a multi-line value: exit {rc}:\n{out}{err}")
        rc, out, err = plan(prof, "--state", snap, "--json")
        if rc != 2 or json.loads(out)["actions"][0]["from"] != evil:
            fail(f"plan --json of a multi-line value: exit {rc}:\n{out}{err}")


def t_layout(bless):
    """The text plan's steps are numbered 1..N in the order printed (no jump
    within an interface), and the from value starts in one column, however
    long the longest name (feature tx-tcp-mangleid-segmentation)."""
    import re
    for name, prof, snap in EXAMPLES:
        rc, out, err = plan(prof, "--state", snap)
        steps = [l for l in out.splitlines() if re.match(r"^ +\d+  \S", l)]
        nums = [int(l.split()[0]) for l in steps]
        if nums != list(range(1, len(nums) + 1)):
            fail(f"{name}: steps numbered {nums}, not 1..{len(nums)} as printed")
        cols = set()
        for l in steps:
            m = re.match(r"^ +\d+  (\S+(?: \S+)?) +(?=\S)", l)
            cols.add(m.end() if m else -1)
            if m and len(m.group(0)) - len(m.group(0).rstrip()) < 1:
                fail(f"{name}: no space after the name: {l!r}")
        if len(cols) != 1:
            fail(f"{name}: the from column starts at {sorted(cols)}")


TESTS = {"golden": t_golden, "contract": t_contract, "converged": t_converged,
         "errors": t_errors, "warnings": t_warnings, "values": t_values, "layout": t_layout}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in TESTS:
        print(f"usage: {sys.argv[0]} {'|'.join(TESTS)} [--bless]", file=sys.stderr)
        sys.exit(64)
    TESTS[sys.argv[1]]("--bless" in sys.argv[2:])
    sys.exit(1 if failures else 0)
