#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The include layers: every #include "..." of the C sources must point
down (or sideways within a folder), never up.

compiler/ is five layers, lowest first: base, language, model, passes,
formats; a file includes only headers of its own folder or the folders
below it.  Above compiler/: report/, then appliers/, then pipeline/, then
agent/ (the long-running agent, on the pipeline and the transaction),
then the front ends cli/ and ansible/ (which do not include each other).
The
Linux applier includes nothing from compiler/language or compiler/passes:
pipeline/want.c tells it what to observe (struct nt_observe_req of
appliers/linux/linux.h), and pipeline/emit_profile.c what the script
emitters read of the profile (struct nt_emit_profile of appliers/emit.h).

Prints FILE:LINE: 'X' includes 'Y' (LAYER a above b) for each upward
include and exits 1."""
import os
import re
import sys

COMPILER = ["base", "language", "model", "passes", "formats"]
# rank of each area: an include may go to the same or a lower rank only
RANK = {"compiler/" + d: i for i, d in enumerate(COMPILER)}
RANK.update({"report": 10, "appliers": 20, "pipeline": 30, "agent": 35, "cli": 40,
             "ansible": 40})
SCANNED = ["compiler", "pipeline", "appliers", "report", "agent", "cli", "ansible"]
# the include path of meson.build, for includes that name no folder
INCDIRS = ["", "compiler"] + ["compiler/" + d for d in COMPILER]
# appliers/ reads the model, never the language or the passes
APPLIER_BANNED = ["compiler/language", "compiler/passes"]

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def area(rel):
    """The layer a repository path belongs to, or None (not layered)."""
    parts = rel.split("/")
    if parts[0] == "compiler" and len(parts) > 2 and parts[1] in COMPILER:
        return "compiler/" + parts[1]
    return parts[0] if parts[0] in RANK else None


def layer(a):
    return a.split("/")[-1]


def resolve(root, src, name):
    """The repository path an include names, or None (a generated file)."""
    cand = os.path.normpath(os.path.join(os.path.dirname(src), name))
    if os.path.isfile(os.path.join(root, cand)):
        return cand
    for d in INCDIRS:
        cand = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


def check_one(src, dst):
    """Why src may not include dst, or None."""
    a, b = area(src), area(dst)
    if a is None or b is None:
        return None
    if a == "appliers" and b in APPLIER_BANNED:
        return "%s is not for appliers/" % b
    if RANK[b] > RANK[a]:
        return "layer %s above %s" % (layer(b), layer(a))
    if RANK[b] == RANK[a] and a != b:
        return "layer %s beside %s" % (layer(b), layer(a))
    return None


def sources(root):
    for top in SCANNED:
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if f.endswith((".c", ".h", ".def")):
                    yield os.path.relpath(os.path.join(d, f), root)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    bad = 0
    n = 0
    for src in sorted(sources(root)):
        with open(os.path.join(root, src), encoding="utf-8", errors="replace") as fh:
            for no, line in enumerate(fh, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                dst = resolve(root, src, m.group(1))
                if dst is None:
                    continue
                n += 1
                why = check_one(src, dst)
                if why:
                    print("%s:%d: '%s' includes '%s' (%s)" % (src, no, src, dst, why))
                    bad += 1
    print("%d include(s) checked, %d upward" % (n, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
