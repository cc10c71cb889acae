#!/usr/bin/env python3
"""Tests of `nettune emit` and `nettune collect` (meson suite 'emit').

  golden     every example emits exactly tests/emit/golden/NAME.{sh,ps1}
             (NETTUNE_REGEN=1 rewrites them)
  shellcheck every emitted .sh passes shellcheck -s sh with no warnings
  ps1parse   every emitted .ps1 parses with no ERROR node under
             tree-sitter-powershell; a broken script is caught (control)
  netns      the veth-lab script runs for real in a network namespace:
             converges (ethtool/ip as oracles), reaches the state
             `nettune apply` reaches, second run only "ok", drift is
             repaired, rollback restores the previous state     (root)
  groups     every Linux offload key of compiler/language/offloads.def,
             on and off, emitted without --state and run on veth in a
             namespace drifted the other way: before the run the script's
             check and `nettune plan --check` report the same settings;
             after it both are clean, a second run changes nothing and
             rollback restores `ethtool -k` exactly.  The same with a
             linux.features entry inside a group, and with a snapshot that
             lacks group members the kernel has                  (root)
  ps1groups  every Windows offload key, on, off and per family: the
             playbook's settings are the same with and without --state
             (Windows lowering expands a key to fixed cmdlet parameters,
             never from host facts, so the playbook has no group to expand
             on the host) and cover every action of plan --state
  hostile    hostile names: rejected with a precise error or provably
             inert (executed in a namespace)                     (root)
  inject     hostile metadata.name refused; profile and --state paths with
             newlines, quotes, $(...), backticks and globs stay comments;
             interfaces named like globs never glob; apply, check and
             rollback run with a canary that must not appear; two runs in
             one second keep two rollback files and both roll back to
             the ethtool -k/-l and ip -d link dumps before each  (root)
  collect    the collector covers every attribute the Windows lowering
             produces; a collector-shaped sample round-trips through
             plan --state and emit --state
  playbook   structure of the playbooks and the collector that no Windows
             host is needed to check: one ShouldProcess for the change
             set, CIM enum properties only through ConvertTo-NtEnumName,
             -WhatIf guards, unique rollback file, tunnel MTU derived on
             the host without a snapshot, every collector probe recorded
             when it fails, failed_probes accepted by the snapshot loader
  sign       emit/collect --sign-cert/--sign-key: osslsigncode verify
             accepts the signed scripts (-CAfile of a self-signed
             code-signing certificate made here), any one-byte change
             breaks the signature; CRLF, and a UTF-8 BOM when not ASCII
  params     every cmdlet call in the playbooks and the collector uses
             parameter names and a parameter set that Microsoft's
             documentation lists (tests/emit/cmdlets.json); a renamed or
             invented parameter fails (control)
Exit 77 = skipped.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import atexit
import tempfile

NETTUNE = os.environ["NETTUNE"]
SRC = os.environ["SRCROOT"]
# journals and rollback files of these runs stay in a private state
# directory, never the host's /var/lib/nettune (inherited by every child)
_STATE = tempfile.mkdtemp(prefix="nt-emit-state-")
os.environ.setdefault("NETTUNE_STATE_DIR", os.path.join(_STATE, "state"))
atexit.register(shutil.rmtree, _STATE, True)
GOLDEN = os.path.join(SRC, "tests", "emit", "golden")
NODE_MODULES = os.path.join(SRC, "tests", ".node", "node_modules")
SKIP = 77


def run(args, check=False, **kw):
    r = subprocess.run(args, capture_output=True, text=True, **kw)
    if check and r.returncode != 0:
        raise AssertionError(f"{args} -> {r.returncode}\n{r.stdout}\n{r.stderr}")
    return r


def examples():
    out = []
    for y in sorted(glob.glob(os.path.join(SRC, "examples", "*.yaml"))):
        name = os.path.basename(y)[:-5]
        fmt = "ps1" if re.search(r"^target:\s*windows", open(y).read(), re.M) else "sh"
        state = os.path.join(SRC, "examples", "states", name + ".json")
        out.append((name, y, fmt, state if os.path.exists(state) else None))
    return out


def emit(profile, fmt, state=None, cwd=SRC):
    args = [NETTUNE, "emit", "--format", fmt, os.path.relpath(profile, cwd)]
    if state:
        args += ["--state", os.path.relpath(state, cwd)]
    return run(args, cwd=cwd)


def t_golden():
    bad = 0
    regen = os.environ.get("NETTUNE_REGEN")
    items = [(n, emit(y, f, s), f) for n, y, f, s in examples()]
    items.append(("collect-windows", run([NETTUNE, "collect", "--target", "windows"]), "ps1"))
    for name, r, fmt in items:
        path = os.path.join(GOLDEN, f"{name}.{fmt}")
        if r.returncode != 0:
            print(f"FAIL {name}: exit {r.returncode}\n{r.stderr}")
            bad += 1
            continue
        if regen:
            os.makedirs(GOLDEN, exist_ok=True)
            open(path, "w").write(r.stdout)
            continue
        want = open(path).read() if os.path.exists(path) else None
        if want != r.stdout:
            d = run(["diff", "-u", path, "-"], input=r.stdout)
            print(f"FAIL {name}: differs from {path}\n{d.stdout[:3000]}")
            bad += 1
        else:
            print(f"ok {name}.{fmt}")
    return 1 if bad else 0


def t_shellcheck():
    if not shutil.which("shellcheck"):
        print("shellcheck not installed")
        return SKIP
    files = glob.glob(os.path.join(GOLDEN, "*.sh"))
    if not files:
        print("no golden .sh files")
        return 1
    r = run(["shellcheck", "-s", "sh", "-S", "style"] + files)
    print(r.stdout or "\n".join(f"ok {f}" for f in files))
    # control: shellcheck must catch an unquoted expansion
    c = run(["shellcheck", "-s", "sh", "-"], input="#!/bin/sh\nx=$1\nls $x\n")
    if c.returncode == 0:
        print("FAIL control: shellcheck accepted an unquoted expansion")
        return 1
    return r.returncode


def ps1parse(files):
    return run(["node", os.path.join(SRC, "tests", "emit", "ps1parse.js"), NODE_MODULES] + files)


def t_ps1parse():
    if not shutil.which("node") or not os.path.isdir(os.path.join(NODE_MODULES, "tree-sitter-powershell")):
        print("node or tests/.node/node_modules missing: run scripts/deps.sh test")
        return SKIP
    files = glob.glob(os.path.join(GOLDEN, "*.ps1"))
    if len(files) < 3:
        print("expected the golden playbooks and the collector")
        return 1
    r = ps1parse(files)
    print(r.stdout, r.stderr)
    if r.returncode != 0:
        return 1
    with tempfile.TemporaryDirectory() as d:
        bad = os.path.join(d, "bad.ps1")
        open(bad, "w").write("$s = 'it's'\nif ($s) {\n")
        c = ps1parse([bad])
        if c.returncode != 1 or "ERROR" not in c.stdout:
            print("FAIL control: the parser accepted a broken script\n" + c.stdout + c.stderr)
            return 1
    return 0


class Netns:
    """A uniquely named namespace, deleted even when the test fails."""

    def __init__(self, tag):
        self.name = f"ntemit{tag}{os.getpid()}"

    def __enter__(self):
        run(["ip", "netns", "add", self.name], check=True)
        return self

    def __exit__(self, *a):
        run(["ip", "netns", "del", self.name])

    def sh(self, cmd, **kw):
        return run(["ip", "netns", "exec", self.name, "sh", "-c", cmd], **kw)


def feats(ns, dev):
    r = run(["ip", "netns", "exec", ns.name, "ethtool", "-k", dev], check=True)
    return {l.split(":")[0].strip(): l.split(":")[1].split()[0]
            for l in r.stdout.splitlines()[1:] if ":" in l}


def mtu(ns, dev):
    r = run(["ip", "-n", ns.name, "-o", "link", "show", "dev", dev], check=True)
    return int(re.search(r" mtu (\d+)", r.stdout).group(1))


def chans(ns, dev):
    out = run(["ip", "netns", "exec", ns.name, "ethtool", "-l", dev], check=True).stdout
    cur = out.split("Current hardware settings:")[1]
    return dict(re.findall(r"^(RX|TX):\s+(\d+)", cur, re.M))


def lab(ns):
    ns.sh("ip link add ntlab0 type veth peer name ntlab1", check=True)
    # drift from the profile: veth defaults plus a wrong MTU and GRO state
    ns.sh("ip link set ntlab1 mtu 1400 && ethtool -K ntlab1 gro off", check=True)


def state_of(ns):
    return {d: (mtu(ns, d), feats(ns, d), chans(ns, d)) for d in ("ntlab0", "ntlab1")}


def saved_in(out):
    """The rollback file a run of an emitted sh script reports."""
    m = re.findall(r"^nettune: previous values saved in (.*)$", out, re.M)
    assert len(m) == 1, f"the run names no rollback file:\n{out}"
    assert os.path.isfile(m[0]), m[0]
    return m[0]


def t_netns():
    if os.geteuid() != 0:
        print("needs root")
        return SKIP
    for tool in ("ip", "ethtool", "shellcheck"):
        if not shutil.which(tool):
            print(f"{tool} not installed")
            return SKIP
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "veth-lab.sh")
        r = emit(os.path.join(SRC, "examples", "veth-lab.yaml"), "sh")
        assert r.returncode == 0, r.stderr
        open(script, "w").write(r.stdout)
        env = f"NETTUNE_STATE_DIR='{tmp}/state'"
        with Netns("a") as ns:
            lab(ns)
            before = state_of(ns)
            first = ns.sh(f"{env} sh '{script}'")
            print(first.stdout, first.stderr)
            assert first.returncode == 0, "first run failed"
            assert "FAILED" not in first.stdout
            changed = [l for l in first.stdout.splitlines() if l.startswith("changed")]
            # 2 MTUs, rx-gro on both ends, and per end the tso group as the
            # kernel has it (tx-tcp, -ecn, tcp6, -accecn: mangleid follows
            # tx-tcp-segmentation off by itself) and tx-udp-segmentation
            assert len(changed) == 14, f"expected 14 changes, got {changed}"
            first_file = saved_in(first.stdout)
            # independent oracles
            assert mtu(ns, "ntlab0") == 9000 and mtu(ns, "ntlab1") == 1500
            for d in ("ntlab0", "ntlab1"):
                f = feats(ns, d)
                assert f["generic-receive-offload"] == "on", f
                assert f["tx-tcp-segmentation"] == "off", f
                assert f["tx-udp-segmentation"] == "off", f
                assert f["generic-segmentation-offload"] == "on", f
                assert f["tx-scatter-gather"] == "on" and f["rx-checksumming"] == "on", f
                assert chans(ns, d) == {"RX": "1", "TX": "1"}
            after = state_of(ns)
            # second run: nothing changes, every line is "ok"
            second = ns.sh(f"{env} sh '{script}'")
            lines = [l for l in second.stdout.splitlines() if not l.startswith("nettune:")]
            assert second.returncode == 0 and lines and all(l.startswith("ok ") for l in lines), second.stdout
            assert "nettune: 0 changed" in second.stdout, second.stdout
            assert state_of(ns) == after
            check = ns.sh(f"sh '{script}' check")
            assert check.returncode == 0, check.stdout
            # drift is repaired, and only the drift
            ns.sh("ethtool -K ntlab0 gro off && ip link set ntlab1 mtu 1280", check=True)
            check = ns.sh(f"sh '{script}' check")
            assert check.returncode == 2 and check.stdout.count("differs") == 2, check.stdout
            third = ns.sh(f"{env} sh '{script}'")
            assert [l.split()[1:3] for l in third.stdout.splitlines() if l.startswith("changed")] == \
                [["ntlab1", "mtu:"], ["ntlab0", "feature"]], third.stdout
            assert state_of(ns) == after
            # the third run saved its own file: the first run's is intact
            third_file = saved_in(third.stdout)
            assert third_file != first_file and os.path.getsize(first_file) > 0, (first_file, third_file)
            assert sorted(glob.glob(f"{tmp}/state/rollback-veth-lab-*")) == sorted([first_file, third_file])
            # a record file naming a kind this script does not carry (a
            # script carries its own kinds' getters and setters only) is
            # refused before any write
            other = os.path.join(tmp, "other.tsv")
            with open(first_file) as src, open(other, "w") as dst:
                dst.write(src.read() + "ring\tntlab0\trx\t256\n")
            rb = ns.sh(f"sh '{script}' rollback '{other}'")
            assert rb.returncode == 1 and "does not set kind 'ring'" in rb.stderr and \
                "nothing was changed" in rb.stderr, rb.stdout + rb.stderr
            assert not rb.stdout.strip() and state_of(ns) == after, rb.stdout
            # rollback of the first run restores the state before it
            rb = ns.sh(f"sh '{script}' rollback '{first_file}'")
            print(rb.stdout, rb.stderr)
            assert rb.returncode == 0 and "FAILED" not in rb.stdout
            assert state_of(ns) == before, "rollback did not restore the previous state"
            # a missing interface stops the script before any write
            ns.sh("ip link del ntlab0", check=True)
            miss = ns.sh(f"{env} sh '{script}'")
            assert miss.returncode == 1 and "not found: 'ntlab0'" in miss.stderr, miss.stderr
            assert "changed" not in miss.stdout
        # the state `nettune apply` reaches is the state the script reaches,
        # with a snapshot (emit --state from nettune observe) or without one:
        # the script expands each offload group on the host as apply does
        prof = os.path.join(SRC, "examples", "veth-lab.yaml")
        with Netns("b") as nb, Netns("c") as nc, Netns("d") as nd:
            lab(nb)
            lab(nc)
            lab(nd)
            snap = os.path.join(tmp, "snap.json")
            ob = run([NETTUNE, "--netns", nb.name, "observe", "--json"])
            assert ob.returncode == 0, "nettune observe failed: " + ob.stderr
            open(snap, "w").write(ob.stdout)
            r = run([NETTUNE, "emit", "--format", "sh", prof, "--state", snap])
            assert r.returncode == 0, r.stderr
            script2 = os.path.join(tmp, "veth-lab-state.sh")
            open(script2, "w").write(r.stdout)
            sc = nb.sh(f"{env} sh '{script2}'")
            print(sc.stdout, sc.stderr)
            assert sc.returncode == 0, "script from the snapshot failed"
            sd = nd.sh(f"{env} sh '{script}'")
            assert sd.returncode == 0, "script without a snapshot failed"
            ap = run([NETTUNE, "--netns", nc.name, "apply", "--yes", prof])
            print(ap.stdout, ap.stderr)
            assert ap.returncode == 0, "nettune apply failed"
            assert state_of(nb) == state_of(nc), \
                f"script and nettune apply disagree:\n{state_of(nb)}\n{state_of(nc)}"
            assert state_of(nd) == state_of(nc), \
                f"offline script and nettune apply disagree:\n{state_of(nd)}\n{state_of(nc)}"
    print("ok netns")
    return 0


def offload_rows():
    """The rows of compiler/language/offloads.def: (key, where, lowers_to
    or None, [features])."""
    text = open(os.path.join(SRC, "compiler", "language", "offloads.def")).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    rows = []
    for m in re.finditer(r"NT_OFFLOAD\((.*?)\)\s*(?=NT_OFFLOAD|\Z)", text, re.S):
        args, cur, q = [], "", False
        for c in m.group(1):
            if c == '"':
                q = not q
            if c == "," and not q:
                args.append(cur.strip())
                cur = ""
            else:
                cur += c
        args.append(cur.strip())
        lowers = None if args[4] == "NULL" else args[4].strip('"')
        feats = [a.strip('"') for a in args[6:] if a != "NULL"]
        rows.append((args[0], args[2], lowers, feats))
    return rows


def group_members(key, feats, kfeats):
    """The features of the device (name -> fixed) in the group, by the
    rules of ethtool(8): tx-checksum-*, tx-tcp*-segmentation, else names."""
    import fnmatch
    pat = {"tx_checksum": "tx-checksum-*", "tso": "tx-tcp*-segmentation"}.get(key)
    return [f for f in kfeats if (fnmatch.fnmatchcase(f, pat) if pat else f in feats)]


LEGACY = {"rx-checksumming": "rx-checksum", "generic-segmentation-offload": "tx-generic-segmentation",
          "generic-receive-offload": "rx-gro", "large-receive-offload": "rx-lro",
          "rx-vlan-offload": "rx-vlan-hw-parse", "tx-vlan-offload": "tx-vlan-hw-insert",
          "ntuple-filters": "rx-ntuple-filter", "receive-hashing": "rx-hashing"}


def kernel_feats(ns, dev):
    """name -> fixed, under the kernel's names (group headers dropped)."""
    lines = run(["ip", "netns", "exec", ns.name, "ethtool", "-k", dev], check=True).stdout.splitlines()[1:]
    out = {}
    for i, l in enumerate(lines):
        name = l.split(":")[0].strip()
        if not l.startswith("\t") and i + 1 < len(lines) and lines[i + 1].startswith("\t"):
            continue
        out[LEGACY.get(name, name)] = l.endswith("[fixed]")
    return out


