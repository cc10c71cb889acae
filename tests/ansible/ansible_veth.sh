#!/bin/sh
# The Ansible binary module under the real ansible-playbook: the example
# playbook, with the nettune.host collection installed by ansible-galaxy
# from the built artifact, against localhost (connection local) acting on a
# veth pair in a private network namespace; then the persist role into a
# scratch root.  Ansible is configured with environment variables only;
# HOME points into the test's directory.
. "$SRCROOT/tests/linux/lib.sh"
: "${NETTUNE_COLLECTION:?}"
command -v ansible-playbook >/dev/null || { echo "SKIP: ansible-playbook missing"; exit 77; }

veth_pair nva0 nvb0
mkdir -p "$WORK/home" "$WORK/ans/local" "$WORK/ans/remote" "$WORK/ans/pc"
export HOME="$WORK/home" ANSIBLE_COLLECTIONS_PATH="$WORK/collections"
ansible-galaxy collection install -p "$WORK/collections" "$NETTUNE_COLLECTION" > "$WORK/galaxy.log" 2>&1 ||
	{ cat "$WORK/galaxy.log" >&2; fail "ansible-galaxy collection install"; }
ansible-doc nettune.host.nettune > "$WORK/doc" 2>&1 || { cat "$WORK/doc" >&2; fail "ansible-doc nettune.host.nettune"; }
grep -q "state_dir" "$WORK/doc" || fail "ansible-doc shows no state_dir option"
export ANSIBLE_LOCAL_TEMP="$WORK/ans/local" ANSIBLE_REMOTE_TEMP="$WORK/ans/remote"
export ANSIBLE_PERSISTENT_CONTROL_PATH_DIR="$WORK/ans/pc" ANSIBLE_CONFIG="$WORK/none.cfg"
export ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_LOCALHOST_WARNING=0
export ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3 ANSIBLE_DEPRECATION_WARNINGS=0
# ansible-core has no JSON stdout callback of its own (ansible.posix has)
export ANSIBLE_CALLBACK_PLUGINS="$SRCROOT/tests/ansible/callback_plugins"
export PYTHONDONTWRITEBYTECODE=1
printf 'localhost ansible_connection=local\n' > "$WORK/inventory"

cat > "$WORK/host.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: ansible-veth, host: any}
target: linux
interfaces:
  - {name: nva0, mtu: 1300, offloads: {gro: on}}
  - {name: nvb0, mtu: 1200}
YAML
cat > "$WORK/bad.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: ansible-veth, host: any}
target: linux
interfaces:
  - name: nva0
    mtuu: 1300
YAML

# play [nettune_json|default] PROFILE [ansible-playbook options...]: runs the
# example playbook; stdout to $WORK/out, exit status kept in $rc
play() {
	cb=$1 prof=$2
	shift 2
	rc=0
	ANSIBLE_STDOUT_CALLBACK=$cb ansible-playbook -i "$WORK/inventory" \
		"$SRCROOT/examples/ansible/site.yml" -e nettune_hosts=localhost \
		-e nettune_profile="$prof" -e nettune_netns="$NS" \
		-e nettune_state_dir="$WORK/state" -e nettune_persist=false "$@" \
		> "$WORK/out" 2> "$WORK/err" || rc=$?
}
# task FIELD: FIELD of the nettune task's result for localhost (JSON)
task() {
	python3 - "$WORK/out" "$1" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for play in doc["plays"]:
    for t in play["tasks"]:
        if t["task"]["name"] == "Converge the host profile":
            print(json.dumps(t["hosts"]["localhost"].get(sys.argv[2])))
PY
}
stat_of() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["stats"]["localhost"][sys.argv[2]])' \
		"$WORK/out" "$1"
}

# 1. check mode: reports the change, makes none
play nettune_json "$WORK/host.yaml" --check
[ "$rc" -eq 0 ] || { cat "$WORK/out" "$WORK/err" >&2; fail "check run exited $rc"; }
expect_eq "$(task changed)" true "check mode: changed"
expect_eq "$(task changes)" 3 "check mode: number of actions"
task actions | grep -q '"object": "nva0", "attribute": "mtu", "from": 1500, "to": 1300' ||
	fail "check mode: the mtu action of nva0 is missing: $(task actions)"
expect_eq "$(mtu nva0)" 1500 "check mode changed the MTU"
expect_eq "$(feature nva0 generic-receive-offload)" off "check mode changed GRO"
[ ! -d "$WORK/state/journal" ] || fail "check mode wrote a journal"

