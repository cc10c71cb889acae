# shellcheck shell=sh
# Helpers of the agent tests (sourced after tests/linux/lib.sh): start
# the agent in the test's namespace, ask it, wait for a condition with a
# bounded deadline (never a fixed sleep for a correction to happen).
AGENT_PID=""
agent_cleanup() {
	[ -n "$AGENT_PID" ] && kill -9 "$AGENT_PID" 2>/dev/null
	cleanup
}
trap agent_cleanup EXIT INT TERM
# until_ok SECONDS WHAT CMD...: CMD succeeds within SECONDS, or the test fails
until_ok() {
	t=$1; what=$2; shift 2
	end=$(( $(date +%s) + t ))
	while ! "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -lt "$end" ] || fail "$what (not within ${t} s)"
		sleep 0.05
	done
}
# start_agent ARGS...: in the background, logging to $WORK/agent.log; waits
# until it answers on its socket (after its first convergence)
start_agent() {
	"$NETTUNE" --netns "$NS" agent "$@" >>"$WORK/agent.out" 2>>"$WORK/agent.log" &
	AGENT_PID=$!
	until_ok 20 "the agent answers 'status'" nt agent status
}
# stop_agent: SIGTERM, and the agent exits 0 and removes its socket
stop_agent() {
	kill -TERM "$AGENT_PID"
	rc=0; wait "$AGENT_PID" || rc=$?
	AGENT_PID=""
	expect_eq "$rc" 0 "agent exit status after SIGTERM"
	[ ! -e "$NETTUNE_STATE_DIR/agent@$NS.sock" ] || fail "the control socket was left behind"
}
# status_field KEY: a field of 'agent status --json'
status_field() {
	nt agent status --json | python3 -c 'import json,sys; v=json.load(sys.stdin)[sys.argv[1]]; print(json.dumps(v) if isinstance(v,(list,dict)) else v)' "$1"
}
feature_is() { [ "$(feature "$1" "$2")" = "$3" ]; }
mtu_is() { [ "$(mtu "$1")" = "$2" ]; }
chan_is() { [ "$(chan "$1" "$2")" = "$3" ]; }
log_has() { grep -q -- "$1" "$WORK/agent.log"; }
# a failure shows the end of the agent's log
fail() {
	echo "FAIL: $*" >&2
	[ -f "$WORK/agent.log" ] && { echo "--- agent log (last 25 lines)" >&2; tail -n 25 "$WORK/agent.log" >&2; }
	exit 1
}