GROUP_PROFILE = """apiVersion: nettune/v1
kind: HostProfile
metadata: {name: groups, host: any}
target: linux
interfaces:
  - name: ntlab0
    nic: veth
    offloads: OFFLOADS
EXTRA"""


def group_case(tmp, tag, offloads, drift, extra="", state=None):
    """One profile on a fresh veth pair drifted by `drift` (feature -> on/off):
    check and plan --check agree, the script converges, runs twice, rolls back."""
    prof = os.path.join(tmp, f"{tag}.yaml")
    open(prof, "w").write(GROUP_PROFILE.replace("OFFLOADS", offloads).replace("EXTRA", extra))
    env = f"NETTUNE_STATE_DIR='{tmp}/state-{tag}'"
    with Netns("g") as ns:
        ns.sh("ip link add ntlab0 type veth peer name ntlab1 && ip link set ntlab0 up && "
              "ip link set ntlab1 up", check=True)
        for f, v in drift.items():   # one at a time: a refused one does not stop the rest
            ns.sh(f"ethtool -K ntlab0 {f} {v}")
        args = [NETTUNE, "emit", "--format", "sh", prof]
        if state:
            args += ["--state", state(ns)]
        r = run(args)
        assert r.returncode == 0, f"{tag}: emit failed: {r.stderr}"
        script = os.path.join(tmp, f"{tag}.sh")
        open(script, "w").write(r.stdout)
        ethk = lambda: ns.sh("ethtool -k ntlab0", check=True).stdout

        def plan_check():
            p = run([NETTUNE, "--netns", ns.name, "plan", "--check", prof])
            assert p.returncode in (0, 2), f"{tag}: plan --check: {p.returncode} {p.stderr}"
            return p.returncode, sorted(l.split(":")[0].strip() for l in p.stdout.splitlines()[1:]
                                        if l.startswith("  "))

        def script_check():
            c = ns.sh(f"sh '{script}' check")
            assert c.returncode in (0, 2) and "FAILED" not in c.stdout, f"{tag}: check: {c.stdout}{c.stderr}"
            return c.returncode, sorted(l[9:].split(":")[0] for l in c.stdout.splitlines()
                                        if l.startswith("differs"))

        before = ethk()
        pc, sc = plan_check(), script_check()
        assert pc == sc, f"{tag}: before the run plan --check says {pc}, the script's check {sc}"
        first = ns.sh(f"{env} sh '{script}'")
        assert first.returncode == 0 and "FAILED" not in first.stdout, \
            f"{tag}: the script failed:\n{first.stdout}{first.stderr}"
        pc, sc = plan_check(), script_check()
        assert pc == (0, []), f"{tag}: after the script plan --check reports drift: {pc}\n{first.stdout}"
        assert sc == (0, []), f"{tag}: after the script its check reports drift: {sc}"
        second = ns.sh(f"{env} sh '{script}'")
        assert second.returncode == 0 and "nettune: 0 changed" in second.stdout, \
            f"{tag}: the second run changed something:\n{second.stdout}"
        if "previous values saved" in first.stdout:
            rb = ns.sh(f"sh '{script}' rollback '{saved_in(first.stdout)}'")
            assert rb.returncode == 0 and "FAILED" not in rb.stdout, f"{tag}: rollback: {rb.stdout}{rb.stderr}"
        after = ethk()
        assert after == before, f"{tag}: rollback did not restore ethtool -k:\n" + "\n".join(
            f"  {x!r} -> {y!r}" for x, y in zip(before.splitlines(), after.splitlines()) if x != y)
        return pc, first.stdout


