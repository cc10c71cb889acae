#!/usr/bin/env python3
"""Generates N host profiles (and a snapshot per host in DIR/states/) for the
batch benchmark: Linux X710 WireGuard gateways and Windows WireGuard hosts
with varied MTU, offloads, channels, rings, RSS, IRQ policy, RPS/XPS and
sysctls; one in 4 Linux hosts extends the bundled wireguard-gateway policy;
one in 50 profiles is invalid on purpose (wrong type, unknown key,
channels above the NIC's maximum, tunnel that does not fit).
usage: gen_profiles.py DIR N"""
import json
import os
import random
import sys

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STATES = os.path.join(SRC, "examples", "states")


def linux(i, r):
    name = f"gw-{i:05d}"
    onoff = lambda: r.choice(["on", "off"])
    mtu = r.choice([1500, 1600, 9000])
    chans = r.randint(1, 13)
    rings = r.choice([512, 1024, 2048, 4096])
    pol = r.choice(["numa-local-spread", "all-cpus", "numa-local-spread"])
    ext = "extends: [wireguard-gateway]\n" if i % 4 == 0 else ""
    bad = i % 50 == 7
    lines = f"""apiVersion: nettune/v1
kind: HostProfile
metadata: {{name: {name}}}
{ext}target: linux
host:
  numa:
    - {{node: 0, cpus: "0-13,28-41"}}
    - {{node: 1, cpus: "14-27,42-55"}}
  reserved_cpus: "0,28"
interfaces:
  - name: enp1s0f0
    nic: intel-x710
    mtu: {mtu}
    offloads: {{checksum: on, tso: {onoff()}, gso: {onoff()}, gro: {onoff()}, lro: off, uso: {onoff()}}}
    channels: {{combined: {99 if bad and i % 3 == 0 else chans}}}
    rings: {{rx: {rings}, tx: {rings}}}
    rss: {{key: per-host, spread: equal, hash: toeplitz}}
    irq: {{policy: {pol}, irqbalance: ban}}
    rps: {{cpus: numa-local, flow_cnt: {r.choice([0, 256, 4096])}}}
    xps: {{cpus: follow-irq}}
  - name: wg0
    tunnel: {{kind: wireguard, underlay: enp1s0f0, outer: {r.choice(["ipv4", "ipv6", "dual"])}}}
{"    mtu: 9999" if bad and i % 3 == 1 else ""}
    offloads: {{gro: on, gso: {onoff()}}}
sysctl:
  net.core.rmem_max: "{r.choice([16777216, 33554432, 67108864])}"
  net.core.netdev_max_backlog: "{r.choice([1000, 5000, 10000])}"
{"  net.core.somaxconn: [1, 2]" if bad and i % 3 == 2 else ""}
"""
    return name, "linux", lines.replace("\n\n", "\n")


def windows(i, r):
    name = f"win-{i:05d}"
    onoff = lambda: r.choice(["on", "off"])
    return name, "windows", f"""apiVersion: nettune/v1
kind: HostProfile
metadata: {{name: {name}}}
target: windows
interfaces:
  - name: "Ethernet 2"
    nic: intel-x710
    offloads:
      uso: {{ipv4: {onoff()}, ipv6: {onoff()}}}
      rsc: {{ipv4: {onoff()}, ipv6: {onoff()}}}
      checksum: on
      lso: {onoff()}
    rss: {{enabled: true, profile: {r.choice(["closest", "numa", "conservative"])}}}
  - name: wg0
    tunnel: {{kind: wireguard, underlay: "Ethernet 2", outer: {r.choice(["ipv4", "dual"])}}}
global:
  receive_segment_coalescing: {r.choice(["enabled", "disabled"])}
"""


def main():
    out, n = sys.argv[1], int(sys.argv[2])
    os.makedirs(os.path.join(out, "states"), exist_ok=True)
    r = random.Random(8)
    snaps = {t: json.load(open(os.path.join(STATES, f)))
             for t, f in (("linux", "x710-wireguard-gateway.json"),
                          ("windows", "windows-wireguard-host.json"))}
    for i in range(n):
        name, target, text = (windows if i % 5 == 4 else linux)(i, r)
        with open(os.path.join(out, f"{name}.yaml"), "w") as f:
            f.write(text)
        s = snaps[target]
        s["host"]["name"] = name
        with open(os.path.join(out, "states", f"{name}.json"), "w") as f:
            json.dump(s, f, indent=1)


if __name__ == "__main__":
    main()
