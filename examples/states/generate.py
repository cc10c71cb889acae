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


def boot_key(ifn, n):
    raw = hashlib.sha256(f"sg-gw-01 {ifn} boot".encode()).digest()
    raw += hashlib.sha256(raw).digest()
    return ":".join(f"{b:02x}" for b in raw[:n])


def write(name, doc):
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


# Seed 001: Ubuntu 22.04 (5.15.0-86), 2 x E5-2680 v4 (14C/28T each, 56 CPUs),
# X710-DA2 (two ports, enp1s0f0 = 0000:01:00.0 and enp1s0f1 = 0000:01:00.1),
# offloads switched off by an "optimisation script", irqbalance running, wg0
# at the kernel default MTU 1420.
#
# Queues and IRQs are what i40e makes of 56 online CPUs (read in the 6.12
# sources, drivers/net/ethernet/intel/i40e/i40e_main.c; no 5.15 sources were
# at hand, so that 5.15.0-86 does the same is assumed, not checked):
#   - i40e_sw_init: rss_size_max = min(BIT(func_caps.rss_table_entry_width),
#     func_caps.num_tx_qp, roundup_pow_of_two(num_online_cpus()) = 64);
#     alloc_rss_size = min(rss_size_max, num_online_cpus()) = 56.  (X710
#     firmware reports an RSS table entry width of 64 queues per PF and far
#     more than 64 queue pairs: firmware values, not in the sources.)
#   - i40e_determine_queue_usage: num_lan_qps = min(max(rss_size_max, CPUs),
#     num_tx_qp, num_msix_vectors) = 64 = vsi->alloc_queue_pairs, which
#     i40e_get_channels reports as max_combined (i40e_max_channels).
#   - i40e_init_msix: one vector for misc first, then num_lan_msix =
#     min(CPUs, vectors_left / 2) topped up to the CPU count by
#     extra_vectors = 56 (X710 PFs have 129 MSI-X vectors), then one for the
#     flow director sideband (FD_SB); i40e_vsi_setup_queue_map sets
#     num_queue_pairs = num_lan_msix, so 56 combined channels are open.
#   - vector order (pf->irq_pile): i40e_init_interrupt_scheme takes entry 0
#     for misc; i40e_setup_pf_switch sets up the main VSI (entries 1-56)
#     before i40e_fdir_sb_setup (entry 57).
#   - names: i40e_vsi_open builds "i40e-<ifname>" and
#     i40e_vsi_request_irq_msix appends "-TxRx-<n>"; i40e_probe names the
#     misc vector "i40e-<pci>:misc" (pf->int_name, requested by
#     i40e_setup_misc_vector); the FDIR VSI's basename is "i40e-<pci>:fdir",
#     so its vector is "i40e-<pci>:fdir-TxRx-0".
#   - IRQ numbers: the seed's /proc/interrupts shows TxRx-0 at 135, so misc
#     is 134 and TxRx-N is 135 + N, the FDIR vector 191.  Port 1 probes next;
#     its numbers follow port 0's 58 vectors (misc 192, TxRx-N 193 + N, fdir
#     249) on the assumption that no VMDq vectors were reserved
#     (I40E_FLAG_VMDQ_ENA would add num_vmdq_vsis x num_vmdq_qps per port).
#     The snapshot's "irqs" list holds queue IRQs only: the misc and FDIR
#     vectors have no place in nettune-snapshot/1 and are listed in
#     SIDEBAND_IRQS below for the record.
#   - rings: 512 (I40E_DEFAULT_NUM_DESCRIPTORS); the maximum is 4096 on this
#     kernel (I40E_MAX_NUM_DESCRIPTORS before the 8160 change, which reached
#     5.15 stable only in 5.15.194; see schema/nics/intel-x710.yaml notes).
CPUS = 56
X710_PORTS = [("enp1s0f0", "0000:01:00.0", 134), ("enp1s0f1", "0000:01:00.1", 192)]
X710_QUEUES = 56
X710_MAX_COMBINED = 64
X710_RING_MAX = 4096


def i40e_vectors(ifn, pci, base):
    """(irq, name) of every vector i40e requests for one port, misc first."""
    vec = [(base, f"i40e-{pci}:misc")]
    vec += [(base + 1 + q, f"i40e-{ifn}-TxRx-{q}") for q in range(X710_QUEUES)]
    vec.append((base + 1 + X710_QUEUES, f"i40e-{pci}:fdir-TxRx-0"))
    return vec


SIDEBAND_IRQS = {ifn: [v for v in i40e_vectors(ifn, pci, base)
                       if not v[1].startswith(f"i40e-{ifn}-")]
                 for ifn, pci, base in X710_PORTS}


