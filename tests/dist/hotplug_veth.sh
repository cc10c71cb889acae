#!/bin/sh
# What the boot service and the udev-started instance run: apply
# --skip-missing with an interface not there yet, then the interface
# appears and apply --only applies exactly it.
. "$SRCROOT/tests/linux/lib.sh"
veth_pair hpa0 hpb0
cat > "$WORK/host.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: hotplug, host: any}
target: linux
interfaces:
  - {name: hpa0, mtu: 1300}
  - {name: hpc0, mtu: 1280, offloads: {gro: on}}
YAML
# without --skip-missing the missing interface is an error and nothing changes
rc=0
nt apply --yes "$WORK/host.yaml" > "$WORK/o" 2> "$WORK/e" || rc=$?
expect_eq "$rc" 1 "apply with a missing interface: exit status"
grep -q "host.yaml:7:12: error: interface hpc0 does not exist on this host" "$WORK/e" ||
	fail "missing interface: no located error: $(cat "$WORK/e")"
expect_eq "$(mtu hpa0)" 1500 "failed apply changed hpa0"
# boot: present interfaces converge, the missing one is a warning
nt apply --yes --skip-missing "$WORK/host.yaml" > "$WORK/o" 2> "$WORK/e"
grep -q "host.yaml:7:12: warning: interface hpc0 does not exist on this host yet" "$WORK/e" ||
	fail "--skip-missing: no warning: $(cat "$WORK/e")"
expect_eq "$(mtu hpa0)" 1300 "--skip-missing: hpa0 MTU"
# hotplug: hpc0 appears; the udev-started instance applies only it
ip -n "$NS" link add hpc0 type veth peer name hpd0
ip -n "$NS" link set hpa0 mtu 1400
nt apply --yes --only hpc0 "$WORK/host.yaml" > "$WORK/o" 2> "$WORK/e"
expect_eq "$(mtu hpc0)" 1280 "--only hpc0: MTU"
expect_eq "$(feature hpc0 generic-receive-offload)" on "--only hpc0: GRO"
expect_eq "$(mtu hpa0)" 1400 "--only hpc0 touched hpa0"
# a second udev event (rename back, rebind) finds nothing to do
nt apply --yes --only hpc0 "$WORK/host.yaml" > "$WORK/o"
grep -q "Nothing to do" "$WORK/o" || fail "second --only run was not a no-op: $(cat "$WORK/o")"
echo "ok: --skip-missing at boot, --only on hotplug"
