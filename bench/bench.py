#!/usr/bin/env python3
"""nettune benchmarks (bench/README.md): runs every measurement side by
side, takes medians, writes bench/RESULTS.md.

usage: bench.py [--runs N] [--only a,b,c,d,e] [--out FILE] [--profiles N]
                [--series 16,64,256,1024] [--series-runs N]
Needs root for (a), (b) and (e) (private network namespaces, deleted at
exit).  The series sizes also come from $NT_BENCH_SERIES."""
import argparse
import atexit
import os
import platform
import re
import shutil
import signal
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


def spawn_time(cmd, env=None, ok=(0,)):
    """Wall time of cmd started with posix_spawn, output to /dev/null: the
    least overhead a parent adds (for the millisecond measurements)."""
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        t = time.perf_counter()
        pid = os.posix_spawnp(cmd[0], cmd, env if env is not None else os.environ,
                              file_actions=[(os.POSIX_SPAWN_DUP2, null, 1),
                                            (os.POSIX_SPAWN_DUP2, null, 2)])
        _, st = os.waitpid(pid, 0)
        dt = time.perf_counter() - t
    finally:
        os.close(null)
    rc = os.waitstatus_to_exitcode(st)
    if rc not in ok:
        sys.exit(f"bench: {' '.join(cmd)} exited {rc}")
    return dt


def stats_of(cmd, env):
    """The NETTUNE_STATS=1 line of one run of cmd."""
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env=dict(env, NETTUNE_STATS="1"))
    m = re.search(r"nettune stats: (.*)", r.stderr)
    return m.group(1) if m else "no stats line"


def build_floor(name, work, libs=()):
    """bench/NAME.c built with cc (run.sh builds it and sets $FLOOR_APPLY...)."""
    exe = os.environ.get(name.upper()) or os.path.join(work, name)
    if not os.path.exists(exe):
        sh(["cc", "-O2", "-o", exe, os.path.join(HERE, name + ".c")] + list(libs))
    return exe


def timed_cpu(cmd, ok=(0,)):
    """timed(), plus the CPU time (user + system) of the command and its
    children: less sensitive than wall time to other load on the machine."""
    t0 = os.times()
    dt, r = timed(cmd, ok=ok)
    t1 = os.times()
    return dt, (t1.children_user - t0.children_user) + (t1.children_system - t0.children_system), r


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

LIVE_NETNS = set()              # deleted at exit, on SIGINT/SIGTERM too


def cleanup_netns():
    for name in sorted(LIVE_NETNS):
        subprocess.run(["ip", "netns", "del", name], stderr=subprocess.DEVNULL)
    LIVE_NETNS.clear()


class Netns:
    """A private namespace with `pairs` veth pairs in the kernel's defaults."""

    def __init__(self, work, pairs=PAIRS, tag=""):
        self.name = f"ntbench{os.getpid()}{tag}"
        self.work = work
        self.pairs = pairs

    def fresh(self):
        subprocess.run(["ip", "netns", "del", self.name], stderr=subprocess.DEVNULL)
        LIVE_NETNS.add(self.name)
        sh(["ip", "netns", "add", self.name])
        batch = []
        for i in range(self.pairs):
            batch.append(f"link add bva{i} numrxqueues 4 numtxqueues 4 type veth "
                         f"peer name bvb{i} numrxqueues 4 numtxqueues 4")
        for i in range(self.pairs):
            batch += [f"link set bva{i} up", f"link set bvb{i} up"]
        sh(["ip", "-n", self.name, "-batch", "-"], input="\n".join(batch) + "\n")

    def devices(self):
        return [f"bv{s}{i}" for i in range(self.pairs) for s in "ab"]

    def delete(self):
        subprocess.run(["ip", "netns", "del", self.name], stderr=subprocess.DEVNULL)
        LIVE_NETNS.discard(self.name)


