#!/usr/bin/env python3
"""Every driver family's vector layout (tests/fixtures/mkdriver.py, built
from each driver's request_irq code), on hosts of 4 to 256 CPUs, with
msi_irqs/ created in two different shuffled orders:

- plan places exactly the queue vectors and the TX-completion vectors the
  driver made (one irq-affinity setting per queue, its TX vectors named in
  its note), never a sideband vector;
- apply writes every queue's vectors to the CPU the documented rule gives
  (nettune-profile(5): the NIC node's physical cores in order, then their
  SMT siblings, then wrap), leaves sideband vectors as they were, bans the
  queue and TX vectors from irqbalance and nothing else;
- each CPU gets at most ceil(queues / node CPUs) queues;
- re-planning finds nothing to do.
"""
import json
import os
import subprocess
import sys
import tempfile

NETTUNE = os.environ["NETTUNE"]
SRCROOT = os.environ["SRCROOT"]
MK = os.path.join(SRCROOT, "tests", "fixtures", "mkdriver.py")
DROPIN = "etc/systemd/system/irqbalance.service.d/50-nettune.conf"

# (driver layout, ports, queues, sockets, cores, threads)
CASES = [
    ("i40e", 2, 56, 2, 14, 2),         # seed 001's X710-DA2 on 56 CPUs
    ("i40e", 2, 48, 2, 24, 2),         # X722 on 96 threads
    ("ice", 2, 64, 2, 32, 2),          # E810 on 128 CPUs
    ("iavf", 1, 4, 1, 4, 1),
    ("ixgbe", 2, 16, 2, 8, 2),
    ("ixgbe-split", 1, 8, 1, 8, 2),    # one ring per vector: rx-N and tx-N
    ("ixgbevf", 1, 2, 1, 2, 1),
    ("igb", 2, 8, 1, 8, 2),
    ("igc", 1, 4, 1, 4, 2),
    ("mlx5_core", 2, 63, 2, 64, 2),    # 256 CPUs
    ("bnxt_en", 1, 8, 2, 8, 2),        # split rx/tx rings, tx numbered after rx
    ("bnx2x", 1, 8, 1, 8, 1),
    ("ena", 1, 4, 1, 2, 2),            # a 4-vCPU cloud VM: 2 cores x 2 threads
    ("ena", 1, 32, 2, 24, 2),          # 96 vCPUs
    ("vmxnet3", 1, 4, 1, 4, 1),
    ("vmxnet3-split", 1, 4, 1, 4, 1),
    ("gve", 1, 8, 1, 4, 2),
    ("mana", 1, 8, 1, 4, 2),
    ("virtio_net", 2, 4, 2, 2, 2),     # a two-node KVM guest
    ("sfc", 1, 8, 1, 8, 1),
    ("hv_netvsc", 1, 6, 1, 4, 2),     # channels start on the last CPU
]

failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL:", msg, file=sys.stderr)


def expected_cpus(node, sockets, cores, threads):
    """The documented order: first threads of the node's cores, then siblings."""
    first = sockets * cores
    return [t * first + node * cores + c for t in range(threads) for c in range(cores)]


def run(args, env, rc_want):
    r = subprocess.run([NETTUNE] + args, capture_output=True, text=True, env=env)
    if r.returncode != rc_want:
        fail(f"{' '.join(args)}: exit {r.returncode}, want {rc_want}\n{r.stdout[-3000:]}{r.stderr[-3000:]}")
    return r


