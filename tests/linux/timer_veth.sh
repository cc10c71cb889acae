#!/bin/sh
# Where systemd runs, a confirm-timeout apply also arms a transient timer
# (systemd-run --on-active) that runs 'nettune rollback --unconfirmed ID',
# so the revert happens even when the watcher and every nettune process are
# killed.  systemd is not PID 1 here: a private mount namespace shows
# /run/systemd/system, and a systemd-run on PATH records its arguments and
# runs the command after the delay as the timer would; systemctl records
# the stop that 'confirm' sends.
. "$(dirname "$0")/lib.sh"
veth_pair nsy0 nsz0
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: veth-timer, host: any}
target: linux
interfaces:
  - {name: nsy0, mtu: 1400, offloads: {gro: on}}
YAML
mkdir "$WORK/bin"
cat > "$WORK/bin/systemd-run" <<'SH'
#!/bin/sh
echo "$@" >> "$SHIM_LOG"
delay=0
while [ $# -gt 0 ]; do
	case "$1" in
	--on-active=*) delay=${1#--on-active=}; delay=${delay%s} ;;
	--setenv=*) export "${1#--setenv=}" ;;
	--*) ;;
	*) break ;;
	esac
	shift
done
( sleep "$delay"; "$@" > "$SHIM_LOG.out" 2>&1; echo "exit $?" >> "$SHIM_LOG.out" ) < /dev/null > /dev/null 2>&1 &
SH
printf '#!/bin/sh\necho "systemctl $*" >> "$SHIM_LOG"\n' > "$WORK/bin/systemctl"
chmod +x "$WORK/bin/systemd-run" "$WORK/bin/systemctl"
before=$(full_state nsy0 nsz0)
export SHIM_LOG="$WORK/shim.log" PATH="$WORK/bin:$PATH" NS WORK NETTUNE
in_sd() { unshare -m --propagation private sh -c 'mount -t tmpfs tmpfs /run/systemd && mkdir /run/systemd/system && "$@"' sh "$@"; }
# windows of 3 s and 8 s: long enough that a loaded machine does not see
# the window end before the test's own checks (1 s was flaky under load)
in_sd "$NETTUNE" --netns "$NS" apply --yes --confirm-timeout 3 "$WORK/p.yaml" > /dev/null
id=$(jr id)
grep -q -- "--unit=nettune-revert-$id --on-active=5s .*--setenv=NETTUNE_STATE_DIR=$NETTUNE_STATE_DIR .*rollback --unconfirmed $id\$" "$SHIM_LOG" ||
	{ cat "$SHIM_LOG"; fail "systemd-run arguments"; }
expect_eq "$(mtu nsy0)" 1400 "applied"
kill -KILL "$(jr pid)"
# the command's own output may come first: wait for its exit line
i=0; while ! grep -q '^exit ' "$SHIM_LOG.out" 2>/dev/null && [ $i -lt 250 ]; do sleep 0.1; i=$((i + 1)); done
grep -q "^exit 0$" "$SHIM_LOG.out" || { cat "$SHIM_LOG.out"; fail "the timer's rollback failed"; }
expect_eq "$(jr state)" reverted-unconfirmed "journal after the timer"
[ "$(full_state nsy0 nsz0)" = "$before" ] || fail "the timer did not restore the host"
# confirmed in time: confirm stops the timer, and the timer's run is a no-op
: > "$SHIM_LOG"; rm -f "$SHIM_LOG.out"
in_sd "$NETTUNE" --netns "$NS" apply --yes --confirm-timeout 8 "$WORK/p.yaml" > /dev/null
id=$(jr id)
in_sd "$NETTUNE" confirm > /dev/null
grep -q "^systemctl stop --quiet nettune-revert-$id.timer$" "$SHIM_LOG" || { cat "$SHIM_LOG"; fail "confirm did not stop the timer"; }
# the command's own output may come first: wait for its exit line
i=0; while ! grep -q '^exit ' "$SHIM_LOG.out" 2>/dev/null && [ $i -lt 250 ]; do sleep 0.1; i=$((i + 1)); done
grep -q "^exit 0$" "$SHIM_LOG.out" || { cat "$SHIM_LOG.out"; fail "the timer's run after confirm"; }
expect_eq "$(jr state)" confirmed "journal after confirm and the timer"
expect_eq "$(mtu nsy0)" 1400 "confirmed change kept"
echo "ok: transient systemd timer reverts after SIGKILL; confirm stops it"