# 2. diff mode, as a person reads it (default callback): one line per setting
play default "$WORK/host.yaml" --check --diff
[ "$rc" -eq 0 ] || { cat "$WORK/out" "$WORK/err" >&2; fail "diff run exited $rc"; }
grep -qx -- '-nva0 mtu = 1500' "$WORK/out" || fail "diff: no before line for nva0 mtu"
grep -qx -- '+nva0 mtu = 1300' "$WORK/out" || fail "diff: no after line for nva0 mtu"
grep -qx -- '-nva0 feature rx-gro = off' "$WORK/out" || fail "diff: no before line for rx-gro"
grep -qx -- '+nva0 feature rx-gro = on' "$WORK/out" || fail "diff: no after line for rx-gro"
grep -q 'changed: \[localhost\]' "$WORK/out" || fail "diff: task not reported changed"
expect_eq "$(mtu nvb0)" 1500 "check+diff mode changed nvb0"

# 2b. state=planned: the plan, never a change (not even reported as one)
play nettune_json "$WORK/host.yaml" -e nettune_state=planned
[ "$rc" -eq 0 ] || { cat "$WORK/out" "$WORK/err" >&2; fail "planned run exited $rc"; }
expect_eq "$(task changed)" false "state=planned: changed"
expect_eq "$(task changes)" 3 "state=planned: number of actions"
expect_eq "$(task msg)" '"3 changes pending"' "state=planned: msg"
expect_eq "$(mtu nva0)" 1500 "state=planned changed the MTU"

# 3. apply: changed, and the kernel shows it
play nettune_json "$WORK/host.yaml"
[ "$rc" -eq 0 ] || { cat "$WORK/out" "$WORK/err" >&2; fail "apply run exited $rc"; }
expect_eq "$(task changed)" true "apply: changed"
expect_eq "$(task msg)" '"applied 3 changes"' "apply: msg"
expect_eq "$(mtu nva0)" 1300 "apply: nva0 MTU"
expect_eq "$(mtu nvb0)" 1200 "apply: nvb0 MTU"
expect_eq "$(feature nva0 generic-receive-offload)" on "apply: nva0 GRO"
ls "$WORK/state/journal/"*.json >/dev/null 2>&1 || fail "apply: no journal in state_dir"

# 4. second run: ok, not changed, nothing to do
play nettune_json "$WORK/host.yaml" --diff
[ "$rc" -eq 0 ] || fail "second run exited $rc"
expect_eq "$(task changed)" false "second run: changed"
expect_eq "$(task actions)" "[]" "second run: actions"
expect_eq "$(stat_of changed)" 0 "second run: stats changed"
expect_eq "$(stat_of ok)" 1 "second run: stats ok"

# 5. a bad profile fails the task with the located diagnostic
play nettune_json "$WORK/bad.yaml"
[ "$rc" -eq 2 ] || fail "bad profile: ansible-playbook exited $rc, expected 2 (task failed)"
expect_eq "$(task failed)" true "bad profile: failed"
task msg | grep -qF "$WORK/bad.yaml:7:5: error: unknown key 'mtuu'" ||
	fail "bad profile: msg lacks the located diagnostic: $(task msg)"
expect_eq "$(stat_of failures)" 1 "bad profile: stats failures"
expect_eq "$(mtu nva0)" 1300 "bad profile changed something"

# 6. netns confines or refuses: a host-wide sysctl fails the task, located,
# and changes nothing on the host or in the namespace
cat > "$WORK/hostwide.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: ansible-veth, host: any}
target: linux
sysctl:
  vm.swappiness: "17"
interfaces:
  - {name: nva0, mtu: 1400}
YAML
swappiness=$(sysctl -n vm.swappiness)
play nettune_json "$WORK/hostwide.yaml"
[ "$rc" -eq 2 ] || fail "host-wide sysctl: ansible-playbook exited $rc, expected 2 (task failed)"
expect_eq "$(task failed)" true "host-wide sysctl: failed"
task msg | grep -qF "$WORK/hostwide.yaml:6:18: error: sysctl vm.swappiness is host-wide: --netns $NS would change the whole host; remove it or apply without --netns" ||
	fail "host-wide sysctl: msg lacks the located refusal: $(task msg)"
expect_eq "$(sysctl -n vm.swappiness)" "$swappiness" "host-wide sysctl: host swappiness"
expect_eq "$(mtu nva0)" 1300 "host-wide sysctl: the namespace changed"

# 7. persistence: the role installs the static CLI, the profile, the units
# (ExecStart under nettune_bindir) and the udev rule into a scratch root;
# a second run changes nothing
play nettune_json "$WORK/host.yaml" -e nettune_persist=true -e nettune_persist_root="$WORK/root" \
	-e nettune_persist_enable=false -e nettune_bindir=/opt/nt/bin
