#!/bin/sh
# Sysctls are checked against the kernel at plan time, each error at the
# profile's line: a key the kernel does not have (with the closest key
# beside it), a read-only one, and a vector of integers given another number
# of fields than the kernel shows (tcp_rmem with two of its three); with
# --state the snapshot's values decide the field count.  The kernel's tabs
# between fields are shown as single spaces.  Nothing of it is changed.
. "$(dirname "$0")/lib.sh"
veth_pair sya0 syb0
H=$(uname -n)
rmem=$(nsx cat /proc/sys/net/ipv4/tcp_rmem)
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: $H}
target: linux
sysctl:
  net.ipv4.tcp_rmme: "16777216"
  net.ipv4.tcp_rmem: "4096 87380"
  net.ipv4.tcp_available_congestion_control: "reno"
  net.ipv4.tcp_wmem: "4096 16384 4194304"
YAML
cat > "$WORK/want" <<WANT
$WORK/p.yaml:6:22: error: sysctl net.ipv4.tcp_rmme does not exist on this host (network namespace $NS); did you mean net.ipv4.tcp_rmem?
$WORK/p.yaml:7:22: error: sysctl net.ipv4.tcp_rmem takes 3 fields (the kernel has $(echo $rmem)), the profile gives 2
$WORK/p.yaml:8:46: error: sysctl net.ipv4.tcp_available_congestion_control is read-only on this host: it cannot be set to reno
WANT
before=$(nsx sysctl -n net.ipv4.tcp_rmem net.ipv4.tcp_wmem)
rc=0; nt plan "$WORK/p.yaml" > "$WORK/out" 2> "$WORK/err" || rc=$?
expect_eq "$rc" 1 "plan: exit status"
diff -u "$WORK/want" "$WORK/err" || { cat "$WORK/out"; fail "plan: not the located sysctl errors"; }
rc=0; nt apply --yes "$WORK/p.yaml" > "$WORK/out" 2> "$WORK/err" || rc=$?
expect_eq "$rc" 1 "apply: exit status"
head -n 3 "$WORK/err" | diff -u "$WORK/want" - > /dev/null || { cat "$WORK/err"; fail "apply: not the located sysctl errors"; }
expect_eq "$(nsx sysctl -n net.ipv4.tcp_rmem net.ipv4.tcp_wmem)" "$before" "refused apply changed sysctls"
[ -z "$(ls "$NETTUNE_STATE_DIR/journal" 2>/dev/null)" ] || fail "refused apply journaled"

# a read-only sysctl that already holds the value is no write: no error
avail=$(nsx cat /proc/sys/net/ipv4/tcp_available_congestion_control)
cat > "$WORK/ok.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: $H}
target: linux
sysctl:
  net.ipv4.tcp_available_congestion_control: "$avail"
  net.ipv4.tcp_rmem: "4096 87381 6291456"
YAML
# the kernel's tab-separated value is shown with single spaces
rc=0; nt plan "$WORK/ok.yaml" > "$WORK/out" 2> "$WORK/err" || rc=$?
expect_eq "$rc" 2 "plan of valid sysctls: exit status $(cat "$WORK/err")"
grep -qF "sysctl net.ipv4.tcp_rmem       $(echo $rmem) -> 4096 87381 6291456" "$WORK/out" ||
	{ cat "$WORK/out"; fail "plan: the kernel's value not shown with single spaces"; }
grep -q '\\t' "$WORK/out" && { cat "$WORK/out"; fail "plan shows escaped tabs"; }
nt plan --check "$WORK/ok.yaml" > "$WORK/out" 2>&1 || true
grep -qxF "  sysctl net.ipv4.tcp_rmem: $(echo $rmem) (want 4096 87381 6291456)" "$WORK/out" ||
	{ cat "$WORK/out"; fail "plan --check: the kernel's value not shown with single spaces"; }

# against a snapshot: its values decide the field count
nt observe --json > "$WORK/snap.json"
cat > "$WORK/s.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: $H}
target: linux
sysctl:
  net.ipv4.tcp_rmem: "4096 87380"
YAML
rc=0; "$NETTUNE" plan "$WORK/s.yaml" --state "$WORK/snap.json" > "$WORK/out" 2> "$WORK/err" || rc=$?
expect_eq "$rc" 1 "plan --state: exit status"
grep -qxF "$WORK/s.yaml:6:22: error: sysctl net.ipv4.tcp_rmem takes 3 fields (the snapshot has $(echo $rmem)), the profile gives 2" "$WORK/err" ||
	{ cat "$WORK/out" "$WORK/err"; fail "plan --state: field count not checked against the snapshot"; }
echo "ok: sysctls are checked against the kernel (or the snapshot) at plan time"