def t_groups():
    if os.geteuid() != 0:
        print("needs root")
        return SKIP
    for tool in ("ip", "ethtool"):
        if not shutil.which(tool):
            print(f"{tool} not installed")
            return SKIP
    rows = [r for r in offload_rows() if r[1] != "WINDOWS"]
    own = {k: f for k, _, lw, f in rows if f}
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        with Netns("q") as ns:
            ns.sh("ip link add ntlab0 type veth peer name ntlab1", check=True)
            kf = kernel_feats(ns, "ntlab0")
        ran = 0
        for key, _, lowers, feats in rows:
            groups = lowers.split() if lowers is not None else [key]
            if not groups or not all(g in own for g in groups):
                continue
            members = [m for g in groups for m in group_members(g, own[g], kf)]
            changeable = [m for m in members if not kf[m]]
            for value in ("on", "off"):
                tag = f"{key}-{value}"
                if not changeable and value == "on":
                    continue    # veth has nothing to turn on: validation refuses it
                other = "off" if value == "on" else "on"
                try:
                    group_case(tmp, tag, f"{{{key}: {value}}}", {m: other for m in changeable})
                    print(f"ok {tag}: {len(changeable)} changeable of {len(members)} members")
                    ran += 1
                except AssertionError as e:
                    print(f"FAIL {e}")
                    bad += 1
        # a linux.features entry inside a group keeps its own value
        try:
            group_case(tmp, "tso-off-tcp6-on", "{tso: off}",
                       {"tx-tcp-segmentation": "on", "tx-tcp6-segmentation": "off"},
                       extra="    linux:\n      features: {tx-tcp6-segmentation: on}\n")
            print("ok tso off with linux.features tx-tcp6-segmentation on")
        except AssertionError as e:
            print(f"FAIL {e}")
            bad += 1

        # a snapshot that lacks members the kernel has: still expanded on the host
        def stale(ns):
            ob = run([NETTUNE, "--netns", ns.name, "observe", "--json"], check=True)
            snap = json.loads(ob.stdout)
            gone = {"feature tx-tcp6-segmentation", "feature tx-tcp-accecn-segmentation"}
            snap["settings"] = [x for x in snap["settings"]
                                if not (x["object"] == "ntlab0" and x["attribute"] in gone)]
            path = os.path.join(tmp, "stale.json")
            json.dump(snap, open(path, "w"))
            return path
        try:
            _, out = group_case(tmp, "tso-off-stale", "{tso: off}", {}, state=stale)
            assert "tx-tcp6-segmentation: on -> off" in out, out
            print("ok tso off against a snapshot without tx-tcp6/accecn")
        except AssertionError as e:
            print(f"FAIL {e}")
            bad += 1
        if ran < 10:
            print(f"FAIL only {ran} offload cases ran")
            bad += 1
    return 1 if bad else 0



def ps1_rows(text):
    """The playbook's settings: {(kind, object, arg, want)}."""
    rows = set()
    for m in re.finditer(r"@\{ Kind = '([^']*)'; Object = '((?:[^']|'')*)'; Arg = '([^']*)'; "
                         r"Want = ([^;]*); Source", text):
        want = m.group(4).strip()
        want = {"$true": "True", "$false": "False"}.get(want, want.strip("'"))
        rows.add((m.group(1), m.group(2).replace("''", "'"), m.group(3), want))
    return rows


