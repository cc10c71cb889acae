#!/usr/bin/env python3
"""compile DIR and validate DIR search a tree the same way, and as the hooks
and the Action select files: *.yaml and *.yml with a top-level
"apiVersion: nettune/", other YAML skipped and counted, a symbolic link to a
file of the same tree skipped as a duplicate, a link out of the tree refused
(never followed), paths without "//".  The bundled examples/ tree (CI YAML,
an Ansible playbook, a host linked to its profile) compiles and validates."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

NETTUNE = os.environ["NETTUNE"]
SRCROOT = os.environ["SRCROOT"]
failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL: " + msg)


def run(args, cwd):
    p = subprocess.run([NETTUNE] + args, cwd=cwd, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def hook_selection(root):
    """The files scripts/ci/nettune-hook and action.yml would check."""
    pat = re.compile(r"^apiVersion:[\s]*[\"']?nettune/", re.M)
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        for f in sorted(files):
            p = os.path.join(d, f)
            if f.startswith(".") or not f.endswith((".yaml", ".yml")) or os.path.islink(p):
                continue
            if pat.search(open(p, errors="replace").read()):
                out.append(os.path.relpath(p, SRCROOT))
    return sorted(out)


def t_examples(tmp):
    want_skip = "skipped 3 YAML files not a nettune profile (no apiVersion: nettune/...), " \
                "1 symbolic link to a file in the same tree"
    for arg in ("examples", "examples/", "examples//"):
        rc, out, err = run(["compile", "--out-dir", os.path.join(tmp, "out"), arg], SRCROOT)
        if rc != 0 or err or "//" in out or not out.rstrip().endswith("0 failed; " + want_skip):
            fail("compile %s: exit %d\n  out: %r\n  err: %r" % (arg, rc, out, err))
        rc, out, err = run(["validate", arg], SRCROOT)
        if rc != 0 or "//" in err or err != "6 profiles: 6 valid, 0 invalid; %s\n" % want_skip:
            fail("validate %s: exit %d %r" % (arg, rc, err))
    rc, out, err = run(["validate", "--format", "json", "examples//"], SRCROOT)
    got = sorted(f["file"] for f in json.loads(out)["files"]) if rc == 0 else None
    if got != hook_selection(os.path.join(SRCROOT, "examples")):
        fail("validate examples: %r, the hooks check %r" % (got, hook_selection(os.path.join(SRCROOT, "examples"))))


def t_links(tmp):
    tree = os.path.join(tmp, "repo")
    os.makedirs(os.path.join(tree, "hosts"))
    os.makedirs(os.path.join(tmp, "outside"))
    shutil.copy(os.path.join(SRCROOT, "examples", "veth-lab.yaml"), os.path.join(tree, "lab.yaml"))
    shutil.copy(os.path.join(SRCROOT, "examples", "veth-lab.yaml"), os.path.join(tmp, "outside", "x.yaml"))
    os.symlink("../lab.yaml", os.path.join(tree, "hosts", "in.yaml"))
    os.symlink(os.path.join(tmp, "outside", "x.yaml"), os.path.join(tree, "hosts", "out.yaml"))
    with open(os.path.join(tree, "ci.yml"), "w") as f:
        f.write("on: push\njobs: {}\n")
    want_err = "repo/hosts/out.yaml: error: is a symbolic link (not followed)\n"
    rc, out, err = run(["compile", "--out-dir", os.path.join(tmp, "o"), "repo/"], tmp)
    if rc != 1 or err != want_err or not out.startswith("2 profiles in ") or \
            not out.rstrip().endswith("1 failed; skipped 1 YAML file not a nettune profile (no "
                                      "apiVersion: nettune/...), 1 symbolic link to a file in "
                                      "the same tree"):
        fail("compile repo/: exit %d %r %r" % (rc, out, err))
    rc, out, err = run(["validate", "repo/"], tmp)
    if rc != 1 or err != want_err + "2 profiles: 1 valid, 1 invalid; skipped 1 YAML file not a " \
            "nettune profile (no apiVersion: nettune/...), 1 symbolic link to a file in the same tree\n":
        fail("validate repo/: exit %d %r" % (rc, err))
    # a YAML file named on the command line is checked whatever it is
    rc, out, err = run(["validate", "repo/ci.yml"], tmp)
    if rc != 1 or "not a nettune profile" not in err:
        fail("validate FILE that is not a profile: exit %d %r" % (rc, err))


def main():
    tmp = tempfile.mkdtemp(prefix="nt-walk-")
    try:
        t_examples(tmp)
        t_links(tmp)
    finally:
        shutil.rmtree(tmp)
    if failures:
        print("%d failure(s)" % failures)
        return 1
    print("walk: compile DIR and validate DIR agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
