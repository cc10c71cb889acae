#!/usr/bin/env python3
"""Growth of the JSON and YAML readers with the number of keys in one map.

usage: bench/parsers.py [--runs N] [--before REV] [--callgrind] [--out FILE]

For N = 10k, 100k and 1M keys it times (wall clock of the whole process,
median of --runs, default 3) and measures the peak RSS (/usr/bin/time -f
%M) of:
  json-dup   nettune plan --state S.json: cpus.nodes has N keys and then a
             repeat of the first; the only diagnostic is that duplicate,
             found after N keys (the duplicate check runs before any
             other check of a snapshot, plan or journal)
  json       the same N keys without the repeat: the whole snapshot
             check, one diagnostic per node number above 63
  yaml-dup   nettune validate P.yaml: sysctl has N keys and then a repeat
  yaml       the same without the repeat: schema check, one range error
Each run's diagnostics are checked, so a figure is never of a run that
did something else.  YAML input is capped at 4 MiB (NT_YAML_MAX_BYTES):
the 1M-key profile is refused before parsing, and that is what its row
shows.  --before REV also builds git revision REV (git archive, in a
temporary directory) and times it on 10k, 20k and 40k keys, where the
old quadratic checks still finish.  --callgrind also counts the
instructions of one run of each -dup input (valgrind --tool=callgrind),
a figure that does not move with the load of a shared machine.  Writes
bench/RESULTS-parsers.md.
Not a test: nothing here is asserted by meson test.
"""
import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
GEN = os.path.join(HERE, "gen_keys.py")
PROFILE = ("apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: big}\n"
           "target: linux\n")


def gen(kind, n, dup, path):
    if not os.path.exists(path):
        subprocess.run([sys.executable, GEN] + (["--dup"] if dup else []) +
                       [kind, str(n), path], check=True)


def expected(kind, n, dup, path, stderr):
    lines = stderr.splitlines()
    if kind == "json" and dup:
        return lines == ['%s:%d:3: error: duplicate key "0"' % (path, n + 4)]
    if kind == "json":
        return len(lines) == max(n - 64, 0) and all("must be a CPU list" in l for l in lines)
    size = os.path.getsize(path)
    if size > 4 << 20:
        return lines == ["%s: error: larger than 4194304 bytes" % path]
    if dup:
        return lines == ["%s:%d:3: error: duplicate key 'net.bench.k0' (first at line 6)" %
                         (path, n + 6)]
    return lines == ["%s:6:3: error: sysctl allows at most 1024 entries, has %d" % (path, n)]


def once(nettune, kind, path, prof):
    args = (["plan", prof, "--state", path] if kind == "json" else ["validate", path])
    t0 = time.perf_counter()
    r = subprocess.run(["/usr/bin/time", "-f", "@@ %M", nettune] + args,
                       capture_output=True, text=True, errors="replace")
    sec = time.perf_counter() - t0
    body, _, kb = r.stderr.rpartition("@@ ")
    body = "".join(l for l in body.splitlines(True)
                   if not l.startswith("Command exited with non-zero status"))
    return float(sec), int(kb), body


def measure(nettune, kind, n, dup, work, runs, prof, check=True):
    path = os.path.join(work, "%s%s-%d.%s" % (kind, "-dup" if dup else "", n,
                                              "json" if kind == "json" else "yaml"))
    gen(kind, n, dup, path)
    times, rss = [], []
    for _ in range(runs):
        sec, kb, err = once(nettune, kind, path, prof)
        if check and not expected(kind, n, dup, path, err):
            sys.exit("bench/parsers.py: unexpected diagnostics for %s:\n%s" % (path, err[:2000]))
        times.append(sec)
        rss.append(kb)
    return statistics.median(times), max(rss), os.path.getsize(path)


def instructions(nettune, kind, n, work, prof):
    path = os.path.join(work, "%s-dup-%d.%s" % (kind, n, "json" if kind == "json" else "yaml"))
    args = (["plan", prof, "--state", path] if kind == "json" else ["validate", path])
    r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                        nettune] + args, capture_output=True, text=True, errors="replace")
    for l in r.stderr.splitlines():
        if "Collected :" in l:
            return int(l.split(":")[-1])
    sys.exit("bench/parsers.py: no callgrind count for " + path)


