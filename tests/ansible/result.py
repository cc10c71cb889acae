#!/usr/bin/python3
"""Reads the module's stdout for the tests.

result.py OUT FIELD: checks that OUT holds exactly one JSON object (one
line of JSON and its newline, nothing before or after) with every key of
nettune.yml's RETURN that is returned always, and prints FIELD of it as
JSON ('-' prints nothing: the check alone)."""
import json
import sys

ALWAYS = ("changed", "failed", "outcome", "msg", "journal", "journal_state", "signal",
          "not_restored", "warnings", "actions", "changes", "disruptive")
OUTCOMES = ("not-applied", "planned", "unchanged", "converged", "rolled-back",
            "rollback-incomplete")


def load(path):
    """The one result object of path, or exit with what is wrong."""
    text = open(path, encoding="utf-8").read()
    if not text.endswith("}\n"):
        sys.exit("stdout does not end with one JSON object and a newline: %r" % text[-200:])
    try:
        res = json.loads(text)
    except ValueError as e:
        sys.exit("stdout is not exactly one JSON object (%s): %r" % (e, text[:300]))
    if not isinstance(res, dict):
        sys.exit("stdout holds %s, not an object" % type(res).__name__)
    missing = [k for k in ALWAYS if k not in res]
    if missing:
        sys.exit("result lacks %s" % ", ".join(missing))
    if res["outcome"] not in OUTCOMES:
        sys.exit("unknown outcome %r" % res["outcome"])
    return res


def main():
    res = load(sys.argv[1])
    if sys.argv[2] != "-":
        print(json.dumps(res[sys.argv[2]]))


if __name__ == "__main__":
    main()
