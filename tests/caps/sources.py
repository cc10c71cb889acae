#!/usr/bin/env python3
"""Capability-table citations name sources a reader can open.

Every `source:` of every table in schema/nics/ is "unknown" or names a
kernel path (drivers/..., include/..., net/...), a URL, or a vendor or
standards document.  Nothing in a table, in the code that builds messages
from it, or in the expected messages cites a file outside the repository:
no local notes file, no `.md` that is not in the tree, no path on a local
machine (/work, /tmp, /home, ...).  Error messages quote a
table's source verbatim, so the same rules hold for what the operator sees;
the last check proves that on the messages `nettune validate` prints.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

import yaml

SRCROOT = os.environ.get("SRCROOT") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))
NETTUNE = os.environ.get("NETTUNE") or os.path.join(SRCROOT, "build", "nettune")
failures = []

KERNEL_PATH = re.compile(
    r"(?<![\w/.-])(?:drivers|include|net|arch|Documentation|kernel|lib|tools)"
    r"/[\w.+-]+(?:/[\w.+-]+)*")
URL = re.compile(r"\bhttps?://[^\s\"')]+")
# a document needs an author (vendor or standards body) and a document word
DOC_AUTHOR = re.compile(r"\b(?:Intel|Microsoft|NVIDIA|Mellanox|Broadcom|Realtek|VMware|"
                        r"Amazon|AWS|Google|OASIS|IEEE|IETF)\b")
DOC_KIND = re.compile(r"\b(?:User Guide|Guide|Datasheet|Data Sheet|Specification|Version|"
                      r"section|article|KB|documentation|Release Notes|RFC)\b")
MD_FILE = re.compile(r"[\w./-]*[\w-]\.md\b")
# a file on someone's machine; /proc, /sys and /dev are the kernel's own, and
# /linux/rings-style strings are paths inside a table
ABS_PATH = re.compile(r"(?:^|[\s(\"'`=])(/(?:work|tmp|home|root|usr|opt|etc|var|srv|mnt|"
                      r"media|run|Users)/[\w./-]*)")
# this file names the old citation only to forbid it
SELF = os.path.relpath(os.path.abspath(__file__), SRCROOT)


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def repo_files():
    r = subprocess.run(["git", "-C", SRCROOT, "ls-files"], capture_output=True, text=True)
    if r.returncode == 0 and r.stdout:
        return set(r.stdout.split())
    out = set()
    for d, _, fs in os.walk(SRCROOT):
        if "/build" in d or "/.git" in d:
            continue
        out.update(os.path.relpath(os.path.join(d, f), SRCROOT) for f in fs)
    return out


FILES = repo_files()
BASENAMES = {os.path.basename(f) for f in FILES}


def md_in_repo(name, where):
    """name is a .md mentioned in file `where`: it must be a file of this tree."""
    cands = [name, os.path.normpath(os.path.join(os.path.dirname(where), name))]
    if any(c in FILES for c in cands):
        return True
    return "/" not in name and name in BASENAMES


def check_text(where, lineno, line, prev, strict):
    """strict: the text is a citation (a table, a message quoting one), where no
    local path belongs; code and fixtures use local paths for other reasons."""
    for m in MD_FILE.finditer(line):
        name = m.group(0)
        if URL.search(line) and any(name in u for u in URL.findall(line)):
            continue
        # paths inside a named upstream documentation repository
        if "MicrosoftDocs/" in prev + line:
            continue
        if not md_in_repo(name, where):
            fail(f"{where}:{lineno}: cites {name}, which is not in the repository")
    for m in ABS_PATH.finditer(line) if strict else ():
        fail(f"{where}:{lineno}: cites the local path {m.group(1)}")
    if "kernel-and-nic-facts" in line:
        fail(f"{where}:{lineno}: cites kernel-and-nic-facts, which is not in the repository")


def check_file(rel, strict):
    with open(os.path.join(SRCROOT, rel), errors="replace") as f:
        lines = f.read().split("\n")
    for i, line in enumerate(lines):
        check_text(rel, i + 1, line, "\n".join(lines[max(0, i - 3):i]), strict)


def sources(node, path=""):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "source":
                yield path or "/", v
            else:
                yield from sources(v, f"{path}/{k}")


def t_tables():
    tables = sorted(glob.glob(os.path.join(SRCROOT, "schema", "nics", "*.yaml")))
    if len(tables) < 20:
        fail(f"found only {len(tables)} tables under schema/nics")
    for t in tables:
        rel = os.path.relpath(t, SRCROOT)
        check_file(rel, True)
        with open(t) as f:
            y = yaml.safe_load(f)
        n = 0
        for path, s in sources(y):
            n += 1
            if not isinstance(s, str) or not s.strip():
                fail(f"{rel} {path}/source is empty")
                continue
            if s == "unknown":
                continue
            if KERNEL_PATH.search(s) or URL.search(s):
                continue
            if DOC_AUTHOR.search(s) and DOC_KIND.search(s):
                continue
            fail(f"{rel} {path}/source names no kernel path, URL or vendor document: {s[:120]!r}")
        if n == 0:
            fail(f"{rel}: no source: at all")


def t_code_and_goldens():
    """The message code, its comments and every expected message."""
    roots = ("compiler/", "appliers/linux/", "schema/", "man/",
             "tests/bad/", "tests/validate/golden/", "tests/unit/", "tests/caps/")
    n = 0
    for rel in sorted(FILES):
        if not rel.startswith(roots) or rel == SELF:
            continue
        if not os.path.isfile(os.path.join(SRCROOT, rel)):
            continue
        check_file(rel, False)
        n += 1
    if n < 50:
        fail(f"only {n} files checked for citations")


def t_messages():
    """Drive a message that quotes each table's rings/rss source."""
    prof = ("apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: h1}\n"
            "target: linux\ninterfaces:\n")
    ids = [os.path.basename(t)[:-5]
           for t in sorted(glob.glob(os.path.join(SRCROOT, "schema", "nics", "*.yaml")))]
    for i, t in enumerate(ids):
        # a key of 3 bytes is wrong for every table that knows its key size, and a
        # ring of 3 is below every known minimum or off every step, 100000 channels
        # above every known maximum
        prof += (f"  - name: eth{i}\n    nic: {t}\n    rss: {{key: \"01:02:03\"}}\n"
                 f"    rings: {{rx: 3, tx: 3}}\n    channels: {{combined: 100000}}\n")
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "p.yaml")
        with open(p, "w") as f:
            f.write(prof)
        r = subprocess.run([NETTUNE, "validate", p], capture_output=True, text=True,
                           env=dict(os.environ, NO_COLOR="1"))
    err = r.stderr.replace(p, "p.yaml")
    if r.returncode != 1 or err.count("error:") < len(ids) // 2:
        fail(f"validate of every table: exit {r.returncode}, "
             f"{err.count('error:')} errors\n{err[:2000]}")
    if "Linux" not in err or "drivers/net/" not in err:
        fail("the messages quote no kernel source:\n" + err[:2000])
    for i, line in enumerate(err.split("\n")):
        check_text("validate stderr", i + 1, line, "", True)


for t in (t_tables, t_code_and_goldens, t_messages):
    t()
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
