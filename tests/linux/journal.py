#!/usr/bin/python3
"""Reads the apply journals of a state directory for the tests.

journal.py STATE_DIR FIELD [N]: FIELD (id, state, pid, netns, profile,
error, open, cause, changes: the number of entries) of the N-th newest journal by recorded creation time (0: newest);
'count' prints how many journals there are; 'wait STATE SECONDS' waits
until the newest journal is in STATE (exit 1 on timeout)."""
import json
import os
import sys
import time


def journals(state_dir):
    d = os.path.join(state_dir, "journal")
    out = []
    for name in os.listdir(d) if os.path.isdir(d) else []:
        if name.endswith(".json") and not name.startswith("."):
            with open(os.path.join(d, name)) as f:
                j = json.load(f)
            j["open"] = os.path.exists(os.path.join(d, name[:-5] + ".open"))
            out.append(j)
    out.sort(key=lambda j: (j["created_ns"], j["id"]), reverse=True)
    return out


def main():
    state_dir, field = sys.argv[1], sys.argv[2]
    if field == "count":
        print(len(journals(state_dir)))
        return 0
    if field == "wait":
        want, limit = sys.argv[3], time.monotonic() + float(sys.argv[4])
        while time.monotonic() < limit:
            js = journals(state_dir)
            if js and js[0]["state"] == want:
                return 0
            time.sleep(0.05)
        js = journals(state_dir)
        print("newest journal is %s, not %s" % (js[0]["state"] if js else "absent", want),
              file=sys.stderr)
        return 1
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    j = journals(state_dir)[n]
    if field == "netns":
        v = j["target"]["netns"]
    elif field == "changes":
        v = len(j["entries"])
    else:
        v = j.get(field) if field == "cause" else j[field]
    print("null" if v is None else str(v).lower() if isinstance(v, bool) else v)
    return 0


if __name__ == "__main__":
    sys.exit(main())
