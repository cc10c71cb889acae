#!/usr/bin/env python3
"""Capability tables: matching, declared vs observed, limits at the edge.

Each case writes a one-interface profile and (for plan cases) a snapshot
with that interface's driver and PCI id, runs nettune, and checks the exit
code and the exact located diagnostics it must (and must not) print.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

SRCROOT = os.environ.get("SRCROOT") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))
NETTUNE = os.environ.get("NETTUNE") or os.path.join(SRCROOT, "build", "nettune")
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def profile(body):
    return ("apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: h1}\n"
            "target: linux\ninterfaces:\n  - name: eth0\n" +
            "".join("    " + line + "\n" for line in body))


def snapshot(iface):
    i = {"name": "eth0"}
    i.update(iface)
    return {"format": "nettune-snapshot/1",
            "host": {"name": "h1", "target": "linux", "kernel": "6.8.0"},
            "interfaces": [i]}


def run(args, prof, snap=None):
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "p.yaml")
        with open(p, "w") as f:
            f.write(prof)
        cmd = [NETTUNE, *args, p]
        if snap is not None:
            s = os.path.join(d, "s.json")
            with open(s, "w") as f:
                json.dump(snap, f)
            cmd += ["--state", s]
        env = dict(os.environ, NO_COLOR="1")
        r = subprocess.run(cmd, env=env, capture_output=True, text=True)
        err = r.stderr.replace(p, "p.yaml")
        return r.returncode, err.replace(os.path.join(d, "s.json"), "s.json")


def check(name, rc, err, want_rc, want=(), absent=()):
    ok_rc = rc in want_rc if isinstance(want_rc, tuple) else rc == want_rc
    if not ok_rc:
        fail(f"{name}: exit {rc}, want {want_rc}\n{err}")
    for w in want:
        if w not in err:
            fail(f"{name}: stderr lacks {w!r}\n{err}")
    for a in absent:
        if a in err:
            fail(f"{name}: stderr has {a!r}\n{err}")


# (case, device, table, setting with %u, line:col of the value when the
#  profile declares nic:, the largest valid value, words of the cited source)
INTEL = {"kind": "physical"}
EDGES = [
    ("x722", {"driver": "i40e", "pci": "8086:37d0"}, "intel-x722",
     "rings: {rx: %u}", "8:17", 4096, "I40E_MAX_NUM_DESCRIPTORS = 4096"),
    ("x710", {"driver": "i40e", "pci": "8086:1572"}, "intel-x710",
     "rings: {rx: %u}", "8:17", 8160, "I40E_MAX_NUM_DESCRIPTORS_XL710 = 8160"),
    ("x710-0dd2", {"driver": "i40e", "pci": "8086:0dd2"}, "intel-x710",
     "rings: {tx: %u}", "8:17", 8160, "I40E_MAX_NUM_DESCRIPTORS_XL710 = 8160"),
    ("e810", {"driver": "ice", "pci": "8086:1593"}, "intel-e810",
     "rings: {rx: %u}", "8:17", 8160, "ICE_MAX_NUM_DESC_E810 = 8160"),
    ("e830", {"driver": "ice", "pci": "8086:12d2"}, "intel-e830",
     "rings: {rx: %u}", "8:17", 8096, "ICE_MAX_NUM_DESC_E830 = 8096"),
    ("e830-other", {"driver": "ice", "pci": "8086:12d3"}, "intel-e830",
     "channels: {other: %u}", "8:23", 1, "ICE_FLAG_FD_ENA"),
    ("82598", {"driver": "ixgbe", "pci": "8086:10b6"}, "intel-82598",
     "rings: {rx: %u}", "8:17", 4096, "IXGBE_MAX_RXD_82598 = 4096"),
    ("82599", {"driver": "ixgbe", "pci": "8086:10fb"}, "intel-82599",
     "rings: {rx: %u}", "8:17", 8192, "IXGBE_MAX_RXD_82599 = 8192"),
    ("x550", {"driver": "ixgbe", "pci": "8086:1563"}, "intel-x550",
     "rings: {tx: %u}", "8:17", 32768, "IXGBE_MAX_TXD_X550 = 32768"),
    ("i210", {"driver": "igb", "pci": "8086:1533"}, "intel-i210",
     "channels: {combined: %u}", "8:26", 4, "igb_get_max_rss_queues() = 4 for e1000_i210"),
    ("i226", {"driver": "igc", "pci": "8086:125c"}, "intel-i225",
     "channels: {combined: %u}", "8:26", 4, "IGC_MAX_RX_QUEUES 4"),
    ("i225", {"driver": "igc", "pci": "8086:15f3"}, "intel-i225",
     "rings: {rx: %u}", "8:17", 4096, "IGC_MAX_RXD = IGC_MAX_TXD = 4096"),
    ("i350", {"driver": "igb", "pci": "8086:1521"}, "intel-i350",
     "channels: {combined: %u}", "8:26", 8, "IGB_MAX_RX_QUEUES 8 for I350"),
    ("x540", {"driver": "ixgbe", "pci": "8086:1528"}, "intel-x540",
     "rings: {rx: %u}", "8:17", 8192, "IXGBE_MAX_RXD_X540 = IXGBE_MAX_TXD_X540 = 8192"),
    ("x540-t1", {"driver": "ixgbe", "pci": "8086:1560"}, "intel-x540",
     "channels: {combined: %u}", "8:26", 63, "IXGBE_MAX_FDIR_INDICES = 63"),
    ("i211", {"driver": "igb", "pci": "8086:1539"}, "intel-i211",
     "channels: {combined: %u}", "8:26", 2, "IGB_MAX_RX_QUEUES_I211 = 2"),
    ("iavf", {"driver": "iavf", "pci": "8086:1889"}, "intel-iavf",
     "rings: {rx: %u}", "8:17", 4096, "IAVF_MAX_RXD = IAVF_MAX_TXD = 4096"),
    ("iavf-700", {"driver": "iavf", "pci": "8086:154c"}, "intel-iavf",
     "rings: {tx: %u}", "8:17", 4096, "IAVF_MAX_RXD = IAVF_MAX_TXD = 4096"),
    ("iavf-x722", {"driver": "iavf", "pci": "8086:37cd"}, "intel-iavf",
     "channels: {other: %u}", "8:23", 1, "NONQ_VECS = 1"),
    ("ixgbevf", {"driver": "ixgbevf", "pci": "8086:10ed"}, "intel-ixgbevf",
     "rings: {rx: %u}", "8:17", 4096, "IXGBEVF_MAX_RXD = IXGBEVF_MAX_TXD = 4096"),
    ("ixgbevf-x550", {"driver": "ixgbevf", "pci": "8086:1565"}, "intel-ixgbevf",
     "rings: {tx: %u}", "8:17", 4096, "IXGBEVF_MAX_RXD = IXGBEVF_MAX_TXD = 4096"),
    ("57508", {"driver": "bnxt_en", "pci": "14e4:1750"}, "broadcom-57508",
     "rings: {tx: %u}", "8:17", 2047, "BNXT_MAX_TX_DESC_CNT = 256 * MAX_TX_PAGES 8 - 1 = 2047"),
    ("57502-npar", {"driver": "bnxt_en", "pci": "14e4:1805"}, "broadcom-57508",
     "rings: {rx: %u}", "8:17", 2047, "BNXT_MAX_RX_DESC_CNT_JUM_ENA = 256"),
    ("mana", {"driver": "mana", "pci": "1414:00ba"}, "microsoft-mana",
     "rings: {rx: %u}", "8:17", 8192, "MAX_RX_BUFFERS_PER_QUEUE = 8192"),
    ("mana-tx", {"driver": "mana", "pci": "1414:00ba"}, "microsoft-mana",
     "rings: {tx: %u}", "8:17", 16384, "MAX_TX_BUFFERS_PER_QUEUE = 16384"),
    ("mana-channels", {"driver": "mana", "pci": "1414:00ba"}, "microsoft-mana",
     "channels: {combined: %u}", "8:26", 64, "MANA_MAX_NUM_QUEUES = 64"),
    ("netvsc", {"driver": "hv_netvsc"}, "hyperv-netvsc",
     "channels: {combined: %u}", "8:26", 64, "VRSS_CHANNEL_MAX = 64"),
]


def t_edges():
    for name, dev, table, line, pos, edge, cite in EDGES:
        what = line.split(":")[0] + "." + line.split("{")[1].split(":")[0]
        d = dict(INTEL, **dev)
        for nic in ([], ["nic: auto"], ["nic: " + table]):
            tag = f"{name} {nic[0] if nic else 'no nic'}"
            rc, err = run(["plan"], profile(nic + [line % edge]), snapshot(d))
            check(f"{tag} at {edge}", rc, err, (0, 2), absent=("error",))
            rc, err = run(["plan"], profile(nic + [line % (edge + 1)]), snapshot(d))
            c = pos.split(":")[1]
            check(f"{tag} at {edge + 1}", rc, err, 1,
                  want=(f"error: {what} = {edge + 1} exceeds the {table} maximum of {edge} (",
                        cite))
            # the error is located at the value in the profile
            row = 7 + len(nic)
            if f"p.yaml:{row}:{c}: error: {what}" not in err:
                fail(f"{tag}: error not located at p.yaml:{row}:{c}\n{err}")
        # offline: the declared table alone gives the same verdict
        rc, err = run(["validate"], profile(["nic: " + table, line % (edge + 1)]))
        check(f"{name} validate", rc, err, 1, want=(f"{table} maximum of {edge}", cite))
        rc, err = run(["validate"], profile(["nic: " + table, line % edge]))
        check(f"{name} validate edge", rc, err, 0, absent=("error",))


def t_siblings_without_table():
    # ixgbe E610 and igb 82576 have no table: the 82599 / I210 limits are not borrowed
    for name, dev, line, other in [
            ("e610", {"driver": "ixgbe", "pci": "8086:57b0"}, "rings: {rx: 30000}", "intel-82599"),
            ("82576", {"driver": "igb", "pci": "8086:10c9"}, "channels: {combined: 8}",
             "intel-i210")]:
        rc, err = run(["plan"], profile([line]), snapshot(dict(INTEL, **dev)))
        check(name, rc, err, (0, 2),
              want=(f"warning: eth0: no capability table for PCI id {dev['pci']} (driver "
                    f"{dev['driver']}; tables ", other, "their limits are not borrowed"),
              absent=("error",))
    # observed maxima override the table, with a note
    rc, err = run(["plan"], profile(["rings: {rx: 6000}"]),
                  snapshot(dict(INTEL, driver="i40e", pci="8086:37d0",
                                max={"ring_rx": 8192, "ring_tx": 8192})))
    check("observed override", rc, err, (0, 2),
          want=("observed maximum rx ring 8192 differs from the intel-x722 table's 4096",),
          absent=("error",))
    rc, err = run(["plan"], profile(["rings: {rx: 8193}"]),
                  snapshot(dict(INTEL, driver="i40e", pci="8086:37d0",
                                max={"ring_rx": 8192, "ring_tx": 8192})))
    check("observed max", rc, err, 1,
          want=("p.yaml:7:17: error: rings.rx = 8193 exceeds this host's maximum of 8192",))
    # offline, a driver-only match names the tables it will not borrow from
    rc, err = run(["validate"], profile(["match: {driver: i40e}", "rings: {rx: 8000}"]))
    check("driver-only match", rc, err, 0,
          want=("warning: match.driver: the tables of driver i40e (intel-x710, intel-x722) are "
                "per device and the match names no PCI id",), absent=("error",))
    rc, err = run(["validate"], profile(["match: {driver: vmxnet3}", "channels: {combined: 2}"]))
    check("driver-only match vmxnet3", rc, err, 0,
          want=("warning: match.driver: the tables of driver vmxnet3 (vmxnet3) are per device",),
          absent=("other devices", "error"))
    rc, err = run(["validate"], profile(["match: {pci: \"8086:37d2\"}", "rings: {rx: 8000}"]))
    check("match.pci x722", rc, err, 1,
          want=("error: rings.rx = 8000 exceeds the intel-x722 maximum of 4096",))


def t_declared():
    cases = [
        ("cx5 on x710", "mellanox-cx5", dict(INTEL, driver="i40e", pci="8086:1572"),
         "p.yaml:7:10: error: nic: mellanox-cx5 (driver mlx5_core, PCI 15b3:1017, 15b3:1018, 15b3:1019 or 15b3:101a) contradicts "
         "eth0 as observed: driver i40e, PCI 8086:1572; the table that matches is 'intel-x710'"),
        ("x710 on x722", "intel-x710", dict(INTEL, driver="i40e", pci="8086:37d0"),
         "contradicts eth0 as observed: driver i40e, PCI 8086:37d0; the table that matches "
         "is 'intel-x722'"),
        ("e810 on veth", "intel-e810", {"kind": "veth"},
         "error: nic: intel-e810 (driver ice, PCI 8086:1591, 8086:1592, 8086:1593, 8086:1599, 8086:159a or 8086:159b) contradicts eth0 as observed: "
         "driver veth; the table that matches is 'veth'"),
        ("cx5 on cx7", "mellanox-cx5", dict(INTEL, driver="mlx5_core", pci="15b3:1021"),
         "contradicts eth0 as observed: driver mlx5_core, PCI 15b3:1021; the table that "
         "matches is 'mellanox-cx7'"),
        ("x710 on tun", "intel-x710", {"kind": "tun"},
         "error: nic: intel-x710 (driver i40e, PCI 8086:1572, 8086:1580, 8086:1581, 8086:1583, 8086:1584, 8086:1585, 8086:1586, 8086:1587, 8086:1588, 8086:1589, 8086:158a, 8086:158b, 8086:15ff, 8086:104e, 8086:104f, 8086:101f, 8086:0cf8, 8086:0d58 or 8086:0dd2) contradicts eth0 as observed: "
         "driver tun; the table that matches is 'tun'"),
        ("x710 on e610", "intel-x710", dict(INTEL, driver="ixgbe", pci="8086:57b0"),
         "driver ixgbe, PCI 8086:57b0; no table matches this device"),
        ("x550 on x540", "intel-x550", dict(INTEL, driver="ixgbe", pci="8086:1528"),
         "contradicts eth0 as observed: driver ixgbe, PCI 8086:1528; the table that matches "
         "is 'intel-x540'"),
        ("i210 on i211", "intel-i210", dict(INTEL, driver="igb", pci="8086:1539"),
         "the table that matches is 'intel-i211'"),
        ("x710 on its VF", "intel-x710", dict(INTEL, driver="iavf", pci="8086:154c"),
         "driver iavf, PCI 8086:154c; the table that matches is 'intel-iavf'"),
        ("netvsc on mana", "hyperv-netvsc", dict(INTEL, driver="mana", pci="1414:00ba"),
         "error: nic: hyperv-netvsc (driver hv_netvsc) contradicts eth0 as observed: driver "
         "mana, PCI 1414:00ba; the table that matches is 'microsoft-mana'"),
        ("mana on netvsc", "microsoft-mana", dict(INTEL, driver="hv_netvsc"),
         "contradicts eth0 as observed: driver hv_netvsc; the table that matches is "
         "'hyperv-netvsc'"),
        ("gve on ena", "google-gve", dict(INTEL, driver="ena", pci="1d0f:ec20"),
         "nic: google-gve (driver gve, PCI 1ae0:0042) contradicts eth0"),
    ]
    for name, nic, dev, want in cases:
        rc, err = run(["plan"], profile(["nic: " + nic, "mtu: 1500"]), snapshot(dev))
        check(name, rc, err, 1, want=(want,))
    rc, err = run(["plan"], profile(["nic: intel-x722", "mtu: 1500"]),
                  snapshot(dict(INTEL, driver="i40e", pci="8086:37d0")))
    check("x722 on x722", rc, err, (0, 2), absent=("error",))
    # a snapshot that has the PCI id but no driver still contradicts a declared table
    rc, err = run(["plan"], profile(["nic: intel-x722", "mtu: 1500"]),
                  snapshot(dict(INTEL, pci="8086:1572")))
    check("x722 on pci-only x710", rc, err, 1,
          want=("p.yaml:7:10: error: nic: intel-x722 (driver i40e, PCI 8086:37ce, 8086:37cf, 8086:37d0, 8086:37d1, 8086:37d2 or 8086:37d3) contradicts "
                "eth0 as observed: PCI 8086:1572; the table that matches is 'intel-x710'",))
    rc, err = run(["plan"], profile(["nic: intel-x722", "mtu: 1500"]),
                  snapshot(dict(INTEL, pci="8086:37D0")))
    check("x722 on pci-only x722 (upper case)", rc, err, (0, 2), absent=("error",))
    # a snapshot's PCI id is checked like the profile's match.pci
    for bad in ("zzzz", "8086-1572", "8086:15722", "8086:157g", ""):
        rc, err = run(["plan"], profile(["mtu: 1500"]), snapshot(dict(INTEL, pci=bad)))
        check(f"snapshot pci {bad!r}", rc, err, 1,
              want=('s.json:1:', 'error: "pci" is not a PCI vendor:device id such as 8086:1572'))


def t_kernel_versions():
    # ixgbe ring maxima are per MAC from 6.2; older kernels accept 4096
    dev = dict(INTEL, driver="ixgbe", pci="8086:10fb")
    for kernel, value, ok in [("5.15.0-86-generic", 4096, True), ("5.15.0-86-generic", 4097, False),
                              ("6.2.0", 8192, True), ("6.8.0", 8193, False)]:
        snap = snapshot(dev)
        snap["host"]["kernel"] = kernel
        rc, err = run(["plan"], profile(["nic: intel-82599", f"rings: {{rx: {value}}}"]), snap)
        if ok:
            check(f"82599 {kernel} {value}", rc, err, (0, 2), absent=("error",))
        elif kernel.startswith("5."):
            check(f"82599 {kernel} {value}", rc, err, 1,
                  want=("p.yaml:8:17: error: rings.rx = 4097 exceeds the intel-82599 maximum of "
                        "4096 on kernel 5.15.0-86-generic (8192 from 6.2; ",))
        else:
            rc, err = run(["validate"], profile(["nic: intel-82599", f"rings: {{rx: {value}}}"]))
            check(f"82599 {value}", rc, err, 1, want=("maximum of 8192",))


def t_x710_kernel_rule():
    # i40e reports 8160 on the XL710 MAC from v6.8 (aa6908ca3bd1) and from the
    # stable releases that got the backport on 2025-10-02; 4096 before
    dev = dict(INTEL, driver="i40e", pci="8086:1572")
    stable = ("8160 from 6.8 and the stable releases 6.6.109, 6.1.155, 5.15.194, 5.10.245, "
              "5.4.300; ")
    for kernel, value, ok in [("6.8.0", 8160, True), ("6.18.0-1-amd64", 8160, True),
                              ("6.7.12", 4096, True), ("6.7.12", 4097, False),
                              ("6.6.108", 4097, False), ("6.6.109", 8160, True),
                              ("6.1.155-rt55", 8160, True), ("6.1.154", 4097, False),
                              ("5.15.194", 8160, True), ("5.15.0-91-generic", 4097, False),
                              ("5.15.0-91-generic", 4096, True), ("5.10.245", 8160, True),
                              ("5.4.299", 4097, False), ("5.4.300", 8160, True),
                              ("4.19.325", 4097, False)]:
        snap = snapshot(dev)
        snap["host"]["kernel"] = kernel
        for nic in (["nic: intel-x710"], ["nic: auto"], []):
            rc, err = run(["plan"], profile(nic + [f"rings: {{rx: {value}}}"]), snap)
            tag = f"x710 {kernel} {value} {nic}"
            if ok:
                check(tag, rc, err, (0, 2), absent=("error",))
            else:
                row = 7 + len(nic)
                check(tag, rc, err, 1,
                      want=(f"p.yaml:{row}:17: error: rings.rx = {value} exceeds the intel-x710 "
                            f"maximum of 4096 on kernel {kernel} (" + stable,
                            "'i40e: increase max descriptors for XL710'"))
    # beyond 8160 on a new kernel is the plain table maximum
    snap = snapshot(dev)
    snap["host"]["kernel"] = "6.6.109"
    rc, err = run(["plan"], profile(["nic: intel-x710", "rings: {rx: 8161}"]), snap)
    check("x710 6.6.109 8161", rc, err, 1,
          want=("error: rings.rx = 8161 exceeds the intel-x710 maximum of 8160 (",))
    # a distribution kernel with the backport reports 8160: the observed maximum wins
    snap = snapshot(dict(dev, max={"ring_rx": 8160, "ring_tx": 8160}))
    snap["host"]["kernel"] = "5.15.0-91-generic"
    rc, err = run(["plan"], profile(["nic: intel-x710", "rings: {rx: 8160}"]), snap)
    check("x710 distro backport observed", rc, err, (0, 2), absent=("error",))
    # offline (no kernel known) the newest maximum applies
    rc, err = run(["validate"], profile(["nic: intel-x710", "rings: {rx: 8160}"]))
    check("x710 validate 8160", rc, err, 0, absent=("error",))
    r = subprocess.run([NETTUNE, "caps", "intel-x710"], capture_output=True, text=True)
    if ("older max              4096 (before kernel 6.8; not on stable 6.6.109, 6.1.155, "
            "5.15.194, 5.10.245, 5.4.300 and later in their series)") not in r.stdout:
        fail(f"caps intel-x710 does not show the kernel rule:\n{r.stdout}")
    # a malformed backport list is refused with its location
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(SRCROOT, "schema", "nics", "intel-x710.yaml")) as f:
            text = f.read()
        for bad, msg in [('"6.6"', "entries are stable releases X.Y.Z"),
                         ('"6.6.109x"', "entries are stable releases X.Y.Z")]:
            with open(os.path.join(d, "intel-x710.yaml"), "w") as f:
                f.write(text.replace('"6.6.109"', bad))
            r = subprocess.run([NETTUNE, "--caps-dir", d, "caps", "intel-x710"],
                               capture_output=True, text=True)
            if r.returncode == 0 or f"{d}/intel-x710.yaml:" not in r.stderr or msg not in r.stderr:
                fail(f"bad max_backports {bad}: {r.returncode} {r.stderr}")
        with open(os.path.join(d, "intel-x710.yaml"), "w") as f:
            f.write(text.replace('    max_since: "6.8"\n    max_before: 4096\n', ""))
        r = subprocess.run([NETTUNE, "--caps-dir", d, "caps", "intel-x710"],
                           capture_output=True, text=True)
        if r.returncode == 0 or "rings.max_backports needs rings.max_since" not in r.stderr:
            fail(f"max_backports without max_since: {r.returncode} {r.stderr}")


def t_readme_models():
    # schema/nics/README.md names every table `nettune caps` lists
    r = subprocess.run([NETTUNE, "caps"], capture_output=True, text=True)
    ids = [line.split()[0] for line in r.stdout.splitlines() if line.strip()]
    with open(os.path.join(SRCROOT, "schema", "nics", "README.md")) as f:
        readme = f.read()
    models = readme[readme.index("Models:"):readme.index("## Matching")]
    named = set(re.findall(r"`([a-z0-9-]+)`", models))
    if named != set(ids):
        fail(f"schema/nics/README.md Models: missing {sorted(set(ids) - named)}, "
             f"not in caps {sorted(named - set(ids))}")
    # and the top-level README's NIC list names exactly the same tables
    with open(os.path.join(SRCROOT, "README.md")) as f:
        top = f.read()
    start = top.index("## NIC capability tables")
    section = top[start:top.index("\n## ", start + 1)]
    table = "\n".join(line for line in section.splitlines() if line.startswith("| "))
    listed = re.findall(r"`([a-z0-9-]+)`", table)
    if sorted(listed) != sorted(set(listed)) or set(listed) != set(ids):
        fail(f"README.md NIC list: missing {sorted(set(ids) - set(listed))}, not in caps "
             f"{sorted(set(listed) - set(ids))}, listed twice "
             f"{sorted(x for x in set(listed) if listed.count(x) > 1)}")
    # every listed driver is the driver of the tables in its row
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        driver = cells[0].split()[0]
        for t in re.findall(r"`([a-z0-9-]+)`", cells[1]):
            r = subprocess.run([NETTUNE, "caps", t], capture_output=True, text=True)
            if f"  linux driver           {driver}\n" not in r.stdout:
                fail(f"README.md NIC list puts {t} under driver {driver}")
    # one table per PCI id: matching by device is unambiguous
    seen = {}
    for i in ids:
        r = subprocess.run([NETTUNE, "caps", i], capture_output=True, text=True)
        line = [x for x in r.stdout.splitlines() if x.startswith("  pci ids")][0]
        for pci in line.split()[2:]:
            if pci != "none" and pci in seen:
                fail(f"PCI id {pci} is in {seen[pci]} and {i}")
            seen[pci] = i
    if len(ids) != len(os.listdir(os.path.join(SRCROOT, "schema", "nics"))) - 1:
        fail(f"caps lists {len(ids)} tables; schema/nics has another count")


def t_fixed_entries():
    rc, err = run(["validate"], profile(["nic: broadcom-57414", "offloads: {uso: on}"]))
    check("57414 uso", rc, err, 1,
          want=("p.yaml:8:21: error: broadcom-57414 (bnxt_en) has no uso",))
    rc, err = run(["validate"], profile(["nic: intel-e810", "channels: {other: 1}"]))
    check("e810 other 1", rc, err, 0, absent=("error",))
    rc, err = run(["validate"], profile(["nic: intel-e810", "channels: {other: 2}"]))
    check("e810 other 2", rc, err, 1,
          want=("error: channels.other = 2 exceeds the intel-e810 maximum of 1",
                "ICE_FLAG_FD_ENA"))
    r = subprocess.run([NETTUNE, "caps", "mellanox-cx5"], capture_output=True, text=True)
    if "later\n    removed" in r.stdout or "still enforced in v6.18" not in r.stdout:
        fail("mellanox-cx5 notes must say the XOR 128-channel limit is still enforced")
    r = subprocess.run([NETTUNE, "caps", "e830"], capture_output=True, text=True)
    if r.returncode != 1 or "did you mean 'intel-e830'" not in r.stderr:
        fail(f"caps e830: {r.returncode} {r.stderr}")
    rc, err = run(["validate"], profile(["nic: e810"]))
    check("nic suggestion", rc, err, 1, want=("did you mean 'intel-e810'",))
    # a sub-model names the table of its model, not the nearest spelling
    for name, want in [("mellanox-cx6dx", "mellanox-cx6"), ("intel-x710-da2", "intel-x710"),
                       ("mellanox-cx5ex", "mellanox-cx5"), ("intel-i226", "intel-i225")]:
        r = subprocess.run([NETTUNE, "caps", name], capture_output=True, text=True)
        if r.returncode != 1 or f"did you mean '{want}'?" not in r.stderr:
            fail(f"caps {name}: {r.returncode} {r.stderr}")
        rc, err = run(["validate"], profile(["nic: " + name]))
        check(f"nic {name}", rc, err, 1, want=(f"p.yaml:7:10: error: unknown NIC model '{name}'; "
                                              f"did you mean '{want}'?",))


def t_caps_dir():
    # a local directory replaces a built-in table and adds new ones; caps says where each came from
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(SRCROOT, "schema", "nics", "intel-x722.yaml")) as f:
            text = f.read()
        with open(os.path.join(d, "intel-x722.yaml"), "w") as f:
            f.write(text.replace("rx_max: 4096", "rx_max: 2048"))
        with open(os.path.join(d, "lab-nic.yaml"), "w") as f:
            f.write(text.replace("id: intel-x722", "id: lab-nic").replace(
                "\"8086:37ce\", ", ""))
        r = subprocess.run([NETTUNE, "--caps-dir", d, "caps"], capture_output=True, text=True)
        if (f"Intel Ethernet Connection X722 [{d} (replaces the built-in table)]" not in r.stdout
                or f"lab-nic " not in r.stdout or
                "Intel Ethernet Controller X710/XL710/XXV710\n" not in r.stdout):
            fail(f"caps --caps-dir listing:\n{r.stdout}{r.stderr}")
        r = subprocess.run([NETTUNE, "caps", "intel-x710"], capture_output=True, text=True)
        if "  from                   built-in\n" not in r.stdout:
            fail(f"caps intel-x710 does not say built-in:\n{r.stdout}")
        rc, err = run(["--caps-dir", d, "validate"],
                      profile(["nic: intel-x722", "rings: {rx: 2049}"]))
        check("caps-dir override", rc, err, 1,
              want=("error: rings.rx = 2049 exceeds the intel-x722 maximum of 2048",))
        with open(os.path.join(d, "broken.yaml"), "w") as f:
            f.write("id: broken\n")
        rc, err = run(["--caps-dir", d, "validate"], profile(["nic: intel-x710"]))
        check("caps-dir broken table", rc, err, (1,),
              want=(f"{d}/broken.yaml:",))


def t_richer():
    # (table, lines at the edge, lines beyond, error, cited source)
    cases = [
        ("intel-x710", ["rings: {rx: 64}"], ["rings: {rx: 63}"],
         "p.yaml:8:17: error: rings.rx = 63 is below the intel-x710 minimum of 64",
         "I40E_MIN_NUM_DESCRIPTORS = 64"),
        ("intel-e810", ["rings: {tx: 64}"], ["rings: {tx: 63}"],
         "p.yaml:8:17: error: rings.tx = 63 is below the intel-e810 minimum of 64",
         "ICE_MIN_NUM_DESC = 64"),
        ("intel-x550", ["rings: {rx: 64}"], ["rings: {rx: 63}"],
         "error: rings.rx = 63 is below the intel-x550 minimum of 64", "IXGBE_MIN_RXD"),
        ("intel-x710", ["coalesce: {rx_usecs: 8160}"], ["coalesce: {rx_usecs: 8161}"],
         "p.yaml:8:26: error: coalesce.rx_usecs = 8161 exceeds the intel-x710 maximum of 8160 "
         "microseconds", "I40E_MAX_ITR = 8160"),
        ("intel-x722", ["coalesce: {tx_usecs: 8160}"], ["coalesce: {tx_usecs: 8161}"],
         "error: coalesce.tx_usecs = 8161 exceeds the intel-x722 maximum of 8160",
         "I40E_MAX_ITR = 8160"),
        ("mellanox-cx5", ["channels: {combined: 128}", "rss: {hash: xor}"],
         ["channels: {combined: 129}", "rss: {hash: xor}"],
         "p.yaml:9:17: error: rss.hash xor allows at most 128 channels on mellanox-cx5; "
         "channels.combined is 129", "MLX5E_MAX_RQT_SIZE_ALLOWED_WITH_XOR8_HASH 256"),
        ("mellanox-cx6", ["channels: {combined: 129}", "rss: {hash: toeplitz}"],
         ["channels: {combined: 129}", "rss: {hash: xor}"],
         "error: rss.hash xor allows at most 128 channels on mellanox-cx6", "en/rqt.c"),
        ("intel-i225", ["coalesce: {rx_usecs: 10000}"], ["coalesce: {rx_usecs: 10001}"],
         "error: coalesce.rx_usecs = 10001 exceeds the intel-i225 maximum of 10000",
         "IGC_MAX_ITR_USECS 10000"),
        ("intel-i225", ["rings: {tx: 64}"], ["rings: {tx: 63}"],
         "error: rings.tx = 63 is below the intel-i225 minimum of 64", "IGC_MIN_RXD"),
        ("broadcom-57414", ["rings: {tx: 19}"], ["rings: {tx: 18}"],
         "error: rings.tx = 18 is below the broadcom-57414 minimum of 19",
         "BNXT_MIN_TX_DESC_CNT = MAX_SKB_FRAGS + 2"),
        ("mellanox-cx5", ["rings: {tx: 64}"], ["rings: {tx: 63}"],
         "error: rings.tx = 63 is below the mellanox-cx5 minimum of 64",
         "MLX5E_PARAMS_MINIMUM_LOG_SQ_SIZE 0x6"),
        ("realtek-rtl8168", ["rings: {rx: 256}"], ["rings: {rx: 128}"],
         "p.yaml:8:13: error: rings.rx: realtek-rtl8168 (r8169) ring sizes cannot be changed",
         "NUM_RX_DESC"),
        ("intel-x710", ["channels: {other: 1}"], ["channels: {other: 2}"],
         "error: channels.other = 2 exceeds the intel-x710 maximum of 1", "I40E_FLAG_FD_SB_ENA"),
    ]
    for table, edge, beyond, want, cite in cases:
        rc, err = run(["validate"], profile(["nic: " + table] + edge))
        check(f"{table} {edge}", rc, err, 0, absent=("error",))
        rc, err = run(["validate"], profile(["nic: " + table] + beyond))
        check(f"{table} {beyond}", rc, err, 1, want=(want, cite))
    new_cases = [
        ("intel-iavf", ["rings: {rx: 64}"], ["rings: {rx: 63}"],
         "p.yaml:8:17: error: rings.rx = 63 is below the intel-iavf minimum of 64",
         "IAVF_MIN_RXD = IAVF_MIN_TXD = 64"),
        ("intel-iavf", ["coalesce: {rx_usecs: 8160}"], ["coalesce: {rx_usecs: 8161}"],
         "error: coalesce.rx_usecs = 8161 exceeds the intel-iavf maximum of 8160",
         "IAVF_MAX_ITR = 8160"),
        ("intel-iavf", ["channels: {other: 1}"], ["channels: {other: 2}"],
         "error: channels.other = 2 exceeds the intel-iavf maximum of 1", "NONQ_VECS = 1"),
        ("intel-ixgbevf", ["rings: {tx: 64}"], ["rings: {tx: 63}"],
         "error: rings.tx = 63 is below the intel-ixgbevf minimum of 64",
         "IXGBEVF_MIN_RXD = IXGBEVF_MIN_TXD = 64"),
        ("intel-ixgbevf", ["coalesce: {rx_usecs: 1022}"], ["coalesce: {rx_usecs: 1023}"],
         "p.yaml:8:26: error: coalesce.rx_usecs = 1023 exceeds the intel-ixgbevf maximum of "
         "1022", "IXGBE_MAX_EITR >> 2"),
        ("intel-ixgbevf", ["mtu: 1500"], ["channels: {combined: 2}"],
         "error: intel-ixgbevf (ixgbevf) has no combined channels; it has no channel settings",
         "p.yaml:8:16:"),
        ("intel-x540", ["rings: {rx: 64}"], ["rings: {rx: 63}"],
         "error: rings.rx = 63 is below the intel-x540 minimum of 64", "IXGBE_MIN_RXD"),
        ("intel-x540", ["rings: {tx: 8192}"], ["rings: {tx: 8193}"],
         "error: rings.tx = 8193 exceeds the intel-x540 maximum of 8192",
         "IXGBE_MAX_RXD_X540 = IXGBE_MAX_TXD_X540 = 8192"),
        ("intel-i211", ["coalesce: {tx_usecs: 10000}"], ["coalesce: {tx_usecs: 10001}"],
         "error: coalesce.tx_usecs = 10001 exceeds the intel-i211 maximum of 10000",
         "IGB_MAX_ITR_USECS = 10000"),
        ("intel-i211", ["rings: {rx: 4096}"], ["rings: {rx: 4097}"],
         "error: rings.rx = 4097 exceeds the intel-i211 maximum of 4096",
         "IGB_MAX_RXD = IGB_MAX_TXD = 4096"),
        ("broadcom-57508", ["rings: {tx: 19}"], ["rings: {tx: 18}"],
         "error: rings.tx = 18 is below the broadcom-57508 minimum of 19",
         "BNXT_MIN_TX_DESC_CNT = MAX_SKB_FRAGS + 2 = 19"),
        ("broadcom-57508", ["offloads: {gro_hw: on}"], ["offloads: {uso: on}"],
         "p.yaml:8:21: error: broadcom-57508 (bnxt_en) has no uso", "cannot be turned on"),
        ("microsoft-mana", ["rings: {rx: 128}"], ["rings: {rx: 127}"],
         "error: rings.rx = 127 is below the microsoft-mana minimum of 128",
         "MIN_RX_BUFFERS_PER_QUEUE = MIN_TX_BUFFERS_PER_QUEUE = 128"),
        ("microsoft-mana", ["rings: {tx: 16384}"], ["rings: {tx: 16385}"],
         "error: rings.tx = 16385 exceeds the microsoft-mana maximum of 16384",
         "MAX_TX_BUFFERS_PER_QUEUE = 16384"),
        ("microsoft-mana", ["offloads: {tso: on}"], ["offloads: {lro: on}"],
         "p.yaml:8:21: error: microsoft-mana (mana) has no lro", "cannot be turned on"),
        ("hyperv-netvsc", ["rings: {rx: 10}"], ["rings: {rx: 9}"],
         "error: rings.rx = 9 is below the hyperv-netvsc minimum of 10",
         "NETVSC_MIN_RX_SECTIONS / NETVSC_MIN_TX_SECTIONS = 10"),
        ("hyperv-netvsc", ["channels: {combined: 64}"], ["channels: {combined: 65}"],
         "error: channels.combined = 65 exceeds the hyperv-netvsc maximum of 64",
         "VRSS_CHANNEL_MAX = 64"),
        ("google-gve", ["coalesce: {rx_usecs: 8190}"], ["coalesce: {rx_usecs: 8191}"],
         "error: coalesce.rx_usecs = 8191 exceeds the google-gve maximum of 8190",
         "GVE_MAX_ITR_INTERVAL_DQO"),
        ("google-gve", ["channels: {rx: 4, tx: 4}"], ["channels: {combined: 4}"],
         "p.yaml:8:16: error: google-gve (gve) has no combined channels; it has rx, tx",
         "p.yaml:8:16:"),
    ]
    for table, edge, beyond, want, cite in new_cases:
        rc, err = run(["validate"], profile(["nic: " + table] + edge))
        check(f"{table} {edge}", rc, err, 0, absent=("error",))
        rc, err = run(["validate"], profile(["nic: " + table] + beyond))
        check(f"{table} {beyond}", rc, err, 1, want=(want, cite))
    # nic: auto picks gVNIC from its PCI id: it has rx and tx channels, no combined ones
    gve = snapshot(dict(INTEL, driver="gve", pci="1ae0:0042"))
    rc, err = run(["plan"], profile(["nic: auto", "channels: {combined: 4}"]), gve)
    check("gve auto combined", rc, err, 1,
          want=("p.yaml:8:26: error: google-gve (gve) has no combined channels; it has rx, tx",))
    rc, err = run(["plan"], profile(["nic: auto", "channels: {rx: 4, tx: 4}"]), gve)
    check("gve auto rx/tx", rc, err, 2, absent=("error",))
    rc, err = run(["plan"], profile(["nic: google-gve", "channels: {rx: 4}"]), gve)
    check("gve declared", rc, err, 2, absent=("error",))
    # ixgbevf has no channel ops at all; an observed maximum (a newer driver) would win
    vf = snapshot(dict(INTEL, driver="ixgbevf", pci="8086:1515"))
    rc, err = run(["plan"], profile(["nic: auto", "channels: {combined: 2}"]), vf)
    check("ixgbevf auto channels", rc, err, 1,
          want=("error: intel-ixgbevf (ixgbevf) has no combined channels; it has no channel "
                "settings",))
    rc, err = run(["validate"], profile(["nic: tun", "channels: {combined: 2}"]))
    check("tun channels", rc, err, 1,
          want=("error: tun (tun) has no combined channels; it has no channel settings",))
    # vmxnet3 reports channels but has no set_channels: any count is refused
    rc, err = run(["validate"], profile(["nic: vmxnet3", "channels: {combined: 4}"]))
    check("vmxnet3 channels", rc, err, 1,
          want=("p.yaml:8:26: error: channels.combined: vmxnet3 (vmxnet3) channel counts cannot "
                "be changed (", "no set_channels"))


# (table, edge lines that pass, lines beyond that fail, the located error, cited source)
COALESCE = [
    # ranges
    ("intel-e810", ["coalesce: {tx_usecs: 8160}"], ["coalesce: {tx_usecs: 8161}"],
     "p.yaml:8:26: error: coalesce.tx_usecs = 8161 exceeds the intel-e810 maximum of 8160 "
     "microseconds", "ICE_ITR_MAX 8160"),
    ("intel-e830", ["coalesce: {rx_usecs: 8160}"], ["coalesce: {rx_usecs: 8161}"],
     "error: coalesce.rx_usecs = 8161 exceeds the intel-e830 maximum of 8160", "ICE_ITR_MAX 8160"),
    ("intel-82599", ["coalesce: {rx_usecs: 1022}"], ["coalesce: {rx_usecs: 1023}"],
     "p.yaml:8:26: error: coalesce.rx_usecs = 1023 exceeds the intel-82599 maximum of 1022 "
     "microseconds", "IXGBE_MAX_EITR >> 2"),
    ("intel-82598", ["coalesce: {rx_usecs: 1022}"], ["coalesce: {rx_usecs: 1023}"],
     "error: coalesce.rx_usecs = 1023 exceeds the intel-82598 maximum of 1022", "0x00000FF8"),
    ("intel-x550", ["coalesce: {rx_usecs: 1022}"], ["coalesce: {rx_usecs: 1023}"],
     "error: coalesce.rx_usecs = 1023 exceeds the intel-x550 maximum of 1022", "IXGBE_MAX_EITR"),
    ("intel-i350", ["coalesce: {rx_usecs: 10000}"], ["coalesce: {rx_usecs: 10001}"],
     "error: coalesce.rx_usecs = 10001 exceeds the intel-i350 maximum of 10000",
     "IGB_MAX_ITR_USECS 10000"),
    ("intel-i210", ["coalesce: {tx_usecs: 10000}"], ["coalesce: {tx_usecs: 10001}"],
     "error: coalesce.tx_usecs = 10001 exceeds the intel-i210 maximum of 10000",
     "IGB_MAX_ITR_USECS 10000"),
    ("mellanox-cx5", ["coalesce: {rx_usecs: 4095}"], ["coalesce: {rx_usecs: 4096}"],
     "error: coalesce.rx_usecs = 4096 exceeds the mellanox-cx5 maximum of 4095 microseconds",
     "MLX5E_MAX_COAL_TIME = MLX5_MAX_CQ_PERIOD"),
    ("mellanox-cx7", ["coalesce: {tx_usecs: 4095}"], ["coalesce: {tx_usecs: 4096}"],
     "error: coalesce.tx_usecs = 4096 exceeds the mellanox-cx7 maximum of 4095",
     "cq_period[0xc]"),
    ("mellanox-vf", ["coalesce: {rx_frames: 65535}"], ["coalesce: {rx_usecs: 5000}"],
     "error: coalesce.rx_usecs = 5000 exceeds the mellanox-vf maximum of 4095", "MLX5_MAX_CQ_COUNT"),
    ("vmxnet3", ["coalesce: {rx_usecs: 10000}"], ["coalesce: {rx_usecs: 10001}"],
     "error: coalesce.rx_usecs = 10001 exceeds the vmxnet3 maximum of 10000",
     "VMXNET3_COAL_RBC_MIN_RATE 100"),
    ("vmxnet3", ["coalesce: {tx_frames: 128}"], ["coalesce: {tx_frames: 129}"],
     "p.yaml:8:27: error: coalesce.tx_frames = 129 exceeds the vmxnet3 maximum of 128 frames",
     "VMXNET3_COAL_STATIC_MAX_DEPTH 128"),
    ("realtek-rtl8168", ["coalesce: {rx_frames: 60, rx_usecs: 100}"],
     ["coalesce: {rx_frames: 61, rx_usecs: 100}"],
     "p.yaml:8:27: error: coalesce.rx_frames = 61 exceeds the realtek-rtl8168 maximum of 60 frames",
     "RTL_COALESCE_FRAME_MAX"),
    # minimums and the mode values below them
    ("intel-i350", ["coalesce: {rx_usecs: 10}"], ["coalesce: {rx_usecs: 9}"],
     "p.yaml:8:26: error: coalesce.rx_usecs = 9 is below the intel-i350 minimum of 10 "
     "microseconds; below it only 0, 1, 3 (modes) are accepted", "IGB_MIN_ITR_USECS 10"),
    ("intel-i210", ["coalesce: {rx_usecs: 3}"], ["coalesce: {rx_usecs: 2}"],
     "error: coalesce.rx_usecs = 2 is below the intel-i210 minimum of 10", "1 and 3 = dynamic"),
    ("intel-i225", ["coalesce: {tx_usecs: 0}"], ["coalesce: {tx_usecs: 4}"],
     "error: coalesce.tx_usecs = 4 is below the intel-i225 minimum of 10", "IGC_MIN_ITR_USECS 10"),
    ("vmxnet3", ["coalesce: {rx_usecs: 0}"], ["coalesce: {rx_usecs: 9}"],
     "error: coalesce.rx_usecs = 9 is below the vmxnet3 minimum of 10 microseconds; below it "
     "only 0 (modes) are accepted", "VMXNET3_COAL_RBC_MAX_RATE 100000"),
    # parameters the driver does not take (the ethtool core refuses them)
    ("intel-x710", ["coalesce: {adaptive_tx: on}"], ["coalesce: {rx_frames: 32}"],
     "p.yaml:8:27: error: coalesce.rx_frames: intel-x710 (i40e) does not support this parameter; "
     "it takes rx_usecs, tx_usecs, adaptive_rx, adaptive_tx", "ETHTOOL_COALESCE_MAX_FRAMES_IRQ"),
    ("intel-e810", ["coalesce: {adaptive_rx: off}"], ["coalesce: {tx_frames: 32}"],
     "error: coalesce.tx_frames: intel-e810 (ice) does not support this parameter",
     "ETHTOOL_COALESCE_RX_USECS_HIGH"),
    ("intel-82599", ["coalesce: {tx_usecs: 0}"], ["coalesce: {adaptive_rx: on}"],
     "p.yaml:8:29: error: coalesce.adaptive_rx: intel-82599 (ixgbe) does not support this "
     "parameter; it takes rx_usecs, tx_usecs", "supported_coalesce_params = ETHTOOL_COALESCE_USECS"),
    ("intel-i350", ["coalesce: {tx_usecs: 50}"], ["coalesce: {rx_frames: 8}"],
     "error: coalesce.rx_frames: intel-i350 (igb) does not support this parameter",
     "let core reject the unsupported coalescing parameters"),
    ("broadcom-57414", ["coalesce: {adaptive_rx: on, rx_frames: 64, tx_frames: 64}"],
     ["coalesce: {adaptive_tx: on}"],
     "p.yaml:8:29: error: coalesce.adaptive_tx: broadcom-57414 (bnxt_en) does not support this "
     "parameter; it takes rx_usecs, tx_usecs, rx_frames, tx_frames, adaptive_rx",
     "ETHTOOL_COALESCE_USE_ADAPTIVE_RX"),
    ("broadcom-57414", ["coalesce: {rx_usecs: 100000}"], ["coalesce: {adaptive_tx: off}"],
     "error: coalesce.adaptive_tx: broadcom-57414 (bnxt_en) does not support this parameter",
     "no adaptive-tx"),
    ("aws-ena", ["coalesce: {tx_usecs: 64, adaptive_rx: on}"], ["coalesce: {rx_frames: 8}"],
     "error: coalesce.rx_frames: aws-ena (ena) does not support this parameter",
     "ETHTOOL_COALESCE_USE_ADAPTIVE_RX"),
    ("virtio-net", ["coalesce: {rx_frames: 16, tx_usecs: 8, adaptive_rx: on}"],
     ["coalesce: {adaptive_tx: on}"],
     "error: coalesce.adaptive_tx: virtio-net (virtio_net) does not support this parameter",
     "ETHTOOL_COALESCE_USE_ADAPTIVE_RX"),
    ("vmxnet3", ["coalesce: {rx_usecs: 100}"], ["coalesce: {tx_usecs: 100}"],
     "p.yaml:8:26: error: coalesce.tx_usecs: vmxnet3 (vmxnet3) does not support this parameter",
     "ETHTOOL_COALESCE_RX_USECS"),
    ("realtek-rtl8125", ["coalesce: {tx_usecs: 100}"], ["coalesce: {adaptive_rx: on}"],
     "error: coalesce.adaptive_rx: realtek-rtl8125 (r8169) does not support this parameter",
     "ETHTOOL_COALESCE_USECS | ETHTOOL_COALESCE_MAX_FRAMES"),
    ("tun", ["coalesce: {rx_frames: 64}"], ["coalesce: {rx_usecs: 10}"],
     "p.yaml:8:26: error: coalesce.rx_usecs: tun (tun) does not support this parameter; it takes "
     "rx_frames", "ETHTOOL_COALESCE_RX_MAX_FRAMES"),
    ("veth", ["mtu: 1500"], ["coalesce: {adaptive_rx: off}"],
     "p.yaml:8:29: error: coalesce.adaptive_rx: veth (veth) has no interrupt coalescing settings",
     "no get_coalesce/set_coalesce"),
    # usecs together with adaptive on
    ("intel-x710", ["coalesce: {adaptive_rx: off, rx_usecs: 50}"],
     ["coalesce: {adaptive_rx: on, rx_usecs: 50}"],
     "p.yaml:8:43: error: coalesce.rx_usecs cannot be set with adaptive_rx on: intel-x710 (i40e) "
     "refuses to change rx-usecs while adaptive-rx is enabled",
     "RX interrupt moderation cannot be changed if adaptive-rx is enabled"),
    ("intel-e810", ["coalesce: {adaptive_tx: on, rx_usecs: 50}"],
     ["coalesce: {adaptive_tx: on, tx_usecs: 50}"],
     "error: coalesce.tx_usecs cannot be set with adaptive_tx on: intel-e810 (ice)",
     "cannot be changed if adaptive-rx is enabled"),
    ("vmxnet3", ["coalesce: {adaptive_rx: on}"], ["coalesce: {adaptive_rx: on, rx_usecs: 20}"],
     "error: coalesce.rx_usecs cannot be set with adaptive_rx on: vmxnet3 (vmxnet3)",
     "adaptive-rx together with a non-zero rx-usecs"),
    # mlx5 takes every parameter, adaptive together with usecs too
    ("mellanox-cx6", ["coalesce: {adaptive_rx: on, adaptive_tx: on, rx_usecs: 8, tx_usecs: 8, "
                      "rx_frames: 32, tx_frames: 32}"], ["coalesce: {tx_usecs: 4096}"],
     "error: coalesce.tx_usecs = 4096 exceeds the mellanox-cx6 maximum of 4095",
     "ETHTOOL_COALESCE_USE_CQE"),
]


def t_coalesce():
    for table, edge, beyond, want, cite in COALESCE:
        rc, err = run(["validate"], profile(["nic: " + table] + edge))
        check(f"{table} {edge}", rc, err, 0, absent=("error",))
        rc, err = run(["validate"], profile(["nic: " + table] + beyond))
        check(f"{table} {beyond}", rc, err, 1, want=(want, cite))
    # a table with no coalesce group (a local one, as before this format) checks nothing
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(SRCROOT, "schema", "nics", "intel-x722.yaml")) as f:
            text = f.read()
        start = text.index("  coalesce:\n")
        end = text.index("  rss:\n")
        with open(os.path.join(d, "intel-x722.yaml"), "w") as f:
            f.write(text[:start] + text[end:])
        rc, err = run(["--caps-dir", d, "validate"],
                      profile(["nic: intel-x722", "coalesce: {rx_frames: 99, rx_usecs: 99999}"]))
        check("table without coalesce group", rc, err, 0, absent=("error",))
    # plan time: the table chosen from the observed device gives the same verdict
    dev = dict(INTEL, driver="i40e", pci="8086:1572")
    rc, err = run(["plan"], profile(["coalesce: {rx_frames: 32}"]), snapshot(dev))
    check("plan x710 rx_frames", rc, err, 1,
          want=("p.yaml:7:27: error: coalesce.rx_frames: intel-x710 (i40e) does not support "
                "this parameter",))
    rc, err = run(["plan"], profile(["coalesce: {rx_usecs: 8160, adaptive_rx: off}"]), snapshot(dev))
    check("plan x710 rx_usecs edge", rc, err, (0, 2), absent=("error",))
    rc, err = run(["plan"], profile(["coalesce: {tx_usecs: 1023}"]),
                  snapshot(dict(INTEL, driver="ixgbe", pci="8086:10fb")))
    check("plan 82599 tx_usecs", rc, err, 1,
          want=("p.yaml:7:26: error: coalesce.tx_usecs = 1023 exceeds the intel-82599 maximum "
                "of 1022 microseconds",))
    rc, err = run(["plan"], profile(["coalesce: {rx_usecs: 10}"]), snapshot({"kind": "veth"}))
    check("plan veth coalesce", rc, err, 1,
          want=("p.yaml:7:26: error: coalesce.rx_usecs: veth (veth) has no interrupt coalescing "
                "settings",))
    r = subprocess.run([NETTUNE, "caps", "intel-i350"], capture_output=True, text=True)
    for line in ("  params                 rx_usecs tx_usecs\n",
                 "  usecs max              10000\n",
                 "  usecs min              10 (below it only 0, 1, 3)\n",
                 "  frames max             unknown\n"):
        if line not in r.stdout:
            fail(f"caps intel-i350 lacks {line!r}:\n{r.stdout}")
    r = subprocess.run([NETTUNE, "caps", "veth"], capture_output=True, text=True)
    if "  params                 none\n" not in r.stdout:
        fail(f"caps veth does not say params none:\n{r.stdout}")


BNXT = {"kind": "physical", "driver": "bnxt_en", "pci": "14e4:16d7"}
AGG_OFF = "offloads: {gro_hw: off, lro: off}"
AGG_CITE = "BNXT_FLAG_AGG_RINGS = BNXT_FLAG_JUMBO | BNXT_FLAG_GRO | BNXT_FLAG_LRO"


def t_bnxt_agg():
    nic = ["nic: broadcom-57414"]
    ok = [
        ["mtu: 1500", AGG_OFF, "rings: {rx: 4096}"],
        ["mtu: 3690", AGG_OFF, "rings: {rx: 8191}"],
        ["rings: {rx: 2047}"],
    ]
    for lines in ok:
        rc, err = run(["validate"], profile(nic + lines))
        check(f"57414 {lines}", rc, err, 0, absent=("error", "warning"))
    bad = [
        (["rings: {rx: 4096}"], "p.yaml:8:17: error: rings.rx = 4096 exceeds the broadcom-57414 "
         "maximum of 2047 while bnxt_en uses aggregation rings: offloads.gro_hw is not off (the "
         "profile leaves rx-gro-hw as it is; it is on by default). With offloads.gro_hw and "
         "offloads.lro off and an mtu of at most 3690 the maximum is 8191"),
        (["rings: {rx: 2048}", "offloads: {gro_hw: off}"], "p.yaml:8:17: error: rings.rx = 2048 "
         "exceeds the broadcom-57414 maximum of 2047 while bnxt_en uses aggregation rings: "
         "offloads.lro is not off"),
        (["mtu: 1500", "offloads: {gro_hw: off, lro: on}", "rings: {rx: 4096}"],
         "p.yaml:10:17: error: rings.rx = 4096 exceeds the broadcom-57414 maximum of 2047 while "
         "bnxt_en uses aggregation rings: offloads.lro is not off"),
        (["mtu: 3691", AGG_OFF, "rings: {rx: 4096}"],
         "p.yaml:10:17: error: rings.rx = 4096 exceeds the broadcom-57414 maximum of 2047 while "
         "bnxt_en uses aggregation rings: mtu 3691 needs jumbo (aggregation) buffers above 3690"),
        (["mtu: 1500", AGG_OFF, "rings: {rx: 8192}"],
         "p.yaml:10:17: error: rings.rx = 8192 exceeds the broadcom-57414 maximum of 8191 even "
         "without aggregation rings"),
    ]
    for lines, want in bad:
        rc, err = run(["validate"], profile(nic + lines))
        check(f"57414 {lines}", rc, err, 1, want=(want, AGG_CITE, "MTU above 3690"))
    # the MTU left to the host: accepted with a warning naming the condition
    rc, err = run(["validate"], profile(nic + [AGG_OFF, "rings: {rx: 4096}"]))
    check("57414 mtu unset", rc, err, 0,
          want=("p.yaml:9:17: warning: rings.rx = 4096 is above 2047, which bnxt_en allows only "
                "without aggregation rings: the profile sets no mtu, so the host's MTU must be at "
                "most 3690",), absent=("error",))
    # plan time, table from the observed device, and with the observed maximum of the
    # current (aggregation on) state: the profile turns aggregation off first
    for snap_max in ({}, {"max": {"ring_rx": 2047, "ring_tx": 2047}}):
        dev = dict(BNXT, **snap_max)
        rc, err = run(["plan"], profile(["mtu: 1500", AGG_OFF, "rings: {rx: 4096}"]), snapshot(dev))
        check(f"plan 57414 agg off {snap_max}", rc, err, (0, 2), absent=("error",))
        rc, err = run(["plan"], profile(["mtu: 9000", AGG_OFF, "rings: {rx: 4096}"]), snapshot(dev))
        check(f"plan 57414 jumbo {snap_max}", rc, err, 1,
              want=("p.yaml:9:17: error: rings.rx = 4096 exceeds",
                    "mtu 9000 needs jumbo (aggregation) buffers above 3690"))
    r = subprocess.run([NETTUNE, "caps", "broadcom-57414"], capture_output=True, text=True)
    if "  rx max without agg     8191 (offloads.gro_hw and .lro off, mtu <= 3690)\n" not in r.stdout:
        fail(f"caps broadcom-57414 does not show the rx maximum without aggregation:\n{r.stdout}")


def t_chosen_table_checks():
    # a table picked from the observed device (no nic:, or nic: auto) gets the same
    # table checks at plan time as a declared one: minimums, read-only channels,
    # RSS hash function and the xor channel limit
    x710 = dict(INTEL, driver="i40e", pci="8086:1572")
    vmx = dict(INTEL, driver="vmxnet3", pci="15ad:07b0")
    cx5 = dict(INTEL, driver="mlx5_core", pci="15b3:1017")
    bnxt = dict(INTEL, driver="bnxt_en", pci="14e4:16d7")
    cases = [
        (x710, ["rings: {rx: 63}"], "7:17: error: rings.rx = 63 is below the intel-x710 minimum "
         "of 64 (", "I40E_MIN_NUM_DESCRIPTORS = 64"),
        (bnxt, ["rings: {tx: 18}"], "7:17: error: rings.tx = 18 is below the broadcom-57414 "
         "minimum of 19 (", "MAX_SKB_FRAGS"),
        (vmx, ["channels: {combined: 2}"], "7:26: error: channels.combined: vmxnet3 (vmxnet3) "
         "channel counts cannot be changed (", "no set_channels"),
        (vmx, ["channels: {rx: 1}"], "7:20: error: channels.rx: vmxnet3 (vmxnet3) channel "
         "counts cannot be changed (", "no set_channels"),
        (x710, ["rss: {hash: crc32}"], "7:17: error: intel-x710 (i40e) does not support the "
         "crc32 hash function; it has toeplitz", "it has toeplitz"),
        (cx5, ["channels: {combined: 129}", "rss: {hash: xor}"], "8:17: error: rss.hash xor "
         "allows at most 128 channels on mellanox-cx5; channels.combined is 129", "128"),
    ]
    for dev, lines, want, cite in cases:
        for nic in ([], ["nic: auto"]):
            rc, err = run(["plan"], profile(nic + lines), snapshot(dev))
            row, rest = want.split(":", 1)
            check(f"chosen {dev['driver']} {lines} {nic}", rc, err, 1,
                  want=(f"p.yaml:{int(row) + len(nic)}:{rest}", cite))
    # offload states of the chosen table count when the snapshot has no features of the
    # device; observed features say what the device really offers and win
    for nic in ([], ["nic: auto"]):
        rc, err = run(["plan"], profile(nic + ["offloads: {uso: on}"]), snapshot(bnxt))
        check(f"chosen 57414 uso {nic}", rc, err, 1,
              want=(f"p.yaml:{7 + len(nic)}:21: error: broadcom-57414 (bnxt_en) has no uso",))
        rc, err = run(["plan"], profile(nic + ["offloads: {lro: on}"]), snapshot(x710))
        check(f"chosen x710 lro {nic}", rc, err, 1,
              want=(f"p.yaml:{7 + len(nic)}:21: error: intel-x710 (i40e) has no lro",))
        rc, err = run(["plan"], profile(nic + ["offloads: {lro: off}"]), snapshot(x710))
        check(f"chosen x710 lro off {nic}", rc, err, (0, 2), absent=("error",))
    snap = snapshot(x710)
    snap["settings"] = [{"object": "eth0", "attribute": "feature rx-lro", "value": False}]
    rc, err = run(["plan"], profile(["offloads: {lro: on}"]), snap)
    check("chosen x710 lro observed", rc, err, (0, 2), absent=("has no lro", "error"))
    # at the edge nothing is refused, and an observed maximum still wins over the table
    for dev, lines in [(x710, ["rings: {rx: 64}"]), (bnxt, ["rings: {tx: 19}"]),
                       (cx5, ["channels: {combined: 128}", "rss: {hash: xor}"]),
                       (x710, ["rss: {hash: toeplitz}"])]:
        rc, err = run(["plan"], profile(["nic: auto"] + lines), snapshot(dev))
        check(f"chosen edge {dev['driver']} {lines}", rc, err, (0, 2), absent=("error",))
    rc, err = run(["plan"], profile(["channels: {combined: 100}"]),
                  snapshot(dict(x710, max={"combined": 128})))
    check("chosen observed channels", rc, err, (0, 2), absent=("error",))


def t_auto_with_match():
    # nic: auto with match.pci checks the matched table offline, as match.pci alone does,
    # and the plan reports each finding once
    lines = ["nic: auto", "match: {pci: \"8086:37d0\"}"]
    rc, err = run(["validate"], profile(lines + ["rings: {rx: 4096}"]))
    check("auto+match.pci edge", rc, err, 0, absent=("error",))
    rc, err = run(["validate"], profile(lines + ["rings: {rx: 4097}"]))
    check("auto+match.pci beyond", rc, err, 1,
          want=("p.yaml:9:17: error: rings.rx = 4097 exceeds the intel-x722 maximum of 4096 (",
                "I40E_MAX_NUM_DESCRIPTORS = 4096"))
    rc, err = run(["plan"], profile(lines + ["rings: {rx: 4097}"]),
                  snapshot(dict(INTEL, driver="i40e", pci="8086:37d0")))
    check("auto+match.pci plan", rc, err, 1, want=("p.yaml:9:17: error: rings.rx = 4097",))
    if err.count("error: rings.rx = 4097") != 1:
        fail(f"auto+match.pci plan reports the ring twice:\n{err}")


def t_new_tables_coalesce():
    # the tables added with the v2 model carry their drivers' supported_coalesce_params:
    # a parameter the ethtool core refuses is an error, the accepted ones pass at the edge
    cases = [
        ("intel-iavf", "coalesce: {rx_usecs: 8160, tx_usecs: 8160}",
         "coalesce: {rx_frames: 10}", "8:27: error: coalesce.rx_frames: intel-iavf (iavf) does "
         "not support this parameter; it takes rx_usecs, tx_usecs, adaptive_rx, adaptive_tx (",
         "ETHTOOL_COALESCE_USECS | ETHTOOL_COALESCE_USE_ADAPTIVE"),
        ("intel-iavf", "coalesce: {adaptive_rx: on}", "coalesce: {rx_usecs: 50, adaptive_rx: on}",
         "8:26: error: coalesce.rx_usecs cannot be set with adaptive_rx on: intel-iavf (iavf)",
         "Rx interrupt throttling cannot be changed if adaptive-rx is enabled"),
        ("intel-ixgbevf", "coalesce: {rx_usecs: 1022}", "coalesce: {adaptive_rx: on}",
         "8:29: error: coalesce.adaptive_rx: intel-ixgbevf (ixgbevf) does not support this "
         "parameter; it takes rx_usecs, tx_usecs (", "ixgbevf_ethtool_ops.supported_coalesce_params"),
        ("intel-x540", "coalesce: {rx_usecs: 1022}", "coalesce: {rx_usecs: 1023}",
         "8:26: error: coalesce.rx_usecs = 1023 exceeds the intel-x540 maximum of 1022",
         "IXGBE_MAX_EITR"),
        ("intel-x540", "coalesce: {tx_usecs: 0}", "coalesce: {tx_frames: 8}",
         "error: coalesce.tx_frames: intel-x540 (ixgbe) does not support this parameter",
         "supported_coalesce_params = ETHTOOL_COALESCE_USECS"),
        ("intel-i211", "coalesce: {rx_usecs: 10}", "coalesce: {rx_usecs: 9}",
         "8:26: error: coalesce.rx_usecs = 9 is below the intel-i211 minimum of 10", "IGB_MIN_ITR_USECS"),
        ("intel-i211", "coalesce: {rx_usecs: 3}", "coalesce: {adaptive_rx: on}",
         "error: coalesce.adaptive_rx: intel-i211 (igb) does not support this parameter",
         "ETHTOOL_COALESCE_USECS"),
        ("broadcom-57508", "coalesce: {rx_frames: 64, adaptive_rx: on}",
         "coalesce: {adaptive_tx: on}", "8:29: error: coalesce.adaptive_tx: broadcom-57508 "
         "(bnxt_en) does not support this parameter", "no adaptive-tx"),
        ("google-gve", "coalesce: {tx_usecs: 8190}", "coalesce: {rx_frames: 1}",
         "error: coalesce.rx_frames: google-gve (gve) does not support this parameter",
         "gve_ethtool_ops.supported_coalesce_params = ETHTOOL_COALESCE_USECS"),
        ("hyperv-netvsc", None, "coalesce: {rx_usecs: 10}",
         "8:26: error: coalesce.rx_usecs: hyperv-netvsc (hv_netvsc) has no interrupt coalescing "
         "settings (", "no get_coalesce/set_coalesce"),
    ]
    for table, ok, bad, want, cite in cases:
        if ok:
            rc, err = run(["validate"], profile(["nic: " + table, ok]))
            check(f"{table} {ok}", rc, err, 0, absent=("error",))
        rc, err = run(["validate"], profile(["nic: " + table, bad]))
        check(f"{table} {bad}", rc, err, 1, want=(want, cite))


def t_caps_dir_hostile():
    # a local table that would make matching ambiguous or contradicts itself is refused
    # with its location; nettune never crashes on it
    with open(os.path.join(SRCROOT, "schema", "nics", "intel-x710.yaml")) as f:
        x710 = f.read()
    cases = [
        ("lab-x.yaml", x710.replace("id: intel-x710", "id: lab-x"),
         r"lab-x\.yaml:5:\d+: error: PCI id 8086:1572 \(with others\) is also in table "
         r"'intel-x710' \(schema/nics/intel-x710\.yaml:5\)"),
        ("a.yaml", x710.replace("id: intel-x710", "id: \"../../etc\""),
         r"a\.yaml:2:5: error: id '\.\./\.\./etc' must equal the file name without \.yaml \('a'\)"),
        ("x722dup.yaml", x710.replace("id: intel-x710", "id: intel-x722"),
         r"x722dup\.yaml:2:5: error: id 'intel-x722' must equal the file name"),
        ("intel-x710.yaml", x710.replace("rx_min: 64", "rx_min: 9000"),
         r"intel-x710\.yaml:\d+:13: error: rings\.rx_min 9000 is above the maximum 8160"),
        ("intel-x710.yaml", x710.replace('max_since: "6.8"', 'max_since: "99999999999999999999.1"'),
         r"intel-x710\.yaml:\d+:\d+: error: rings\.max_since '99999999999999999999\.1' is not a "
         r"kernel version X\.Y"),
        ("intel-x710.yaml", x710.replace('"8086:1572", ', '"8086:1580", ', 1),
         r"intel-x710\.yaml:5:\d+: error: PCI id 8086:1580 is listed twice"),
        ("intel-x710.yaml", x710.replace('"8086:1572", ', '"8086:1572 ", ', 1),
         r"intel-x710\.yaml:5:\d+: error: PCI id '8086:1572 ' is not lowercase hex"),
        ("intel-x710.yaml", x710.replace("key_bytes: 52", "key_bytes: 100000"),
         r"intel-x710\.yaml:\d+:16: error: rss\.key_bytes 100000 is above the 256 bytes"),
        ("intel-x710.yaml", x710.replace("indir_size: 512", "indir_size: 4000000000"),
         r"intel-x710\.yaml:\d+:17: error: rss\.indir_size 4000000000 is above"),
        ("intel-x710.yaml", x710.replace("rx_max: 8160", "rx_max: 4294967296"),
         r"intel-x710\.yaml:\d+:13: error: /linux/rings/rx_max must be a number"),
    ]
    for fname, text, want in cases:
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, fname), "w") as f:
                f.write(text)
            for args in (["caps"], ["validate"]):
                cmd = [NETTUNE, "--caps-dir", d] + args
                if args == ["validate"]:
                    p = os.path.join(d, "p.txt")
                    with open(p, "w") as f:
                        f.write(profile(["nic: intel-x710"]))
                    cmd.append(p)
                r = subprocess.run(cmd, capture_output=True, text=True)
                if r.returncode != 1 or not re.search(want, r.stderr) or r.returncode < 0:
                    fail(f"hostile table {fname} {args}: exit {r.returncode}, want 1 and "
                         f"/{want}/\n{r.stderr}")
    # two local tables sharing an id's PCI ids collide with each other too
    with tempfile.TemporaryDirectory() as d:
        for i in ("x2", "x3"):
            with open(os.path.join(d, i + ".yaml"), "w") as f:
                f.write(x710.replace("id: intel-x710", "id: " + i))
        r = subprocess.run([NETTUNE, "--caps-dir", d, "caps"], capture_output=True, text=True)
        if r.returncode != 1 or "x3.yaml:5:11: error: PCI id 8086:1572 (with others) is also in " \
                "table 'x2'" not in r.stderr:
            fail(f"two local tables with one PCI id: {r.returncode}\n{r.stderr}")


for t in (t_kernel_versions, t_x710_kernel_rule, t_readme_models, t_richer, t_caps_dir, t_edges, t_siblings_without_table, t_declared, t_fixed_entries, t_coalesce, t_bnxt_agg, t_chosen_table_checks, t_auto_with_match, t_new_tables_coalesce, t_caps_dir_hostile):
    t()
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
