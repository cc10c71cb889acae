#!/bin/sh
# Approval off a terminal (ssh host nettune apply, cron, CI): apply without
# --yes refuses, exit 1, naming --yes, and changes nothing (no journal);
# --dry-run is unaffected (exit 2); an unsigned PLAN.json is refused the
# same way; a PLAN.json signed by a trusted key is its own approval; --yes
# applies.  nettune(1) documents --yes.
. "$(dirname "$0")/lib.sh"
unset NETTUNE_TRUST_DIR	# the default, absent: no trusted keys but --trust
veth_pair nya0 nyb0
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: veth-approval, host: any}
target: linux
interfaces:
  - {name: nya0, mtu: 1400, offloads: {gro: on}}
YAML
before=$(full_state nya0 nyb0)
unchanged() { [ "$(full_state nya0 nyb0)" = "$before" ] || fail "$1 changed the host"; }
# refused: stdin and stdout not a terminal (/dev/null and a file)
refused() { # refused WHAT FILE [ARGS...]
	what=$1; shift
	rc=0; nt apply "$@" < /dev/null > "$WORK/out" 2> "$WORK/err" || rc=$?
	expect_eq "$rc" 1 "$what: exit status"
	grep -q "^nettune apply: error: not approved: .*: not on a terminal, so apply cannot show the plan and ask.* --yes .*nothing was changed$" "$WORK/err" ||
		{ cat "$WORK/err"; fail "$what: refusal does not name --yes"; }
	unchanged "$what"
	expect_eq "$(jr count)" 0 "$what: journals"
}
refused "profile without --yes" "$WORK/p.yaml"
# a pipe on stdout is not a terminal either, with stdin one or not
rc=0; nt apply "$WORK/p.yaml" 2> "$WORK/err" | cat > /dev/null || rc=$?
grep -q "not approved" "$WORK/err" || { cat "$WORK/err"; fail "apply | cat was not refused"; }
unchanged "apply | cat"
# --dry-run asks nothing and changes nothing: exit like plan
rc=0; nt apply --dry-run "$WORK/p.yaml" < /dev/null > "$WORK/dry" 2>&1 || rc=$?
expect_eq "$rc" 2 "--dry-run exit status"
grep -q "Dry run: 2 changes would be made; nothing was changed." "$WORK/dry" || { cat "$WORK/dry"; fail "dry-run output"; }
unchanged "--dry-run"
if [ -e /etc/nettune/trusted.d ]; then
	echo "note: /etc/nettune/trusted.d exists: the PLAN.json cases are left out"
else
	# a saved plan: unsigned (or no trusted key to check it) needs --yes ...
	rc=0; nt plan "$WORK/p.yaml" --out "$WORK/plan.json" > /dev/null || rc=$?
	expect_eq "$rc" 2 "plan --out"
	refused "unsigned PLAN.json" "$WORK/plan.json"
	"$NETTUNE" keygen --out "$WORK/ci.key" > /dev/null
	"$NETTUNE" sign --key "$WORK/ci.key" "$WORK/plan.json" > /dev/null
	refused "signed PLAN.json without a trusted key" "$WORK/plan.json"
	# ... signed by a trusted key, it is the approval
	rc=0; nt apply "$WORK/plan.json" --trust "$WORK/ci.key.pub" < /dev/null > "$WORK/out" 2> "$WORK/err" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$WORK/err"; fail "signed, trusted PLAN.json: exit $rc"; }
	expect_eq "$(mtu nya0)" 1400 "signed plan applied"
	nt rollback > /dev/null
	unchanged "rollback of the signed plan"
fi
# --yes (and -y) approve
nt apply --yes "$WORK/p.yaml" < /dev/null > "$WORK/out"
expect_eq "$(mtu nya0)" 1400 "applied with --yes"
expect_eq "$(feature nya0 generic-receive-offload)" on "gro with --yes"
nt rollback > /dev/null
nt apply -y "$WORK/p.yaml" < /dev/null > /dev/null
expect_eq "$(mtu nya0)" 1400 "applied with -y"
nt rollback > /dev/null
# the manual and the help say so
grep -q '^\.BR \\-y ", " \\-\\-yes$' "$SRCROOT/man/nettune.1" || fail "nettune(1) does not document --yes"
"$NETTUNE" apply --help | grep -q "refuses without --yes" || fail "apply --help does not say it refuses"
echo "ok: off a terminal apply refuses without --yes (profile, unsigned plan), --dry-run and a trusted signed plan do not"
