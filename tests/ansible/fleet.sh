#!/bin/sh
# A fleet under the real ansible-playbook: the example playbook with the
# nettune.host collection installed from the built artifact, an inventory of
# 16 hosts (connection local), each mapped to its own network namespace with
# a veth pair (the module's netns option), 8 forks.  --check --diff shows
# every host's own diff and changes nothing; the first run changes every
# host; the second changes none; one host with an invalid profile fails
# alone, with its located error, while the others converge.  Results come
# from Ansible's JSON (tests/ansible/callback_plugins) and are read back
# with ip and ethtool in each namespace.
set -eu
: "${NETTUNE_COLLECTION:?}" "${SRCROOT:?}"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit 77; }
command -v ansible-playbook >/dev/null || { echo "SKIP: ansible-playbook missing"; exit 77; }
command -v ethtool >/dev/null || { echo "SKIP: ethtool missing"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
N=16
BAD=f07
TAG="ntf$$$(od -An -N2 -tx2 /dev/urandom | tr -d ' ')"
W=$(mktemp -d)
cleanup() {
	i=1
	while [ $i -le $N ]; do
		ip netns del "${TAG}h$i" 2>/dev/null || true
		i=$((i + 1))
	done
	rm -rf "$W"
}
trap cleanup EXIT INT TERM

mkdir -p "$W/inv/hosts" "$W/home" "$W/ans/local" "$W/ans/remote" "$W/ans/pc"
export HOME="$W/home" ANSIBLE_COLLECTIONS_PATH="$W/collections"
export ANSIBLE_LOCAL_TEMP="$W/ans/local" ANSIBLE_REMOTE_TEMP="$W/ans/remote"
export ANSIBLE_PERSISTENT_CONTROL_PATH_DIR="$W/ans/pc" ANSIBLE_CONFIG="$W/none.cfg"
export ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_LOCALHOST_WARNING=0
export ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3 ANSIBLE_DEPRECATION_WARNINGS=0
export ANSIBLE_CALLBACK_PLUGINS="$SRCROOT/tests/ansible/callback_plugins"
export ANSIBLE_STDOUT_CALLBACK=nettune_json ANSIBLE_FORKS=8 PYTHONDONTWRITEBYTECODE=1
ansible-galaxy collection install -p "$W/collections" "$NETTUNE_COLLECTION" > "$W/galaxy.log" 2>&1 ||
	{ cat "$W/galaxy.log" >&2; fail "ansible-galaxy collection install"; }

# host fNN: namespace ${TAG}hN with veths fa0/fb0; wants fa0 mtu 1300+N with
# GRO on, fb0 mtu 1200.  nettune_persist=false comes from the inventory
# (the playbook must not override it; if it did, the role would write
# below nettune_persist_root, checked at the end).
{
	echo "[fleet]"
	i=1
	while [ $i -le $N ]; do
		h=$(printf 'f%02d' $i)
		echo "$h nettune_netns=${TAG}h$i nettune_state_dir=$W/state/$h"
		i=$((i + 1))
	done
	echo "[fleet:vars]"
	echo "ansible_connection=local"
	echo "nettune_persist=false"
	echo "nettune_persist_root=$W/persist"
	echo "nettune_persist_enable=false"
} > "$W/inv/inventory.ini"
i=1
while [ $i -le $N ]; do
	h=$(printf 'f%02d' $i)
	ns="${TAG}h$i"
	ip netns add "$ns"
	ip -n "$ns" link add fa0 type veth peer name fb0
	ip -n "$ns" link set fa0 up
	ip -n "$ns" link set fb0 up
	ip netns exec "$ns" ethtool -K fa0 gro off
	if [ "$h" = "$BAD" ]; then
		printf 'apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: %s, host: any}\ntarget: linux\ninterfaces:\n  - name: fa0\n    mtuu: %d\n' \
			"$h" $((1300 + i)) > "$W/inv/hosts/$h.yaml"
	else
		printf 'apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: %s, host: any}\ntarget: linux\ninterfaces:\n  - {name: fa0, mtu: %d, offloads: {gro: on}}\n  - {name: fb0, mtu: 1200}\n' \
			"$h" $((1300 + i)) > "$W/inv/hosts/$h.yaml"
	fi
	i=$((i + 1))
done

# play NAME [options]: the example playbook on the fleet; JSON in $W/NAME.json
play() {
	name=$1
	shift
	rc=0
	ansible-playbook -i "$W/inv/inventory.ini" "$SRCROOT/examples/ansible/site.yml" \
		-e nettune_hosts=fleet "$@" > "$W/$name.json" 2> "$W/$name.err" || rc=$?
	cp "$W/$name.json" "$W/last.json"
}
# check RUN-KIND: asserts the per-host results of the converge task and the
# stats of the last run (python reads Ansible's JSON)
check() {
	python3 - "$W/last.json" "$1" "$N" "$BAD" "$W/inv/hosts" <<'PY'
import json, sys
doc_path, kind, n, bad, hosts_dir = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
doc = json.load(open(doc_path))
conv = [t for p in doc["plays"] for t in p["tasks"] if t["task"]["name"] == "Converge the host profile"]
assert len(conv) == 1, [t["task"]["name"] for p in doc["plays"] for t in p["tasks"]]
res = conv[0]["hosts"]
# the inventory's nettune_persist=false holds (the playbook sets no play vars
# that would override it): the persist role is skipped on every host
persist = [t for p in doc["plays"] for t in p["tasks"] if t["task"]["name"] == "Persist across reboots and hotplug"]
assert persist and all(r.get("skipped") for t in persist for r in t["hosts"].values()), persist
others = [t["task"]["name"] for p in doc["plays"] for t in p["tasks"] if "persist" in t["task"]["name"] and t not in persist]
assert not others, others
names = ["f%02d" % i for i in range(1, n + 1)]
assert sorted(res) == names, sorted(res)
stats = doc["stats"]
for i, h in enumerate(names, 1):
    r = res[h]
    if h == bad:
        assert r.get("failed") is True, (h, r)
        want = "%s/%s.yaml:7:5: error: unknown key 'mtuu'" % (hosts_dir, h)
        assert want in r["msg"], (h, r["msg"])
        assert stats[h]["failures"] == 1 and stats[h]["changed"] == 0, (h, stats[h])
        continue
    assert not r.get("failed"), (h, r.get("msg"))
    assert stats[h]["failures"] == 0, (h, stats[h])
    if kind in ("check", "apply"):
        assert r["changed"] is True and r["changes"] == 3, (h, r)
        assert stats[h]["changed"] >= 1, (h, stats[h])
        mtu = [a for a in r["actions"] if a["object"] == "fa0" and a["attribute"] == "mtu"]
        assert mtu and mtu[0]["from"] == 1500 and mtu[0]["to"] == 1300 + i, (h, r["actions"])
    if kind == "check":
        # this host's own diff: its own MTU, observed before, profile after
        d = r["diff"]
        assert "fa0 mtu = 1500\n" in d["before"] and "fa0 feature rx-gro = off\n" in d["before"], (h, d)
        assert "fa0 mtu = %d\n" % (1300 + i) in d["after"] and "fb0 mtu = 1200\n" in d["after"], (h, d)
        assert r["msg"] == "check mode: 3 changes would be made", (h, r["msg"])
    if kind == "apply":
        assert r["msg"] == "applied 3 changes", (h, r["msg"])
    if kind == "again":
        assert r["changed"] is False and r["actions"] == [], (h, r)
        assert r["msg"] == "the host already matches the profile", (h, r["msg"])
        assert stats[h]["changed"] == 0, (h, stats[h])
PY
}
# readback WANT-CONVERGED: MTU and GRO in every namespace
readback() {
	i=1
	while [ $i -le $N ]; do
		h=$(printf 'f%02d' $i)
		ns="${TAG}h$i"
		m=$(ip -n "$ns" -o link show fa0 | sed -n 's/.* mtu \([0-9]*\) .*/\1/p')
		mb=$(ip -n "$ns" -o link show fb0 | sed -n 's/.* mtu \([0-9]*\) .*/\1/p')
		g=$(ip netns exec "$ns" ethtool -k fa0 | sed -n 's/^generic-receive-offload: \([a-z]*\).*/\1/p')
		if [ "$1" = yes ] && [ "$h" != "$BAD" ]; then
			[ "$m/$mb/$g" = "$((1300 + i))/1200/on" ] || fail "$h: fa0 mtu/fb0 mtu/gro = $m/$mb/$g, expected $((1300 + i))/1200/on"
		else
			[ "$m/$mb/$g" = "1500/1500/off" ] || fail "$h: changed (mtu/mtu/gro = $m/$mb/$g)"
		fi
		i=$((i + 1))
	done
}

t0=$(date +%s)
play check --check --diff
[ "$rc" -eq 2 ] || { tail -20 "$W/check.err" >&2; fail "check run exited $rc, expected 2 (one host failed)"; }
check check || fail "check --diff results"
readback no
[ ! -d "$W/state/f01/journal" ] || fail "check mode wrote a journal"

play apply
[ "$rc" -eq 2 ] || { tail -20 "$W/apply.err" >&2; fail "apply run exited $rc, expected 2 (one host failed)"; }
check apply || fail "first run results"
readback yes

play again
[ "$rc" -eq 2 ] || { tail -20 "$W/again.err" >&2; fail "second run exited $rc, expected 2 (one host failed)"; }
check again || fail "second run results"
readback yes
# the inventory's nettune_persist=false held: the role installed nothing
[ ! -e "$W/persist" ] || fail "the persist role ran although the inventory sets nettune_persist=false"
echo "ok: $N hosts, 8 forks: check+diff per host, first run changed $((N - 1)), second none, $BAD failed alone (3 runs in $(($(date +%s) - t0)) s)"