def build_before(rev, work):
    d = os.path.join(work, "before")
    os.makedirs(d)
    arc = subprocess.run(["git", "-C", SRC, "archive", rev], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", d], input=arc.stdout, check=True)
    subprocess.run(["meson", "setup", "build"], cwd=d, check=True, capture_output=True)
    subprocess.run(["ninja", "-C", "build", "-j2", "nettune"], cwd=d, check=True,
                   capture_output=True)
    return os.path.join(d, "build", "nettune")


def machine():
    cpu = "?"
    try:
        for l in open("/proc/cpuinfo"):
            if l.startswith("model name"):
                cpu = l.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return "%s, %d CPUs, Linux %s, load average %s" % (
        cpu, os.cpu_count(), platform.release(), " ".join(open("/proc/loadavg").read().split()[:3]))


def table(rows):
    out = ["| input | keys | file | median s | us per key | peak RSS |",
           "|---|---:|---:|---:|---:|---:|"]
    for name, n, (sec, kb, size) in rows:
        out.append("| %s | %d | %.1f MB | %.2f | %.2f | %d MiB |" %
                   (name, n, size / 1e6, sec, sec / n * 1e6, kb // 1024))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--before")
    ap.add_argument("--callgrind", action="store_true")
    ap.add_argument("--out", default=os.path.join(HERE, "RESULTS-parsers.md"))
    a = ap.parse_args()
    nettune = os.environ.get("NETTUNE", os.path.join(SRC, "build", "nettune"))
    work = tempfile.mkdtemp(prefix="nt-parsers-")
    prof = os.path.join(work, "p.yaml")
    open(prof, "w").write(PROFILE)
    rows = []
    for kind, dup in (("json", True), ("json", False), ("yaml", True), ("yaml", False)):
        for n in (10000, 100000, 1000000):
            r = measure(nettune, kind, n, dup, work, a.runs, prof)
            rows.append(("%s%s" % (kind, "-dup" if dup else ""), n, r))
            print("%s%s %d: %.2f s, %d KiB" % (kind, "-dup" if dup else "", n, r[0], r[1]),
                  flush=True)
    counts = []
    if a.callgrind:
        for kind in ("json", "yaml"):
            for n in (10000, 100000, 1000000):
                if kind == "yaml" and n > 100000:
                    continue	# refused by size before parsing
                c = instructions(nettune, kind, n, work, prof)
                counts.append((kind + "-dup", n, c))
                print("callgrind %s-dup %d: %d instructions" % (kind, n, c), flush=True)
    before = []
    if a.before:
        old = build_before(a.before, work)
        for kind in ("json", "yaml"):
            for n in (10000, 20000, 40000):
                r = measure(old, kind, n, True, work, a.runs, prof, check=False)
                before.append(("%s-dup" % kind, n, r))
                print("before %s-dup %d: %.2f s" % (kind, n, r[0]), flush=True)
    with open(a.out, "w") as f:
        f.write("# Parser growth with the number of keys in one map\n\n")
        f.write("Written by `bench/parsers.py --runs %d%s%s` (medians of wall time;\n"
                "every run's diagnostics checked).  Machine: %s.\n\n" %
                (a.runs, " --before " + a.before if a.before else "",
                 " --callgrind" if a.callgrind else "", machine()))
        f.write("Wall times move with the load of the machine (load average above);\n"
                "the instruction counts below do not.\n\n")
        f.write(table(rows) + "\n\n")
        f.write("yaml rows at 1M keys: the file is over the 4 MiB profile limit and is\n"
                "refused before it is parsed; the largest profile that fits has about\n"
                "160k keys of this shape.\n")
        if counts:
            f.write("\n## Instructions (valgrind --tool=callgrind, one run)\n\n")
            f.write("| input | keys | instructions | per key |\n|---|---:|---:|---:|\n")
            for name, n, c in counts:
                f.write("| %s | %d | %d | %.0f |\n" % (name, n, c, c / n))
            f.write("\nThe per-key figure includes the fixed cost of a run (start-up, NIC\n"
                    "tables), so it falls as n grows; it would grow with n if the checks\n"
                    "were quadratic.\n")
        if before:
            f.write("\n## Before (git revision %s, same machine, same inputs)\n\n" % a.before)
            f.write("Duplicate-key checks that scanned the keys read so far; 100k keys\n"
                    "were not run.\n\n")
            f.write(table(before) + "\n")
    print("wrote " + a.out)


if __name__ == "__main__":
    main()