def one(work, case, seed):
    drv, ports, queues, sockets, cores, threads = case
    tag = f"{drv} {ports}x{queues}q on {sockets}x{cores}x{threads} seed {seed}"
    root = os.path.join(work, f"{drv}-{queues}-{seed}")
    desc = json.loads(subprocess.run(
        [sys.executable, MK, root, drv.split("-")[0] if drv == "hv_netvsc" else drv,
         "--ports", str(ports), "--queues", str(queues), "--sockets", str(sockets),
         "--cores", str(cores), "--threads", str(threads), "--seed", str(seed)],
        check=True, capture_output=True, text=True).stdout)
    prof = os.path.join(root, "p.yaml")
    with open(prof, "w") as f:
        f.write("apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: drv}\n"
                "target: linux\ninterfaces:\n")
        for p in desc["ports"]:
            f.write(f"  - name: {p['name']}\n    irq: {{policy: numa-local-spread, irqbalance: ban}}\n")
    env = dict(os.environ, NETTUNE_STATE_DIR=os.path.join(root, "state"))
    plan = run(["--root", root, "plan", prof], env, 2).stdout
    nsettings = sum(1 for ln in plan.splitlines() if "irq-affinity" in ln)
    if nsettings != ports * queues:
        fail(f"{tag}: plan has {nsettings} irq-affinity settings, want {ports * queues}\n{plan[:2000]}")
    if "resolved at apply time" in plan or "generic vector rule" in plan:
        fail(f"{tag}: plan does not know the vectors:\n{plan[:1500]}")
    pre = os.path.join(root, "pre.json")
    with open(pre, "w") as f:
        f.write(run(["--root", root, "observe", "--json"], env, 0).stdout)
    run(["--root", root, "apply", "--yes", prof], env, 0)
    banned = set()
    if os.path.exists(os.path.join(root, DROPIN)):
        with open(os.path.join(root, DROPIN)) as f:
            for word in f.read().split():
                if word.startswith("--banirq="):
                    banned.add(int(word.split("=")[1]))
    want_banned = set()
    for p in desc["ports"]:
        order = expected_cpus(p["node"], sockets, cores, threads)
        load = {}
        for v in p["vectors"]:
            if drv == "hv_netvsc":
                path = os.path.join(root, f"sys/class/net/{p['name']}/device/channels/{v['irq']}/cpu")
            else:
                path = os.path.join(root, f"proc/irq/{v['irq']}/smp_affinity_list")
            with open(path) as f:
                got = f.read().strip()
            if v["role"] == "s":
                if got != f"0-{desc['cpus'] - 1}":
                    fail(f"{tag}: sideband vector {v['name']} (irq {v['irq']}) was moved to {got}")
                if v["irq"] in banned:
                    fail(f"{tag}: sideband vector {v['name']} (irq {v['irq']}) banned")
                continue
            want = str(order[v["queue"] % len(order)])
            if got != want:
                fail(f"{tag}: {p['name']} {v['name']} (queue {v['queue']}, irq {v['irq']}) on {got}, want {want}")
            if drv != "hv_netvsc":
                want_banned.add(v["irq"])
            if v["role"] == "q":
                load[got] = load.get(got, 0) + 1
        cap = -(-queues // len(order))
        if load and max(load.values()) > cap:
            fail(f"{tag}: a CPU has {max(load.values())} queues, more than ceil({queues}/{len(order)})")
    if banned != want_banned:
        fail(f"{tag}: banned {sorted(banned - want_banned)} extra, {sorted(want_banned - banned)} missing")
    run(["--root", root, "plan", prof], env, 0)
    # a snapshot of the converged host carries the TX vectors (and VMBus
    # channels): planning against it is in sync; the script emitted from
    # the pre-apply snapshot writes every TX vector with its queue
    snap = os.path.join(root, "snap.json")
    with open(snap, "w") as f:
        f.write(run(["--root", root, "observe", "--json"], env, 0).stdout)
    run(["plan", "--check", prof, "--state", snap], env, 0)
    if drv == "hv_netvsc":
        r = run(["emit", "--format", "sh", prof, "--state", pre], env, 1)
        if "its queues are VMBus channels (hv_netvsc)" not in r.stderr:
            fail(f"{tag}: emit does not refuse VMBus channel placement:\n{r.stderr}")
        script = ""
    else:
        script = run(["emit", "--format", "sh", prof, "--state", pre], env, 0).stdout
    for p in desc["ports"]:
        for v in p["vectors"]:
            if v["role"] == "t" and f"'{p['name']}' '{v['queue']}@{v['irq']}'" not in script:
                fail(f"{tag}: the emitted script does not place TX vector {v['name']} (irq {v['irq']})")
    if drv == "virtio_net":
        virtio_identity(root, env, tag)


def virtio_identity(root, env, tag):
    """virtio: the PCI function's ids and NUMA node, not the virtio device's."""
    snap = json.loads(run(["--root", root, "observe", "--json"], env, 0).stdout)
    text = json.dumps(snap)
    if '"pci": "1af4:1041"' not in text:
        fail(f"{tag}: observe does not report the PCI function 1af4:1041")
    if '"pci": "1af4:0001"' in text:
        fail(f"{tag}: observe reports the virtio device id as a PCI id")
    prof = os.path.join(root, "nic.yaml")
    for nic in ("virtio-net", "auto"):
        with open(prof, "w") as f:
            f.write("apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: drv}\n"
                    "target: linux\ninterfaces:\n" +
                    "".join(f"  - name: eth{k}\n    nic: {nic}\n"
                            "    irq: {policy: numa-local-spread, irqbalance: ban}\n"
                            for k in (0, 1)))
        r = run(["--root", root, "plan", prof], env, 0)
        if "error" in r.stderr:
            fail(f"{tag}: nic: {nic} on a KVM guest: {r.stderr}")


def eth0_spread(root):
    """A profile placing eth0's IRQs, and the environment to run it in."""
    prof = os.path.join(root, "p.yaml")
    with open(prof, "w") as f:
        f.write("apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: drv}\n"
                "target: linux\ninterfaces:\n  - name: eth0\n"
                "    irq: {policy: numa-local-spread}\n")
    return prof, dict(os.environ, NETTUNE_STATE_DIR=os.path.join(root, "state"))


def generic(work):
    """A driver without a layout row: the generic rule, said in the plan;
    its sideband-named vectors are not queues."""
    root = os.path.join(work, "generic")
    subprocess.run([sys.executable, MK, root, "ixgbe", "--ports", "1", "--queues", "4",
                    "--sockets", "1", "--cores", "4", "--threads", "1"],
                   check=True, capture_output=True)
    # rename the driver and give it a flow-director style sideband vector
    link = os.path.join(root, "sys/devices/pci0000:00/0000:10:00.0/driver")
    os.unlink(link)
    d = os.path.join(root, "sys/bus/pci/drivers/foo")
    os.makedirs(d)
    os.symlink(d, link)
    with open(os.path.join(root, "proc/interrupts")) as f:
        text = f.read()
    with open(os.path.join(root, "proc/interrupts"), "w") as f:
        f.write(text.replace("      eth0\n", "      foo-eth0:fdir-TxRx-0\n"))
    prof, env = eth0_spread(root)
    plan = run(["--root", root, "plan", prof], env, 2).stdout
    if plan.count("generic vector rule: no layout row for this driver") != 4:
        fail(f"generic driver: the plan does not say the generic rule placed 4 queues:\n{plan}")
    if "irq 1004" in plan:
        fail(f"generic driver: the fdir vector (irq 1004) was taken for a queue:\n{plan}")


def no_vectors(work):
    """A device with a driver but no MSI-X vector (INTx fallback): a located
    error naming the driver, not a deferred 'resolved at apply time'."""
    import shutil
    root = os.path.join(work, "novec")
    subprocess.run([sys.executable, MK, root, "ena", "--ports", "1", "--queues", "2",
                    "--sockets", "1", "--cores", "2", "--threads", "1"],
                   check=True, capture_output=True)
    shutil.rmtree(os.path.join(root, "sys/devices/pci0000:00/0000:10:00.0/msi_irqs"))
    prof, env = eth0_spread(root)
    r = run(["--root", root, "plan", prof], env, 1)
    want = (f"{prof}:7:19: error: queue 0 of eth0 has no IRQ (driver ena: it has no per-queue "
            "interrupt vector to place)")
    if want not in r.stderr:
        fail(f"no vectors: stderr lacks {want!r}:\n{r.stderr}")


def main():
    with tempfile.TemporaryDirectory() as work:
        n = 0
        for case in CASES:
            for seed in (1, 2):
                one(work, case, seed)
                n += 1
        generic(work)
        no_vectors(work)
    if failures:
        print(f"{failures} failures", file=sys.stderr)
        sys.exit(1)
    print(f"ok: {n} driver fixtures (every family, two msi_irqs orders each)")


if __name__ == "__main__":
    main()
