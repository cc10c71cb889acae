# Shared helpers of the Linux applier tests (sourced; POSIX sh).
# Every test gets its own network namespace and state directory, removed
# on exit even when the test fails.
set -eu
: "${NETTUNE:?}" "${SRCROOT:?}"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit 77; }
command -v ethtool >/dev/null || { echo "SKIP: ethtool missing"; exit 77; }
NS="nt$$$(od -An -N2 -tx2 /dev/urandom | tr -d ' ')"
WORK=$(mktemp -d)
export NETTUNE_STATE_DIR="$WORK/state"
cleanup() {
	ip netns del "$NS" 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT INT TERM
ip netns add "$NS"

fail() { echo "FAIL: $*" >&2; exit 1; }
nsx() { ip netns exec "$NS" "$@"; }
nt() { "$NETTUNE" --netns "$NS" "$@"; }
# veth_pair A B: a pair inside the namespace, both up
veth_pair() {
	ip -n "$NS" link add "$1" numrxqueues 4 numtxqueues 4 type veth peer name "$2" numrxqueues 4 numtxqueues 4
	ip -n "$NS" link set "$1" up
	ip -n "$NS" link set "$2" up
}
feature() { nsx ethtool -k "$1" | sed -n "s/^[[:space:]]*$2: \([a-z]*\).*/\1/p"; }
mtu() { ip -n "$NS" -o link show "$1" | sed -n 's/.* mtu \([0-9]*\) .*/\1/p'; }
chan() { nsx ethtool -l "$1" | awk -v k="$2:" '/Current hardware settings/{c=1} c && $1==k {print $2}'; }
expect_eq() { [ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"; }
# snapshot of everything ethtool and ip report for the namespace
state_of() {
	for i in "$@"; do
		nsx ethtool -k "$i"; nsx ethtool -l "$i"; ip -n "$NS" -o link show "$i" | sed 's/ state [A-Z]* / /'
	done
}
# jr FIELD [N]: a field of the N-th newest journal (tests/linux/journal.py)
jr() { python3 "$SRCROOT/tests/linux/journal.py" "$NETTUNE_STATE_DIR" "$@"; }
# ip -d link and ethtool -k/-l of devices, for before/after comparisons
full_state() {
	for i in "$@"; do
		nsx ethtool -k "$i"; nsx ethtool -l "$i"
		ip -n "$NS" -d -o link show "$i" | sed 's/ state [A-Z]* / /'
	done
}
# alive PID: the process exists and is not a zombie (PID 1 here may not reap)
alive() { [ -r "/proc/$1/stat" ] && ! sed 's/.*) //' "/proc/$1/stat" | grep -q '^[ZXx]'; }