def t_ps1groups():
    state = os.path.join(SRC, "examples", "states", "windows-wireguard-host.json")
    keys = [(k, pf) for k, where, _, _ in offload_rows() if where != "LINUX"
            for pf in [re.search(rf"NT_OFFLOAD\({k}, [^,]+, \w+, (true|false)",
                                 open(os.path.join(SRC, "compiler", "language", "offloads.def")).read()).group(1)]]
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        prof = os.path.join(tmp, "w.yaml")
        for key, pf in keys:
            values = ["on", "off"] + (["{ipv4: on, ipv6: off}"] if pf == "true" else [])
            for v in values:
                tag = f"{key}: {v}"
                open(prof, "w").write("apiVersion: nettune/v1\nkind: HostProfile\n"
                                      "metadata: {name: win-host-01}\ntarget: windows\ninterfaces:\n"
                                      f"  - name: Ethernet 2\n    offloads: {{{key}: {v}}}\n")
                off = run([NETTUNE, "emit", "--format", "ps1", prof])
                on = run([NETTUNE, "emit", "--format", "ps1", prof, "--state", state])
                if off.returncode or on.returncode:
                    # refused (rx or tx checksum alone): refused the same way either way
                    e1 = [l.split("error: ", 1)[-1] for l in off.stderr.splitlines() if "error:" in l]
                    e2 = [l.split("error: ", 1)[-1] for l in on.stderr.splitlines() if "error:" in l]
                    if off.returncode != on.returncode or e1 != e2 or not e1:
                        print(f"FAIL {tag}: offline {off.returncode} {e1}, with --state {on.returncode} {e2}")
                        bad += 1
                    else:
                        print(f"ok {tag}: refused either way: {e1[0]}")
                    continue
                a, b = ps1_rows(off.stdout), ps1_rows(on.stdout)
                pl = run([NETTUNE, "plan", prof, "--state", state, "--json"])
                acts = {(x["object"], x["attribute"], str(x["to"])) for x in json.loads(pl.stdout)["actions"]} \
                    if pl.returncode in (0, 2) else None
                rows = {(o, f"{k} {g}" if g else k, w) for k, o, g, w in b}
                if not a or a != b:
                    print(f"FAIL {tag}: settings differ offline {sorted(a)} / with --state {sorted(b)}")
                    bad += 1
                elif acts is None or not acts <= rows:
                    print(f"FAIL {tag}: plan --state actions not in the playbook: "
                          f"{sorted(acts - rows) if acts else pl.stderr}")
                    bad += 1
                else:
                    print(f"ok {tag}: {len(a)} settings either way, {len(acts)} planned, all in the playbook")
    return 1 if bad else 0



HOSTILE_LINUX_OK = ["q'$(id>p)", "b`id>p`", "c*", "d[a]?", "e;id>p", "f\"$HOME", "g'\\''h"]


HOSTILE_PROFILE = """apiVersion: nettune/v1
kind: HostProfile
metadata: {name: "NAME"}
target: windows
interfaces:
  - name: "ADAPTER"
    offloads: {uso: on, rsc: on}
    windows: {advanced_properties: {'*JumboPacket': "VALUE"}}
  - name: wg0
    tunnel: {kind: wireguard, underlay: "ADAPTER", outer: ipv4}
"""
# YAML-escaped hostile text, and a benign twin of the same structure
# metadata.name is a validated host name now (tests/bad/metadata-name-*):
# the hostile text comes through the file name, adapter and value instead
HOSTILE_WIN = {"NAME": "host",
               "ADAPTER": "Eth'1$(Invoke-Evil)\u2019x",
               "VALUE": "9014'; Invoke-Evil; '$(Invoke-Evil)"}
BENIGN_WIN = {"NAME": "host", "ADAPTER": "Ethernet 1", "VALUE": "9014"}


def windows_hostile(tmp):
    """Hostile metadata.name, file name, adapter name and property value:
    the playbook parses, has the tree of its benign twin (the text only
    ever lands inside single-quoted strings and comments) and no command
    Invoke-Evil."""
    if not have_node():
        print("node or tests/.node/node_modules missing: hostile playbook not parsed")
        return 1
    bad = 0
    outs = []
    for tag, subst, fname in (("hostile", HOSTILE_WIN, "p'$(Invoke-Evil)`\n#>x.yaml"),
                              ("benign", BENIGN_WIN, "p.yaml")):
        d = os.path.join(tmp, tag)
        os.mkdir(d)
        y = HOSTILE_PROFILE
        for k, v in subst.items():
            y = y.replace(k, v)
        open(os.path.join(d, fname), "w", encoding="utf-8").write(y)
        r = run([NETTUNE, "emit", "--format", "ps1", fname], cwd=d)
        if r.returncode != 0:
            print(f"FAIL {tag} playbook: {r.stderr}")
            return 1
        out = os.path.join(d, "out.ps1")
        open(out, "w", encoding="utf-8").write(r.stdout)
        outs.append(out)
    text = open(outs[0], encoding="utf-8").read()
    if "Invoke-Evil" not in text:
        print("FAIL the hostile text is not in the playbook at all")
        bad += 1
    # control: the same text in double quotes (a quoting bug) must show up
    # (the first setting's Source, which holds the hostile file name)
    m = re.search(r"Source = '(.*?)' \}", text, re.S)
    broken = os.path.join(tmp, "broken.ps1")
    open(broken, "w", encoding="utf-8").write(
        text[:m.start()] + 'Source = "' + m.group(1).replace("''", "'") + '" }' + text[m.end():])
    r = ps1tree("shape", *outs, broken)
    h, b, c = (json.loads(l) for l in r.stdout.split("\n") if l)
    if "Invoke-Evil" not in c["commands"]:
        print("FAIL control: a double-quoted hostile name does not show as an injected command")
        bad += 1
    if h["errors"] or b["errors"]:
        print("FAIL a playbook does not parse")
        bad += 1
    evil = [c for c in h["commands"] if "evil" in c.lower()]
    if evil:
        print(f"FAIL injected commands: {evil}")
        bad += 1
    if h["commands"] != b["commands"]:
        print("FAIL the hostile playbook runs other commands than its benign twin")
        bad += 1
    if h["shape"] != b["shape"]:
        i = next(i for i, (x, y) in enumerate(zip(h["shape"], b["shape"])) if x != y) \
            if any(x != y for x, y in zip(h["shape"], b["shape"])) else min(len(h["shape"]), len(b["shape"]))
        print(f"FAIL the hostile playbook's tree differs from its benign twin at node {i}: "
              f"{h['shape'][i - 3:i + 3]} vs {b['shape'][i - 3:i + 3]}")
        bad += 1
    if not bad:
        print(f"ok hostile playbook: same tree as its benign twin ({len(h['shape'])} nodes), "
              f"no injected command")
    return bad


