#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Converts `nettune validate --format json` (stdin) into a GitLab Code
Quality report (stdout): one issue per diagnostic.
Usage: nettune validate --format json FILE... | codequality.py > gl-code-quality.json

location.path is relative to the project directory ($CI_PROJECT_DIR, else
the current one) without a leading "./", as GitLab matches it against the
repository's files.  The fingerprint, which GitLab compares between the
merge request and its target branch to tell new issues from fixed ones,
is unique in the report and stable when lines move: a hash of the path,
rule, message and how many identical issues came before it, not of the
line number.
"""
import hashlib
import json
import os
import sys

SEVERITY = {"error": "major", "warning": "minor", "note": "info"}


def rel_path(path, root):
    if os.path.isabs(path):
        r = os.path.relpath(os.path.realpath(path), root)
        if not r.startswith(".." + os.sep) and r != "..":
            path = r
    else:
        path = os.path.normpath(path)
    return path


def main():
    doc = json.load(sys.stdin)
    root = os.path.realpath(os.environ.get("CI_PROJECT_DIR") or os.getcwd())
    out = []
    seen = {}
    for d in doc.get("diagnostics", []):
        path = rel_path(d.get("file") or "nettune", root)
        rule = d.get("rule") or "error"
        key = "\0".join((path, rule, d.get("message", "")))
        n = seen.get(key, 0)
        seen[key] = n + 1
        out.append({
            "description": d.get("message", ""),
            "check_name": "nettune/" + rule,
            "fingerprint": hashlib.sha256(("%s\0%d" % (key, n)).encode()).hexdigest(),
            "severity": SEVERITY.get(d.get("severity"), "info"),
            "location": {"path": path, "lines": {"begin": max(1, d.get("line") or 1)}},
        })
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