[ "$rc" -eq 0 ] || { cat "$WORK/out" "$WORK/err" >&2; fail "persist run exited $rc"; }
R="$WORK/root"
cmp -s "$WORK/host.yaml" "$R/etc/nettune/host.yaml" || fail "persist: /etc/nettune/host.yaml"
[ -x "$R/opt/nt/bin/nettune" ] || fail "persist: no nettune CLI in nettune_bindir"
"$R/opt/nt/bin/nettune" --version | grep -q "nettune" || fail "persist: installed CLI does not run"
grep -qx 'ExecStart=/opt/nt/bin/nettune apply --yes --skip-missing --wait 120 /etc/nettune/host.yaml' \
	"$R/etc/systemd/system/nettune.service" || fail "persist: nettune.service ExecStart"
grep -q '^ExecStart=/opt/nt/bin/nettune apply --yes --only %i ' "$R/etc/systemd/system/nettune@.service" ||
	fail "persist: nettune@.service ExecStart"
cmp -s "$SRCROOT/dist/udev/80-nettune.rules" "$R/etc/udev/rules.d/80-nettune.rules" ||
	fail "persist: udev rule"
play nettune_json "$WORK/host.yaml" -e nettune_persist=true -e nettune_persist_root="$WORK/root" \
	-e nettune_persist_enable=false -e nettune_bindir=/opt/nt/bin
[ "$rc" -eq 0 ] || fail "second persist run exited $rc"
expect_eq "$(stat_of changed)" 0 "second persist run: stats changed"
grep -qx 'ExecStart=/opt/nt/bin/nettune agent --metrics /var/lib/prometheus/node-exporter/nettune.prom /etc/nettune/host.yaml' \
	"$R/etc/systemd/system/nettune-agent.service" || fail "persist: nettune-agent.service ExecStart"
# nettune_persist_agent: the agent unit in place of the udev rule
play nettune_json "$WORK/host.yaml" -e nettune_persist=true -e nettune_persist_root="$WORK/root" \
	-e nettune_persist_enable=false -e nettune_bindir=/opt/nt/bin -e nettune_persist_agent=true
[ "$rc" -eq 0 ] || { cat "$WORK/out" "$WORK/err" >&2; fail "persist run with the agent exited $rc"; }
[ ! -e "$R/etc/udev/rules.d/80-nettune.rules" ] || fail "persist with the agent: the udev rule is still there"
[ -f "$R/etc/systemd/system/nettune-agent.service" ] || fail "persist with the agent: no nettune-agent.service"

# nothing under the real HOME: Ansible wrote only below $WORK
[ ! -e "$WORK/home/.ansible" ] || [ -z "$(find "$WORK/home/.ansible" -type f)" ] ||
	echo "note: ansible wrote $(find "$WORK/home/.ansible" -type f | head -3) (inside the test HOME)"
# 8. the role checks its variables (meta/argument_specs.yml): a string
# where a bool belongs fails naming the variable instead of reading as false
play nettune_json "$WORK/host.yaml" -e nettune_persist=true -e nettune_persist_root="$WORK/root2" \
	-e nettune_persist_enable=false -e nettune_bindir=/opt/nt/bin -e nettune_persist_install_binary=maybe
[ "$rc" -ne 0 ] || fail "persist role took nettune_persist_install_binary=maybe"
grep -q "nettune_persist_install_binary" "$WORK/out" ||
	{ cat "$WORK/out" >&2; fail "persist role: the refusal does not name the variable"; }
[ ! -e "$WORK/root2/etc/nettune/host.yaml" ] || fail "persist role installed files despite a bad variable"
# 9. the collection declares the ansible-core it needs (meta/runtime.yml)
# and its unpacked tree builds again with ansible-galaxy itself
mkdir "$WORK/unpacked"
tar -xzf "$NETTUNE_COLLECTION" -C "$WORK/unpacked"
grep -q '^requires_ansible: ">=2\.[0-9]*' "$WORK/unpacked/meta/runtime.yml" 2>/dev/null ||
	fail "collection: no meta/runtime.yml with requires_ansible"
# galaxy.yml: optional keys are left out, not null (Galaxy's schema wants
# strings), and a changelog ships
python3 -c 'import sys, yaml; g = yaml.safe_load(open(sys.argv[1])); n = [k for k, v in g.items() if v is None]; sys.exit("null keys: %s" % n if n else 0 if isinstance(g.get("repository"), str) else "no repository")' \
	"$WORK/unpacked/galaxy.yml" || fail "collection: galaxy.yml has null values"
[ -s "$WORK/unpacked/CHANGELOG.md" ] || fail "collection: no CHANGELOG.md"
rm "$WORK/unpacked/MANIFEST.json" "$WORK/unpacked/FILES.json"
ansible-galaxy collection build --output-path "$WORK" "$WORK/unpacked" > "$WORK/build.log" 2>&1 ||
	{ cat "$WORK/build.log" >&2; fail "ansible-galaxy collection build of the unpacked collection"; }
echo "ok: collection installed; ansible-playbook check, diff, apply, idempotent re-run, located failure, netns refusal, persist role"
