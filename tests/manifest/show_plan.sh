#!/bin/sh
# nettune show PLAN.json: the plan text of 'nettune plan' under a header
# with the signature status (unsigned, key not trusted, valid, invalid),
# --json with the plan --json object, located errors for hostile files,
# and 'show JOURNAL' still printing apply journals (a --root fixture).
set -eu
: "${NETTUNE:?}" "${SRCROOT:?}"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT INT TERM
export NETTUNE_STATE_DIR="$WORK/state" NETTUNE_TRUST_DIR="$WORK/trusted.d"
fail() { echo "FAIL: $*" >&2; exit 1; }
R="$WORK/root"
# a named image: the plan header and the manifest name the same host
python3 "$SRCROOT/tests/fixtures/mkroot.py" "$R" --queues 4 --hostname show-host > /dev/null
mkdir "$WORK/trusted.d"
cd "$WORK"
cat > p.yaml <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: show-fixture, host: any}
target: linux
interfaces:
  - name: enp1s0f0
    rps: {cpus: "1", flow_cnt: 512}
sysctl:
  net.core.rps_sock_flow_entries: "32768"
YAML
rc=0; "$NETTUNE" --root "$R" plan p.yaml --out plan.json > plan.txt || rc=$?
[ "$rc" -eq 2 ] || fail "plan --out exit $rc"
"$NETTUNE" --root "$R" plan --json p.yaml > plan.jsonout || [ $? -eq 2 ] || fail "plan --json"
# unsigned: the header says so, then exactly the text plan printed
"$NETTUNE" show plan.json > show.txt || fail "show of an unsigned plan exit $?"
sed -n 1p show.txt | grep -qx "Plan manifest plan.json" || { cat show.txt; fail "header"; }
grep -qx "  signature  unsigned: there is no plan.json.sig" show.txt || { cat show.txt; fail "unsigned"; }
grep -qx "  profile    p.yaml" show.txt || fail "profile line"
sed '1,/^$/d' show.txt > show.plan
diff -u plan.txt show.plan || fail "show renders a different plan text than plan"
"$NETTUNE" keygen --out ci.key > /dev/null
"$NETTUNE" sign --key ci.key plan.json > /dev/null
id=$(sed -n 's/.*"signer": "\(sha256:[0-9a-f]*\)".*/\1/p' plan.json)
[ -n "$id" ] || fail "no signer in the signed plan"
# signed, no trusted key
"$NETTUNE" show plan.json > show.txt || fail "show of a signed plan"
grep -qx "  signature  key not trusted: unknown key: plan.json is signed by $id, which is not a trusted key (trusted: no keys)" show.txt ||
	{ cat show.txt; fail "key not trusted"; }
# trusted by --trust, and by the trust directory
"$NETTUNE" show --trust ci.key.pub plan.json > show.txt || fail "show --trust"
grep -qx "  signature  valid: signed by $id (ci.key.pub)" show.txt || { cat show.txt; fail "valid (--trust)"; }
cp ci.key.pub trusted.d/ci.pub
"$NETTUNE" show plan.json > show.txt || fail "show with a trust directory"
grep -qx "  signature  valid: signed by $id ($WORK/trusted.d/ci.pub)" show.txt || { cat show.txt; fail "valid (trust dir)"; }
# --json: status and the plan --json object
"$NETTUNE" show --json plan.json > show.json || fail "show --json"
python3 - show.json plan.jsonout "$id" <<'PY' || fail "show --json contents"
import json, sys
s = json.load(open(sys.argv[1]))
p = json.load(open(sys.argv[2]))
assert s["signature"]["status"] == "valid" and s["signature"]["signer"] == sys.argv[3]
assert s["signature"]["key"].endswith("trusted.d/ci.pub") and s["signature"]["reason"] is None
assert s["plan"] == p, (s["plan"], p)
assert s["manifest"] == "plan.json" and s["against"] == "live" and s["expired"] is False
PY
# changed after signing: invalid, still shown (exit 0)
sed 's/"32768"/"32769"/' plan.json > t && cat t > plan.json
"$NETTUNE" show plan.json > show.txt || fail "show of a tampered plan exit $?"
grep -q "^  signature  invalid: bad signature: plan.json.sig does not verify plan.json with key $id" show.txt ||
	{ cat show.txt; fail "invalid"; }
