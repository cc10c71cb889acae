#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Converts `nettune validate --format json` (stdin) into a GitLab Code
Quality report (stdout): one issue per diagnostic, with a stable fingerprint.
Usage: nettune validate --format json FILE... | codequality.py > gl-code-quality.json
"""
import hashlib
import json
import sys

SEVERITY = {"error": "major", "warning": "minor", "note": "info"}


def main():
    doc = json.load(sys.stdin)
    out = []
    for d in doc.get("diagnostics", []):
        key = "%s:%s:%s:%s" % (d["file"], d["rule"], d.get("line", 0), d["message"])
        out.append({
            "description": d["message"],
            "check_name": "nettune/" + d["rule"],
            "fingerprint": hashlib.sha256(key.encode()).hexdigest(),
            "severity": SEVERITY.get(d.get("severity"), "info"),
            "location": {"path": d["file"], "lines": {"begin": max(1, d.get("line") or 1)}},
        })
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
