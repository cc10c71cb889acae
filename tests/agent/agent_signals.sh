#!/bin/sh
# SIGHUP re-reads the profile (a broken one is refused with its located
# errors and the old one stays in force), SIGTERM ends cleanly, kill -9
# leaves a socket that the next start takes over, and a second agent on
# the same namespace is refused.  --root is refused.
. "$(dirname "$0")/../linux/lib.sh"
. "$(dirname "$0")/lib.sh"
veth_pair sga0 sgb0
write_profile() {
	cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: agent-signals, host: any}
target: linux
interfaces:
  - {name: sga0, mtu: $1}
YAML
}
write_profile 1400
start_agent --interval 60s "$WORK/p.yaml"
expect_eq "$(mtu sga0)" 1400 "mtu at start"
# a second agent for the same namespace is refused
rc=0; nt agent "$WORK/p.yaml" 2> "$WORK/second" || rc=$?
expect_eq "$rc" 1 "second agent exit"
grep -q "another agent is running" "$WORK/second" || fail "second agent: $(cat "$WORK/second")"
# SIGHUP with a valid profile: the new MTU is applied
write_profile 1420
kill -HUP "$AGENT_PID"
until_ok 10 "the reloaded profile applied" mtu_is sga0 1420
log_has "reloaded" || fail "reload not logged"
# SIGHUP with a broken profile: located errors, the old profile stays
printf 'apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: x, host: any}\ntarget: linux\ninterfaces:\n  - {name: sga0, mtu: banana}\n' > "$WORK/p.yaml"
kill -HUP "$AGENT_PID"
until_ok 10 "the broken profile refused" log_has "reload refused"
grep -q "p.yaml:6:" "$WORK/agent.log" || fail "the reload error is not located: $(tail -5 "$WORK/agent.log")"
ip -n "$NS" link set sga0 mtu 1500
until_ok 10 "still corrected to the previous profile" mtu_is sga0 1420
alive "$AGENT_PID" || fail "the agent died on a broken profile"
# SIGTERM: exit 0, socket gone
stop_agent
# kill -9: the socket file stays; the next start takes it over and converges
write_profile 1440
start_agent --interval 60s "$WORK/p.yaml"
until_ok 10 "converged after restart" mtu_is sga0 1440
kill -9 "$AGENT_PID"; wait "$AGENT_PID" 2>/dev/null || true; AGENT_PID=""
[ -S "$NETTUNE_STATE_DIR/agent@$NS.sock" ] || fail "no socket left by kill -9 (the test tests nothing)"
rc=0; nt agent status 2>/dev/null || rc=$?
expect_eq "$rc" 1 "status with no agent running"
ip -n "$NS" link set sga0 mtu 1500
start_agent --interval 60s "$WORK/p.yaml"
until_ok 10 "converged by the next start" mtu_is sga0 1440
# clients that connect to the control socket and say nothing (a hung
# tool): the agent still corrects, answers others, and stops on SIGTERM
python3 - "$NETTUNE_STATE_DIR/agent@$NS.sock" "$WORK/silent.ready" <<'PY' &
import socket, sys, time
path, ready, socks = sys.argv[1], sys.argv[2], []
end = time.monotonic() + 12
while time.monotonic() < end:
    while len(socks) < 24:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            s.connect(path)
        except OSError:
            break
        s.setblocking(False)
        socks.append(s)
    open(ready, "w").close()
    for s in socks[:]:
        try:
            if s.recv(16) == b"":
                socks.remove(s); s.close()
        except BlockingIOError:
            pass
        except OSError:  # dropped by the agent (said nothing in time), or it stopped
            socks.remove(s); s.close()
    time.sleep(0.02)
PY
silent=$!
until_ok 5 "silent clients connected" test -e "$WORK/silent.ready"
ip -n "$NS" link set sga0 mtu 1500
until_ok 3 "corrected while silent clients hold connections" mtu_is sga0 1440
until_ok 3 "status answered while silent clients hold connections" nt agent status
stop_agent
kill "$silent" 2>/dev/null || true
wait "$silent" 2>/dev/null || true
# something else at the socket path is not the agent's to remove
mkdir "$NETTUNE_STATE_DIR/agent@$NS.sock"
rc=0; nt agent "$WORK/p.yaml" 2> "$WORK/sockdir" || rc=$?
expect_eq "$rc" 1 "agent with a directory at its socket path"
grep -q "something else is there (a directory)" "$WORK/sockdir" || fail "socket path: $(cat "$WORK/sockdir")"
[ -d "$NETTUNE_STATE_DIR/agent@$NS.sock" ] || fail "the directory at the socket path was removed"
rmdir "$NETTUNE_STATE_DIR/agent@$NS.sock"
# durations are decimal: nan, inf, hex and exponents are refused
for d in nan inf 0x10 1e3 -5 1.5.2; do
	rc=0; nt agent --interval "$d" "$WORK/p.yaml" 2>/dev/null || rc=$?
	expect_eq "$rc" 64 "agent --interval $d"
done
# --root is refused, and so is a Windows profile
rc=0; "$NETTUNE" --root / agent "$WORK/p.yaml" 2>/dev/null || rc=$?
expect_eq "$rc" 64 "agent --root"
echo "ok: SIGHUP (valid and broken), SIGTERM, kill -9 and restart, one agent per namespace"
