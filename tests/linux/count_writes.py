#!/usr/bin/env python3
"""Counts the write requests in an strace log of nettune (independent of
nettune's own counters): netlink messages that set something (ethtool
genetlink *_SET commands, rtnetlink RTM_NEWLINK/RTM_SETLINK), SIOCETHTOOL
set ioctls are not distinguishable by strace here and RSS is absent on veth,
and files under /proc or /sys opened for writing.
Usage: count_writes.py STRACE_LOG [ROOT]; prints "N set requests, M file writes"."""
import re
import sys

log = sys.argv[1]
root = sys.argv[2] if len(sys.argv) > 2 else ""

SET_CMDS = {12, 14, 16, 18, 20, 22, 48}  # FEATURES/PRIVFLAGS/RINGS/CHANNELS/COALESCE/PAUSE/RSS _SET
route_fds, genl_fds = set(), set()
sets = writes = 0
def lines(path):
    """The log's calls whole: with -f, strace splits a call that another
    process interrupts into "PID call(... <unfinished ...>" and a later
    "PID <... call resumed>...) = R"; the two halves are joined here."""
    pending = {}
    for line in open(path):
        line = line.rstrip("\n")
        pid = line.split(" ", 1)[0]
        if line.endswith("<unfinished ...>"):
            pending[pid] = line[:-len("<unfinished ...>")].rstrip()
            continue
        m = re.match(r"^(\d+)\s+<\.\.\. \w+ resumed>(.*)$", line)
        if m and m.group(1) in pending:
            yield pending.pop(m.group(1)) + m.group(2)
            continue
        yield line


for line in lines(log):
    m = re.search(r"socket\(AF_NETLINK, [^,]+, NETLINK_(ROUTE|GENERIC)\) = (\d+)", line)
    if m:
        (route_fds if m.group(1) == "ROUTE" else genl_fds).add((line.split()[0], m.group(2)))
        continue
    m = re.search(r"^(\d+)\s+(?:sendmsg|sendto)\((\d+), .*nlmsg_type=(0x[0-9a-f]+|[A-Z_]+)[^\]]*\}, \"\\x([0-9a-f]{2})", line)
    if m:
        pid, fd, typ, first = m.group(1), m.group(2), m.group(3), int(m.group(4), 16)
        if (pid, fd) in route_fds and typ in ("RTM_NEWLINK", "RTM_SETLINK", "0x10", "0x13"):
            sets += 1
        elif (pid, fd) in genl_fds and typ not in ("0x10", "nlctrl") and first in SET_CMDS:
            sets += 1
        continue
    m = re.search(r'openat\([^,]+, "' + re.escape(root) + r'(/proc/[^"]*|/sys/[^"]*|/etc/[^"]*)", ([A-Z_|]+)', line)
    if m and ("O_WRONLY" in m.group(2) or "O_RDWR" in m.group(2)):
        writes += 1
print(f"{sets} set requests, {writes} file writes")
