#!/usr/bin/python3
"""One case of module_faults.sh's signal loop, checked in one process.

fault_case.py OUT STATE_DIR RC SIG: the module's stdout OUT is exactly one
result object (result.py's checks) saying the apply was interrupted by SIG
and rolled back, exit status RC was 1, and the newest journal of STATE_DIR
is the one the result names, failed, its open marker gone.  Prints what
differs, exit 1; nothing and exit 0 when all holds."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "linux"))
import journal  # noqa: E402
import result  # noqa: E402


def main():
    out, state_dir, rc, sig = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    res = result.load(out)
    js = journal.journals(state_dir)
    newest = js[0] if js else {}
    want = {
        "exit status": (rc, 1),
        "outcome": (res["outcome"], "rolled-back"),
        "failed": (res["failed"], True),
        "changed": (res["changed"], False),
        "signal": (res["signal"], sig),
        "journal id": (res["journal"], newest.get("id")),
        "journal_state": (res["journal_state"], "failed"),
        "not_restored": (res["not_restored"], []),
        "journal on disk": (newest.get("state"), "failed"),
        "open marker": (newest.get("open"), False),
    }
    bad = ["%s: expected %r, got %r" % (k, w, g) for k, (g, w) in want.items() if g != w]
    prefix = "interrupted by signal %d; rolled back: the host is as before" % sig
    if not str(res["msg"]).startswith(prefix):
        bad.append("msg: %r does not start with %r" % (res["msg"], prefix))
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