def t_hostile():
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        def profile(names, target="linux", extra=""):
            y = ["apiVersion: nettune/v1", "kind: HostProfile", "metadata: {name: hostile}",
                 f"target: {target}", "interfaces:"]
            for n in names:
                q = n.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
                y.append(f'  - name: "{q}"')
                y.append("    mtu: 1400" if target == "linux" else "    offloads: {uso: on}")
                if target == "linux":
                    y.append("    offloads: {gro: on}")
            p = os.path.join(tmp, f"p{len(os.listdir(tmp))}.yaml")
            open(p, "w").write("\n".join(y) + "\n" + extra)
            return p

        # rejected at compile time, with the reason
        rejects = [
            (["a\nb"], "linux", "contains whitespace"),
            (["-k"], "linux", "would be read as an ethtool option"),
            (["a/b"], "linux", "contains '/'"),
            (["Eth*"], "windows", "wildcard character"),
            (["Eth?1"], "windows", "wildcard character"),
            (["Eth[1]"], "windows", "wildcard character"),
            (["Eth`1"], "windows", "backtick"),
            (["Eth\n1"], "windows", "control character"),
        ]
        for names, target, why in rejects:
            r = emit(profile(names, target), "ps1" if target == "windows" else "sh", cwd=tmp)
            if r.returncode != 1 or why not in r.stderr or r.stdout:
                print(f"FAIL {names!r}: want exit 1 and '{why}', got {r.returncode}: {r.stderr}")
                bad += 1
            else:
                print(f"ok rejected {names!r}: {r.stderr.strip().splitlines()[-1]}")
        # Windows: quotes and $() are quoted, not rejected, and stay literal
        win = ["Eth'1", "Eth\u20192", "Eth$(calc)3", "Eth\u201b\u20184"]
        r = emit(profile(win, "windows"), "ps1", cwd=tmp)
        if r.returncode != 0:
            print("FAIL windows quoting: " + r.stderr)
            return 1
        for lit in ["'Eth''1'", "'Eth\u2019\u20192'", "'Eth$(calc)3'", "'Eth\u201b\u201b\u2018\u20184'"]:
            if f"Object = {lit};" not in r.stdout:
                print(f"FAIL windows quoting: {lit} not in the playbook")
                bad += 1
        ps1 = os.path.join(tmp, "hostile.ps1")
        open(ps1, "w", encoding="utf-8").write(r.stdout)
        raw = subprocess.run([NETTUNE, "emit", "--format", "ps1", os.path.basename(profile(win, "windows"))],
                             capture_output=True, cwd=tmp).stdout
        if not raw.startswith(b"\xef\xbb\xbf"):
            print("FAIL a playbook with non-ASCII text has no UTF-8 BOM")
            bad += 1
        ascii_ps1 = subprocess.run([NETTUNE, "emit", "--format", "ps1", os.path.join(SRC, "examples", "windows-uro-workstation.yaml")],
                                   capture_output=True).stdout
        if ascii_ps1.startswith(b"\xef\xbb\xbf"):
            print("FAIL an ASCII playbook got a BOM")
            bad += 1
        if shutil.which("node") and os.path.isdir(NODE_MODULES):
            p = ps1parse([ps1])
            if p.returncode != 0:
                print("FAIL hostile playbook does not parse\n" + p.stdout)
                bad += 1
        bad += windows_hostile(tmp)
        # Linux: names the kernel accepts are quoted and provably inert
        r = emit(profile(HOSTILE_LINUX_OK), "sh", cwd=tmp)
        if r.returncode != 0:
            print("FAIL linux hostile names: " + r.stderr)
            return 1
        script = os.path.join(tmp, "hostile.sh")
        open(script, "w").write(r.stdout)
        sc = run(["shellcheck", "-s", "sh", script])
        if sc.returncode != 0:
            print("FAIL shellcheck on the hostile script\n" + sc.stdout)
            bad += 1
        if os.geteuid() != 0:
            print("not root: hostile names not executed")
            return 1 if bad else SKIP
        work = os.path.join(tmp, "cwd")
        os.mkdir(work)
        for n in ["c*", "d[a]?"]:
            # files a glob could match, to prove no word is globbed
            open(os.path.join(work, n.replace("*", "x").replace("[a]?", "ab")), "w").close()
        with Netns("h") as ns:
            for i, n in enumerate(HOSTILE_LINUX_OK):
                run(["ip", "-n", ns.name, "link", "add", n, "type", "veth", "peer", "name", f"peer{i}"], check=True)
            r1 = run(["ip", "netns", "exec", ns.name, "env", f"NETTUNE_STATE_DIR={tmp}/st", "sh", script], cwd=work)
            r2 = run(["ip", "netns", "exec", ns.name, "sh", script], cwd=work)
            print(r1.stdout, r1.stderr)
            if r1.returncode != 0 or r2.returncode != 0 or re.search(r"^(changed|FAILED)", r2.stdout, re.M):
                print(f"FAIL hostile run: {r1.returncode} {r2.returncode}\n{r2.stdout}")
                bad += 1
            for n in HOSTILE_LINUX_OK:
                if mtu(ns, n) != 1400 or feats(ns, n)["generic-receive-offload"] != "on":
                    print(f"FAIL {n!r} not converged")
                    bad += 1
            if os.path.exists(os.path.join(work, "p")) or os.path.exists(os.path.join(SRC, "p")):
                print("FAIL a name was executed as a command")
                bad += 1
    print("ok hostile" if not bad else "")
    return 1 if bad else 0


# Directory, profile and snapshot names: every line after the first would run
# as a command if it escaped its comment; CR and ESC would hide it on a tty.
INJECT_DIR = "d\n$(touch CANARY)\n`touch CANARY`'\"*?[a]\\ ;touch CANARY;\r\x1b[2K"
INJECT_PROFILE = "p\ntouch CANARY\n#'$(touch CANARY)`touch CANARY`*.yaml"
INJECT_STATE = "s\n$(touch CANARY)\n`touch CANARY`'\"*?.json"
# how they must read in the script's header
INJECT_DIR_COMMENT = "d\\x0a$(touch CANARY)\\x0a`touch CANARY`'\"*?[a]\\\\ ;touch CANARY;\\x0d\\x1b[2K"
INJECT_STATE_COMMENT = "s\\x0a$(touch CANARY)\\x0a`touch CANARY`'\"*?.json"
# names the kernel and nt_linux_ifname_problem accept, and files they match
GLOB_IFACES = ["g*", "g?", "g[0]"]
GLOB_FILES = ["g0", "gA", "gxy"]
INJECT_HOST = "inject.example-host_1"
FAKE_DATE = r"""#!/bin/sh
# date(1) pinned to one second; %N counts the calls, so runs stay ordered
case "$1" in
+%s.%N)
	n=$(cat "$0.n" 2>/dev/null || echo 0)
	n=$((n + 1))
	echo "$n" >"$0.n"
	printf '1800000000.%09d\n' "$n" ;;
*) exec DATE -d @1800000000 "$@" ;;
esac
"""


def inject_profile(name):
    y = ["apiVersion: nettune/v1", "kind: HostProfile", f"metadata: {{name: {json.dumps(name)}}}",
         "target: linux", "interfaces:"]
    for n in GLOB_IFACES:
        y.append(f"  - {{name: {json.dumps(n)}, nic: veth, mtu: 1400, offloads: {{gro: on, tso: off}}, "
                 "channels: {rx: 2, tx: 2}}")
    return "\n".join(y) + "\n"


def dump(ns):
    """What ethtool -k, ethtool -l and ip -d link report for the interfaces."""
    out = []
    for n in GLOB_IFACES:
        for args in (["ethtool", "-k", n], ["ethtool", "-l", n], ["ip", "-d", "link", "show", "dev", n]):
            r = run(["ip", "netns", "exec", ns.name] + args, check=True)
            out.append(r.stdout)
    return "".join(out)


def canaries(*dirs):
    return [os.path.join(d, "CANARY") for d in dirs if os.path.exists(os.path.join(d, "CANARY"))]