def x710_port(ifn, pci, base):
    queues = X710_QUEUES
    irqs = [{"queue": q, "irq": irq, "managed": False, "name": name}
            for q, (irq, name) in enumerate(i40e_vectors(ifn, pci, base)[1:1 + queues])]
    settings = [s(ifn, "mtu", 1500)]
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
        s(ifn, "rss-key", boot_key(ifn, 52)),
        # i40e_fill_rss_lut fills the default table with i % rss_size
        s(ifn, "rss-indir", [i % queues for i in range(512)]),
    ]
    # irqbalance had spread the IRQs over both nodes (a permutation of the
    # 56 CPUs: 29 is prime to 56)
    settings += [s(ifn, f"irq-affinity {q}", str((q * 29) % CPUS))
                 for q in range(queues)]
    # XPS as i40e set it once when the rings came up and never since
    # (i40e_config_xps_tx_ring: cpumask_local_spread(v_idx, -1), i.e. the
    # v_idx-th online CPU; queue N's vector is v_idx N): irqbalance moving
    # the IRQs did not move it
    settings += [s(ifn, f"xps-cpus {q}", str(q)) for q in range(queues)]
    iface = {"name": ifn, "kind": "physical", "driver": "i40e", "pci": "8086:1572",
             "numa_node": 0,
             "max": {"combined": X710_MAX_COMBINED, "ring_rx": X710_RING_MAX,
                     "ring_tx": X710_RING_MAX},
             "rss": {"key_bytes": 52, "indir_size": 512},
             "queues": {"rx": queues, "tx": queues}, "irqs": irqs,
             "fixed_features": ["rx-lro"]}
    return iface, settings


# wg0 as drivers/net/wireguard/device.c wg_setup makes it: WG_NETDEV_FEATURES
# = NETIF_F_HW_CSUM | NETIF_F_RXCSUM | NETIF_F_SG | NETIF_F_GSO |
# NETIF_F_GSO_SOFTWARE | NETIF_F_HIGHDMA goes into features, hw_features and
# hw_enc_features alike, so every one of them is changeable (none is in
# NETIF_F_NEVER_CHANGE, which is NETIF_F_VLAN_CHALLENGED only:
# include/linux/netdev_features.h).  NETIF_F_GSO_SOFTWARE = NETIF_F_ALL_TSO
# (TSO, TSO6, TSO_ECN, TSO_MANGLEID) | GSO_SCTP | GSO_UDP_L4 | GSO_FRAGLIST
# (netdev_features.h of 6.12; that UDP_L4 and FRAGLIST were already in it in
# 5.15 is from memory of the 5.12-era change, not checked against 5.15
# sources; 6.12 has no tx-tcp-accecn-segmentation, so 5.15 has none either).
# register_netdevice (net/core/dev.c) adds rx-gro and tx-generic-segmentation
# (NETIF_F_SOFT_FEATURES) on and rx-gro-list / rx-udp-gro-forwarding
# (NETIF_F_SOFT_FEATURES_OFF) off, all changeable.  On 5.15 wg_setup also
# sets NETIF_F_LLTX in features only: tx-lockless is fixed on.
# Values: the seed's "optimisation script" switched offloads off on every
# interface; the seed shows wg0's GRO and GSO off ("如果显示 off").  The
# segmentation bits are taken as switched off with them, checksum and
# scatter-gather as left on (as on the underlay).
def wg0_features():
    return {
        "rx-checksum": True, "tx-checksum-ip-generic": True, "tx-scatter-gather": True,
        "highdma": True, "tx-lockless": True,
        "tx-generic-segmentation": False, "rx-gro": False,
        "tx-tcp-segmentation": False, "tx-tcp-ecn-segmentation": False,
        "tx-tcp-mangleid-segmentation": False, "tx-tcp6-segmentation": False,
        "tx-sctp-segmentation": False, "tx-udp-segmentation": False,
        "tx-gso-list": False, "rx-gro-list": False, "rx-udp-gro-forwarding": False,
    }


def x710():
    node0 = list(range(0, 14)) + list(range(28, 42))
    node1 = list(range(14, 28)) + list(range(42, 56))
    siblings = [f"{c},{c + 28}" for c in range(28)]
    settings = [s("sysctl", "sysctl net.core.rmem_max", "212992")]
    ifaces = []
    for ifn, pci, base in X710_PORTS:
        iface, st = x710_port(ifn, pci, base)
        ifaces.append(iface)
        settings += st
    settings += [s("wg0", "mtu", 1420)]
    settings += [s("wg0", f"feature {k}", v) for k, v in wg0_features().items()]
    ifaces.append({"name": "wg0", "kind": "wireguard", "numa_node": -1,
                   "queues": {"rx": 1, "tx": 1}, "irqs": [],
                   "fixed_features": ["tx-lockless"]})
    return {
        "format": "nettune-snapshot/1",
        "host": {"name": "sg-gw-01", "target": "linux", "kernel": "5.15.0-86-generic"},
        "cpus": {"online": cpulist(range(CPUS)),
                 "nodes": {"0": cpulist(node0), "1": cpulist(node1)},
                 "siblings": siblings},
        "irqbalance": "active",
        "interfaces": ifaces,
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


# Plan error fixtures from the seed 001 host: the NUMA layout of a machine
# that numbers SMT siblings next to each other (node 0 = 0-27), and the
# host with wg0 not up.
def x710_numa_other():
    doc = x710()
    doc["cpus"] = {"online": "0-55", "nodes": {"0": "0-27", "1": "28-55"},
                   "siblings": [f"{c},{c + 1}" for c in range(0, 56, 2)]}
    return doc


def x710_wg0_down():
    doc = x710()
    doc["interfaces"] = [i for i in doc["interfaces"] if i["name"] != "wg0"]
    doc["settings"] = [x for x in doc["settings"] if x["object"] != "wg0"]
    return doc


write(os.path.join("..", "..", "tests", "plan", "states", "x710-numa-other.json"),
      x710_numa_other())
write(os.path.join("..", "..", "tests", "plan", "states", "x710-wg0-down.json"),
      x710_wg0_down())
