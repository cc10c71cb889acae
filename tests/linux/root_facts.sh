#!/bin/sh
# Under --root the host name and kernel release come from the image
# (DIR/proc/sys/kernel/hostname and osrelease, else DIR/etc/hostname), never
# from the running machine, and are unknown when the image has neither; the
# image's kernel is the one the ring rules keyed on kernel versions use.
set -eu
: "${NETTUNE:?}" "${SRCROOT:?}"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT INT TERM
export NETTUNE_STATE_DIR="$WORK/state"
fail() { echo "FAIL: $*" >&2; exit 1; }
host() { python3 -c 'import json,sys; h=json.load(open(sys.argv[1]))["host"]; print(h.get("name", "-"), h.get("kernel", "-"))' "$1"; }

python3 "$SRCROOT/tests/fixtures/mkroot.py" "$WORK/a" --queues 4 \
	--hostname image-host --kernel 5.15.0-91-generic --etc-hostname not-this
"$NETTUNE" --root "$WORK/a" observe --json > "$WORK/a.json" || fail "observe a"
got=$(host "$WORK/a.json")
[ "$got" = "image-host 5.15.0-91-generic" ] || fail "a: host/kernel '$got'"

python3 "$SRCROOT/tests/fixtures/mkroot.py" "$WORK/b" --queues 4 --etc-hostname etc-host
"$NETTUNE" --root "$WORK/b" observe --json > "$WORK/b.json" || fail "observe b"
got=$(host "$WORK/b.json")
[ "$got" = "etc-host -" ] || fail "b: host/kernel '$got' (want /etc/hostname, no kernel)"

python3 "$SRCROOT/tests/fixtures/mkroot.py" "$WORK/c" --queues 4
"$NETTUNE" --root "$WORK/c" observe --json > "$WORK/c.json" || fail "observe c"
got=$(host "$WORK/c.json")
[ "$got" = "- -" ] || fail "c: host/kernel '$got' (want both unknown, not this machine's)"

# the X710 table's 8160-descriptor maximum holds from 6.8 (and 5.15.194):
# the image's 5.15.0 kernel allows 4096, whatever this machine runs
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: image-host}
target: linux
interfaces:
  - name: enp1s0f0
    rings: {rx: 8160}
YAML
rc=0; "$NETTUNE" --root "$WORK/a" plan "$WORK/p.yaml" > /dev/null 2> "$WORK/err" || rc=$?
[ "$rc" -eq 1 ] || fail "plan on the 5.15 image: exit $rc, want 1"
grep -q "rings.rx = 8160 exceeds the intel-x710 maximum of 4096 on kernel 5.15.0-91-generic" \
	"$WORK/err" || { cat "$WORK/err"; fail "plan on the 5.15 image: no kernel-keyed ring error"; }
echo "ok root_facts"
