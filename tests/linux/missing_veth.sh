#!/bin/sh
# Interfaces a profile names that the host does not have are a located
# error at plan time, whether some or all of them are missing (a typo in
# the only name, the wrong host, a boot before the driver made the device):
# never "(not observed) -> on" pending changes that fail at apply.  apply
# --skip-missing (what nettune.service runs) skips them with a warning; when
# nothing is left it exits 0, changes nothing and journals nothing.
. "$(dirname "$0")/lib.sh"
veth_pair msa0 msb0
H=$(uname -n)
profile() {
	cat <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: $H}
target: linux
interfaces:
YAML
	for i in "$@"; do echo "  - {name: $i, nic: veth, offloads: {gro: on}}"; done
}
ethtool_before=$(full_state msa0 msb0)
for case in "msx0" "msx0 msy0" "msa0 msx0"; do
	# shellcheck disable=SC2086
	profile $case > "$WORK/p.yaml"
	line=$(grep -n "name: msx0" "$WORK/p.yaml" | cut -d: -f1)
	rc=0; nt plan "$WORK/p.yaml" > "$WORK/out" 2> "$WORK/err" || rc=$?
	expect_eq "$rc" 1 "plan of '$case': exit status"
	grep -qxF "$WORK/p.yaml:$line:12: error: interface msx0 does not exist on this host" "$WORK/err" ||
		{ cat "$WORK/out" "$WORK/err"; fail "plan of '$case': no located error"; }
	grep -q "not observed" "$WORK/out" && fail "plan of '$case' shows unobserved pending changes"
	rc=0; nt plan --check "$WORK/p.yaml" > "$WORK/out" 2> "$WORK/err" || rc=$?
	expect_eq "$rc" 1 "plan --check of '$case': exit status"
	rc=0; nt apply --yes "$WORK/p.yaml" > "$WORK/out" 2> "$WORK/err" || rc=$?
	expect_eq "$rc" 1 "apply of '$case': exit status"
	[ -z "$(ls "$NETTUNE_STATE_DIR/journal" 2>/dev/null)" ] || fail "apply of '$case' journaled"
done
expect_eq "$(full_state msa0 msb0)" "$ethtool_before" "refused plans and applies changed the namespace"

# --skip-missing, nothing left: a warning per missing interface, exit 0,
# no write, no journal
profile msx0 msy0 > "$WORK/p.yaml"
rc=0; nt apply --skip-missing --yes "$WORK/p.yaml" > "$WORK/out" 2> "$WORK/err" || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/out" "$WORK/err"; fail "apply --skip-missing, all missing: exit $rc"; }
for i in msx0 msy0; do
	grep -q ": warning: interface $i does not exist on this host yet; its settings are skipped until it appears$" "$WORK/err" ||
		{ cat "$WORK/err"; fail "apply --skip-missing: no warning for $i"; }
done
grep -q "error" "$WORK/err" && { cat "$WORK/err"; fail "apply --skip-missing, all missing: an error"; }
[ -z "$(ls "$NETTUNE_STATE_DIR/journal" 2>/dev/null)" ] || fail "apply --skip-missing with nothing to do journaled"
expect_eq "$(full_state msa0 msb0)" "$ethtool_before" "apply --skip-missing, all missing, changed the namespace"

# --skip-missing, one present: it is applied, the missing one skipped
profile msa0 msx0 > "$WORK/p.yaml"
nsx ethtool -K msa0 gro off
rc=0; nt apply --skip-missing --yes "$WORK/p.yaml" > "$WORK/out" 2> "$WORK/err" || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/out" "$WORK/err"; fail "apply --skip-missing, one present: exit $rc"; }
grep -q ": warning: interface msx0 does not exist on this host yet" "$WORK/err" || fail "no warning for msx0"
expect_eq "$(feature msa0 generic-receive-offload)" on "apply --skip-missing: the present interface"
echo "ok: missing interfaces (some or all) are located errors; --skip-missing skips them"
