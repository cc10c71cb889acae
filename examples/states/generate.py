#!/usr/bin/env python3
"""Writes the bundled snapshots of the example hosts *before* tuning.

Each snapshot describes a seed host as its field report shows it (see
../README.md).  Run from anywhere: python3 examples/states/generate.py
The JSON files are committed; this script documents where every value
comes from and regenerates them byte for byte.
"""
import hashlib
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def cpulist(cpus):
    cpus = sorted(cpus)
    out, i = [], 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else f"{cpus[i]}-{cpus[j]}")
        i = j + 1
    return ",".join(out)


def s(obj, attr, value):
    return {"object": obj, "attribute": attr, "value": value}


def boot_key(n):
    raw = hashlib.sha256(b"sg-gw-01 enp1s0f0 boot").digest()
    raw += hashlib.sha256(raw).digest()
    return ":".join(f"{b:02x}" for b in raw[:n])


def write(name, doc):
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


# Seed 001: Ubuntu 22.04 (5.15.0-86), 2 x E5-2680 v4 (14C/28T each, 56 CPUs),
# X710-DA2 port enp1s0f0 with 16 queues (IRQs 135.. as the seed's
# /proc/interrupts shows), offloads switched off by an "optimisation script",
# irqbalance running, wg0 at the kernel default MTU 1420.
def x710():
    node0 = list(range(0, 14)) + list(range(28, 42))
    node1 = list(range(14, 28)) + list(range(42, 56))
    siblings = [f"{c},{c + 28}" for c in range(28)]
    ifn = "enp1s0f0"
    queues = 16
    irqs = [{"queue": q, "irq": 135 + q, "managed": False, "name": f"{ifn}-TxRx-{q}"}
            for q in range(queues)]
    settings = [
        s("sysctl", "sysctl net.core.rmem_max", "212992"),
        s(ifn, "mtu", 1500),
    ]
    feats = {
        "rx-checksum": False, "tx-checksum-ipv4": False, "tx-checksum-ipv6": False,
        "tx-checksum-sctp": False, "tx-scatter-gather": True,
        "tx-tcp-segmentation": False, "tx-tcp6-segmentation": False,
        "tx-tcp-ecn-segmentation": False, "tx-tcp-mangleid-segmentation": False,
        "tx-generic-segmentation": False, "rx-gro": False, "rx-lro": False,
        "tx-udp-segmentation": False, "rx-hashing": True, "rx-ntuple-filter": False,
        "rx-vlan-hw-parse": True, "tx-vlan-hw-insert": True,
    }
    settings += [s(ifn, f"feature {k}", v) for k, v in feats.items()]
    settings += [
        s(ifn, "channels combined", queues),
        s(ifn, "ring rx", 512), s(ifn, "ring tx", 512),
        s(ifn, "rss-hfunc", "toeplitz"),
        # the key i40e drew at boot (netdev_rss_key_fill: random per boot,
        # 52 bytes = I40E_HKEY_ARRAY_SIZE), as `ethtool -x` prints it; a
        # fixed stand-in so that the file regenerates byte for byte
        s(ifn, "rss-key", boot_key(52)),
        # i40e fills the default table with i % queues
        s(ifn, "rss-indir", [i % queues for i in range(512)]),
    ]
    # irqbalance had spread the IRQs over both nodes
    settings += [s(ifn, f"irq-affinity {q}", str((q * 7) % 56)) for q in range(queues)]
    settings += [s("wg0", "mtu", 1420),
                 s("wg0", "feature rx-gro", False),
                 s("wg0", "feature tx-generic-segmentation", False),
                 s("wg0", "feature tx-scatter-gather", True),
                 s("wg0", "feature tx-checksum-ip-generic", True)]
    return {
        "format": "nettune-snapshot/1",
        "host": {"name": "sg-gw-01", "target": "linux", "kernel": "5.15.0-86-generic"},
        "cpus": {"online": "0-55", "nodes": {"0": cpulist(node0), "1": cpulist(node1)},
                 "siblings": siblings},
        "irqbalance": "active",
        "interfaces": [
            {"name": ifn, "kind": "physical", "driver": "i40e", "pci": "8086:1572",
             "numa_node": 0, "max": {"combined": 56, "ring_rx": 8160, "ring_tx": 8160},
             "rss": {"key_bytes": 52, "indir_size": 512},
             "queues": {"rx": queues, "tx": queues}, "irqs": irqs,
             "fixed_features": ["rx-lro"]},
            {"name": "wg0", "kind": "wireguard", "numa_node": -1,
             "queues": {"rx": 1, "tx": 1}, "irqs": [], "fixed_features": []},
        ],
        "settings": settings,
    }


# The same X710 host for examples/x710-udp-gateway.yaml, seen with the kinds
# that profile adds: the kernel default txqueuelen (1000, ether_setup),
# pause frames rx/tx on without autonegotiation, the i40e private flags of
# 5.15 (i40e_gstrings_priv_flags in drivers/net/ethernet/intel/i40e/
# i40e_ethtool.c; flow-director-atr is on by default where the NIC has a flow
# director, the others off), the two UDP GRO features off (their defaults,
# net/core/dev.c), and UDP over IPv4 hashed on the addresses only, as the
# seed's "optimisation script" left it (ethtool -N enp1s0f0 rx-flow-hash udp4 sd).
def x710_udp():
    doc = x710()
    ifn = "enp1s0f0"
    flags = ["MFP", "total-port-shutdown", "LinkPolling", "flow-director-atr", "veb-stats",
             "hw-atr-eviction", "link-down-on-close", "legacy-rx", "disable-source-pruning",
             "disable-fw-lldp", "rs-fec", "base-r-fec"]
    doc["settings"] += [s(ifn, "txqueuelen", 1000),
                        s(ifn, "feature rx-udp-gro-forwarding", False),
                        s(ifn, "feature rx-gro-list", False),
                        s(ifn, "pause autoneg", False), s(ifn, "pause rx", True),
                        s(ifn, "pause tx", True)]
    doc["settings"] += [s(ifn, f"private-flag {f}", f == "flow-director-atr") for f in flags]
    doc["settings"] += [s(ifn, "rx-flow-hash tcp4", "src-ip dst-ip src-port dst-port"),
                        s(ifn, "rx-flow-hash udp4", "src-ip dst-ip"),
                        s(ifn, "rx-flow-hash udp6", "src-ip dst-ip src-port dst-port")]
    return doc


