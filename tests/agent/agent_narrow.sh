#!/bin/sh
# A correction reads only the interface it corrects: one GET per message
# family of that device, no dump of every device (NETTUNE_STATS counts the
# same dumps as a run of the agent in which nothing drifted); and its
# journal is made durable by the agent's disk writer thread, never by the
# event loop (strace of every thread: the loop makes no fsync, the writer
# fsyncs the last journal).
. "$(dirname "$0")/../linux/lib.sh"
. "$(dirname "$0")/lib.sh"
command -v strace > /dev/null || {
	[ "${CI:-}" = true ] && fail "strace missing (scripts/deps.sh test installs it)"
	echo "strace missing: skipped"; exit 77; }
for i in 0 1 2; do
	veth_pair "nra$i" "nrb$i"
done
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: agent-narrow, host: any}
target: linux
interfaces:
YAML
for d in nra0 nrb0 nra1 nrb1 nra2 nrb2; do
	echo "  - {name: $d, mtu: 1400, offloads: {gro: on}, channels: {rx: 2, tx: 2}}" >> "$WORK/p.yaml"
done
# count NAME: the request count NAME of the last stats line in the log
count() {
	grep 'nettune stats:' "$WORK/agent.log" | tail -n 1 | tr ' ' '\n' |
		awk -v k="$1" 'p { print; exit } $0 == k { p = 1 }' | grep . || echo 0
}
export NETTUNE_STATS=1
# converged once; then the baseline: a start and a stop with nothing drifted
start_agent --interval 60s "$WORK/p.yaml"
stop_agent
expect_eq "$(mtu nra1)" 1400 "converged by the first run"
start_agent --interval 60s "$WORK/p.yaml"
stop_agent
base_link=$(count link-dump); base_feat=$(count features-dump); base_chan=$(count channels-dump)
base_get=$(count link-get)
[ "$base_link" -ge 1 ] || fail "the start observed no links: $(grep 'nettune stats' "$WORK/agent.log" | tail -n 1)"
# the same with three drifts on three devices, each corrected alone
start_agent --interval 60s "$WORK/p.yaml"
# every thread of the agent: the loop, and the disk writer that fsyncs
tids=$(for t in /proc/"$AGENT_PID"/task/*; do printf -- '-p %s ' "${t##*/}"; done)
# shellcheck disable=SC2086 # one -p per thread
strace -f -qq -e trace=openat,unlinkat,renameat,fsync -o "$WORK/st" $tids &
spid=$!
until_ok 10 "strace attached" grep -q TracerPid:.*[1-9] "/proc/$AGENT_PID/status"
ip -n "$NS" link set nra1 mtu 1500
until_ok 10 "mtu of nra1 corrected" mtu_is nra1 1400
nsx ethtool -K nrb2 gro off
until_ok 10 "gro of nrb2 corrected" feature_is nrb2 generic-receive-offload on
nsx ethtool -L nra0 rx 1
until_ok 10 "rx channels of nra0 corrected" chan_is nra0 RX 2
last=$(jr id)
# durable soon after: the last journal opened read-only and fsynced (by
# the writer thread), and the loop itself never fsyncs: no correction
# waits for the disk
synced() {
	python3 - "$WORK/st" "$1" <<'PY'
import re, sys
# strace -f splits a call that another thread interrupts: "TID call(...
# <unfinished ...>", later "TID <... call resumed>...) = R"
fds, pending = {}, set()
name = '"%s.json", O_RDONLY' % sys.argv[2]
for l in open(sys.argv[1]):
    tid = l.split(None, 1)[0]
    if "openat(" in l and name in l:
        m = re.search(r'= (\d+)$', l.rstrip())
        if m:
            fds[tid] = m.group(1)
        else:
            pending.add(tid)
    elif tid in pending and "<... openat resumed>" in l:
        m = re.search(r'= (\d+)$', l.rstrip())
        if m:
            fds[tid] = m.group(1)
        pending.discard(tid)
    m = re.match(r'(\d+) +fsync\((\d+)', l)
    if m and fds.get(m.group(1)) == m.group(2):
        sys.exit(0)
sys.exit(1)
PY
}
until_ok 10 "the last journal fsynced" synced "$last"
kill "$spid"; wait "$spid" 2>/dev/null || true
python3 - "$WORK/st" "$AGENT_PID" <<'PY' || fail "the loop fsynced, or a journal was not made"
import re, sys
main = sys.argv[2]
opened, bad = 0, 0
for l in open(sys.argv[1]):
    tid = l.split(None, 1)[0]
    if tid == main and "fsync(" in l:
        print("the event loop fsynced: " + l.strip())
        bad += 1
    if re.search(r'"[^"/]+\.open", O_WRONLY\|O_CREAT\|O_EXCL', l):
        opened += 1
if opened < 3:
    print("only %d journals were opened" % opened)
    bad += 1
sys.exit(1 if bad else 0)
PY
stop_agent
expect_eq "$(count link-dump)" "$base_link" "link dumps of a run with three corrections"
expect_eq "$(count features-dump)" "$base_feat" "feature dumps of a run with three corrections"
expect_eq "$(count channels-dump)" "$base_chan" "channel dumps of a run with three corrections"
[ "$(count link-get)" -gt "$base_get" ] || fail "the corrections read no link alone (link-get $(count link-get))"
echo "ok: a correction reads only its interface and journals durably after the write"
