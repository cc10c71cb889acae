#!/bin/sh
# The agent benchmark (bench/README.md, "agent"): 64 veth devices (32 pairs,
# 4 queues each, no traffic, no addresses) in a private namespace kept at a
# wanted state (rx-checksum off, channels rx 2 tx 2, MTU 9000; rps_cpus 3 for
# the no-event drift) by a corrector while bench/agent_drift.c undoes one
# setting at a time from another process.  The correctors:
#   floor   bench/agent_floor.c (raw netlink, one SET and one GET per
#           differing notification)
#   floorj  the same with -j: each correction also journaled the least a
#           crash-consistent journal of nettune's layout must (marker,
#           journal renamed in place before the SET; rewritten, marker
#           removed after the verification; fsyncs when idle)
#   agent   $NETTUNE --netns NS agent PROFILE --metrics FILE (skipped, with a
#           message, when '$NETTUNE agent --help' fails)
# Measured (every figure of the table comes from this run):
#   - notified drift: DRIFTS drifts per kind (features, channels, mtu, in
#     turn, random devices), one netlink SET each, restore seen by GET:
#     p50/p99/max; the same with the real ethtool -K / ethtool -L / ip link
#     set mtu (CMD_DRIFTS per kind; timed from the drift's notification);
#     SETs per drift (changes of the setting seen by the drift maker's own
#     monitor socket, minus the drift's own) and the kernel's notifications
#     per drift
#   - agent only: no-event drift (rx-0/rps_cpus through sysfs, --interval 2s,
#     RPS_DRIFTS drifts, lateness beyond the period); idle CPU over IDLE_S s
#     at the default period (utime+stime of /proc/PID/stat, and the
#     nanoseconds of /proc/PID/task/*/schedstat) and VmRSS; VmRSS before and
#     after LONG_DRIFTS corrections
#   - 64 veths created at once (one ip -batch) while the corrector runs, to
#     all converged; beside it the same creation followed by 64
#     'nettune apply --yes --only IFACE' processes started at once
# usage: bench/agent.sh [--only floor,floorj,agent] [--no-write]
# env: NETTUNE (default build/nettune), AGENT_BENCH_DRIFTS (1000),
#      AGENT_BENCH_CMD_DRIFTS (100), AGENT_BENCH_RPS_DRIFTS (20),
#      AGENT_BENCH_LONG_DRIFTS (10000), AGENT_BENCH_IDLE_S (60),
#      AGENT_BENCH_KEEP=1 keeps the logs (the drift maker's one line per drift,
#      the agent's stderr)
# Needs root; the namespace is deleted at exit, also on SIGINT, SIGTERM or
# SIGHUP.  Writes the section "(f) agent" of bench/RESULTS.md.
set -eu
cd "$(dirname "$0")/.."
only=floor,floorj,agent
write=1
invocation="bench/agent.sh${*:+ $*}"
prev=
for a in "$@"; do
	[ "$prev" = --only ] && only=$a
	case $a in
	--only=*) only=${a#--only=} ;;
	--no-write) write=0 ;;
	--only) ;;
	-h|--help) sed -n '2,34p' "$0"; exit 0 ;;
	*) [ "$prev" = --only ] || { echo "bench/agent.sh: unknown argument $a" >&2; exit 64; } ;;
	esac
	prev=$a
done
[ "$(id -u)" -eq 0 ] || { echo "bench/agent.sh: needs root (a private network namespace)" >&2; exit 1; }
missing=
for t in ip ethtool cc; do
	command -v "$t" >/dev/null 2>&1 || missing="$missing $t"
done
[ -z "$missing" ] || { echo "bench/agent.sh: missing:$missing (apt-get install iproute2 ethtool gcc)" >&2; exit 1; }
DRIFTS=${AGENT_BENCH_DRIFTS:-1000}
CMD_DRIFTS=${AGENT_BENCH_CMD_DRIFTS:-100}
RPS_DRIFTS=${AGENT_BENCH_RPS_DRIFTS:-20}
LONG_DRIFTS=${AGENT_BENCH_LONG_DRIFTS:-10000}
IDLE_S=${AGENT_BENCH_IDLE_S:-60}
NETTUNE=${NETTUNE:-$PWD/build/nettune}
mkdir -p build
cc -std=c11 -O2 -Wall -Wextra -o build/agent_floor bench/agent_floor.c
cc -std=c11 -O2 -Wall -Wextra -o build/agent_drift bench/agent_drift.c
FLOOR=$PWD/build/agent_floor
DRIFT=$PWD/build/agent_drift

