#!/bin/sh
# Netlink requests of apply, counted by NETTUNE_STATS=1: a converge sends
# one SET per (device, message family) (features, channels, link) and reads
# by dumps only (no per-device GET); a no-op apply sends no SET and the same
# number of requests for 2 devices as for 6 (one dump per family).
. "$(dirname "$0")/lib.sh"
i=1
while [ $i -le 8 ]; do
	veth_pair "rqa$i" "rqb$i"
	i=$((i + 1))
done
profile() {	# profile FILE FIRST LAST
	{
		printf 'apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: requests, host: any}\ntarget: linux\ninterfaces:\n'
		k=$2
		while [ "$k" -le "$3" ]; do
			echo "  - {name: rqa$k, mtu: 9000, offloads: {gro: on, tso: off, gso: off}, channels: {rx: 2, tx: 2}}"
			k=$((k + 1))
		done
	} > "$1"
}
profile "$WORK/p2.yaml" 1 2
profile "$WORK/p6.yaml" 3 8
# stat NAME FILE: the count of one request kind in the stats line (0 if absent)
stat() { sed -n "s/.*nettune stats:.* $1 \([0-9]*\).*/\1/p" "$2" | tail -1 | grep . || echo 0; }
total() { sed -n 's/.*nettune stats: netlink \([0-9]*\) (sets \([0-9]*\)).*/\1 \2/p' "$1" | tail -1; }
run() {	# run OUT PROFILE
	NETTUNE_STATS=1 nt apply --yes "$2" > "$1.out" 2> "$1" || { cat "$1.out" "$1"; fail "apply $2"; }
	grep -q "nettune stats:" "$1" || fail "no stats line with NETTUNE_STATS=1"
}
for n in 2 6; do
	run "$WORK/conv$n" "$WORK/p$n.yaml"
	for fam in features channels link; do
		expect_eq "$(stat "$fam-set" "$WORK/conv$n")" "$n" "$fam SETs of a converge of $n devices"
		expect_eq "$(stat "$fam-get" "$WORK/conv$n")" 0 "$fam per-device GETs of a converge of $n devices"
	done
	run "$WORK/noop$n" "$WORK/p$n.yaml"
	grep -q "Nothing to do" "$WORK/noop$n.out" || fail "second apply of $n devices is not a no-op"
	set -- $(total "$WORK/noop$n")
	expect_eq "$2" 0 "SETs of a no-op apply of $n devices"
	eval "noop_total$n=$1"
	# channels give each device's queue count: no queues/ listing per device
	eval "noop_dirs$n=\$(stat 'dir listings' \"\$WORK/noop$n\")"
	for fam in features channels link; do
		expect_eq "$(stat "$fam-dump" "$WORK/noop$n")" 1 "$fam dumps of a no-op apply of $n devices"
		expect_eq "$(stat "$fam-get" "$WORK/noop$n")" 0 "$fam GETs of a no-op apply of $n devices"
	done
	# converge: dumps do not grow with the device count either
	eval "conv_dumps$n=\$(( \$(stat features-dump \"\$WORK/conv$n\") + \$(stat channels-dump \"\$WORK/conv$n\") + \$(stat link-dump \"\$WORK/conv$n\") ))"
done
expect_eq "$noop_total6" "$noop_total2" "netlink requests of a no-op apply, 6 devices vs 2"
expect_eq "$noop_dirs6" "$noop_dirs2" "directory listings of a no-op apply, 6 devices vs 2"
expect_eq "$conv_dumps6" "$conv_dumps2" "dumps of a converge, 6 devices vs 2"
# the kernel holds what was asked
expect_eq "$(mtu rqa8)" 9000 "mtu of rqa8"
expect_eq "$(chan rqa8 RX)" 2 "rx channels of rqa8"
expect_eq "$(feature rqa8 generic-receive-offload)" on "gro of rqa8"
echo "ok: converge 1 SET per (device, family); no-op $noop_total2 requests for 2 and 6 devices, 0 SETs"
