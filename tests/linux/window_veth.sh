#!/bin/sh
# The change window: on a terminal (a pseudo-terminal from script(1)) apply
# shows the plan, marks disruptive steps and applies only after "yes";
# --yes skips the question; progress lines with counter and elapsed time, a
# heads-up before disruptive steps; colour only for a capable terminal;
# history and show report every journal state; help COMMAND = COMMAND --help.
. "$(dirname "$0")/lib.sh"
command -v script >/dev/null || { echo "SKIP: script(1) missing"; exit 77; }
veth_pair nwa0 nwb0
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: veth-window, host: any}
target: linux
interfaces:
  - {name: nwa0, mtu: 1400, offloads: {gro: on}, channels: {rx: 2, tx: 2}}
YAML
before=$(full_state nwa0 nwb0)
# tty CMD...: runs CMD on a pseudo-terminal, stdin from $WORK/answer
tty_run() { TERM=${TERM_FOR_TEST:-xterm} script -qec "$*" /dev/null < "$WORK/answer" > "$WORK/tty" 2>&1; }
ntcmd="$NETTUNE --netns $NS"

# "no" (and anything but "yes") changes nothing, exit 1, no journal
for answer in no y YES ""; do
	printf '%s\n' "$answer" > "$WORK/answer"
	rc=0; tty_run "$ntcmd apply $WORK/p.yaml" || rc=$?
	expect_eq "$rc" 1 "exit after answering '$answer'"
	grep -q "Plan: 4 changes, 2 disruptive" "$WORK/tty" || { cat "$WORK/tty"; fail "plan not shown"; }
	grep -q "\[disruptive\]" "$WORK/tty" || fail "disruptive steps not marked"
	grep -q "2 of these steps can drop the link briefly" "$WORK/tty" || { cat "$WORK/tty"; fail "no disruptive warning"; }
	grep -q "Apply 4 changes to $(uname -n) (network namespace $NS)? Only 'yes' is accepted:" "$WORK/tty" || { cat "$WORK/tty"; fail "no question"; }
	grep -q "Apply cancelled; nothing was changed." "$WORK/tty" || fail "no cancel message"
	[ "$(full_state nwa0 nwb0)" = "$before" ] || fail "answer '$answer' changed the host"
done
expect_eq "$(jr count)" 0 "journals after declined applies"

# "yes" applies, with progress and the heads-up before disruptive steps
printf 'yes\n' > "$WORK/answer"
tty_run "$ntcmd apply $WORK/p.yaml"
grep -q "\[1/4 +[0-9.]*s\] changed  nwa0 mtu: 1500 -> 1400" "$WORK/tty" || { cat "$WORK/tty"; fail "progress line"; }
grep -q "next is disruptive: nwa0 channels rx 4 -> 2" "$WORK/tty" || { cat "$WORK/tty"; fail "no heads-up before the channel change"; }
grep -q "$(printf '\033')\[" "$WORK/tty" || fail "no colour on a colour terminal"
expect_eq "$(mtu nwa0)" 1400 "applied after yes"
expect_eq "$(chan nwa0 RX)" 2 "channels after yes"
nt rollback > /dev/null

# --yes: no question; TERM=dumb and NO_COLOR: no escape sequences
: > "$WORK/answer"
TERM_FOR_TEST=dumb tty_run "$ntcmd apply --yes $WORK/p.yaml"
grep -q "Only 'yes'" "$WORK/tty" && fail "--yes asked anyway"
grep -q "$(printf '\033')" "$WORK/tty" && fail "escape sequences with TERM=dumb"
expect_eq "$(mtu nwa0)" 1400 "applied with --yes"
nt rollback > /dev/null
printf 'yes\n' > "$WORK/answer"
tty_run "NO_COLOR=1 $ntcmd apply $WORK/p.yaml"
grep -q "$(printf '\033')" "$WORK/tty" && fail "escape sequences with NO_COLOR"
nt rollback > /dev/null

# history: every state, newest first; show prints one journal
nt apply --yes --confirm-timeout 1 "$WORK/p.yaml" > /dev/null
jr wait reverted-unconfirmed 15 || fail "no revert"
reverted=$(jr id)
nt apply --yes --confirm-timeout 30 "$WORK/p.yaml" > /dev/null
nt confirm > /dev/null
nt history --json > "$WORK/h.json"
python3 - "$WORK/h.json" "$NS" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))
states = [j["state"] for j in h]
want = ["confirmed", "reverted-unconfirmed", "rolled-back", "rolled-back", "rolled-back"]
assert states == want, states
assert all(j["netns"] == sys.argv[2] and j["changes"] == 4 for j in h), h
assert all(j["profile"].endswith("/p.yaml") and j["profile"].startswith("/") for j in h), h
assert [j["created"] for j in h] == sorted((j["created"] for j in h), reverse=True), h
PY
nt history > "$WORK/h.txt"
grep -q "confirmed  .* netns $NS  *4  /.*p.yaml" "$WORK/h.txt" || { cat "$WORK/h.txt"; fail "history text"; }
nt show "$reverted" > "$WORK/show"
for s in applying pending-confirm reverted-unconfirmed; do
	grep -q "^  [0-9-]* [0-9:]* [+-][0-9]*  $s " "$WORK/show" || { cat "$WORK/show"; fail "show lacks state $s"; }
done
grep -q "^    1  nwa0 mtu: 1500 -> 1400$" "$WORK/show" || { cat "$WORK/show"; fail "show lacks the changes"; }

# watch on a terminal redraws the map every interval; through a pipe it
# prints the final judgement once
: > "$WORK/answer"
tty_run "$ntcmd watch --count 3 --interval 0.2 nwa0"
clears=$(grep -o "$(printf '\033')\[H$(printf '\033')\[2J" "$WORK/tty" | wc -l)
[ "$clears" -ge 3 ] || { cat -A "$WORK/tty" | head -20; fail "watch redrew $clears times"; }
grep -q "interval 1 of 3, [0-9.]* s elapsed" "$WORK/tty" || fail "no progress title in the live view"
grep -q "interval 2 of 3, [0-9.]* s elapsed" "$WORK/tty" || fail "no second redraw"
grep -q "nettune watch: 3 intervals" "$WORK/tty" || fail "no final judgement after the live view"
nt watch --count 3 --interval 0.2 nwa0 > "$WORK/piped" || true
grep -q "$(printf '\033')" "$WORK/piped" && fail "escape sequences in piped watch output"
expect_eq "$(grep -c "nettune watch:" "$WORK/piped")" 1 "piped watch prints once"

# help COMMAND is COMMAND --help
"$NETTUNE" help apply > "$WORK/h1"; "$NETTUNE" apply --help > "$WORK/h2"
cmp -s "$WORK/h1" "$WORK/h2" || fail "help apply differs from apply --help"
grep -q -- "--yes" "$WORK/h1" || fail "apply --help lacks --yes"
echo "ok: prompt, --yes, progress, heads-up, colour rules, history, show, help COMMAND"
