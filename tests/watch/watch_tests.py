#!/usr/bin/env python3
"""Tests of nettune watch and plan --map.

  fixtures  two-node 56-CPU host, 64-queue X710 on node 0 (mkroot.py), IRQs
            placed by `nettune apply`, then successive samples (mksamples.py)
            for balanced / irqbalance / deadqueue / crossnode / drops:
            golden text and JSON, exact exit codes, the journal as intent
  names     per-queue counter names of i40e, ice/ixgbe, mlx5, bnxt, virtio
            and veth give the same per-queue figures
  svg       the SVG map is well-formed XML with what the findings say
  planmap   plan --map golden (intended placement before applying)
  live      veth pair in a private network namespace, bounded IPv6
            link-local ping: counters are non-zero (needs root)
  render    headless Chromium renders the SVG to PNG (skipped without it)

NETTUNE_UPDATE_GOLDEN=1 rewrites the golden files.
"""
import json
import re
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

NT = os.environ["NETTUNE"]
SRC = os.environ["SRCROOT"]
HERE = os.path.join(SRC, "tests", "watch")
GOLDEN = os.path.join(HERE, "golden")
FIX = os.path.join(SRC, "tests", "fixtures")
UPDATE = os.environ.get("NETTUNE_UPDATE_GOLDEN") == "1"
SKIP = 77
SVGNS = "{http://www.w3.org/2000/svg}"

PROFILE = """apiVersion: nettune/v1
kind: HostProfile
metadata: {name: watch-x710}
target: linux
host:
  numa:
    - {node: 0, cpus: "0-13,28-41"}
    - {node: 1, cpus: "14-27,42-55"}
  reserved_cpus: "0,28"
interfaces:
  - name: enp1s0f0
    irq: {policy: numa-local-spread, irqbalance: ban}
"""
EXPECT_RC = {"balanced": 0, "irqbalance": 2, "deadqueue": 2, "crossnode": 2, "drops": 2}
EXPECT_KINDS = {
    "balanced": [],
    "irqbalance": ["irq-off-affinity"],
    "deadqueue": ["dead-queue"],
    "crossnode": ["softirq-off-node"],
    "drops": ["drops", "drops", "softnet-drops", "time-squeeze"],
}


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(args, cwd, env=None, check_rc=None):
    e = dict(os.environ)
    e.update(env or {})
    e.pop("NO_COLOR", None)
    p = subprocess.run([NT] + args, cwd=cwd, env=e, capture_output=True, text=True, timeout=120)
    if check_rc is not None and p.returncode != check_rc:
        fail(f"nettune {' '.join(args)}: exit {p.returncode}, want {check_rc}\n{p.stdout}\n{p.stderr}")
    return p