"$NETTUNE" show --json plan.json | python3 -c 'import json,sys; s=json.load(sys.stdin)["signature"]; assert s["status"] == "invalid" and "does not verify" in s["reason"], s' ||
	fail "invalid in --json"
head -c 10 plan.json.sig > short && cat short > plan.json.sig
"$NETTUNE" show plan.json > show.txt
grep -q "^  signature  invalid: bad signature: plan.json.sig is 10 bytes, not a 64-byte Ed25519 signature" show.txt ||
	{ cat show.txt; fail "short signature"; }
# hostile files: located errors, exit 1, no crash
printf '{"format": "nettune-plan/1",\n "host": ' > trunc.json
rc=0; "$NETTUNE" show trunc.json > out 2> err || rc=$?
[ "$rc" -eq 1 ] || fail "truncated plan exit $rc"
grep -q "^trunc.json:2:10: error: " err || { cat err; fail "truncated plan: located error"; }
grep -q "nettune show: error: trunc.json is not a valid plan manifest" err || fail "truncated plan message"
# fixed bytes (random ones could start with a valid JSON token and move the error)
{ printf '\377\376\001'; head -c 3000 /dev/zero | tr '\0' 'Z'; } > noise.json
rc=0; "$NETTUNE" show noise.json > out 2> err || rc=$?
[ "$rc" -eq 1 ] || fail "random bytes exit $rc"
grep -q "^noise.json:1:1: error: " err || { cat err; fail "random bytes: located error"; }
: > empty.json
rc=0; "$NETTUNE" show empty.json > out 2> err || rc=$?
[ "$rc" -eq 1 ] || fail "empty file exit $rc"
rc=0; "$NETTUNE" show "$WORK" > out 2> err || rc=$?
[ "$rc" -eq 1 ] || fail "directory exit $rc"
grep -qx "nettune show: error: $WORK: not a regular file (directory)" err || { cat err; fail "directory message"; }
rc=0; "$NETTUNE" show ./missing.json > out 2> err || rc=$?
[ "$rc" -eq 1 ] || fail "missing file exit $rc"
rc=0; "$NETTUNE" show --trust ci.key.pub > out 2> err || rc=$?
[ "$rc" -eq 64 ] || fail "no argument exit $rc"
# journals: by ID and by path, as before
"$NETTUNE" --root "$R" apply --yes p.yaml > apply.out 2>&1 || { cat apply.out; fail "apply"; }
j=$(ls "$NETTUNE_STATE_DIR/journal" | head -1)
[ -n "$j" ] || fail "no journal"
"$NETTUNE" show "${j%.json}" > show.txt || fail "show JOURNAL ID"
grep -q "^Journal ${j%.json}$" show.txt || { cat show.txt; fail "journal by ID"; }
"$NETTUNE" show "$NETTUNE_STATE_DIR/journal/$j" > show.txt || fail "show JOURNAL path"
grep -q "^Journal ${j%.json}$" show.txt || { cat show.txt; fail "journal by path"; }
"$NETTUNE" show --json "$NETTUNE_STATE_DIR/journal/$j" | grep -q '"nettune-journal/' || fail "journal --json"
rc=0; "$NETTUNE" show --trust ci.key.pub "${j%.json}" > out 2> err || rc=$?
[ "$rc" -eq 64 ] || fail "--trust with a journal exit $rc"
echo "ok: show PLAN.json text, --json and signature states; hostile files refused; journals shown"