# Seed 000: Windows Server 2022, "Ethernet 2" (X710), USO/RSC off, RSS off,
# global RSC disabled, the WireGuard tunnel adapter wg0 at MTU 1500.
def windows_wg():
    a = "Ethernet 2"
    settings = [s(a, "uso ipv4", False), s(a, "uso ipv6", False),
                s(a, "rsc ipv4", False), s(a, "rsc ipv6", False),
                s(a, "lso ipv4", True), s(a, "lso ipv6", True)]
    settings += [s(a, f"checksum {k}", "Disabled")
                 for k in ("IpIPv4", "TcpIPv4", "TcpIPv6", "UdpIPv4", "UdpIPv6")]
    settings += [s(a, "rss enabled", "False"), s(a, "rss profile", "NUMAStatic"),
                 s(a, "ip-mtu ipv4", 1500), s(a, "ip-mtu ipv6", 1500),
                 s("wg0", "ip-mtu ipv4", 1500), s("wg0", "ip-mtu ipv6", 1500),
                 s("global", "offload-global receive-segment-coalescing", "Disabled")]
    return {
        "format": "nettune-snapshot/1",
        "host": {"name": "hk-tko-wg-01", "target": "windows"},
        "interfaces": [
            {"name": a, "kind": "physical", "driver": "i40ea", "numa_node": 0,
             "description": "Intel(R) Ethernet Controller X710 for 10GbE SFP+",
             "rsc_failure_ipv4": "NicPropertyDisabled", "rsc_failure_ipv6": "NicPropertyDisabled"},
            {"name": "wg0", "kind": "wireguard", "numa_node": -1,
             "description": "WireGuard Tunnel"},
        ],
        "windows": {"uro_disabled_mask": 0, "diagnosis": []},
        "settings": settings,
    }


# Seed 002: workstation, Realtek "Ethernet 9", software URO reported enabled
# by netsh, but the TCPIP trace shows the global disable mask 48 (winnat and
# a Hyper-V container adapter: WSL2 is installed); Npcap bound.
def windows_uro():
    a = "Ethernet 9"
    settings = [s(a, "uso ipv4", False), s(a, "uso ipv6", False),
                s(a, "ip-mtu ipv4", 1500), s(a, "ip-mtu ipv6", 1500),
                s("global", "offload-global uro", "Enabled"),
                s("global", "offload-global receive-segment-coalescing", "Enabled")]
    return {
        "format": "nettune-snapshot/1",
        "host": {"name": "ws-ethernet9", "target": "windows"},
        "interfaces": [
            {"name": a, "kind": "physical", "driver": "rt68cx21", "numa_node": 0,
             "description": "Realtek Gaming 2.5GbE Family Controller"},
        ],
        "windows": {
            "uro_disabled_mask": 48,
            "diagnosis": [
                "optional feature Microsoft-Windows-Subsystem-Linux is Enabled",
                "optional feature VirtualMachinePlatform is Enabled",
                "service winnat is Running",
                "Npcap Packet Driver (NPCAP) is bound to Ethernet 9",
            ],
        },
        "settings": settings,
    }


# The overlay gateway of ../overlay-tunnels.yaml: a veth underlay at 1500
# and four tunnels at the MTU the kernel gives them on it (vxlan 1500 - 50,
# geneve 1500 - 50, gre 1500 - 24, an XFRM interface at 1500), each with
# its rtnetlink link kind.  kinds overrides the kind of some devices (the
# plan error test of a geneve profile on a vxlan device).
def overlay(kinds=None):
    devs = [("ovu0", "veth", 1500), ("ovx0", "vxlan", 1450), ("ogn0", "geneve", 1450),
            ("ogr0", "gre", 1476), ("oes0", "xfrm", 1500)]
    kinds = kinds or {}
    return {
        "format": "nettune-snapshot/1",
        "host": {"name": "overlay-gw", "target": "linux", "kernel": "6.18.44"},
        "cpus": {"online": "0-1", "nodes": {"0": "0-1"}, "siblings": ["0", "1"]},
        "irqbalance": "inactive",
        "interfaces": [{"name": n, "kind": kinds.get(n, k), "numa_node": -1,
                        "queues": {"rx": 1, "tx": 1}, "irqs": []} for n, k, _ in devs],
        "settings": [s(n, "mtu", m) for n, _, m in devs],
    }


write("x710-wireguard-gateway.json", x710())
write("x710-udp-gateway.json", x710_udp())
write("windows-wireguard-host.json", windows_wg())
write("windows-uro-workstation.json", windows_uro())
write("overlay-tunnels.json", overlay())
write(os.path.join("..", "..", "tests", "plan", "states", "overlay-geneve-is-vxlan.json"),
      overlay({"ogn0": "vxlan"}))