def golden(name, text):
    path = os.path.join(GOLDEN, name)
    if UPDATE:
        os.makedirs(GOLDEN, exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return
    with open(path) as f:
        want = f.read()
    if want != text:
        with tempfile.NamedTemporaryFile("w", suffix="." + name, delete=False) as f:
            f.write(text)
        d = subprocess.run(["diff", "-u", path, f.name], capture_output=True, text=True).stdout
        fail(f"{name} differs from the golden file:\n{d[:6000]}")


def setup(work):
    """mkroot + apply: the fixture host with its IRQs placed as planned."""
    base = os.path.join(work, "base")
    subprocess.run([sys.executable, os.path.join(FIX, "mkroot.py"), base, "--queues", "64",
                    "--node", "0", "--irqbalance"], check=True)
    with open(os.path.join(work, "p.yaml"), "w") as f:
        f.write(PROFILE)
    env = {"NETTUNE_STATE_DIR": os.path.join(work, "state")}
    run(["--root", base, "apply", "--yes", "p.yaml"], work, env, 0)
    for q in (0, 5, 12, 13, 37, 63):
        with open(os.path.join(base, f"proc/irq/{201 + q}/smp_affinity_list")) as f:
            got = f.read().strip()
        # node 0 less reserved 0,28: cores 1-13, then siblings 29-41, then wrap
        k = q % 26
        want = 1 + k if k < 13 else 29 + k - 13
        if got != str(want):
            fail(f"apply put queue {q} on {got}, want {want}")
    return base, env


def samples(work, base, scenario):
    out = os.path.join(work, scenario)
    subprocess.run([sys.executable, os.path.join(FIX, "mksamples.py"), base, out,
                    "--scenario", scenario], check=True)
    return out


def t_fixtures():
    with tempfile.TemporaryDirectory() as work:
        base, env = setup(work)
        for sc, rc in EXPECT_RC.items():
            root = samples(work, base, sc)
            txt = run(["--root", root, "watch", "p.yaml"], work, env, rc)
            golden(f"{sc}.txt", txt.stdout)
            js = run(["--root", root, "watch", "--json", "p.yaml"], work, env, rc)
            golden(f"{sc}.json", js.stdout)
            rep = json.loads(js.stdout)
            kinds = [f["kind"] for f in rep["findings"]]
            if kinds != EXPECT_KINDS[sc]:
                fail(f"{sc}: findings {kinds}, want {EXPECT_KINDS[sc]}")
            if rep["verdict"] != ("as-planned" if rc == 0 else "differs"):
                fail(f"{sc}: verdict {rep['verdict']}")
            q = rep["interfaces"][0]["queues"]
            if len(q) != 64 or q[5]["irq"] != 206 or q[5]["intended"] != "6":
                fail(f"{sc}: queue 5 {q[5]}")
            # figures are the fixture's arithmetic, not constants in the code
            if sc != "deadqueue" and q[7]["rx_packets"] != 10000 + 37 * 7 % 500:
                fail(f"{sc}: queue 7 rx_packets {q[7]['rx_packets']}")
            if sc == "irqbalance":
                f0 = rep["findings"][0]
                want_ints = (10000 + 37 * 5) // 8
                if f0["object"] != "enp1s0f0 queue 5 (irq 206)" or \
                        f"{want_ints} of {want_ints} interrupts (100.0%)" not in f0["figure"] or \
                        "most on CPU 17 (node 1)" not in f0["figure"] or \
                        "smp_affinity_list is now 17" not in f0["figure"] or \
                        "nettune apply p.yaml" not in f0["action"]:
                    fail(f"irqbalance finding: {f0}")
                if q[5]["cpu"] != 17 or q[5]["off_affinity"] != want_ints:
                    fail(f"irqbalance queue 5: {q[5]}")
            if sc == "deadqueue":
                f0 = rep["findings"][0]
                if f0["object"] != "enp1s0f0 queue 37 (irq 238)" or q[37]["rx_packets"] != 0:
                    fail(f"deadqueue finding: {f0}")
                others = sum(x["rx_packets"] + x["tx_packets"] for x in q) / 63
                if f"queues averaged {others:.0f} packets" not in f0["figure"]:
                    fail(f"deadqueue figure {f0['figure']} (mean of the others {others:.0f})")
            if sc == "crossnode":
                cpus = rep["cpus"]
                tot = sum(c["net_rx"] for c in cpus)
                off = sum(c["net_rx"] for c in cpus if c["node"] == 1)
                want = f"{100.0 * off / tot:.1f}% ({off} of {tot}) ran outside node 0 of enp1s0f0"
                if want not in rep["findings"][0]["figure"]:
                    fail(f"crossnode figure {rep['findings'][0]['figure']}, want {want!r}")
            if sc == "balanced":
                ifr = rep["interfaces"][0]
                if not (ifr["jain"] > 0.99 and ifr["max_over_mean"] < 1.1):
                    fail(f"balanced: {ifr['jain']} {ifr['max_over_mean']}")
        # without PROFILE: the newest applied journal names the intent
        root = os.path.join(work, "irqbalance")
        p = run(["--root", root, "watch", "--json"], work, env, 2)
        rep = json.loads(p.stdout)
        # journals record the profile's absolute path
        if not rep["against"].endswith(f"(profile {os.path.realpath(work)}/p.yaml)") or \
                [f["kind"] for f in rep["findings"]] != ["irq-off-affinity"]:
            fail(f"journal intent: {rep['against']} {rep['findings']}")
        run(["--root", os.path.join(work, "balanced"), "watch"], work, env, 0)
        # no intent at all: no IRQ finding, but a dead queue is still a dead queue
        noenv = {"NETTUNE_STATE_DIR": os.path.join(work, "empty")}
        run(["--root", os.path.join(work, "irqbalance"), "watch", "enp1s0f0"], work, noenv, 0)
        p = run(["--root", os.path.join(work, "deadqueue"), "watch", "--json", "enp1s0f0"],
                work, noenv, 2)
        if [f["kind"] for f in json.loads(p.stdout)["findings"]] != ["dead-queue"]:
            fail("no-intent deadqueue")
        # errors: unknown interface, only one sample
        run(["--root", root, "watch", "p.yaml", "nosuch0"], work, env, 1)
        lone = os.path.join(work, "lone")
        shutil.copytree(os.path.join(root, "sample-0"), os.path.join(lone, "sample-0"),
                        symlinks=True)
        run(["--root", lone, "watch", "p.yaml"], work, env, 1)
        run(["watch", "--count", "0"], work, env, 64)
    print("ok: fixtures (5 scenarios, golden text + JSON, journal intent, no intent, errors)")


NAMES = {
    "i40e": ("rx-{q}.packets", "tx-{q}.packets"),
    "ice": ("rx_queue_{q}_packets", "tx_queue_{q}_packets"),
    "mlx5": ("rx{q}_packets", "tx{q}_packets"),
    "bnxt": ("[{q}]: rx_ucast_packets", "[{q}]: tx_ucast_packets"),
    "veth": ("rx_queue_{q}_xdp_packets", "tx_queue_{q}_xdp_xmit"),
}


def t_names():
    with tempfile.TemporaryDirectory() as work:
        base, env = setup(work)
        root = samples(work, base, "deadqueue")
        orig = {}
        for k in (0, 1):
            path = os.path.join(root, f"sample-{k}", "ethtool-S", "enp1s0f0")
            orig[k] = dict(ln.strip().rsplit(": ", 1) for ln in open(path).read().splitlines()[1:])
        ref = None
        for drv, (rxn, txn) in NAMES.items():
            for k in (0, 1):
                path = os.path.join(root, f"sample-{k}", "ethtool-S", "enp1s0f0")
                vals = orig[k]
                out = ["NIC statistics:", "     rx_packets: 1", "     rx_bytes: 2",
                       "     rx_queue_x_packets: 3", "     port.tx_packets: 4"]
                for q in range(64):
                    out.append(f"     {rxn.format(q=q)}: {vals[f'rx-{q}.packets']}")
                    out.append(f"     {txn.format(q=q)}: {vals[f'tx-{q}.packets']}")
                with open(path, "w") as f:
                    f.write("\n".join(out) + "\n")
            p = run(["--root", root, "watch", "--json", "p.yaml"], work, env, 2)
            got = [(x["rx_packets"], x["tx_packets"])
                   for x in json.loads(p.stdout)["interfaces"][0]["queues"]]
            if ref is None:
                ref = got
                if got[37] != (0, 0) or got[1][0] != 10037:
                    fail(f"{drv}: {got[:2]} {got[37]}")
            elif got != ref:
                fail(f"{drv} names give other per-queue figures: {got[:3]} vs {ref[:3]}")
    print("ok: per-queue counter names of " + ", ".join(NAMES))


def t_svg():
    with tempfile.TemporaryDirectory() as work:
        base, env = setup(work)
        for sc in ("irqbalance", "deadqueue"):
            root = samples(work, base, sc)
            svg = os.path.join(work, sc + ".svg")
            run(["--root", root, "watch", "p.yaml", "--svg", svg], work, env, 2)
            t = ET.parse(svg).getroot()
            if t.tag != SVGNS + "svg" or not t.get("viewBox"):
                fail(f"{sc}: root {t.tag}")
            texts = ["".join(e.itertext()) for e in t.iter(SVGNS + "text")]
            titles = ["".join(e.itertext()) for e in t.iter(SVGNS + "title")]
            if "node 0" not in texts or "node 1" not in texts:
                fail(f"{sc}: nodes missing")
            if not any(x.startswith("NIC enp1s0f0") for x in texts):
                fail(f"{sc}: NIC badge missing")
            if not any("CPU 0 reserved" == x for x in texts):
                fail(f"{sc}: reserved CPU 0 not marked")
            if not any(g.get("id") == "heat" for g in t.iter(SVGNS + "linearGradient")):
                fail(f"{sc}: heat scale missing")
            chips = [x for x in texts if re.match(r"q\d+ ", x)]
            if len(chips) != 64:
                fail(f"{sc}: {len(chips)} queue chips")
            if sc == "irqbalance":
                rate = (10000 + 37 * 5) + (10000 + 37 * 5) // 2
                label = f"q5 {rate / 1000:.0f}k ≠6"
                if label not in chips or \
                        "enp1s0f0 queue 5, irq 206, intended CPU 6" not in titles:
                    fail(f"irqbalance: moved queue not drawn: {[c for c in chips if 'q5' in c]}")
                # the chip sits in core 17's box, on node 1's panel
                core17 = [g for g in t.iter(SVGNS + "g") if g.get("class") == "core" and
                          any("".join(x.itertext()).startswith("CPU 17 ") for x in g.iter(SVGNS + "text"))]
                if not core17 or label not in ["".join(x.itertext()) for x in core17[0].iter(SVGNS + "text")]:
                    fail("irqbalance: q5 is not in core 17's box")
            if sc == "deadqueue":
                dead = [r for r in t.iter(SVGNS + "rect") if r.get("stroke-dasharray")]
                if len(dead) != 1:
                    fail(f"deadqueue: {len(dead)} dashed chips")
            if not any(x.startswith("[" + EXPECT_KINDS[sc][0] + "]") for x in texts):
                fail(f"{sc}: finding not listed in the SVG")
            # sized to its content: no line of text runs past the right edge
            # (0.6 em per character is what DejaVu Sans averages on these strings)
            width = float(t.get("width"))
            sizes = {"t": 18, "h": 15, "n": 12, "nic": 12, "s": 11, "c": 11, "q": 11, "qb": 11}
            for e in t.iter(SVGNS + "text"):
                txt = "".join(e.itertext())
                size = sizes.get(e.get("class"), 12)
                if e.get("text-anchor") != "end" and \
                        float(e.get("x", 0)) + 0.6 * size * len(txt) > width:
                    fail(f"{sc}: text runs past the {width:.0f} px edge: {txt!r}")
    print("ok: SVG well-formed, nodes, cores, reserved CPU, heat scale, moved and dead queues")


def t_planmap():
    with tempfile.TemporaryDirectory() as work:
        base = os.path.join(work, "base")
        subprocess.run([sys.executable, os.path.join(FIX, "mkroot.py"), base, "--queues", "64",
                        "--node", "0"], check=True)
        with open(os.path.join(work, "p.yaml"), "w") as f:
            f.write(PROFILE)
        p = run(["--root", base, "plan", "--map", "p.yaml"], work, None, 2)
        golden("plan-map.txt", p.stdout[p.stdout.index("Intended placement"):])
        run(["--root", base, "plan", "--map", "--json", "p.yaml"], work, None, 64)
        ex = os.path.join(SRC, "examples")
        p = run(["plan", "--map", os.path.join(ex, "x710-wireguard-gateway.yaml"), "--state",
                 os.path.join(ex, "states", "x710-wireguard-gateway.json")], work, None, 2)
        m = p.stdout[p.stdout.index("Intended placement"):]
        for q in range(13):
            if not re.search(rf"\n  core +{1 + q}  cpu {1 + q},{29 + q} +q{q}\n", m):
                fail(f"x710 example: queue {q} not on core {1 + q}:\n{m}")
    print("ok: plan --map golden; X710 example puts queue q on core q+1")


ECHO = """
import socket
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.bind(("fe80::b", 9999, 0, socket.if_nametoindex("wb0")))
s.settimeout(8)
print("ready", flush=True)
try:
    while True:
        d, a = s.recvfrom(2048)
        s.sendto(d, a)
except socket.timeout:
    pass
"""
SEND = """
import select, socket, sys, time
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
dst = ("fe80::b", 9999, 0, socket.if_nametoindex("wa0"))
s.settimeout(0.5)
# warm up: neighbour discovery done and the echo answering before sampling
for i in range(20):
    s.sendto(b"x" * 1000, dst)
    try:
        s.recvfrom(2048)
        break
    except socket.timeout:
        pass
else:
    sys.exit("no echo from fe80::b")
s.setblocking(False)
print("sending", flush=True)
# bounded: at most 4000 datagrams or 20 s, until the test closes stdin
end = time.monotonic() + 20
for i in range(4000):
    if time.monotonic() > end or select.select([sys.stdin], [], [], 0)[0]:
        break
    s.sendto(b"x" * 1000, dst)
    try:
        while True:
            s.recvfrom(2048)
    except BlockingIOError:
        pass
    time.sleep(0.005)
"""


def t_live():
    if os.geteuid() != 0 or not shutil.which("ip"):
        print("SKIP: needs root and ip")
        sys.exit(SKIP)
    na, nb = f"ntwa{os.getpid()}", f"ntwb{os.getpid()}"
    ip = lambda *a: subprocess.run(["ip"] + list(a), check=True, capture_output=True)
    ip("netns", "add", na)
    ip("netns", "add", nb)
    procs = []
    try:
        # one veth end per private namespace, so the datagrams cross the pair;
        # fixed IPv6 link-local addresses: nothing leaves these namespaces
        ip("-n", na, "link", "add", "wa0", "numtxqueues", "2", "numrxqueues", "2", "type", "veth",
           "peer", "name", "wb0", "netns", nb, "numtxqueues", "2", "numrxqueues", "2")
        ip("-n", na, "addr", "add", "fe80::a/64", "dev", "wa0", "nodad")
        ip("-n", nb, "addr", "add", "fe80::b/64", "dev", "wb0", "nodad")
        ip("-n", na, "link", "set", "wa0", "up")
        ip("-n", nb, "link", "set", "wb0", "up")
        # start sampling only once the echo server listens and the sender runs
        procs.append(subprocess.Popen(["ip", "netns", "exec", nb, sys.executable, "-c", ECHO],
                                      stdout=subprocess.PIPE, text=True))
        if procs[0].stdout.readline().strip() != "ready":
            fail("echo server did not start")
        procs.append(subprocess.Popen(["ip", "netns", "exec", na, sys.executable, "-c", SEND],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
        if procs[1].stdout.readline().strip() != "sending":
            fail("sender did not start")
        with tempfile.TemporaryDirectory() as work:
            env = {"NETTUNE_STATE_DIR": os.path.join(work, "state")}
            p = run(["--netns", na, "watch", "--json", "--interval", "1", "wa0"], work, env)
            procs[1].stdin.close()  # the sender stops once sampling is over
            for pr in procs:
                pr.wait(timeout=30)
            if p.returncode not in (0, 2):
                fail(f"live watch exit {p.returncode}: {p.stderr}")
            rep = json.loads(p.stdout)
            wa = rep["interfaces"][0]
            c = wa["counters"]
            if wa["name"] != "wa0" or c["tx_packets"] < 50 or c["rx_packets"] < 50 or \
                    c["tx_bytes"] < 50 * 1000:
                fail(f"wa0 counters {c}")
            if not 0.9 < rep["seconds"] < 5:
                fail(f"seconds {rep['seconds']}")
            net_rx = sum(x["net_rx"] for x in rep["cpus"])
            processed = sum(x["processed"] for x in rep["cpus"])
            if net_rx < 50 or processed < 50:
                fail(f"softirqs {net_rx} processed {processed}")
            if [q["queue"] for q in wa["queues"]] != [0, 1] or wa["driver"] is not None:
                fail(f"veth queues: {wa['queues']}")
            print(f"ok: live veth: wa0 tx {c['tx_packets']} rx {c['rx_packets']} packets, "
                  f"NET_RX {net_rx}, softnet processed {processed}, per-queue "
                  f"{[(q.get('rx_packets'), q.get('tx_packets')) for q in wa['queues']]}")
    finally:
        for pr in procs:
            if pr.poll() is None:
                pr.kill()
        subprocess.run(["ip", "netns", "del", na], capture_output=True)
        subprocess.run(["ip", "netns", "del", nb], capture_output=True)


def t_render():
    chrome = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chrome:
        # in CI it must run: scripts/deps.sh test installs chromium
        if os.environ.get("CI") == "true":
            fail("chromium is not installed (CI=true: scripts/deps.sh test installs it)")
        print("SKIP: chromium not installed (the SVG test checks the XML; "
              "scripts/deps.sh test installs it)")
        sys.exit(SKIP)
    with tempfile.TemporaryDirectory() as work:
        base, env = setup(work)
        root = samples(work, base, "irqbalance")
        svg = os.path.join(work, "map.svg")
        run(["--root", root, "watch", "p.yaml", "--svg", svg], work, env, 2)
        png = os.environ.get("NETTUNE_WATCH_PNG") or os.path.join(work, "map.png")
        prof = tempfile.mkdtemp()
        try:
            subprocess.run([chrome, "--headless", "--no-sandbox", "--disable-gpu",
                            "--disable-background-networking", "--disable-component-update",
                            "--no-first-run", f"--user-data-dir={prof}", f"--screenshot={png}",
                            "--window-size=1200,1400", "file://" + svg],
                           capture_output=True, timeout=90)
        finally:
            shutil.rmtree(prof, ignore_errors=True)
        data = open(png, "rb").read()
        if data[:8] != b"\x89PNG\r\n\x1a\n" or len(data) < 20000:
            fail(f"render: {len(data)} bytes")
    print(f"ok: chromium rendered the map ({len(data)} bytes PNG)")


if __name__ == "__main__":
    {"fixtures": t_fixtures, "names": t_names, "svg": t_svg, "planmap": t_planmap,
     "live": t_live, "render": t_render}[sys.argv[1]]()
