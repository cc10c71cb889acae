# Helpers of the tests that run the Ansible module directly, as Ansible
# runs a binary module: MODULE ARGSFILE (sourced after tests/linux/lib.sh).
: "${NETTUNE_ANSIBLE:?}"
# margs FILE [KEY VALUE]...: an arguments file for the namespace and the
# test's state directory, with the extra string arguments given
margs() {
	_margs_file=$1
	shift
	python3 - "$_margs_file" "$NS" "$NETTUNE_STATE_DIR" "$@" <<'PY'
import json, sys
f, ns, sd, rest = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
a = {"netns": ns, "state_dir": sd, "_ansible_check_mode": False, "_ansible_diff": False}
a.update(zip(rest[::2], rest[1::2]))
json.dump(a, open(f, "w"))
PY
}
# res FIELD: FIELD of the result in $WORK/res, after checking that it is
# exactly one JSON object
res() { python3 "$SRCROOT/tests/ansible/result.py" "$WORK/res" "$1"; }
# runm ARGSFILE [env/strace prefix...]: runs the module, stdout to
# $WORK/res, exit status in $rc
runm() {
	_runm_args=$1
	shift
	rc=0
	"$@" "$NETTUNE_ANSIBLE" "$_runm_args" > "$WORK/res" 2> "$WORK/reserr" || rc=$?
	res - > /dev/null 2> "$WORK/check" ||
		{ cat "$WORK/check" "$WORK/reserr" >&2; fail "rc $rc: $(cat "$WORK/check")"; }
}
sysctl_of() { nsx sysctl -n "$1"; }
# journals: how many journals the state directory holds
journals() { jr count; }