run_floor=0
run_floorj=0
run_agent=0
case ",$only," in *,floor,*) run_floor=1 ;; esac
case ",$only," in *,floorj,*) run_floorj=1 ;; esac
case ",$only," in *,agent,*) run_agent=1 ;; esac
agent_skip=
if [ "$run_agent" = 1 ] && ! "$NETTUNE" agent --help >/dev/null 2>&1; then
	agent_skip="'$NETTUNE agent --help' failed: the agent rows are not measured (NETTUNE=PATH names another binary)"
	echo "bench/agent.sh: $agent_skip" >&2
	run_agent=0
fi

NS=ntagentbench$$
WORK=$(mktemp -d /tmp/ntagent.XXXXXX)
PIDS=
cleanup() {
	for p in $PIDS; do
		kill -TERM "$p" 2>/dev/null || true
	done
	for p in $PIDS; do
		wait "$p" 2>/dev/null || true
	done
	ip netns del "$NS" 2>/dev/null || true
	if [ -n "${AGENT_BENCH_KEEP:-}" ]; then
		echo "bench/agent.sh: logs kept in $WORK" >&2
	else
		rm -rf "$WORK"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# the wanted state, and what a drift puts back (the kernel's defaults)
FEAT=rx-checksum
CH=2
MTU=9000
CH_DRIFT=4
MTU_DRIFT=1500
RPS_MASK=3
DEVS=
NEWDEVS=
i=0
while [ "$i" -lt 32 ]; do
	DEVS="$DEVS ava$i avb$i"
	NEWDEVS="$NEWDEVS cva$i cvb$i"
	i=$((i + 1))
done
# shellcheck disable=SC2086 # word splitting of the device lists is intended
set -- $DEVS
WANT="-F $FEAT=0 -c $CH -M $MTU -C $CH_DRIFT -D $MTU_DRIFT"

batch() {	# batch PREFIX add|del: 32 pairs in one ip -batch
	j=0
	while [ "$j" -lt 32 ]; do
		if [ "$2" = add ]; then
			echo "link add ${1}a$j numrxqueues 4 numtxqueues 4 type veth peer name ${1}b$j numrxqueues 4 numtxqueues 4"
		else
			echo "link del ${1}a$j"
		fi
		j=$((j + 1))
	done
	if [ "$2" = add ]; then
		j=0
		while [ "$j" -lt 32 ]; do
			echo "link set ${1}a$j up"
			echo "link set ${1}b$j up"
			j=$((j + 1))
		done
	fi
}

ip netns add "$NS"
batch av add | ip -n "$NS" -batch -
batch cv add >"$WORK/create.batch"
batch cv del >"$WORK/delete.batch"
inns() { ip netns exec "$NS" "$@"; }

profile() {	# profile FILE WHAT DEV...: the agent's profile
	f=$1
	what=$2
	shift 2
	{
		echo "apiVersion: nettune/v1"
		echo "kind: HostProfile"
		echo "metadata: {name: bench-agent, host: any}"
		echo "target: linux"
		echo "interfaces:"
		for d in "$@"; do
			if [ "$what" = rps ]; then
				echo "  - {name: $d, nic: veth, rps: {cpus: \"0-1\"}}"
			else
				echo "  - {name: $d, nic: veth, mtu: $MTU, offloads: {rx_checksum: off}, channels: {rx: $CH, tx: $CH}}"
			fi
		done
	} >"$f"
}
# shellcheck disable=SC2086
profile "$WORK/agent.yaml" settings $DEVS
# shellcheck disable=SC2086
profile "$WORK/rps.yaml" rps $DEVS
# shellcheck disable=SC2086
profile "$WORK/create.yaml" settings $NEWDEVS

CPID=
start_floor() {	# start_floor DEV...: the floor in the namespace, until "ready"
	rm -f "$WORK/floor.ready"
	# not through the function inns: $! must be the floor itself (ip netns exec execs it)
	# shellcheck disable=SC2086 # FLOOR_ARGS: words on purpose
	ip netns exec "$NS" "$FLOOR" ${FLOOR_ARGS:-} rx-checksum=0 "$CH" "$MTU" -- "$@" >"$WORK/floor.ready" 2>>"$WORK/floor.err" &
	CPID=$!
	PIDS="$PIDS $CPID"
	n=0
	until grep -q ready "$WORK/floor.ready" 2>/dev/null; do
		n=$((n + 1))
		[ "$n" -lt 1000 ] || { echo "bench/agent.sh: the floor did not start" >&2; exit 1; }
		kill -0 "$CPID" 2>/dev/null || { cat "$WORK/floor.err" >&2; exit 1; }
		sleep 0.01
	done
}
APID=
start_agent() {	# start_agent PROFILE [ARGS...]: nettune agent, until it answers status
	p=$1
	shift
	NETTUNE_STATE_DIR=$WORK/state "$NETTUNE" --netns "$NS" agent "$p" --metrics "$WORK/metrics.prom" \
		--damp 15/250ms "$@" 2>>"$WORK/agent.log" &
	APID=$!
	CPID=$APID
	PIDS="$PIDS $APID"
	n=0
	until NETTUNE_STATE_DIR=$WORK/state "$NETTUNE" --netns "$NS" agent status >/dev/null 2>&1; do
		n=$((n + 1))
		[ "$n" -lt 600 ] || { echo "bench/agent.sh: the agent did not answer status" >&2; exit 1; }
		kill -0 "$APID" 2>/dev/null || { tail -5 "$WORK/agent.log" >&2; exit 1; }
		sleep 0.05
	done
}
stop_corrector() {
	kill -TERM "$CPID" 2>/dev/null || true
	wait "$CPID" 2>/dev/null || true
	rest=
	for p in $PIDS; do
		[ "$p" = "$CPID" ] || rest="$rest $p"
	done
	PIDS=$rest
	CPID=
}

# field FILE KIND KEY: KEY=VALUE of the summary line "drift kind=KIND ..."
field() {
	awk -v k="kind=$2" -v key="$3" '$1 == "drift" && $2 == k {
		for (i = 3; i <= NF; i++) if (index($i, key "=") == 1) { print substr($i, length(key) + 2); exit } }' "$1"
}
ffield() {	# the floor's own lines "agent_floor kind=KIND ..."
	awk -v k="kind=$2" -v key="$3" '$1 == "agent_floor" && $2 == k {
		for (i = 3; i <= NF; i++) if (index($i, key "=") == 1) { print substr($i, length(key) + 2); exit } }' "$1"
}
ms() {	# microseconds -> "0.123"
	awk -v u="$1" 'BEGIN { if (u == "") print "-"; else printf "%.3f", u / 1000 }'
}
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "-"; else printf "%.1fx", a / b }'
}

