#!/bin/sh
# watch on veth with traffic flowing: the device is named by its kind (not
# "no driver"), the rate is never "0 packets/s": veth's per-queue counters
# (rx_queue_N_xdp_packets, ETHTOOL_GSTATS) when it counts there (its NAPI
# path: GRO on the receiver, TSO off on the sender), else the interface's
# counters, said so; and the SVG's scales never run from 0 to 0.
. "$(dirname "$0")/lib.sh"
NS2="${NS}p"
trap 'ip netns del "$NS2" 2>/dev/null || true; cleanup' EXIT INT TERM
ip netns add "$NS2"
ip -n "$NS" link add wva0 numrxqueues 2 numtxqueues 2 type veth peer name wvb0 numrxqueues 2 numtxqueues 2 netns "$NS2"
ip -n "$NS" addr add 10.231.0.1/24 dev wva0
ip -n "$NS2" addr add 10.231.0.2/24 dev wvb0
ip -n "$NS" link set wva0 up
ip -n "$NS2" link set wvb0 up
# UDP to 16 ports (both receive queues) for $1 seconds
blast() {
	ip netns exec "$NS" python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
end = time.time() + float(sys.argv[1])
while time.time() < end:
    for p in range(9000, 9016):
        s.sendto(b"x" * 64, ("10.231.0.2", p))
' "$1"
}
watch_rx() {
	blast 3 &
	bp=$!
	sleep 0.3
	"$NETTUNE" --netns "$NS2" watch --interval 1 --svg "$WORK/$1.svg" wvb0 > "$WORK/$1" 2>&1 || true
	wait "$bp" || true
	grep "^wvb0: " "$WORK/$1" || { cat "$WORK/$1"; fail "$1: no line for wvb0"; }
}
# the scales' labels: "0" at the left end, the maximum at the right, never 0 too
scales_ok() {
	! grep -q 'text-anchor="end">0</text>' "$WORK/$1.svg" || fail "$1: an SVG scale runs from 0 to 0"
}

# off the NAPI path (veth's defaults: GRO off on the receiver): the queues count nothing
line=$(watch_rx plain)
case "$line" in
*"no driver"*) fail "plain: $line" ;;
"wvb0: veth (no device driver), node "*) ;;
*) fail "plain: not named by its kind: $line" ;;
esac
case "$line" in
*": 0 packets/s"*) fail "plain: 0 packets/s with traffic flowing: $line" ;;
*" packets/s (the interface's counters), "*"the per-queue counters stayed at 0: veth counts"*) ;;
*) fail "plain: the interface's counters not used and said: $line" ;;
esac
! grep -q "dead-queue\|carries no traffic" "$WORK/plain" || { cat "$WORK/plain"; fail "plain: queues judged dead on zeros"; }
scales_ok plain

# through NAPI (GRO on the receiver, TSO off on the sender): the per-queue counters
ip netns exec "$NS2" ethtool -K wvb0 gro on
nsx ethtool -K wva0 tso off
line=$(watch_rx napi)
case "$line" in
*": 0 packets/s"*|*"interface's counters"*) fail "napi: $line" ;;
*" packets/s, 0 interrupts/s; per queue max/mean "*) ;;
*) fail "napi: not the per-queue counters: $line" ;;
esac
scales_ok napi

# a quiet window: the scales run from 0 to 1/s, not 0 to 0
"$NETTUNE" --netns "$NS2" watch --interval 0.2 --svg "$WORK/quiet.svg" wvb0 > "$WORK/quiet" 2>&1 || true
scales_ok quiet
echo "ok: watch on veth"
