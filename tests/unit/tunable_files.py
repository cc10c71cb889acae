#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Counts the C source files (*.c, *.h, *.def outside tests/, bench/, fuzz/)
that spell each tunable of README.md's "Adding a tunable" table, comments
left out, and fails when a tunable is spelled in more files than the table
says.  Usage: tunable_files.py SRCROOT [--print]

The rule: every word of a file (identifiers, and the words of string
literals, `-` joining a word such as rx-udp-gro-forwarding) is split into
components at `_`, at `-` and where lower case turns to upper case
(txQueueLen: tx, queue, len), compared without case.  A file spells a
tunable when one of its words holds the components of one of the
table's identifiers, in order and side by side: `txqlen` counts in
NT_K_TXQLEN and nt_txqlen_set, `pause` in pause_args and
ETHTOOL_MSG_PAUSE_GET, `flow_hash` in NT_K_FLOW_HASH but not in
flow_args.  A spelling joined differently (flowhash, privflag) is a
different component and needs its own identifier in the table."""
import os
import re
import sys

SKIP_DIRS = {"tests", "bench", "fuzz", "build", ".git", "subprojects"}


def strip_comments(text):
    # C comments out, string and character literals kept
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            out.append(" ")
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def sources(root):
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS and not x.startswith("build"))
        for f in sorted(files):
            if f.endswith((".c", ".h", ".def")):
                p = os.path.join(d, f)
                with open(p, encoding="utf-8", errors="replace") as fh:
                    yield os.path.relpath(p, root), strip_comments(fh.read())


def table(root):
    """rows of README.md's table: (tunable, [identifiers], stated count)"""
    with open(os.path.join(root, "docs", "HACKING.md"), encoding="utf-8") as fh:
        text = fh.read()
    sec = text.split("### Adding a tunable", 1)
    if len(sec) != 2:
        sys.exit("README.md has no '### Adding a tunable' section")
    rows = []
    for line in sec[1].split("\n## ", 1)[0].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        ids = re.findall(r"`([^`]+)`", cells[1])
        rows.append((cells[0].strip("`"), ids, int(cells[2])))
    if len(rows) < 6:
        sys.exit("README.md's tunable table has %d rows, expected the 6 tunables" % len(rows))
    return rows


WORD = re.compile(r"[A-Za-z0-9_]+(?:-[A-Za-z0-9_]+)*")


def components(word):
    """txQueueLen_max-x -> ['tx', 'queue', 'len', 'max', 'x']"""
    word = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", word)
    return [c.lower() for c in re.split(r"[_-]+", word) if c]


def holds(comps, want):
    n = len(want)
    return any(comps[i:i + n] == want for i in range(len(comps) - n + 1))


def spells(text, wants):
    for w in set(WORD.findall(text)):
        comps = components(w)
        if any(holds(comps, want) for want in wants):
            return True
    return False


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    files = list(sources(root))
    bad = 0
    for name, ids, stated in table(root):
        wants = [components(i) for i in ids]
        hit = [p for p, t in files if spells(t, wants)]
        ok = len(hit) <= stated
        bad += not ok
        print("%s %s: %d file(s), README says at most %d: %s"
              % ("ok  " if ok else "FAIL", name, len(hit), stated, " ".join(hit)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