drifts() {	# drifts TAG HOW COUNT DEV...: the three kinds in turn
	tag=$1
	how=$2
	cnt=$3
	shift 3
	# shellcheck disable=SC2086
	inns "$DRIFT" $WANT -k mixed -m "$how" -n "$cnt" -t 2000 -q 5 -o "$WORK/$tag.log" -- "$@" \
		>"$WORK/$tag.out" 2>&1 || { cat "$WORK/$tag.out" >&2; echo "bench/agent.sh: drift run $tag failed" >&2; exit 1; }
}

converge_new() {	# converge_new TAG [COMMAND]: create the 64 new veths (then COMMAND) until all converged
	cmd="ip -batch $WORK/create.batch"
	[ -z "${2:-}" ] || cmd="$cmd && $2"
	# shellcheck disable=SC2086
	inns "$DRIFT" $WANT -k create -t 60000 -e "$cmd" -- $NEWDEVS >"$WORK/$1.out" 2>&1 ||
		{ cat "$WORK/$1.out" >&2; echo "bench/agent.sh: $1 did not converge" >&2; exit 1; }
	inns ip -batch "$WORK/delete.batch"
}
conv_ms() {
	sed -n 's/^converged=yes ms=\([0-9.]*\).*/\1/p' "$1"
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
stamp=$(date -u '+%Y-%m-%d %H:%M UTC')
T=$((DRIFTS * 3))
TC=$((CMD_DRIFTS * 3))

if [ "$run_floor" = 1 ]; then
	echo "bench/agent.sh: floor: $T drifts by netlink, $TC by ethtool/ip" >&2
	: >"$WORK/floor.err"
	export AGENT_BENCH_SHM="$WORK/shm"
	# shellcheck disable=SC2086
	start_floor $DEVS
	drifts floor.netlink netlink "$T" "$@"
	stop_corrector
	cp "$WORK/floor.err" "$WORK/floor.own"
	: >"$WORK/floor.err"
	# shellcheck disable=SC2086
	start_floor $DEVS
	drifts floor.cmd cmd "$TC" "$@"
	stop_corrector
	unset AGENT_BENCH_SHM
	# shellcheck disable=SC2086
	start_floor $NEWDEVS
	converge_new floor.create
	stop_corrector
fi

if [ "$run_floorj" = 1 ]; then
	echo "bench/agent.sh: journaled floor: $T drifts by netlink" >&2
	mkdir -p "$WORK/floorj"
	: >"$WORK/floor.err"
	FLOOR_ARGS="-j $WORK/floorj"
	# shellcheck disable=SC2086
	start_floor $DEVS
	drifts floorj.netlink netlink "$T" "$@"
	stop_corrector
	FLOOR_ARGS=
fi

if [ "$run_agent" = 1 ]; then
	echo "bench/agent.sh: nettune agent: idle ${IDLE_S} s, $T drifts by netlink, $TC by ethtool/ip, $RPS_DRIFTS rps, $LONG_DRIFTS for RSS" >&2
	start_agent "$WORK/agent.yaml"
	# shellcheck disable=SC2086
	inns "$DRIFT" $WANT -k wait -t 30000 -- $DEVS >/dev/null
	# idle at the default period: CPU time of every thread and the resident set
	clk=$(getconf CLK_TCK)
	cpu() {
		awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$APID/stat"
	}
	sched() {
		cat /proc/"$APID"/task/*/schedstat | awk '{ s += $1 } END { print s }'
	}
	rss() {
		awk '$1 == "VmRSS:" { print $2 }' "/proc/$APID/status"
	}
	c0=$(cpu)
	s0=$(sched)
	sleep "$IDLE_S"	# the measurement window, not a wait for an event
	c1=$(cpu)
	s1=$(sched)
	idle_pct=$(awk -v a="$c0" -v b="$c1" -v hz="$clk" -v s="$IDLE_S" 'BEGIN { printf "%.3f", (b - a) / hz / s * 100 }')
	idle_ns_pct=$(awk -v a="$s0" -v b="$s1" -v s="$IDLE_S" 'BEGIN { printf "%.4f", (b - a) / 1e9 / s * 100 }')
	rss_idle=$(rss)
	l0=$(wc -l <"$WORK/agent.log")
	drifts agent.netlink netlink "$T" "$@"
	# the corrections of those drifts: their journals (a correction of channels
	# rx and tx is one journal and two "corrected" lines)
	tail -n +"$((l0 + 1))" "$WORK/agent.log" | grep ' corrected ' >"$WORK/agent.corrected" || true
	agent_lines=$(wc -l <"$WORK/agent.corrected")
	agent_corr=$(sed -n 's/.*; journal \([^ ]\{1,\}\)$/\1/p' "$WORK/agent.corrected" | sort -u | wc -l)
	agent_nojournal=$(grep -c '; journal $' "$WORK/agent.corrected" || true)
	drifts agent.cmd cmd "$TC" "$@"
	rss_before=$(rss)
	drifts agent.long netlink "$LONG_DRIFTS" "$@"
	rss_after=$(rss)
	stop_corrector
	# no event: the periodic check alone, every 2 s
	start_agent "$WORK/rps.yaml" --interval 2s
	# shellcheck disable=SC2086
	inns "$DRIFT" $WANT -k rps -R "$RPS_MASK" -r 0 -P 2000 -n "$RPS_DRIFTS" -t 4000 -o "$WORK/agent.rps.log" \
		-- $DEVS >"$WORK/agent.rps.out" 2>&1 || { cat "$WORK/agent.rps.out" >&2; exit 1; }
	stop_corrector
	# 64 veths at once, the agent running
	start_agent "$WORK/create.yaml"
	converge_new agent.create
	stop_corrector
	# the same creation, then 64 'apply --only' processes started at once
	applies="for d in $NEWDEVS; do NETTUNE_STATE_DIR=$WORK/state-apply '$NETTUNE' --netns $NS apply --yes --only \$d $WORK/create.yaml >/dev/null 2>>$WORK/apply.err & done; wait"
	converge_new apply.create "$applies"
fi

# ---------------------------------------------------------------- report
out=$WORK/section.md
{
	echo "## (f) agent: drift corrected on 64 veths"
	echo
	echo "Written by \`$invocation\` on $stamp (drifts per kind: $DRIFTS by netlink, $CMD_DRIFTS by command);"
	echo "load average at start $load0; $(nproc) CPUs, kernel $(uname -r)."
	echo "64 veth devices (32 pairs, 4 queues each, no traffic, no addresses) in a private namespace, wanted"
	echo "rx-checksum off, channels rx $CH tx $CH, MTU $MTU; a drift puts one back to the kernel's default"
	echo "(rx-checksum on, channels $CH_DRIFT, MTU $MTU_DRIFT) on a random device, the three kinds in turn, from"
	echo "\`bench/agent_drift.c\` in another process: one netlink SET, then GETs after each notification of the"
	echo "device until one shows the wanted value (the time is t0 before the SET to the end of that GET,"
	echo "CLOCK_MONOTONIC); \`ethtool -K\`/\`-L\`/\`ip link set mtu\` rows are timed from the drift's own"
	echo "notification (a command's start says nothing precise).  SETs per drift: the changes of the setting"
	echo "the drift maker's own monitor socket saw until the next drift, minus the drift's own (a SET that"
	echo "changes nothing raises no notification and is not counted).  Floor: \`bench/agent_floor.c\`, raw"
	echo "netlink, one SET and one GET per notification that differs from the wanted state.  Journaled floor:"
	echo "the same (\`-j\`) with each correction journaled as the least a crash-consistent journal of"
	echo "nettune's layout must be (before the SET a marker and the journal renamed in place, after the"
	echo "verification the journal rewritten and the marker removed, 1000 kept; fsyncs when idle, as the agent)."
	echo
	echo "| drift | how | n | floor p50 / p99 / max (ms) | journaled floor p50 / p99 / max (ms) | nettune agent p50 / p99 / max (ms) | agent / floor (p50, p99) | agent / journaled floor (p50, p99) | SETs per drift (floor, agent) |"
	echo "|---|---|---|---|---|---|---|---|---|"
	for how in netlink cmd; do
		for k in features channels mtu; do
			f=$WORK/floor.$how.out
			fj=$WORK/floorj.$how.out
			a=$WORK/agent.$how.out
			fl="-"; fjl="-"; ag="-"; rt="-"; rtj="-"; sp="-"
			fn=
			if [ -f "$fj" ]; then
				fjl="$(ms "$(field "$fj" "$k" p50_us)") / $(ms "$(field "$fj" "$k" p99_us)") / $(ms "$(field "$fj" "$k" max_us)")"
				if [ -f "$a" ]; then
					rtj="$(ratio "$(field "$a" "$k" p50_us)" "$(field "$fj" "$k" p50_us)"), $(ratio "$(field "$a" "$k" p99_us)" "$(field "$fj" "$k" p99_us)")"
				fi
			fi
			if [ -f "$f" ]; then
				fn=$(field "$f" "$k" n)
				fl="$(ms "$(field "$f" "$k" p50_us)") / $(ms "$(field "$f" "$k" p99_us)") / $(ms "$(field "$f" "$k" max_us)")"
				sp=$(field "$f" "$k" sets_per_drift)
			fi
			if [ -f "$a" ]; then
				fn=${fn:-$(field "$a" "$k" n)}
				ag="$(ms "$(field "$a" "$k" p50_us)") / $(ms "$(field "$a" "$k" p99_us)") / $(ms "$(field "$a" "$k" max_us)")"
				sp="$sp, $(field "$a" "$k" sets_per_drift)"
				if [ -f "$f" ]; then
					rt="$(ratio "$(field "$a" "$k" p50_us)" "$(field "$f" "$k" p50_us)"), $(ratio "$(field "$a" "$k" p99_us)" "$(field "$f" "$k" p99_us)")"
				fi
			else
				sp="$sp, -"
			fi
			h=$how
			[ "$how" = netlink ] && h="one netlink SET"
			[ "$how" = cmd ] && case $k in features) h="ethtool -K" ;; channels) h="ethtool -L" ;; mtu) h="ip link set mtu" ;; esac
			echo "| $k | $h | $fn | $fl | $fjl | $ag | $rt | $rtj | $sp |"
		done
	done
	echo
	if [ -f "$WORK/floor.own" ]; then
		echo "The floor's own figure (its verifying GET's end minus the drift maker's t0, read from shared"
		echo "memory), one netlink SET per drift:"
		for k in features channels mtu; do
			echo "$k $(ms "$(ffield "$WORK/floor.own" "$k" p50_us)") / $(ms "$(ffield "$WORK/floor.own" "$k" p99_us)") / $(ms "$(ffield "$WORK/floor.own" "$k" max_us)") ms (n $(ffield "$WORK/floor.own" "$k" n))"
		done | sed 's/^/- /'
		echo
		echo "Kernel notifications per drift seen by the drift maker (the drift's and the correction's, floor run):"
		for k in features channels mtu; do
			echo "$k: $(field "$WORK/floor.netlink.out" "$k" ntf_per_drift)"
		done | sed 's/^/- /'
		echo
	fi
	echo "| 64 veths created at once (one \`ip -batch\`) | to all converged (ms) |"
	echo "|---|---|"
	[ -f "$WORK/floor.create.out" ] && echo "| floor running | $(conv_ms "$WORK/floor.create.out") |"
	[ -f "$WORK/agent.create.out" ] && echo "| nettune agent running | $(conv_ms "$WORK/agent.create.out") |"
	[ -f "$WORK/apply.create.out" ] && echo "| then 64 \`nettune apply --yes --only IFACE\` started at once | $(conv_ms "$WORK/apply.create.out") |"
	echo
	if [ "$run_agent" = 1 ]; then
		echo "nettune agent (\`--damp 15/250ms\`, so that the benchmark's own repeated drifts are not damped):"
		echo
		echo "| figure | measured | target |"
		echo "|---|---|---|"
		echo "| corrections (journals) per netlink drift | $agent_corr / $T (\"corrected\" lines: $agent_lines, of which without a journal id: $agent_nojournal) | ~1 |"
		echo "| no-event drift (rx-0/rps_cpus, \`--interval 2s\`): p50 / p99 / max (ms), n $(field "$WORK/agent.rps.out" rps n) | $(ms "$(field "$WORK/agent.rps.out" rps p50_us)") / $(ms "$(field "$WORK/agent.rps.out" rps p99_us)") / $(ms "$(field "$WORK/agent.rps.out" rps max_us)"); later than 2010 ms: $(field "$WORK/agent.rps.out" rps late) | <= period + 10 ms |"
		echo "| idle CPU over $IDLE_S s, default period (utime+stime; schedstat) | $idle_pct %; $idle_ns_pct % | <= 0.1 % |"
		echo "| VmRSS idle | $rss_idle kB | <= 10 MB |"
		echo "| VmRSS before / after $LONG_DRIFTS corrections | $rss_before / $rss_after kB | no growth |"
		echo
	else
		echo "The nettune agent rows are produced by \`sudo bench/agent.sh\` (\`--only agent\` for them alone)${agent_skip:+; this run: $agent_skip}."
		echo
	fi
	echo "Targets (the issue): notified drift corrected and verified p50 <= 0.2 ms, p99 <= 1 ms, ~1 SET per drift;"
	echo "no-event drift within the check period + 10 ms; idle <= 0.1 % of one CPU, VmRSS <= 10 MB, no growth over"
	echo "10,000 corrections; 64 veths created at once: all converged, time beside 64 \`apply --only\` processes."
} >"$out"
cat "$out"
if [ "$write" = 1 ]; then
	res=bench/RESULTS.md
	notes=$(head -n 1 bench/NOTES.md 2>/dev/null || true)
	# replace the section, or put it before the profiling notes (bench.py's
	# --only runs keep lettered sections), or at the end
	awk -v sec="$out" -v notes="$notes" '
		function emit() { while ((getline l < sec) > 0) print l; print ""; done = 1 }
		/^## \(f\) agent/ { if (!done) emit(); skip = 1; next }
		skip && /^## / { skip = 0 }
		skip { next }
		!done && notes != "" && $0 == notes { emit() }
		{ print }
		END { if (!done) { print ""; emit() } }' "$res" >"$WORK/RESULTS.md"
	cp "$WORK/RESULTS.md" "$res"
	echo "bench/agent.sh: wrote the (f) agent section of $res" >&2
fi