def t_inject():
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        # 1. metadata.name is a host name: the validator refuses the rest
        for name, why in [("gw$(touch CANARY)", "contains '$'"),
                          ("gw\ntouch CANARY", "contains a control character"),
                          ("`touch CANARY`", "does not start with a letter or digit"),
                          ("gw'x", "contains '''"), ("g*", "contains '*'")]:
            p = os.path.join(tmp, "name.yaml")
            open(p, "w").write(inject_profile(name))
            r = run([NETTUNE, "emit", "--format", "sh", "name.yaml"], cwd=tmp)
            want = f"name.yaml:3:18: error: metadata.name {why}; it must be a host name"
            if r.returncode != 1 or r.stdout or not r.stderr.startswith(want):
                bad.append(f"metadata.name {name!r}: want exit 1 and {want!r}, got {r.returncode}: {r.stderr}")
        if os.geteuid() != 0:
            print("\n".join(bad) or "not root: the rest needs a network namespace")
            return 1 if bad else SKIP
        for tool in ("ip", "ethtool", "shellcheck"):
            if not shutil.which(tool):
                print(f"{tool} not installed")
                return SKIP
        # 2. hostile profile and snapshot paths, interfaces named like globs
        os.mkdir(os.path.join(tmp, INJECT_DIR))
        prof = os.path.join(INJECT_DIR, INJECT_PROFILE)
        state = os.path.join(INJECT_DIR, INJECT_STATE)
        open(os.path.join(tmp, prof), "w").write(inject_profile(INJECT_HOST))
        work = os.path.join(tmp, "cwd")
        os.mkdir(work)
        for f in GLOB_FILES:
            open(os.path.join(work, f), "w").close()
        bindir = os.path.join(tmp, "bin")
        os.mkdir(bindir)
        fake = os.path.join(bindir, "date")
        open(fake, "w").write(FAKE_DATE.replace("DATE", shutil.which("date")))
        os.chmod(fake, 0o755)
        statedir = os.path.join(tmp, "st a*te $(touch CANARY) `touch CANARY`")
        with Netns("i") as ns:
            for i, n in enumerate(GLOB_IFACES):
                run(["ip", "-n", ns.name, "link", "add", n, "numrxqueues", "4", "numtxqueues", "4", "type", "veth",
                     "peer", "name", f"peer{i}", "numrxqueues", "4", "numtxqueues", "4"], check=True)
            ob = run([NETTUNE, "--netns", ns.name, "observe", "--json"], check=True)
            open(os.path.join(tmp, state), "w").write(ob.stdout)
            scripts = []
            for extra in ([], ["--state", state]):
                r = run([NETTUNE, "emit", "--format", "sh", prof] + extra, cwd=tmp)
                assert r.returncode == 0, f"emit {extra}: {r.returncode}\n{r.stderr}"
                path = os.path.join(tmp, f"inject{len(scripts)}.sh")
                open(path, "w").write(r.stdout)
                scripts.append(path)
                head = r.stdout.split("\nNT_HOST=")[0]
                if not all(l.startswith("#") for l in head.splitlines() if l):
                    bad.append(f"emit {extra}: a header line is not a comment:\n{head}")
                if INJECT_DIR_COMMENT not in head or (extra and INJECT_STATE_COMMENT not in head):
                    bad.append(f"emit {extra}: a path is not escaped in the header:\n{head}")
                n = run(["sh", "-n", path])
                c = run(["shellcheck", "-s", "sh", "-S", "style", path])
                if n.returncode or c.returncode:
                    bad.append(f"emit {extra}: sh -n {n.returncode} {n.stderr}, shellcheck {c.returncode}\n{c.stdout}")
            env = ["env", f"NETTUNE_STATE_DIR={statedir}"]
            for script in scripts:
                for fake_clock in (True, False):
                    bad += inject_pass(ns, script, env, work, fake_clock, bindir)
                    shutil.rmtree(statedir, ignore_errors=True)
        found = canaries(tmp, work, os.path.join(tmp, INJECT_DIR))
        if found:
            bad.append(f"a path or name was executed: {found}")
        if sorted(os.listdir(work)) != sorted(GLOB_FILES):
            bad.append(f"the scripts left files in their working directory: {os.listdir(work)}")
    print("\n".join(f"FAIL {b}" for b in bad) or "ok inject")
    return 1 if bad else 0


def inject_pass(ns, script, env, work, fake_clock, bindir):
    """Apply, drift, apply again (in one second when fake_clock), then roll
    back the newest run and the first one, comparing the dumps."""
    bad = []
    tag = f"{os.path.basename(script)} {'fake' if fake_clock else 'real'} clock"
    path = ["env", f"PATH={bindir}:{os.environ['PATH']}"] if fake_clock else []

    def sh(*args):
        return run(["ip", "netns", "exec", ns.name] + env + path + ["sh", script] + list(args), cwd=work)

    # a known start, not the profile's: veth defaults with a few changes
    for n in GLOB_IFACES:
        ns.sh(f"ip link set '{n}' mtu 1500 && ethtool -K '{n}' gro off tso on && ethtool -L '{n}' rx 1 tx 1",
              check=True)
    ns.sh("ethtool -K 'g[0]' tso off && ip link set 'g?' mtu 1450", check=True)
    before = dump(ns)
    first = sh()
    if first.returncode != 0 or "FAILED" in first.stdout:
        return [f"{tag}: first run {first.returncode}\n{first.stdout}{first.stderr}"]
    f1 = saved_in(first.stdout)
    converged = dump(ns)
    if converged == before:
        bad.append(f"{tag}: the first run changed nothing")
    ns.sh("ip link set 'g*' mtu 1300 && ethtool -K 'g?' gro off && ethtool -L 'g[0]' rx 3", check=True)
    drifted = dump(ns)
    second = sh()
    if second.returncode != 0 or "FAILED" in second.stdout:
        return [f"{tag}: second run {second.returncode}\n{second.stdout}{second.stderr}"]
    f2 = saved_in(second.stdout)
    if f1 == f2 or not os.path.getsize(f1) or not os.path.getsize(f2):
        bad.append(f"{tag}: the second run's rollback file {f2!r} replaced the first's {f1!r}")
    stamp = re.compile(r"rollback-" + re.escape(INJECT_HOST) + r"-(\d{8}T\d{6})-\d+-\d+\.tsv$")
    m1, m2 = stamp.search(f1), stamp.search(f2)
    if not m1 or not m2 or (fake_clock and m1.group(1) != m2.group(1)):
        bad.append(f"{tag}: rollback file names {f1!r} {f2!r}")
    if dump(ns) != converged:
        bad.append(f"{tag}: the second run did not converge")
    # a decoy that sorts last by name but records an older time
    decoy = os.path.join(os.path.dirname(f1), f"rollback-{INJECT_HOST}-99999999T999999-9-9.tsv")
    open(decoy, "w").write(f"#nettune-rollback\t1000000000.000000000\t{INJECT_HOST}\t1\nmtu\tg*\t-\t1280\n")
    rb = sh("rollback")
    if rb.returncode != 0 or f"rolled back from {f2} (" not in rb.stdout:
        bad.append(f"{tag}: rollback picked the wrong file or failed ({rb.returncode}):\n{rb.stdout}{rb.stderr}")
    if dump(ns) != drifted:
        bad.append(f"{tag}: rollback of the second run did not restore its previous state")
    rb = sh("rollback", f1)
    if rb.returncode != 0 or "FAILED" in rb.stdout:
        bad.append(f"{tag}: rollback of the first run {rb.returncode}\n{rb.stdout}{rb.stderr}")
    if dump(ns) != before:
        bad.append(f"{tag}: rollback of the first run did not restore the state before it")
    # NETTUNE_ROLLBACK names a file of its own too: an existing one is refused
    kept = open(f1).read()
    env1 = env + [f"NETTUNE_ROLLBACK={f1}"]
    again = run(["ip", "netns", "exec", ns.name] + env1 + path + ["sh", script], cwd=work)
    if again.returncode != 1 or "it is never overwritten" not in again.stderr or open(f1).read() != kept \
            or dump(ns) != before:
        bad.append(f"{tag}: NETTUNE_ROLLBACK=existing file: {again.returncode}\n{again.stdout}{again.stderr}")
    chk = sh("check")
    if chk.returncode != 2:
        bad.append(f"{tag}: check after the rollbacks: exit {chk.returncode}, want 2 (differences)")
    if not bad:
        print(f"ok {tag}: {os.path.basename(f1)}, {os.path.basename(f2)}")
    return bad


COLLECTED_ATTRS = ["uso ipv4", "uso ipv6", "rsc ipv4", "rsc ipv6", "lso ipv4", "lso ipv6",
                   "checksum ", "rss enabled", "rss profile", "rss base-processor",
                   "rss max-processor", "rss max-processors", "rss receive-queues",
                   "advanced-property ", "ip-mtu ", "offload-global receive-segment-coalescing",
                   "offload-global uro", "'uro'"]


def t_collect():
    bad = 0
    col = run([NETTUNE, "collect", "--target", "windows"], check=True).stdout
    for a in COLLECTED_ATTRS:
        if a not in col:
            print(f"FAIL the collector never writes '{a}'")
            bad += 1
    for key in ["rsc_failure_ipv4", "numa_node", "diagnosis", "uro_disabled_mask", "nettune-snapshot/1"]:
        if key not in col:
            print(f"FAIL the collector never writes {key}")
            bad += 1
    u = run([NETTUNE, "collect", "--target", "linux"])
    if u.returncode != 64:
        print("FAIL collect --target linux should be a usage error")
        bad += 1
    sample = os.path.join(SRC, "examples", "states", "windows-wireguard-host.collected.json")
    prof = os.path.join(SRC, "examples", "windows-wireguard-host.yaml")
    p = run([NETTUNE, "plan", prof, "--state", sample, "--json"])
    if p.returncode != 2 or '"changes":14,' not in p.stdout:
        print(f"FAIL plan --state collected sample: {p.returncode}\n{p.stdout}\n{p.stderr}")
        bad += 1
    e = run([NETTUNE, "emit", "--format", "ps1", prof, "--state", sample])
    if e.returncode != 0 or "Kind = 'ip-mtu'; Object = 'wg0'; Arg = 'ipv4'; Want = 1420" not in e.stdout:
        print(f"FAIL emit --state collected sample: {e.returncode}\n{e.stderr}")
        bad += 1
    if "MTU = 1420" not in e.stdout:
        print("FAIL no reminder that MTU = belongs in the tunnel config")
        bad += 1
    print("ok collect" if not bad else "")
    return 1 if bad else 0


