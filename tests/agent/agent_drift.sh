#!/bin/sh
# The agent converges at start, then corrects drift of features, channels
# and MTU made by the real ethtool and ip; each correction is a journal
# with its cause, shown by history and show, undone by rollback; status
# and the metrics file say what happened.
. "$(dirname "$0")/../linux/lib.sh"
. "$(dirname "$0")/lib.sh"
veth_pair dra0 drb0
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: agent-drift, host: any}
target: linux
interfaces:
  - {name: dra0, mtu: 1400, offloads: {gro: on, tso: off}, channels: {rx: 2, tx: 2}}
  - {name: drb0, mtu: 1300}
YAML
start_agent --metrics "$WORK/m/nettune.prom" --interval 60s "$WORK/p.yaml"
# converged at start, in one journal whose cause is "start"
expect_eq "$(mtu dra0)" 1400 "mtu at start"
expect_eq "$(mtu drb0)" 1300 "peer mtu at start"
expect_eq "$(feature dra0 tx-tcp-segmentation)" off "tso at start"
expect_eq "$(chan dra0 RX)" 2 "rx channels at start"
expect_eq "$(status_field converged)" True "converged after start"
expect_eq "$(jr command)" agent "journal command"
expect_eq "$(jr cause)" start "cause of the first journal"
n0=$(jr count)
# features: ethtool -K
nsx ethtool -K dra0 tso on
until_ok 10 "tso corrected after ethtool -K" feature_is dra0 tx-tcp-segmentation off
until_ok 5 "the tso correction journaled" sh -c "[ \"\$(python3 '$SRCROOT/tests/linux/journal.py' '$NETTUNE_STATE_DIR' cause)\" = 'ethtool notification (features) on dra0' ]"
# channels: ethtool -L
nsx ethtool -L dra0 rx 1
until_ok 10 "rx channels corrected after ethtool -L" chan_is dra0 RX 2
# mtu: ip link set
ip -n "$NS" link set dra0 mtu 1500
until_ok 10 "mtu corrected after ip link set mtu" mtu_is dra0 1400
until_ok 5 "the mtu correction journaled" sh -c "python3 '$SRCROOT/tests/linux/journal.py' '$NETTUNE_STATE_DIR' cause | grep -q 'on dra0'"
# every correction is its own journal (only the drifted settings)
n1=$(jr count)
[ $((n1 - n0)) -ge 3 ] || fail "expected >= 3 correction journals, got $((n1 - n0))"
nt show "$(jr id)" > "$WORK/show"
grep -q "cause    .* on dra0" "$WORK/show" || fail "show lacks the cause"
grep -q "dra0 mtu: 1500 -> 1400" "$WORK/show" || fail "show lacks the old and new value"
expect_eq "$(jr changes)" 1 "entries of the mtu correction (only the drifted setting)"
nt history > "$WORK/hist"
grep -q "cause: .* on dra0" "$WORK/hist" || fail "history lacks the cause"
grep -q "dra0 mtu: 1500 -> 1400" "$WORK/hist" || fail "history lacks the change"
# status names the last corrections and counts them
nt agent status > "$WORK/st"
grep -q "^state: *converged" "$WORK/st" || fail "status: not converged: $(cat "$WORK/st")"
grep -q "dra0 mtu: 1500 -> 1400" "$WORK/st" || fail "status lacks the last correction"
c=$(status_field corrections)
[ "$c" -ge 3 ] || fail "status counts $c corrections"
# metrics: written atomically, accepted by promtool
until_ok 5 "metrics file written" grep -q '^nettune_agent_converged 1' "$WORK/m/nettune.prom"
until_ok 5 "mtu correction in metrics" grep -q 'nettune_agent_corrections_total{.*interface="dra0".*setting="mtu"' "$WORK/m/nettune.prom"
command -v promtool >/dev/null || fail "promtool missing (scripts/deps.sh test installs prometheus)"
promtool check metrics < "$WORK/m/nettune.prom" || fail "promtool rejects the metrics file"
for f in "$WORK"/m/* "$WORK"/m/.*; do
	case "$f" in */nettune.prom|*/.|*/..) ;; *) fail "temporary metrics file left behind: $f" ;; esac
done
# rollback of the agent's last correction works like any apply's: hold
# first, or the agent corrects it again at once
nt agent hold > /dev/null
nt rollback > "$WORK/rb" 2>&1 || fail "rollback of an agent journal: $(cat "$WORK/rb")"
expect_eq "$(mtu dra0)" 1500 "mtu after rollback of the correction"
nt agent resume > /dev/null
until_ok 10 "corrected again after resume" mtu_is dra0 1400
stop_agent
echo "ok: drift of features, channels and mtu corrected, journaled, shown and counted"