def veth_profile(devs):
    off = ", ".join(f"{k}: {v}" for k, v in FEATURES.items())
    lines = ["apiVersion: nettune/v1", "kind: HostProfile", "metadata: {name: bench-veth, host: any}",
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


def plan_features(plan_text):
    """The features a plan changes, as floor_apply arguments NAME=0|1."""
    out = {}
    for m in re.finditer(r"(?m)^\s*\d+\s+feature (\S+)\s+\S+ -> (on|off)", plan_text):
        out[m.group(1)] = "1" if m.group(2) == "on" else "0"
    return [f"{k}={v}" for k, v in sorted(out.items())]


def bench_apply(a, work, res):
    ns = Netns(work)
    devs = ns.devices()
    prof = os.path.join(work, "veth64.yaml")
    open(prof, "w").write(veth_profile(devs))
    script = os.path.join(work, "per-change.sh")
    open(script, "w").write(per_change_script(devs))
    floor = build_floor("floor_apply", work, ["-lyaml"])
    env = dict(os.environ, NETTUNE_STATE_DIR=os.path.join(work, "state"))
    fstate = os.path.join(work, "floor-state")
    os.makedirs(fstate, exist_ok=True)
    inns = ["ip", "netns", "exec", ns.name]
    ns.fresh()
    _, p = timed([NETTUNE, "--netns", ns.name, "plan", prof], env=env, ok=(2,))
    mm = re.search(r"Plan: (\d+) changes", p.stdout)
    nchanges = int(mm.group(1)) if mm else None
    feats = plan_features(p.stdout)
    floor_cmd = [floor, fstate, str(MTU), str(CHANNELS)] + feats + ["--"] + devs
    # every method runs the same way: one process started inside the
    # namespace by ip netns exec (the script: one shell running 512 commands)
    methods = [("nettune apply", inns + [NETTUNE, "apply", "--yes", prof]),
               ("per-change script (ethtool/ip), one shell", inns + ["sh", script]),
               ("floor (bench/floor_apply.c)", inns + floor_cmd)]
    times = {m: [] for m, _ in methods}
    try:
        for rep in range(a.runs):
            for m, cmd in methods:
                ns.fresh()
                times[m].append(spawn_time(cmd, env=env))
                # every method must leave the namespace converged
                timed([NETTUNE, "--netns", ns.name, "plan", prof], env=env, ok=(0,))
        ns.fresh()
        conv_stats = stats_of([NETTUNE, "--netns", ns.name, "apply", "--yes", prof], env)
        # (b) no-op apply on the converged namespace, and the floor's no-op
        noop, noop_exec, noop_floor, true_t, version_t = [], [], [], [], []
        fenv = dict(env, FLOOR_NETNS=ns.name)
        for _ in range(max(a.runs, 11)):
            noop.append(spawn_time([NETTUNE, "--netns", ns.name, "apply", "--yes", prof], env=env))
            noop_exec.append(spawn_time(inns + [NETTUNE, "apply", "--yes", prof], env=env))
            noop_floor.append(spawn_time(floor_cmd, env=fenv))
            true_t.append(spawn_time(["/bin/true"]))
            version_t.append(spawn_time([NETTUNE, "--version"]))
        noop_stats = stats_of([NETTUNE, "--netns", ns.name, "apply", "--yes", prof], env)
        fr = subprocess.run(floor_cmd, env=dict(fenv, FLOOR_STATS="1"), stderr=subprocess.PIPE,
                            text=True)
        floor_noop_stats = fr.stderr.strip()
        counts = "strace absent"
        if shutil.which("strace"):
            log = os.path.join(work, "noop.strace")
            sh(["strace", "-f", "-qq", "-e", "trace=socket,sendmsg,sendto,openat,ioctl,write",
                "-o", log, NETTUNE, "--netns", ns.name, "apply", "--yes", prof], env=env)
            counts = sh(["python3", os.path.join(SRC, "tests/linux/count_writes.py"),
                         log]).stdout.strip()
            reqs = sum(1 for line in open(log) if "sendmsg(" in line or "sendto(" in line)
            counts += f" ({reqs} sendmsg/sendto in all, reads included)"
    finally:
        ns.delete()
    res["a"] = {"devices": len(devs), "changes": nchanges,
                "times": {m: med(v) for m, v in times.items()},
                "all": times, "runs": a.runs, "stats": conv_stats, "nfeat": len(feats)}
    res["b"] = {"median": med(noop), "min": min(noop), "n": len(noop),
                "median_exec": med(noop_exec), "floor": med(noop_floor),
                "true": med(true_t), "version": med(version_t), "counts": counts,
                "stats": noop_stats, "floor_stats": floor_noop_stats}


# ---------------------------------------------------------------- (e)

def series_sizes(a):
    """The N of the scaling series: --series, else $NT_BENCH_SERIES, else
    16,64,256,1024 (veth devices; N/2 pairs)."""
    spec = a.series or os.environ.get("NT_BENCH_SERIES") or "16,64,256,1024"
    ns = [int(x) for x in spec.split(",") if x.strip()]
    if any(n < 2 or n % 2 for n in ns):
        sys.exit("bench: the series sizes are even device counts >= 2")
    return ns


def series_one(a, work, n):
    """Converge and no-op apply of n veth devices: nettune, the per-change
    script, the floor, interleaved run by run."""
    ns = Netns(work, n // 2, tag=f"s{n}")
    devs = ns.devices()
    prof = os.path.join(work, f"veth{n}.yaml")
    open(prof, "w").write(veth_profile(devs))
    script = os.path.join(work, f"per-change{n}.sh")
    open(script, "w").write(per_change_script(devs))
    floor = build_floor("floor_apply", work, ["-lyaml"])
    env = dict(os.environ, NETTUNE_STATE_DIR=os.path.join(work, f"state{n}"))
    fstate = os.path.join(work, f"floor-state{n}")
    os.makedirs(fstate, exist_ok=True)
    inns = ["ip", "netns", "exec", ns.name]
    out = {"n": n}
    try:
        ns.fresh()
        _, p = timed([NETTUNE, "--netns", ns.name, "plan", prof], env=env, ok=(2,))
        mm = re.search(r"Plan: (\d+) changes", p.stdout)
        out["changes"] = int(mm.group(1)) if mm else None
        feats = plan_features(p.stdout)
        floor_cmd = [floor, fstate, str(MTU), str(CHANNELS)] + feats + ["--"] + devs
        conv = [("nettune", inns + [NETTUNE, "apply", "--yes", prof]),
                ("script", inns + ["sh", script]),
                ("floor", inns + floor_cmd)]
        ct = {m: [] for m, _ in conv}
        for _ in range(a.series_runs):
            for m, cmd in conv:
                ns.fresh()
                ct[m].append(spawn_time(cmd, env=env))
                timed([NETTUNE, "--netns", ns.name, "plan", prof], env=env, ok=(0,))
        ns.fresh()
        out["conv_stats"] = stats_of([NETTUNE, "--netns", ns.name, "apply", "--yes", prof], env)
        fenv = dict(env, FLOOR_NETNS=ns.name)
        noop = [("nettune", [NETTUNE, "--netns", ns.name, "apply", "--yes", prof], env),
                ("script", inns + ["sh", script], env),
                ("floor", floor_cmd, fenv),
                ("floor+profile", floor_cmd, dict(fenv, FLOOR_PROFILE=prof))]
        nt = {m: [] for m, _, _ in noop}
        for rep in range(max(a.series_runs, 11)):
            for m, cmd, e in noop:
                # the script's no-op costs as much as its converge: fewer runs
                if m == "script" and rep >= a.series_runs:
                    continue
                nt[m].append(spawn_time(cmd, env=e))
        out["noop_stats"] = stats_of(noop[0][1], env)
        fr = subprocess.run(floor_cmd, env=dict(fenv, FLOOR_STATS="1"), stderr=subprocess.PIPE,
                            text=True)
        out["floor_stats"] = fr.stderr.strip()
    finally:
        ns.delete()
    out["conv"] = {m: med(v) for m, v in ct.items()}
    out["conv_all"] = ct
    out["noop"] = {m: med(v) for m, v in nt.items()}
    out["noop_runs"] = {m: len(v) for m, v in nt.items()}
    return out


def bench_series(a, work, res):
    res["e"] = {"sizes": series_sizes(a), "runs": a.series_runs, "rows": []}
    for n in res["e"]["sizes"]:
        res["e"]["rows"].append(series_one(a, work, n))
        print(f"bench: series N={n} done", file=sys.stderr)


# ---------------------------------------------------------------- (c)

def irq_profile(nics):
    lines = ["apiVersion: nettune/v1", "kind: HostProfile", "metadata: {name: bench-x710x8, host: any}",
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


def plan_file_list(root, nics, queues, prof):
    """What `nettune --root ROOT plan` of irq_profile() reads, for the floor."""
    L = [f"f {prof}", "f sys/devices/system/cpu/online"]
    ncpus = int(open(os.path.join(root, "sys/devices/system/cpu/online")).read().split("-")[1]) + 1
    for c in range(ncpus):
        L += [f"f sys/devices/system/cpu/cpu{c}/topology/core_id",
              f"f sys/devices/system/cpu/cpu{c}/topology/physical_package_id"]
    L.append("d sys/devices/system/node")
    for n in sorted(os.listdir(os.path.join(root, "sys/devices/system/node"))):
        L.append(f"f sys/devices/system/node/{n}/cpulist")
    L += ["d proc", "f proc/sys/net/core/rps_sock_flow_entries", "f proc/interrupts"]
    for d in sorted(os.listdir(os.path.join(root, "proc"))):
        if d.isdigit():
            L.append(f"f proc/{d}/comm")
    for k in range(nics):
        ifn = f"enp{k + 1}s0f0"
        dev = f"sys/class/net/{ifn}/device"
        L += [f"l {dev}/driver", f"f {dev}/vendor", f"f {dev}/device", f"f {dev}/numa_node",
              f"f sys/class/net/{ifn}/mtu", f"d {dev}/msi_irqs",
              f"d sys/class/net/{ifn}/queues", f"d sys/class/net/{ifn}/queues"]
        for irq in sorted(int(x) for x in os.listdir(os.path.join(root, dev, "msi_irqs"))):
            L += [f"m proc/irq/{irq}/smp_affinity_list", f"f proc/irq/{irq}/smp_affinity_list"]
        for q in range(queues):
            L += [f"f sys/class/net/{ifn}/queues/rx-{q}/rps_cpus",
                  f"f sys/class/net/{ifn}/queues/rx-{q}/rps_flow_cnt",
                  f"f sys/class/net/{ifn}/queues/tx-{q}/xps_cpus"]
    return "\n".join(L) + "\n"


def bench_plan(a, work, res):
    root = os.path.join(work, "root")
    sh(["python3", os.path.join(SRC, "tests/fixtures/mkroot.py"), root, "--nics", "8",
        "--queues", "64", "--irqbalance"])
    prof = os.path.join(work, "x710x8.yaml")
    open(prof, "w").write(irq_profile(8))
    lst = os.path.join(work, "plan-files.lst")
    open(lst, "w").write(plan_file_list(root, 8, 64, prof))
    floor = build_floor("floor_plan", work)
    cmd = [NETTUNE, "--root", root, "plan", prof]
    _, p = timed(cmd, ok=(2,))
    mm = re.search(r"Plan: (\d+) changes", p.stdout)
    observed = len(re.findall(r"(?m)irq-affinity \d+\s+0-55 -> ", p.stdout))
    unobserved = p.stdout.count("(not observed)")
    t, rss, ft = [], [], []
    for _ in range(max(a.runs, 11)):
        t.append(spawn_time(cmd, ok=(2,)))
        ft.append(spawn_time([floor, root, lst]))
    for _ in range(3):
        _, r = timed(["/usr/bin/time", "-f", "RSS %M"] + cmd, ok=(2,))
        rss.append(int(re.search(r"RSS (\d+)", r.stderr).group(1)))
    irqs = sum(1 for line in open(os.path.join(root, "proc/interrupts")) if "TxRx" in line)
    res["c"] = {"median": med(t), "min": min(t), "rss_kib": max(rss), "n": len(t),
                "floor": med(ft), "floor_min": min(ft), "observed": observed,
                "unobserved": unobserved, "files": sum(1 for _ in open(lst)),
                "changes": int(mm.group(1)) if mm else None, "irqs": irqs,
                "isize": os.path.getsize(os.path.join(root, "proc/interrupts"))}


# ---------------------------------------------------------------- (d)

# Debian's python3-jsonschema and python3-yaml (apt), not a pip copy that
# another python3 on PATH may find first
DEB_PYTHON = "/usr/bin/python3"
FLOOR_SRC = os.path.join(HERE, "floor_batch.c")


def floor_binary(work):
    """bench/floor_batch.c built with cc (run.sh builds it too)."""
    exe = os.environ.get("FLOOR_BATCH") or os.path.join(work, "floor_batch")
    if not os.path.exists(exe):
        flags = sh(["pkg-config", "--cflags", "--libs", "yaml-0.1", "libcrypto"]).stdout.split()
        sh(["cc", "-O2", "-o", exe, FLOOR_SRC] + flags)
    return exe


def bench_batch(a, work, res):
    d = os.path.join(work, "profiles")
    sh([DEB_PYTHON, os.path.join(HERE, "gen_profiles.py"), d, str(a.profiles)])
    files = sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".yaml"))
    listfile = os.path.join(work, "profiles.lst")
    open(listfile, "w").write("\n".join(files) + "\n")
    states = os.path.join(d, "states")
    key = os.path.join(work, "bench.key")
    sh([NETTUNE, "keygen", "--out", key])
    jobs = str(os.cpu_count() or 1)
    floor = floor_binary(work)
    out_nt, out_fl = os.path.join(work, "manifests"), os.path.join(work, "floor-out")
    py = [DEB_PYTHON, os.path.join(HERE, "jsonschema_baseline.py"),
          os.path.join(SRC, "schema/nettune.schema.json"), listfile]
    pyver = sh([DEB_PYTHON, "-c", "import importlib.metadata as m, platform; "
                "print(platform.python_version(), m.version('jsonschema'), m.version('PyYAML'))"]
               ).stdout.split()
    names = ["python3-jsonschema (YAML load + validate)", "nettune validate", "floor: libyaml pass",
             "nettune compile + sign", "floor: libyaml pass + sign + write"]
    times = {k: [] for k in names}
    out = {"n": len(files), "jobs": jobs, "pyver": pyver}
    manifest_bytes = None
    cpu = {k: [] for k in names}

    def step(i, cmd, ok=(0,)):
        dt, c, r = timed_cpu(cmd, ok)
        times[names[i]].append(dt)
        cpu[names[i]].append(c)
        return r

    for run in range(a.runs):
        # one run = every method once, in this order; output directories
        # are emptied before each compile (not timed)
        r = step(0, py)
        out["py_invalid"] = re.search(r"invalid (\d+)", r.stdout).group(1)
        out.setdefault("py_validate_only", []).append(
            float(re.search(r"validate ([0-9.]+)", r.stdout).group(1)))
        r = step(1, [NETTUNE, "validate", "--jobs", jobs] + files, ok=(0, 1))
        out["nt_summary"] = r.stderr.strip().splitlines()[-1]
        step(2, [floor, "validate", jobs] + files)
        shutil.rmtree(out_nt, ignore_errors=True)
        r = step(3, [NETTUNE, "compile", "--jobs", jobs, "--out-dir", out_nt, "--key", key,
                     "--state-dir", states, "--created", "2026-01-01T00:00:00Z"] + files, ok=(0, 1))
        out["compile_summary"] = r.stdout.strip().splitlines()[-1]
        if manifest_bytes is None:
            plans = [f for f in os.listdir(out_nt) if f.endswith(".plan.json")]
            manifest_bytes = sum(os.path.getsize(os.path.join(out_nt, f)) for f in plans) // len(plans)
            out["manifests"] = len(plans)
            out["manifest_bytes"] = manifest_bytes
        shutil.rmtree(out_fl, ignore_errors=True)
        step(4, [floor, "compile", jobs, key, out_fl, str(manifest_bytes)] + files)
        out.setdefault("load", []).append(open("/proc/loadavg").read().split()[0])
    out["cpu"] = {k: med(v) for k, v in cpu.items()}
    out["all"] = times
    out["times"] = {k: med(v) for k, v in times.items()}
    out["py_validate_only"] = med(out["py_validate_only"])
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
        script = t["per-change script (ethtool/ip), one shell"]
        floor = t["floor (bench/floor_apply.c)"]
        L += ["## (a) Converge 64 veth devices", "",
              f"{r['devices']} veth devices in a private namespace, each drifted in 6 features "
              f"(gro, tso, gso, uso, rxvlan, txvlan: {r['nfeat']} kernel features), channels "
              f"(rx/tx 4 -> {CHANNELS}) and MTU (1500 -> {MTU}): {r['changes']} plan actions.  "
              "Each run starts from freshly created devices (not timed); every method is one "
              "process started by `ip netns exec` inside the namespace (the script: one `sh` "
              "running one `ethtool`/`ip` command per change, as an admin runs it on the host) "
              "and must leave the namespace converged (`nettune plan` exit 0).  The floor, "
              "`bench/floor_apply.c`, does only the unavoidable work of a safe converge with raw "
              "netlink: a lock, one dump per family (features with compact bitsets, channels, "
              "links), a journal of the previous values fsynced before the first write, one "
              "FEATURES_SET + CHANNELS_SET + RTM_NEWLINK per device, one dump per family to "
              "verify, the journal marked applied and fsynced.", "",
              "| method | median | runs | / nettune apply |", "|---|---|---|---|"]
        for m, v in t.items():
            runs = ", ".join(f"{x * 1000:.0f}" for x in r["all"][m])
            L.append(f"| {m} | {ms(v)} | {runs} ms | {v / base:.2f}x |")
        ratio, fratio = script / base, script / floor
        L += ["", f"nettune apply's requests (`NETTUNE_STATS=1`): {r['stats']}.", "",
              f"Target: apply >= 20x faster than the per-change script: {ratio:.1f}x, "
              f"{verdict(ratio >= 20)} (the floor: {fratio:.1f}x; nettune takes "
              f"{base / floor:.1f}x the floor's time).", ""]
    if "b" in res:
        r = res["b"]
        zero = r["counts"].startswith("0 set requests, 0 file writes")
        L += ["## (b) No-op apply on the converged namespace", "",
              f"Each measure is the median of {r['n']} runs started with `posix_spawn` (output to "
              "/dev/null), interleaved.", "",
              "| measure | value |", "|---|---|",
              f"| `nettune --netns NS apply` | {ms(r['median'])} (min {ms(r['min'])}) |",
              f"| `ip netns exec NS nettune apply` | {ms(r['median_exec'])} |",
              f"| floor: `FLOOR_NETNS=NS floor_apply` (same lock, dumps, compare) | {ms(r['floor'])} |",
              f"| start-up: `/bin/true` | {ms(r['true'])} |",
              f"| start-up: `nettune --version` | {ms(r['version'])} |",
              f"| nettune's requests (`NETTUNE_STATS=1`) | {r['stats']} |",
              f"| the floor's requests | {r['floor_stats']} |",
              f"| writes (strace + tests/linux/count_writes.py) | {r['counts']} |", "",
              f"Target: <= 10 ms with 0 writes: {ms(r['median'])}, "
              f"{verdict(r['median'] <= 0.010 and zero)} (the floor: {ms(r['floor'])}).", ""]
    if "c" in res:
        r = res["c"]
        ratio = r["median"] / r["floor"]
        L += ["## (c) Plan against 8 NICs x 64 queues", "",
              f"`nettune --root FIXTURE plan`: fixture from `tests/fixtures/mkroot.py --nics 8 "
              f"--queues 64` ({r['irqs']} queue IRQs, two nodes, 56 CPUs, a /proc/interrupts of "
              f"{r['isize']} bytes); the profile asks for numa-local-spread IRQs, RPS and XPS on "
              f"all 8: {r['changes']} actions.  The floor, `bench/floor_plan.c`, reads the same "
              f"{r['files']} files and directories the same way (openat2 RESOLVE_IN_ROOT from one "
              "root descriptor) and does nothing else.", "",
              "| measure | value |", "|---|---|",
              f"| nettune plan, wall (median of {r['n']}, posix_spawn) | {ms(r['median'])} "
              f"(min {ms(r['min'])}) |",
              f"| floor, wall (median of {r['n']}) | {ms(r['floor'])} (min {ms(r['floor_min'])}) |",
              f"| queue IRQs observed by the plan (affinity actions from their live value) | "
              f"{r['observed']} of {r['irqs']}; \"(not observed)\": {r['unobserved']} |",
              f"| peak RSS (max of 3, /usr/bin/time -f %M) | {r['rss_kib'] / 1024:.1f} MiB |",
              "", f"Target (issue 26): <= 1.3x the floor, every IRQ observed: {ratio:.2f}x, "
              f"{verdict(ratio <= 1.3 and r['observed'] == r['irqs'] and not r['unobserved'])}.",
              ""]
    if "d" in res:
        r = res["d"]
        t = r["times"]
        py = t["python3-jsonschema (YAML load + validate)"]
        L += [f"## (d) {r['n']:,} host profiles", "",
              f"{r['n']} generated host profiles (`bench/gen_profiles.py`: X710 Linux gateways, "
              "some extending the bundled wireguard-gateway policy, and Windows hosts, each with "
              "its own snapshot; one in 50 invalid on purpose).  Every method runs once per run, "
              f"in the order of the table, {a.runs} runs; nettune and the floor use "
              f"{r['jobs']} worker processes (one per CPU), jsonschema one process.", "",
              f"- jsonschema: Debian's python3-jsonschema {r['pyver'][1]} with PyYAML "
              f"{r['pyver'][2]}'s C loader (`/usr/bin/python3` {r['pyver'][0]}, "
              "`bench/jsonschema_baseline.py`: the validator built once, all files in one "
              f"process); it reports {r['py_invalid']} invalid (it cannot see extends or the "
              f"NIC tables); its validation alone took {ms(r['py_validate_only'])} (median).",
              f"- nettune validate: schema, extends, NIC capability tables, semantics: "
              f"`{r['nt_summary']}`.",
              f"- nettune compile + sign: validate, load the host's snapshot, lower, plan, "
              f"write the canonical manifest, sign it (Ed25519) and write it and its "
              f".sig: `{r['compile_summary']}` (manifests of {r['manifest_bytes']} bytes "
              "on average), output directory emptied before each run.",
              "- floor (`bench/floor_batch.c`): only the unavoidable work, with the same "
              "workers: read each profile and run one libyaml event pass over it; for "
              f"compile also sign {r['manifest_bytes']} bytes per profile with the same "
              "key and write them and the signature to two new files (open, write, close; "
              "nettune writes each file to a temporary name and renames it).", "",
              f"Load average after each run: {', '.join(r['load'])} (on {os.cpu_count()} CPUs).", "",
              "| method | median wall | per profile | runs (s) | jsonschema / method | "
              "median CPU (user + sys) | jsonschema / method, CPU |",
              "|---|---|---|---|---|---|---|"]
        pyc = r["cpu"]["python3-jsonschema (YAML load + validate)"]
        for k, v in t.items():
            runs = ", ".join(f"{x:.2f}" for x in r["all"][k])
            c = r["cpu"][k]
            L.append(f"| {k} | {ms(v)} | {v / r['n'] * 1e6:.0f} us | {runs} | {py / v:.1f}x | "
                     f"{ms(c)} | {pyc / c:.1f}x |")
        rv = py / t["nettune validate"]
        rc = py / t["nettune compile + sign"]
        fv = py / t["floor: libyaml pass"]
        fc = py / t["floor: libyaml pass + sign + write"]
        ratio_floor = t["nettune compile + sign"] / t["floor: libyaml pass + sign + write"]
        L += ["", f"Targets: validate >= 20x faster than jsonschema's load + validate: {rv:.1f}x, "
              f"{verdict(rv >= 20)} (the floor: {fv:.1f}x); compile + sign >= 8x: {rc:.1f}x, "
              f"{verdict(rc >= 8)} (the floor: {fc:.1f}x); issue 26: compile + sign <= 1.5x the "
              f"floor's time: {ratio_floor:.2f}x, {verdict(ratio_floor <= 1.5)}.  nettune validate takes "
              f"{t['nettune validate'] / t['floor: libyaml pass']:.1f}x the floor's time, "
              f"compile + sign {t['nettune compile + sign'] / t['floor: libyaml pass + sign + write']:.1f}x.",
              ""]
    if "e" in res:
        L += report_series(res["e"])
    return "\n".join(L)


def us_dev(t, n):
    return f"{t / n * 1e6:.0f} us"


def report_series(r):
    L = ["## (e) Scaling series: N veth devices", "",
         f"N = {', '.join(str(x['n']) for x in r['rows'])} veth devices (N/2 pairs, 4 queues "
         "each, no traffic) in a private namespace, the drift of (a) on every device (6 "
         f"features, channels 4 -> {CHANNELS}, MTU 1500 -> {MTU}).  Converge: medians of "
         f"{r['runs']} runs, each from fresh devices, every method one process started by "
         "`ip netns exec` and checked converged after it.  No-op (converged namespace): "
         "`nettune --netns NS apply` and `FLOOR_NETNS=NS floor_apply` (both enter the "
         "namespace themselves), medians of 11; the per-change script (the same commands, "
         f"nothing left to change) medians of {r['runs']}.  Times per device; the ratios "
         "compare the whole runs.", "",
         "### Converge", "",
         "| N | changes | nettune | per-change script | floor | script / nettune | "
         "nettune / floor |", "|---|---|---|---|---|---|---|"]
    for x in r["rows"]:
        c, n = x["conv"], x["n"]
        L.append(f"| {n} | {x['changes']} | {us_dev(c['nettune'], n)} ({ms(c['nettune'])}) | "
                 f"{us_dev(c['script'], n)} ({ms(c['script'])}) | {us_dev(c['floor'], n)} "
                 f"({ms(c['floor'])}) | {c['script'] / c['nettune']:.1f}x | "
                 f"{c['nettune'] / c['floor']:.2f}x |")
    L += ["", "### No-op apply", "",
          "The second floor, `FLOOR_PROFILE=FILE floor_apply`, also reads the profile and runs one "
          "libyaml event pass over it (nothing checked, kept or lowered): the least a tool that "
          "reads the profile does.", "",
          "| N | nettune | per-change script | floor | floor + profile read | script / nettune | "
          "nettune / floor | nettune / (floor + profile read) |",
          "|---|---|---|---|---|---|---|---|"]
    for x in r["rows"]:
        c, n = x["noop"], x["n"]
        fp = c.get("floor+profile")
        L.append(f"| {n} | {us_dev(c['nettune'], n)} ({ms(c['nettune'])}) | "
                 f"{us_dev(c['script'], n)} ({ms(c['script'])}) | {us_dev(c['floor'], n)} "
                 f"({ms(c['floor'])}) | "
                 + (f"{us_dev(fp, n)} ({ms(fp)})" if fp else "-") +
                 f" | {c['script'] / c['nettune']:.1f}x | {c['nettune'] / c['floor']:.2f}x | "
                 + (f"{c['nettune'] / fp:.2f}x |" if fp else "- |"))
    L += ["", "Requests (`NETTUNE_STATS=1`, the floor's `FLOOR_STATS=1`):", ""]
    for x in r["rows"]:
        L += [f"- N={x['n']}: converge: {x['conv_stats']}; no-op: {x['noop_stats']}; "
              f"floor no-op: {x['floor_stats']}"]
    L += ["", "Targets (issue 26):", ""]
    for x in r["rows"]:
        n, c, o = x["n"], x["conv"], x["noop"]
        rn = o["nettune"] / o["floor"]
        line = f"- N={n}: no-op <= 1.5x the floor: {rn:.2f}x, {verdict(rn <= 1.5)}"
        if n == 64:
            line += f"; no-op <= 10 ms: {ms(o['nettune'])}, {verdict(o['nettune'] <= 0.010)}"
        if n >= 64:
            rs = c["script"] / c["nettune"]
            line += f"; converge >= 25x the script: {rs:.1f}x, {verdict(rs >= 25)}"
        if n == 1024:
            rf = c["nettune"] / c["floor"]
            line += f"; converge <= 1.5x the floor: {rf:.2f}x, {verdict(rf <= 1.5)}"
        L.append(line)
    L.append("")
    return L


def sections(text):
    """{letter: "## (x) ..." section} of a RESULTS.md, and the text before them."""
    parts = re.split(r"(?m)^(?=## )", text)
    head, secs = parts[0], {}
    for p in parts[1:]:
        m = re.match(r"## \((\w)\)", p)
        if m:
            secs[m.group(1)] = p
    return head, secs


def merge(old, new, only):
    """A partial run (--only) replaces its sections of the previous results
    and keeps the others, saying so."""
    # the previous file ends with NOTES.md, whose "## (d) where the time
    # goes" is not the (d) section of the results
    notes = os.path.join(HERE, "NOTES.md")
    if os.path.exists(notes):
        first = open(notes).read().split("\n", 1)[0]
        if first and first in old:
            old = old[:old.index(first)]
    _, olds = sections(old)
    head, news = sections(new)
    # the run the kept sections come from, and its machine (carried over
    # when the previous file was itself a partial run)
    prev = re.search(r"(?m)^Sections .* are kept from (.*?) \(this run", old)
    if prev:
        origin = prev.group(1)
    else:
        stamp = re.search(r"on (\d{4}-\d\d-\d\d \d\d:\d\d UTC)", old)
        mach = dict(re.findall(r"(?m)^\| (CPU|kernel|load average at start) \| (.*) \|$", old))
        origin = f"the run of {stamp.group(1) if stamp else 'an earlier date'}" + \
            (f" on {mach.get('CPU', '?')}, kernel {mach.get('kernel', '?')}, load average "
             f"{mach.get('load average at start', '?')}" if mach else "")
    # (f) is bench/agent.sh's, with its own header
    kept = sorted(k for k in olds if k not in only and k != "f")
    if kept:
        head = head.rstrip("\n") + "\n\n" + f"Sections {', '.join('(' + k + ')' for k in kept)} are " \
            f"kept from {origin} (this run, `--only {','.join(sorted(only))}`, on the machine " \
            "above, made the rest).\n\n"
    if "f" in olds and "f" not in only:
        head = head.rstrip("\n") + "\n\n(f) is written by `bench/agent.sh` (its own header).\n\n"
    body = [news.get(k) or olds.get(k) for k in sorted(set(olds) | set(news))]
    # the summary of the targets is written by hand: kept, first
    summ = re.search(r"(?ms)^## Summary.*?(?=^## )", old)
    if summ:
        body.insert(0, summ.group(0))
    return head + "".join(b.rstrip("\n") + "\n\n" for b in body if b)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", default="a,b,c,d,e")
    ap.add_argument("--series", default=None,
                    help="device counts of (e), e.g. 16,64 (default $NT_BENCH_SERIES or "
                    "16,64,256,1024)")
    ap.add_argument("--series-runs", type=int, default=3,
                    help="converge runs per N in (e) (no-op: at least 11)")
    ap.add_argument("--profiles", type=int, default=10000)
    ap.add_argument("--out", default=os.path.join(HERE, "RESULTS.md"))
    a = ap.parse_args()
    if a.runs < 5:
        sys.exit("bench: at least 5 runs (medians of 5)")
    only = set(a.only.split(","))
    mach = machine()
    res = {}
    atexit.register(cleanup_netns)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda s, f: sys.exit(128 + s))
    with tempfile.TemporaryDirectory(prefix="ntbench") as work:
        if only & {"a", "b"}:
            bench_apply(a, work, res)
        if "e" in only:
            bench_series(a, work, res)
        if "c" in only:
            bench_plan(a, work, res)
        if "d" in only:
            bench_batch(a, work, res)
    text = report(a, res, mach)
    # a partial run keeps the other sections; every run keeps the agent's
    # (f) and the summary of the targets, written by hand
    if os.path.exists(a.out):
        text = merge(open(a.out).read(), text, only)
    extra = os.path.join(HERE, "NOTES.md")
    if os.path.exists(extra):
        text += "\n" + open(extra).read()
    open(a.out, "w").write(text)
    print(text)


if __name__ == "__main__":
    main()