OPENSSL_CNF = """[req]
distinguished_name = dn
x509_extensions = v3
prompt = no
[dn]
CN = nettune test code signing
[v3]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = codeSigning
subjectKeyIdentifier = hash
"""


def verify(cert, path):
    return run(["osslsigncode", "verify", "-CAfile", cert, "-in", path])


def t_sign():
    for tool in ("osslsigncode", "openssl"):
        if not shutil.which(tool):
            print(f"{tool} not installed: run scripts/deps.sh test")
            return SKIP
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        cnf, key, cert = (os.path.join(tmp, n) for n in ("req.cnf", "key.pem", "cert.pem"))
        open(cnf, "w").write(OPENSSL_CNF)
        run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
             "-out", cert, "-days", "2", "-config", cnf], check=True)
        sign = ["--sign-cert", cert, "--sign-key", key]
        prof = os.path.join(SRC, "examples", "windows-wireguard-host.yaml")
        # a profile whose playbook has non-ASCII text (the adapter name)
        uni = os.path.join(tmp, "uni.yaml")
        open(uni, "w", encoding="utf-8").write(
            "apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: uni}\ntarget: windows\n"
            "interfaces:\n  - name: \"Ethernet \u00e9\u20192\"\n    offloads: {uso: on}\n")
        outs = {}
        for name, args in (("host", [NETTUNE, "emit", "--format", "ps1", prof]),
                           ("uni", [NETTUNE, "emit", "--format", "ps1", uni]),
                           ("collect", [NETTUNE, "collect", "--target", "windows"])):
            out = os.path.join(tmp, name + ".ps1")
            r = run(args + sign + ["-o", out])
            if r.returncode != 0:
                print(f"FAIL {name}: exit {r.returncode}: {r.stderr}")
                bad += 1
                continue
            outs[name] = out
            v = verify(cert, out)
            if v.returncode != 0 or "Succeeded" not in v.stdout:
                print(f"FAIL {name}: osslsigncode verify rejects it\n{v.stdout}{v.stderr}")
                bad += 1
            else:
                print(f"ok {name}: signature verifies")
            data = open(out, "rb").read()
            if b"\n" in data.replace(b"\r\n", b""):
                print(f"FAIL {name}: a line ends without CR")
                bad += 1
            if b"# SIG # Begin signature block\r\n" not in data or not data.endswith(b"# SIG # End signature block\r\n"):
                print(f"FAIL {name}: no signature block at the end")
                bad += 1
            if data.startswith(b"\xef\xbb\xbf") != (name == "uni"):
                print(f"FAIL {name}: UTF-8 BOM {'missing' if name == 'uni' else 'on an ASCII script'}")
                bad += 1
        # any one-byte change breaks it: in the text, in a comment, in the
        # signature block itself
        if "host" in outs:
            data = open(outs["host"], "rb").read()
            end = data.index(b"# SIG # Begin")
            for at in (data.index(b"Converges"), data.index(b"Want = $true") + 7, end // 2, end - 3,
                       len(data) - 200):
                t = bytearray(data)
                t[at] = ord("x") if t[at] != ord("x") else ord("y")
                p = os.path.join(tmp, f"tampered{at}.ps1")
                open(p, "wb").write(t)
                v = verify(cert, p)
                if v.returncode == 0:
                    print(f"FAIL a change at byte {at} still verifies")
                    bad += 1
                else:
                    print(f"ok a change at byte {at} breaks the signature")
        # another certificate is not trusted
        other = os.path.join(tmp, "other.pem")
        run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", os.path.join(tmp, "k2.pem"),
             "-out", other, "-days", "2", "-config", cnf], check=True)
        if "host" in outs and verify(other, outs["host"]).returncode == 0:
            print("FAIL verifies against an unrelated CA file")
            bad += 1
        # an encrypted key: a clear error, no output file, no prompt
        enc = os.path.join(tmp, "enc.pem")
        run(["openssl", "pkey", "-in", key, "-aes256", "-passout", "pass:x", "-out", enc], check=True)
        failed = os.path.join(tmp, "failed.ps1")
        r = run([NETTUNE, "collect", "--target", "windows", "--sign-cert", cert, "--sign-key", enc, "-o", failed],
                stdin=subprocess.DEVNULL, timeout=60)
        if r.returncode != 1 or "the key is encrypted" not in r.stderr or os.path.exists(failed):
            print(f"FAIL encrypted key: exit {r.returncode}, output written: {os.path.exists(failed)}: {r.stderr}")
            bad += 1
        else:
            print("ok encrypted key: refused, nothing written")
        # usage errors and a clear error for a bad certificate
        for args, code, why in (([NETTUNE, "emit", "--format", "ps1", prof, "--sign-cert", cert], 64, "go together"),
                                ([NETTUNE, "emit", "--format", "ps1", prof, "--sign-cert", "/nonexistent.pem",
                                  "--sign-key", key], 1, "cannot sign"),
                                ([NETTUNE, "collect", "--target", "windows", "--sign-key", key], 64, "go together")):
            r = run(args)
            if r.returncode != code or why not in r.stderr or r.stdout:
                print(f"FAIL {args[1:]}: want {code} and '{why}', got {r.returncode}: {r.stderr}")
                bad += 1
    print("ok sign" if not bad else "")
    return 1 if bad else 0


def ps1tree(*args):
    return run(["node", os.path.join(SRC, "tests", "emit", "ps1tree.js"), NODE_MODULES] + list(args))


def have_node():
    return shutil.which("node") and os.path.isdir(os.path.join(NODE_MODULES, "tree-sitter-powershell"))


CMDLETS = os.path.join(SRC, "tests", "emit", "cmdlets.json")

# Deliberate mistakes the checker must catch: (what, old, new, expected message)
PARAM_MUTATIONS = [
    ("renamed splat key", "NoRestart = $true }", "NoRestarts = $true }", "no parameter -NoRestarts"),
    ("renamed literal key", "$p['IPv6Enabled']", "$p['IPv6Enable']", "no parameter -IPv6Enable"),
    ("invented parameter", "Get-NetAdapter -Name $a -ErrorAction", "Get-NetAdapter -Names $a -ErrorAction",
     "Get-NetAdapter: no parameter -Names"),
    ("two parameter sets", "Get-NetAdapterAdvancedProperty -Name $S.Object -AllProperties",
     "Get-NetAdapterAdvancedProperty -Name $S.Object -InterfaceDescription 'x' -AllProperties",
     "fit no single parameter set"),
    ("dynamic splat key", "$p['IPv6Enabled'] = [bool]$Value", "$p[$S.Arg] = [bool]$Value", "is not a literal key"),
    ("own function", "Write-NtLine 'ok'", "Write-NtLine -Statuz 'ok'", "no parameter -Statuz"),
    ("unknown cmdlet", "Write-Progress -Activity", "Write-Progres -Activity", "not in the cmdlet table"),
]


