#!/usr/bin/env python3
"""nettune benchmarks (bench/README.md): runs every measurement side by
side, takes medians, writes bench/RESULTS.md.

usage: bench.py [--runs N] [--only a,b,c,d] [--out FILE] [--profiles N]
Needs root for (a) and (b) (a private network namespace)."""
import argparse
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
NETTUNE = os.environ.get("NETTUNE", os.path.join(SRC, "build", "nettune"))
PAIRS = 32                      # 64 veth devices
FEATURES = {"gro": "on", "tso": "off", "gso": "off", "uso": "off", "rxvlan": "off", "txvlan": "off"}
# the same six changes as ethtool -K arguments (veth defaults are the opposite)
ETHTOOL_K = [("gro", "on"), ("tso", "off"), ("gso", "off"), ("tx-udp-segmentation", "off"),
             ("rxvlan", "off"), ("txvlan", "off")]
MTU, CHANNELS = 9000, 2


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, **kw)


def timed(cmd, env=None, ok=(0,)):
    t = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    dt = time.perf_counter() - t
    if r.returncode not in ok:
        sys.exit(f"bench: {' '.join(cmd)} exited {r.returncode}\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
    return dt, r


def med(xs):
    return statistics.median(xs)


def ms(x):
    return f"{x * 1000:.1f} ms" if x < 10 else f"{x:.2f} s"


def machine():
    cpu = "unknown"
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mem = "unknown"
    for line in open("/proc/meminfo"):
        if line.startswith("MemTotal"):
            mem = f"{int(line.split()[1]) / 1048576:.1f} GiB"
    try:
        load = open("/proc/loadavg").read().split()[0]
    except OSError:
        load = "?"
    ver = sh([NETTUNE, "--version"]).stdout.strip()
    eth = sh(["ethtool", "--version"]).stdout.strip() if shutil.which("ethtool") else "absent"
    return [("nproc", str(os.cpu_count())), ("CPU", cpu), ("kernel", platform.release()),
            ("memory", mem), ("load average at start", load), ("nettune", ver), ("ethtool", eth),
            ("python", platform.python_version())]


# ---------------------------------------------------------------- (a), (b)

class Netns:
    """A private namespace with PAIRS veth pairs in the kernel's defaults."""

    def __init__(self, work):
        self.name = f"ntbench{os.getpid()}"
        self.work = work

    def fresh(self):
        subprocess.run(["ip", "netns", "del", self.name], stderr=subprocess.DEVNULL)
        sh(["ip", "netns", "add", self.name])
        batch = []
        for i in range(PAIRS):
            batch.append(f"link add bva{i} numrxqueues 4 numtxqueues 4 type veth "
                         f"peer name bvb{i} numrxqueues 4 numtxqueues 4")
        for i in range(PAIRS):
            batch += [f"link set bva{i} up", f"link set bvb{i} up"]
        sh(["ip", "-n", self.name, "-batch", "-"], input="\n".join(batch) + "\n")

    def devices(self):
        return [f"bv{s}{i}" for i in range(PAIRS) for s in "ab"]

    def delete(self):
        subprocess.run(["ip", "netns", "del", self.name], stderr=subprocess.DEVNULL)


def veth_profile(devs):
    off = ", ".join(f"{k}: {v}" for k, v in FEATURES.items())
    lines = ["apiVersion: nettune/v1", "kind: HostProfile", "metadata: {name: bench-veth}",
             "target: linux", "interfaces:"]
    for d in devs:
        lines.append(f"  - {{name: {d}, nic: veth, mtu: {MTU}, offloads: {{{off}}}, "
                     f"channels: {{rx: {CHANNELS}, tx: {CHANNELS}}}}}")
    return "\n".join(lines) + "\n"


def per_change_script(devs):
    out = ["#!/bin/sh", "# one ethtool/ip process per change, as admins and tuned do", "set -e"]
    for d in devs:
        for f, v in ETHTOOL_K:
            out.append(f"ethtool -K {d} {f} {v}")
        out.append(f"ethtool -L {d} rx {CHANNELS} tx {CHANNELS}")
        out.append(f"ip link set dev {d} mtu {MTU}")
    return "\n".join(out) + "\n"


def bench_apply(a, work, res):
    ns = Netns(work)
    devs = ns.devices()
    prof = os.path.join(work, "veth64.yaml")
    open(prof, "w").write(veth_profile(devs))
    script = os.path.join(work, "per-change.sh")
    open(script, "w").write(per_change_script(devs))
    emitted = os.path.join(work, "emitted.sh")
    # emitted against a snapshot of the drifted namespace: offline (no
    # --state) the script cannot know the tso group's member features
    ns.fresh()
    snap = os.path.join(work, "veth64.json")
    with open(snap, "w") as f:
        subprocess.run([NETTUNE, "--netns", ns.name, "observe", "--json"], stdout=f, check=True)
    r = subprocess.run([NETTUNE, "emit", "--format", "sh", prof, "--state", snap, "-o", emitted],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    have_emit = r.returncode == 0
    env = dict(os.environ, NETTUNE_STATE_DIR=os.path.join(work, "state"))
    inns = ["ip", "netns", "exec", ns.name]
    methods = [("nettune apply", inns + [NETTUNE, "apply", prof])]
    methods.append(("per-change script (ethtool/ip)", inns + ["sh", script]))
    if have_emit:
        methods.append(("nettune emit --format sh script", inns + ["sh", emitted, "apply"]))
    times = {m: [] for m, _ in methods}
    nchanges = None
    try:
        for rep in range(a.runs):
            for m, cmd in methods:
                ns.fresh()
                if nchanges is None:
                    _, p = timed([NETTUNE, "--netns", ns.name, "plan", prof], env=env, ok=(2,))
                    mm = re.search(r"Plan: (\d+) changes", p.stdout)
                    nchanges = int(mm.group(1)) if mm else None
                dt, _ = timed(cmd, env=env)
                times[m].append(dt)
                # every method must leave the namespace converged
                timed([NETTUNE, "--netns", ns.name, "plan", prof], env=env, ok=(0,))
        # (b) no-op apply on the converged namespace (left by the last method)
        ns.fresh()
        timed(inns + [NETTUNE, "apply", prof], env=env)
        noop = [timed([NETTUNE, "--netns", ns.name, "apply", prof], env=env)[0]
                for _ in range(max(a.runs, 11))]
        noop_exec = [timed(inns + [NETTUNE, "apply", prof], env=env)[0]
                     for _ in range(max(a.runs, 11))]
        counts = "strace absent"
        if shutil.which("strace"):
            log = os.path.join(work, "noop.strace")
            sh(["strace", "-f", "-qq", "-e", "trace=socket,sendmsg,sendto,openat,ioctl,write",
                "-o", log, NETTUNE, "--netns", ns.name, "apply", prof], env=env)
            counts = sh(["python3", os.path.join(SRC, "tests/linux/count_writes.py"),
                         log]).stdout.strip()
            reqs = sum(1 for line in open(log) if "sendmsg(" in line or "sendto(" in line)
            counts += f" ({reqs} netlink requests in all, reads included)"
    finally:
        ns.delete()
    res["a"] = {"devices": len(devs), "changes": nchanges, "have_emit": have_emit,
                "emit_err": r.stderr.strip(),
                "times": {m: med(v) for m, v in times.items()},
                "all": times, "runs": a.runs}
    res["b"] = {"median": med(noop), "min": min(noop), "n": len(noop),
                "median_exec": med(noop_exec), "counts": counts}


# ---------------------------------------------------------------- (c)

def irq_profile(nics):
    lines = ["apiVersion: nettune/v1", "kind: HostProfile", "metadata: {name: bench-x710x8}",
             "target: linux", "host:", "  numa:", '    - {node: 0, cpus: "0-13,28-41"}',
             '    - {node: 1, cpus: "14-27,42-55"}', '  reserved_cpus: "0,28"', "interfaces:"]
    for k in range(nics):
        lines += [f"  - name: enp{k + 1}s0f0",
                  "    nic: intel-x710",
                  "    irq: {policy: numa-local-spread, irqbalance: ban}",
                  "    rps: {cpus: numa-local, flow_cnt: 512}",
                  "    xps: {cpus: follow-irq}"]
    lines += ["sysctl:", '  net.core.rps_sock_flow_entries: "32768"']
    return "\n".join(lines) + "\n"


def bench_plan(a, work, res):
    root = os.path.join(work, "root")
    sh(["python3", os.path.join(SRC, "tests/fixtures/mkroot.py"), root, "--nics", "8",
        "--queues", "64", "--irqbalance"])
    prof = os.path.join(work, "x710x8.yaml")
    open(prof, "w").write(irq_profile(8))
    cmd = [NETTUNE, "--root", root, "plan", prof]
    _, p = timed(cmd, ok=(2,))
    mm = re.search(r"Plan: (\d+) changes", p.stdout)
    t, rss = [], []
    for _ in range(max(a.runs, 11)):
        dt, r = timed(["/usr/bin/time", "-f", "RSS %M"] + cmd, ok=(2,))
        t.append(dt)
        rss.append(int(re.search(r"RSS (\d+)", r.stderr).group(1)))
    irqs = sum(1 for line in open(os.path.join(root, "proc/interrupts")) if "TxRx" in line)
    res["c"] = {"median": med(t), "min": min(t), "rss_kib": max(rss), "n": len(t),
                "changes": int(mm.group(1)) if mm else None, "irqs": irqs}


# ---------------------------------------------------------------- (d)

def bench_batch(a, work, res):
    d = os.path.join(work, "profiles")
    sh(["python3", os.path.join(HERE, "gen_profiles.py"), d, str(a.profiles)])
    files = sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".yaml"))
    listfile = os.path.join(work, "profiles.lst")
    open(listfile, "w").write("\n".join(files) + "\n")
    steps = {}
    out = {"n": len(files), "steps": steps}
    steps["nettune validate"] = [NETTUNE, "validate"] + files
    key = os.path.join(work, "bench.key")
    compile_ok = subprocess.run([NETTUNE, "compile", "--help"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL).returncode == 0
    if compile_ok and subprocess.run([NETTUNE, "keygen", "--out", key], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL).returncode == 0:
        outdir = os.path.join(work, "manifests")
        steps["nettune compile + sign"] = [NETTUNE, "compile", "--out-dir", outdir,
                                           "--key", key, "--state-dir", os.path.join(d, "states"),
                                           "--created", "2026-01-01T00:00:00Z"] + files
    else:
        out["no_compile"] = True
    py = ["python3", os.path.join(HERE, "jsonschema_baseline.py"),
          os.path.join(SRC, "schema/nettune.schema.json"), listfile]
    times = {k: [] for k in steps}
    times["python3-jsonschema (YAML load + validate)"] = []
    times["python3-jsonschema (validate only)"] = []
    for _ in range(a.runs):
        for k, cmd in steps.items():
            if k.startswith("nettune compile"):
                shutil.rmtree(os.path.join(work, "manifests"), ignore_errors=True)
            times[k].append(timed(cmd, ok=(0, 1))[0])  # 1: the invalid ones
        dt, r = timed(py)
        times["python3-jsonschema (YAML load + validate)"].append(dt)
        times["python3-jsonschema (validate only)"].append(
            float(re.search(r"validate ([0-9.]+)", r.stdout).group(1)))
        out["py_invalid"] = re.search(r"invalid (\d+)", r.stdout).group(1)
    out["times"] = {k: med(v) for k, v in times.items()}
    res["d"] = out


# ---------------------------------------------------------------- report

def verdict(ok):
    return "met" if ok else "**missed**"


def report(a, res, mach):
    L = ["# nettune benchmark results", "",
         f"Written by `bench/run.sh` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
         f"medians of {a.runs} runs unless stated (methods interleaved run by run).", "",
         "| machine | |", "|---|---|"]
    L += [f"| {k} | {v} |" for k, v in mach]
    L.append("")
    if "a" in res:
        r = res["a"]
        t = r["times"]
        base = t["nettune apply"]
        L += ["## (a) Converge 64 veth devices", "",
              f"{r['devices']} veth devices in a private namespace, each drifted in 6 features "
              f"(gro, tso, gso, uso, rxvlan, txvlan), channels (rx/tx 4 -> {CHANNELS}) and MTU "
              f"(1500 -> {MTU}): {r['changes']} plan actions.  Each run starts from freshly "
              "created devices (not timed); every method is run through `ip netns exec` and "
              "must leave the namespace converged (`nettune plan` exit 0).  The emitted script "
              "is `nettune emit --format sh --state` a snapshot of the drifted namespace.", "",
              "| method | median | runs | vs nettune apply |", "|---|---|---|---|"]
        for m, v in t.items():
            runs = ", ".join(f"{x * 1000:.0f}" for x in r["all"][m])
            L.append(f"| {m} | {ms(v)} | {runs} ms | {v / base:.1f}x |")
        if not r["have_emit"]:
            L.append(f"| nettune emit --format sh script | not available: {r['emit_err']} | | |")
        ratio = t["per-change script (ethtool/ip)"] / base
        L += ["", f"Target: apply >= 20x faster than the per-change script: {ratio:.1f}x, "
              f"{verdict(ratio >= 20)}.", ""]
    if "b" in res:
        r = res["b"]
        zero = r["counts"].startswith("0 set requests, 0 file writes")
        L += ["## (b) No-op apply on the converged namespace", "",
              "| measure | value |", "|---|---|",
              f"| wall time, `nettune --netns NS apply` (median of {r['n']}) | {ms(r['median'])} "
              f"(min {ms(r['min'])}) |",
              f"| wall time, `ip netns exec NS nettune apply` (median of {r['n']}) | "
              f"{ms(r['median_exec'])} |",
              f"| writes (strace + tests/linux/count_writes.py) | {r['counts']} |", "",
              f"Target: <= 10 ms with 0 writes: {verdict(r['median'] <= 0.010 and zero)}.", ""]
    if "c" in res:
        r = res["c"]
        L += ["## (c) Plan against 8 NICs x 64 queues", "",
              f"`nettune --root FIXTURE plan`: fixture from `tests/fixtures/mkroot.py --nics 8 "
              f"--queues 64` ({r['irqs']} queue IRQs, two nodes, 56 CPUs); the profile asks for "
              f"numa-local-spread IRQs, RPS and XPS on all 8: {r['changes']} actions.", "",
              "| measure | value |", "|---|---|",
              f"| wall time (median of {r['n']}) | {ms(r['median'])} (min {ms(r['min'])}) |",
              f"| peak RSS (max of {r['n']}, /usr/bin/time -f %M) | {r['rss_kib'] / 1024:.1f} MiB |",
              "", f"Target: <= 20 ms and <= 16 MiB: "
              f"{verdict(r['median'] <= 0.020 and r['rss_kib'] <= 16384)}.", ""]
    if "d" in res:
        r = res["d"]
        t = r["times"]
        L += ["## (d) 10,000 host profiles", "",
              f"{r['n']} generated host profiles (`bench/gen_profiles.py`: 1-4 NICs of the "
              "capability tables, tunnels, IRQ policies, RSS, sysctls; some extend the bundled "
              f"policies).  jsonschema reports {r['py_invalid']} of them invalid "
              "(it cannot see extends).", "",
              "| step | median | per profile |", "|---|---|---|"]
        for k, v in t.items():
            L.append(f"| {k} | {ms(v)} | {v / r['n'] * 1e6:.0f} us |")
        if r.get("no_compile"):
            L.append("| nettune compile + sign | not available in this build (issue 6) | |")
        nt = t.get("nettune compile + sign", t["nettune validate"])
        py = t["python3-jsonschema (YAML load + validate)"]
        L += ["", f"Target: <= 5 s and >= 20x faster than jsonschema: {ms(nt)}, "
              f"{py / nt:.1f}x: {verdict(nt <= 5 and py / nt >= 20)}.", ""]
    return "\n".join(L)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", default="a,b,c,d")
    ap.add_argument("--profiles", type=int, default=10000)
    ap.add_argument("--out", default=os.path.join(HERE, "RESULTS.md"))
    a = ap.parse_args()
    if a.runs < 5:
        sys.exit("bench: at least 5 runs (medians of 5)")
    only = set(a.only.split(","))
    mach = machine()
    res = {}
    with tempfile.TemporaryDirectory(prefix="ntbench") as work:
        if only & {"a", "b"}:
            bench_apply(a, work, res)
        if "c" in only:
            bench_plan(a, work, res)
        if "d" in only:
            bench_batch(a, work, res)
    text = report(a, res, mach)
    extra = os.path.join(HERE, "NOTES.md")
    if os.path.exists(extra):
        text += "\n" + open(extra).read()
    open(a.out, "w").write(text)
    print(text)


if __name__ == "__main__":
    main()