def t_params():
    if not have_node():
        print("node or tests/.node/node_modules missing: run scripts/deps.sh test")
        return SKIP
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        files = sorted(glob.glob(os.path.join(GOLDEN, "*.ps1")))
        # playbooks the goldens do not cover: offline (derived tunnel MTU) and
        # one with every Windows kind
        off = os.path.join(tmp, "offline.ps1")
        open(off, "w").write(emit(os.path.join(SRC, "examples", "windows-wireguard-host.yaml"), "ps1").stdout)
        every = os.path.join(tmp, "every.yaml")
        open(every, "w").write(
            "apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: every}\ntarget: windows\n"
            "interfaces:\n  - name: Ethernet\n    mtu: 1500\n"
            "    offloads: {uso: on, rsc: on, lso: on, checksum: on, uro: on}\n"
            "    rss: {enabled: true, profile: numa, base_processor: 2, max_processors: 4, queues: 4}\n"
            "    windows: {advanced_properties: {'*JumboPacket': '9014'}}\n"
            "global: {receive_segment_coalescing: enabled, uro: enabled}\n")
        r = emit(every, "ps1", cwd=tmp)
        if r.returncode != 0:
            print("FAIL every-kind profile: " + r.stderr)
            return 1
        ev = os.path.join(tmp, "every.ps1")
        open(ev, "w").write(r.stdout)
        if len(files) < 3:
            print("expected the golden playbooks and the collector")
            return 1
        r = ps1tree("params", CMDLETS, *files, off, ev)
        print(r.stdout, r.stderr)
        if r.returncode != 0:
            bad += 1
        # a test of the test: each deliberate mistake fails with its reason
        # (one checker run for all of them: parsing is the slow part)
        base = open(ev).read()
        muts = []
        for i, (what, old, new, why) in enumerate(PARAM_MUTATIONS):
            if old not in base:
                print(f"FAIL control '{what}': '{old}' is not in the playbook any more")
                bad += 1
                continue
            m = os.path.join(tmp, f"mutated{i}.ps1")
            open(m, "w").write(base.replace(old, new, 1))
            muts.append((m, what, why))
        c = ps1tree("params", CMDLETS, *[m for m, _, _ in muts])
        if c.returncode != 1:
            print(f"FAIL controls: the checker exited {c.returncode}\n{c.stderr}")
            bad += 1
        for m, what, why in muts:
            lines = [l for l in c.stdout.splitlines() if l.startswith(m + ":")]
            if not any(why in l for l in lines) or any(l.endswith("commands checked)") for l in lines):
                print(f"FAIL control '{what}': the checker did not report '{why}'\n" + "\n".join(lines))
                bad += 1
            else:
                print(f"ok control '{what}': {lines[0]}")
    print("ok params" if not bad else "")
    return 1 if bad else 0


CIM_ENUM_PROPS = re.compile(r"\.(IpIPv4Enabled|TcpIPv4Enabled|TcpIPv6Enabled|UdpIPv4Enabled|UdpIPv6Enabled|"
                            r"IPv4FailureReason|IPv6FailureReason|SessionStatus|ReceiveSegmentCoalescing|Profile|"
                            r"AddressFamily|InterfaceOperationalStatus)\b")


def t_playbook():
    bad = 0

    def want(cond, msg):
        nonlocal bad
        if cond:
            print("ok " + msg)
        else:
            print("FAIL " + msg)
            bad += 1

    with tempfile.TemporaryDirectory() as tmp:
        host = os.path.join(SRC, "examples", "windows-wireguard-host.yaml")
        off = emit(host, "ps1")
        want(off.returncode == 0, "offline playbook emitted")
        books = {n: open(os.path.join(GOLDEN, n + ".ps1")).read()
                 for n in ("windows-wireguard-host", "windows-uro-workstation")}
        books["offline"] = off.stdout
        col = open(os.path.join(GOLDEN, "collect-windows.ps1")).read()
        for name, text in list(books.items()) + [("collector", col)]:
            want(text.startswith("#Requires -RunAsAdministrator\n"), f"{name}: #Requires -RunAsAdministrator")
            raw = [l.strip() for l in text.splitlines() if CIM_ENUM_PROPS.search(l) and not l.lstrip().startswith("#")]
            direct = [l for l in raw if "ConvertTo-NtEnumName" not in l and "Test-NtEnum" not in l]
            want(raw and not direct, f"{name}: {len(raw)} reads of CIM enum properties, all through the enum helper"
                 + ("" if not direct else f"; direct: {direct}"))
        for name, text in books.items():
            want(text.count(".ShouldProcess(") == 1, f"{name}: one ShouldProcess call (the whole change set)")
            want("[System.IO.FileMode]::CreateNew" in text and "[guid]::NewGuid()" in text and "yyyyMMddTHHmmssfff" in text,
                 f"{name}: rollback file with a unique name, never overwritten")
            want(re.search(r"if \(-not \$WhatIfPreference\) \{\n\s+if \(-not \(Test-Path -LiteralPath \$StateDir\)\) \{\n\s+\$null = New-Item", text)
                 and re.search(r"function Show-NtWfpCallouts \{\n\s+if \(\$WhatIfPreference\) \{", text),
                 f"{name}: state dir, transcript and WFP temp file only without -WhatIf")
            want(re.search(r"if \(\$changes.Count -gt 0 -and \(Confirm-NtChanges \$changes 'change'\)\) \{\n\s+\$saved = Save-NtPrevious", text),
                 f"{name}: previous values saved only after the change set is confirmed")
            want("[switch]$SkipDiagnosis" in text and "if (-not $SkipDiagnosis -and (Test-NtReceiveOffloadWanted)) { Show-NtDiagnosis }" in text,
                 f"{name}: -SkipDiagnosis, diagnosis only when a receive offload is wanted")
            want(text.count("Write-Progress -Activity") >= 2, f"{name}: Write-Progress over the settings")
            want("$NtRestartKinds = @('advanced-property', 'checksum', 'lso', 'uso', 'rsc', 'uro', 'rss')" in text,
                 f"{name}: -NoRestart kinds listed for pending restart")
        want("Derive = @{ Underlay = 'Ethernet 2'; Overhead = 80; Outer = 'dual' }" in books["offline"]
             and "$NtInterfaces = @('Ethernet 2', 'wg0')" in books["offline"],
             "offline: wg0 MTU derived on the host from 'Ethernet 2' (dual outer: 80)")
        want("Derive = @{" not in books["windows-wireguard-host"]
             and "Want = 1420" in books["windows-wireguard-host"],
             "with a snapshot: wg0 MTU 1420 computed at emit time")
        v4 = os.path.join(tmp, "v4.yaml")
        open(v4, "w").write("apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: v4}\ntarget: windows\n"
                            "interfaces:\n  - name: Ethernet\n    offloads: {uso: on}\n"
                            "  - name: wg1\n    tunnel: {kind: wireguard, underlay: Ethernet, outer: ipv4}\n")
        r = emit(v4, "ps1", cwd=tmp)
        want(r.returncode == 0 and "Object = 'wg1'; Arg = 'ipv4'; Want = $null; Derive = @{ Underlay = 'Ethernet'; Overhead = 60; Outer = 'ipv4' }" in r.stdout,
             "offline ipv4 outer: overhead 60")
        # collector: every probe but the adapter list goes through Get-NtOptional
        probes = [l.strip() for l in col.splitlines()
                  if re.search(r"\b(Get-NetAdapter\w+|Get-NetIPInterface|Get-NetOffloadGlobalSetting|Get-WindowsOptionalFeature|Get-NetEventSession)\b", l)
                  and not l.lstrip().startswith("#") and "Get-Command" not in l]
        loose = [l for l in probes if "Get-NtOptional '" not in l]
        want(probes and not loose, f"collector: {len(probes)} probes, each recorded when it fails" + (f"; not: {loose}" if loose else ""))
        want("failed_probes = @($failed)" in col, "collector: windows.failed_probes in the snapshot")
        # the snapshot loader takes failed_probes, and only one-line strings
        sample = json.load(open(os.path.join(SRC, "examples", "states", "windows-wireguard-host.collected.json")))
        for probes, code in ((["Get-NetAdapterUro 'Ethernet 2' failed: not available"], 2), (["a\nb"], 1)):
            sample["windows"]["failed_probes"] = probes
            st = os.path.join(tmp, "s.json")
            json.dump(sample, open(st, "w"))
            p = run([NETTUNE, "plan", host, "--state", st])
            want(p.returncode == code and (code == 2 or "failed_probes entries must be one-line strings" in p.stderr),
                 f"snapshot with failed_probes {probes!r}: exit {p.returncode}")
    print("ok playbook" if not bad else "")
    return 1 if bad else 0


TESTS = {"golden": t_golden, "shellcheck": t_shellcheck, "ps1parse": t_ps1parse,
         "netns": t_netns, "hostile": t_hostile, "inject": t_inject, "collect": t_collect,
         "sign": t_sign, "params": t_params, "playbook": t_playbook, "groups": t_groups,
         "ps1groups": t_ps1groups}

if __name__ == "__main__":
    try:
        sys.exit(TESTS[sys.argv[1]]())
    except AssertionError as e:
        print(f"FAIL {e}")
        sys.exit(1)
