#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Tests of the CI / GitOps integrations and the editor-facing schema.

Usage: ci_tests.py TEST
  precommit      .pre-commit-hooks.yaml through `pre-commit try-repo` (and
                 `pre-commit run` with a config for hook args) on a temporary
                 git repository: a good and a bad profile, drift, a converged
                 host, a missing snapshot (offline: language script)
  action         action.yml's shell steps run as a script with inputs set, in
                 a temporary directory, against the built nettune: annotations,
                 a SARIF 2.1.0 file, the drift step and the final status
  editor-schema  every example and policy validated as an editor does (npm
                 `yaml`, YAML 1.2 and 1.1, + `ajv`), bad cases rejected
  schema-loader  on/off spellings: the loader and the schema agree under both
                 YAML readings
  schema-docs    every schema key has a description; the man page documents
                 the same top-level and interface keys
  sarif-rules    every rule id used in the sources has SARIF metadata
                 (compiler/base/rules.c) and every row is used
  sarif-uris     SARIF artifact URIs of odd file names: percent-encoded,
                 relative without ./, absolute as file:///
  gitlab         dist/ci/gitlab-nettune.yml's validate job run as a script:
                 located log, Code Quality report, SARIF
  yaml           yamllint on the CI YAML files

Environment: NETTUNE = the binary, SRCROOT = the source tree.  Nothing here
uses the network.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SRCROOT = os.path.realpath(os.environ.get("SRCROOT") or
                           os.path.join(os.path.dirname(__file__), "..", ".."))
NETTUNE = os.path.realpath(os.environ.get("NETTUNE") or os.path.join(SRCROOT, "build", "nettune"))
NODE_MODULES = os.path.join(SRCROOT, "tests", ".node", "node_modules")
SKIP = 77

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def ok(msg):
    if not failures:
        print("ok: " + msg)


def check(cond, msg):
    if not cond:
        fail(msg)
    return cond


def env(**extra):
    e = dict(os.environ)
    e["NETTUNE_DATADIR"] = ""
    e.pop("NETTUNE_PROFILE_PATH", None)
    e["PATH"] = os.path.dirname(NETTUNE) + os.pathsep + e.get("PATH", "")
    e["NETTUNE"] = NETTUNE
    e.update(extra)
    return e


def sh(args, cwd, **extra):
    p = subprocess.run(args, cwd=cwd, env=env(**extra), capture_output=True, timeout=240)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


GOOD = """apiVersion: nettune/v1
kind: HostProfile
metadata: {name: veth-lab}
target: linux
interfaces:
  - name: ntlab0
    mtu: %d
"""
BAD = """apiVersion: nettune/v1
kind: HostProfile
metadata: {name: h1}
target: linux
interfaces:
  - name: eth0
    offloads: {gro: enabled}
"""
SNAPSHOT = os.path.join(SRCROOT, "examples", "states", "veth-lab.json")


def make_repo(d):
    """A profile repository: hosts/lab-1.yaml (snapshot found by metadata.name
    veth-lab), a bad profile, a policy and a YAML file that is no profile."""
    os.makedirs(os.path.join(d, "hosts"))
    os.makedirs(os.path.join(d, "snapshots"))
    # ntlab0 already has gro on in the snapshot; mtu 1500 is in sync
    with open(os.path.join(d, "hosts", "lab-1.yaml"), "w") as f:
        f.write(GOOD % 1500)
    with open(os.path.join(d, "hosts", "broken.yaml"), "w") as f:
        f.write(BAD)
    shutil.copy(os.path.join(SRCROOT, "profiles", "throughput.yaml"), os.path.join(d, "hosts"))
    with open(os.path.join(d, "other.yaml"), "w") as f:
        f.write("jobs: {x: 1}\n")
    shutil.copy(SNAPSHOT, os.path.join(d, "snapshots", "veth-lab.json"))


def git(d, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@localhost"] + list(args),
                   cwd=d, check=True, capture_output=True)


# ---------------------------------------------------------------- pre-commit
def t_precommit():
    if not shutil.which("pre-commit"):
        fail("pre-commit is not installed (Debian package pre-commit; scripts/deps.sh test)")
        return
    with tempfile.TemporaryDirectory(prefix="nt-precommit-") as tmp:
        hooks = os.path.join(tmp, "hooks")
        # the hook repository: this tree's hook files, committed (try-repo
        # reads a commit; the working tree may hold uncommitted edits)
        os.makedirs(os.path.join(hooks, "scripts", "ci"))
        shutil.copy(os.path.join(SRCROOT, ".pre-commit-hooks.yaml"), hooks)
        shutil.copy(os.path.join(SRCROOT, "scripts", "ci", "nettune-hook"),
                    os.path.join(hooks, "scripts", "ci"))
        git(hooks, "init", "-q")
        git(hooks, "add", ".")
        git(hooks, "commit", "-qm", "hooks")
        repo = os.path.join(tmp, "repo")
        os.makedirs(repo)
        make_repo(repo)
        git(repo, "init", "-q")
        git(repo, "add", ".")
        home = os.path.join(tmp, "home")

        def try_repo(hook, *files, args=None):
            cmd = ["pre-commit", "try-repo", hooks, hook, "--verbose"]
            cmd += ["--files"] + list(files) if files else ["--all-files"]
            if args:
                # try-repo has no --args: a config with the hook's args
                cfg = os.path.join(tmp, "cfg.yaml")
                rc, out, _ = sh(["git", "rev-parse", "HEAD"], hooks)
                with open(cfg, "w") as f:
                    f.write("repos:\n- repo: %s\n  rev: %s\n  hooks:\n  - id: %s\n    args: %s\n"
                            % (hooks, out.strip(), hook, json.dumps(args)))
                cmd = ["pre-commit", "run", "--config", cfg, hook, "--verbose"]
                cmd += ["--files"] + list(files) if files else ["--all-files"]
            return sh(cmd, repo, PRE_COMMIT_HOME=home, PRE_COMMIT_COLOR="never")

        rc, out, err = try_repo("nettune-validate")
        check(rc == 1, "nettune-validate on a bad profile: exit %d, want 1\n%s%s" % (rc, out, err))
        check("hosts/broken.yaml:7:21: error: interfaces[0].offloads.gro must be on or off, "
              "not 'enabled'" in out, "nettune-validate: no located message for the bad profile:\n" + out)
        check("other.yaml" not in out, "nettune-validate looked at a YAML file that is no profile")
        check("3 profiles: 2 valid, 1 invalid" in out,
              "nettune-validate did not check exactly the 3 profiles:\n" + out)
        rc, out, err = try_repo("nettune-validate", "hosts/lab-1.yaml", "other.yaml")
        check(rc == 0 and "Passed" in out,
              "nettune-validate on a good profile: exit %d\n%s%s" % (rc, out, err))

        rc, out, err = try_repo("nettune-plan-check", "hosts/lab-1.yaml", "hosts/throughput.yaml",
                                args=["--snapshots", "snapshots"])
        check(rc == 0 and "in sync: snapshots/veth-lab.json matches hosts/lab-1.yaml" in out,
              "nettune-plan-check of a converged host: exit %d\n%s%s" % (rc, out, err))
        with open(os.path.join(repo, "hosts", "lab-1.yaml"), "w") as f:
            f.write(GOOD % 9000)
        git(repo, "add", ".")
        rc, out, err = try_repo("nettune-plan-check", "hosts/lab-1.yaml",
                                args=["--snapshots", "snapshots"])
        check(rc == 1 and "ntlab0 mtu: 1500 (want 9000)" in out,
              "nettune-plan-check of a drifted host: exit %d\n%s%s" % (rc, out, err))
        with open(os.path.join(repo, "hosts", "new-host.yaml"), "w") as f:
            f.write((GOOD % 1500).replace("veth-lab", "new-host"))
        git(repo, "add", ".")
        rc, out, err = try_repo("nettune-plan-check", "hosts/new-host.yaml",
                                args=["--snapshots", "snapshots"])
        check(rc == 1 and "hosts/new-host.yaml: error: no snapshot snapshots/new-host.json" in out,
              "nettune-plan-check without a snapshot: exit %d\n%s%s" % (rc, out, err))
        rc, out, err = try_repo("nettune-plan-check", "hosts/new-host.yaml",
                                args=["--snapshots", "snapshots", "--allow-missing"])
        check(rc == 0 and "not checked" in out,
              "nettune-plan-check --allow-missing: exit %d\n%s%s" % (rc, out, err))
        # nettune missing from PATH: a clear error, not a silent pass
        rc, out, err = sh(["sh", os.path.join(hooks, "scripts", "ci", "nettune-hook"), "validate",
                           "hosts/lab-1.yaml"], repo, NETTUNE="/nonexistent/nettune")
        check(rc == 1 and "not found" in err, "hook without nettune: exit %d, %r" % (rc, err))
        hook_odd_names(os.path.join(hooks, "scripts", "ci", "nettune-hook"), tmp)
    ok("pre-commit hooks (validate, plan-check) through try-repo / run")


def hook_odd_names(hook, tmp):
    """File names a repository may hold reach nettune intact: a leading
    dash is no option (a bad '-x.yaml' used to pass unchecked), 'a=b.yaml'
    is no awk assignment, spaces/quotes/$(...) are data; thousands of files
    cost a few grep runs, not one per file."""
    d = os.path.join(tmp, "odd")
    os.makedirs(os.path.join(d, "snapshots"))
    names = ["-dash.yaml", "a b.yaml", "q'uote.yaml", "x$(id).yaml", "a=b.yaml"]
    for n in names:
        with open(os.path.join(d, n), "w") as f:
            f.write(BAD)
    rc, out, err = sh(["sh", hook, "validate", "--", "-dash.yaml"], d)
    check(rc == 1 and "-dash.yaml:7:21: error:" in err,
          "hook validate of a bad '-dash.yaml': exit %d, %r" % (rc, err))
    rc, out, err = sh(["sh", hook, "validate"] + names, d)
    check(rc == 1 and "5 profiles: 0 valid, 5 invalid" in err,
          "hook validate of odd file names: exit %d, %r" % (rc, err))
    shutil.copy(SNAPSHOT, os.path.join(d, "snapshots", "veth-lab.json"))
    for n in ("-dash.yaml", "a=b.yaml"):
        with open(os.path.join(d, n), "w") as f:
            f.write(GOOD % 1500)
    p = subprocess.run(["sh", hook, "plan-check", "--snapshots", "snapshots", "--",
                        "-dash.yaml", "a=b.yaml"], cwd=d, env=env(), stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=60)
    out = p.stdout.decode()
    check(p.returncode == 0 and "matches ./-dash.yaml" in out and "matches a=b.yaml" in out,
          "hook plan-check of '-dash.yaml' and 'a=b.yaml' (snapshot by metadata.name): exit %d\n%s%s"
          % (p.returncode, out, p.stderr.decode()))
    # many files: count grep runs through a logging grep first on PATH
    many = os.path.join(tmp, "many")
    os.makedirs(many)
    files = []
    for i in range(2000):
        n = "host %04d.yaml" % i
        with open(os.path.join(many, n), "w") as f:
            f.write((GOOD % 1500).replace("veth-lab", "h%d" % i))
        files.append(n)
    with open(os.path.join(many, "x.yaml"), "w") as f:
        f.write("jobs: {}\n")
    files.append("x.yaml")
    bindir = os.path.join(tmp, "bin")
    os.makedirs(bindir)
    log = os.path.join(tmp, "grep.log")
    with open(os.path.join(bindir, "grep"), "w") as f:
        f.write("#!/bin/sh\necho run >> '%s'\nexec %s \"$@\"\n" % (log, shutil.which("grep")))
    os.chmod(os.path.join(bindir, "grep"), 0o755)
    rc, out, err = sh(["sh", hook, "validate"] + files, many,
                      PATH=bindir + os.pathsep + env()["PATH"])
    runs = len(open(log).readlines()) if os.path.exists(log) else 0
    check(rc == 0 and "2000 profiles: 2000 valid, 0 invalid" in err,
          "hook validate of 2000 profiles: exit %d, %r" % (rc, err[-300:]))
    check(runs <= 4, "hook validate of 2001 files ran grep %d times (one per batch wanted)" % runs)


# ---------------------------------------------------------------- action
def action_steps():
    import yaml
    with open(os.path.join(SRCROOT, "action.yml")) as f:
        return yaml.safe_load(f)


def expr(s, ctx):
    """The few ${{ }} expressions action.yml uses: inputs.X, github.action_path,
    steps.ID.outputs.K, and == / != comparisons of them with a quoted word."""
    def value(e):
        e = e.strip()
        m = re.fullmatch(r"(.+?)\s*(==|!=)\s*'([^']*)'", e)
        if m:
            v = value(m.group(1))
            return (v == m.group(3)) == (m.group(2) == "==")
        if e.startswith("inputs."):
            return ctx["inputs"][e[7:]]
        if e == "github.action_path":
            return SRCROOT
        m = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", e)
        if m:
            return ctx["outputs"].get(m.group(1), {}).get(m.group(2), "")
        raise ValueError("expression not understood: " + e)
    if isinstance(s, str) and "${{" in s:
        return re.sub(r"\$\{\{(.*?)\}\}", lambda m: str(value(m.group(1))), s)
    return s


def condition(s, ctx):
    """An if: condition, written without ${{ }} as action.yml does."""
    return expr("${{ %s }}" % s, ctx) == "True"


def run_action(workdir, inputs, skip_names=(), extra_env=None):
    """Runs the composite action's steps like the runner does (shell sh:
    sh -e FILE), uses: steps recorded, not run.  Returns (steps, ctx) with
    each step's rc and output."""
    a = action_steps()
    ctx = {"inputs": {k: v.get("default", "") for k, v in a["inputs"].items()}, "outputs": {}}
    ctx["inputs"].update(inputs)
    done = []
    tmp = tempfile.mkdtemp(prefix="nt-action-")
    try:
        for i, st in enumerate(a["runs"]["steps"]):
            if "if" in st and not condition(st["if"], ctx):
                done.append({"name": st["name"], "skipped": True})
                continue
            if "uses" in st:
                done.append({"name": st["name"], "uses": st["uses"],
                             "with": {k: expr(v, ctx) for k, v in st.get("with", {}).items()}})
                continue
            if st["name"] in skip_names:
                done.append({"name": st["name"], "skipped": True})
                continue
            check(st.get("shell") == "sh", "step %s: shell %r, want sh" % (st["name"], st.get("shell")))
            script = os.path.join(tmp, "step%d.sh" % i)
            with open(script, "w") as f:
                f.write(st["run"])
            files = {k: os.path.join(tmp, "%s.%d" % (k, i)) for k in
                     ("GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH")}
            for p in files.values():
                open(p, "w").close()
            stepenv = {k: str(expr(v, ctx)) for k, v in st.get("env", {}).items()}
            stepenv.update(files)
            stepenv["RUNNER_TEMP"] = tmp
            stepenv["GITHUB_ACTION_PATH"] = SRCROOT
            stepenv.update(extra_env or {})
            rc, out, err = sh(["sh", "-e", script], workdir, **stepenv)
            outs = {}
            with open(files["GITHUB_OUTPUT"]) as f:
                for line in f:
                    if "=" in line:
                        k, v = line.rstrip("\n").split("=", 1)
                        outs[k] = v
            if "id" in st:
                ctx["outputs"][st["id"]] = outs
            done.append({"name": st["name"], "rc": rc, "out": out, "err": err, "outputs": outs})
    finally:
        shutil.rmtree(tmp)
    return done, ctx


def step(done, name):
    for s in done:
        if s["name"] == name:
            return s
    fail("action has no step %r" % name)
    return {"rc": None, "out": "", "err": "", "outputs": {}}


def t_action():
    import jsonschema
    a = action_steps()
    check(a["runs"]["using"] == "composite", "action.yml is not a composite action")
    for k in ("paths", "snapshots", "format", "sarif-file", "upload-sarif", "build"):
        check(k in a["inputs"], "action.yml has no input %s" % k)
    # every shell step passes shellcheck and takes its inputs through env only
    for st in a["runs"]["steps"]:
        if "run" not in st:
            continue
        check("${{" not in st["run"], "step %s pastes an expression into its script" % st["name"])
        if shutil.which("shellcheck"):
            p = subprocess.run(["shellcheck", "-s", "sh", "-"], input=st["run"].encode(),
                               capture_output=True)
            check(p.returncode == 0, "shellcheck of step %s:\n%s" % (st["name"], p.stdout.decode()))
    with open(os.path.join(SRCROOT, "tests", "validate", "sarif-schema-2.1.0.json")) as f:
        sarif_schema = json.load(f)
    with tempfile.TemporaryDirectory(prefix="nt-action-ws-") as ws:
        make_repo(ws)
        # build: false uses the nettune on PATH (the one under test); the
        # dependency and build steps are covered by shellcheck above and by
        # the deps step run below
        done, ctx = run_action(ws, {"paths": "hosts other.yaml", "build": "false",
                                    "snapshots": "snapshots"})
        v = step(done, "Validate profiles")
        check(v["rc"] == 0, "validate step exit %s (it records the status instead): %s" %
              (v["rc"], v["err"]))
        check("::error file=hosts/broken.yaml,line=7,col=21,title=type::interfaces[0].offloads.gro "
              "must be on or off, not 'enabled'" in v["out"],
              "validate step printed no located annotation:\n" + v["out"])
        check(v["outputs"].get("status") == "1", "validate status %r, want 1" % v["outputs"].get("status"))
        check("3 profile(s)" in v["out"], "validate step did not find exactly 3 profiles:\n" + v["out"])
        sarif = os.path.join(ws, v["outputs"].get("sarif-file", "nettune.sarif"))
        if check(os.path.exists(sarif), "no SARIF file written"):
            with open(sarif) as f:
                doc = json.load(f)
            errs = list(jsonschema.Draft7Validator(sarif_schema).iter_errors(doc))
            check(not errs, "SARIF is not valid SARIF 2.1.0: %s" % (errs[0].message if errs else ""))
            res = doc["runs"][0]["results"]
            check(len(res) == 1 and res[0]["ruleId"] == "type" and
                  res[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] ==
                  "hosts/broken.yaml" and
                  res[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 7,
                  "SARIF results: %r" % res)
        up = step(done, "Upload SARIF")
        check(up.get("uses", "").startswith("github/codeql-action/upload-sarif@") and
              up.get("with", {}).get("sarif_file") == "nettune.sarif",
              "upload step: %r" % up)
        d = step(done, "Check for drift against snapshots")
        check(d["outputs"].get("status") == "1" and
              "in sync: snapshots/veth-lab.json matches hosts/lab-1.yaml" in d["out"] and
              "hosts/broken.yaml: error: no snapshot snapshots/broken.json or snapshots/h1.json"
              in d["out"], "drift step, a converged host and one without a snapshot: %r %s %s"
              % (d["outputs"], d["out"], d["err"]))
        r = step(done, "Result")
        check(r["rc"] == 1 and "invalid profiles" in r["out"],
              "final step with an invalid profile: exit %s, %r" % (r["rc"], r["out"]))
        check(step(done, "Install build dependencies").get("skipped") and
              step(done, "Build nettune").get("skipped"), "build: false still builds")

        # good profiles only, one drifted: the drift fails the job
        os.unlink(os.path.join(ws, "hosts", "broken.yaml"))
        with open(os.path.join(ws, "hosts", "lab-1.yaml"), "w") as f:
            f.write(GOOD % 9000)
        done, ctx = run_action(ws, {"paths": "hosts", "build": "false", "snapshots": "snapshots",
                                    "upload-sarif": "false", "sarif-file": "out/n.sarif"})
        v = step(done, "Validate profiles")
        check(v["outputs"].get("status") == "0" and "::error" not in v["out"],
              "validate of good profiles: %r %s" % (v["outputs"], v["out"]))
        check(step(done, "Upload SARIF").get("skipped"), "upload-sarif: false still uploads")
        d = step(done, "Check for drift against snapshots")
        check(d["outputs"].get("status") == "1" and "ntlab0 mtu: 1500 (want 9000)" in d["out"],
              "drift step on a drifted host: %r %s" % (d["outputs"], d["out"]))
        r = step(done, "Result")
        check(r["rc"] == 1 and "drift" in r["out"], "final step with drift: exit %s" % r["rc"])

        # all good, no snapshots: success; the deps step itself runs (the
        # build packages are installed here, so it changes nothing)
        with open(os.path.join(ws, "hosts", "lab-1.yaml"), "w") as f:
            f.write(GOOD % 1500)
        done, ctx = run_action(ws, {"paths": "hosts", "build": "true", "upload-sarif": "false",
                                    "snapshots": "snapshots", "allow-missing-snapshots": "true"},
                               skip_names=("Build nettune",))
        dep = step(done, "Install build dependencies")
        check(dep["rc"] == 0, "deps step: exit %s %s" % (dep["rc"], dep["err"]))
        d = step(done, "Check for drift against snapshots")
        check(d["outputs"].get("status") == "0" and "in sync" in d["out"],
              "drift step of a converged host: %r %s %s" % (d["outputs"], d["out"], d["err"]))
        r = step(done, "Result")
        check(r["rc"] == 0 and "profiles valid" in r["out"], "final step all good: exit %s %r" %
              (r["rc"], r["out"]))
    action_paths()
    action_command_injection()
    example_workflow()
    ok("action.yml steps (annotations, SARIF, drift, final status)")


def action_command_injection():
    """A file named like a workflow command ("::error::x.yaml") is printed
    at the start of a line by the drift check and by --format text: those
    lines are inside ::stop-commands::TOKEN ... ::TOKEN::."""
    def guarded(out, needle):
        m = re.search(r"^::stop-commands::([0-9a-f]{16,})$", out, re.M)
        if not m:
            return False
        end = out.find("\n::%s::" % m.group(1), m.end())
        i = out.find(needle, m.end())
        outside = out[:m.start()] + out[end + len(m.group(1)) + 5:] if end > 0 else out
        return end > 0 and m.end() < i < end and not re.search(r"^::", outside, re.M)
    with tempfile.TemporaryDirectory(prefix="nt-action-inj-") as ws:
        make_repo(ws)
        evil = "::error file=x::injected.yaml"
        with open(os.path.join(ws, evil), "w") as f:
            f.write((GOOD % 1500).replace("veth-lab", "evil"))
        os.unlink(os.path.join(ws, "hosts", "broken.yaml"))
        done, _ = run_action(ws, {"paths": "hosts " + evil.replace(" ", "?"), "build": "false",
                                  "upload-sarif": "false", "snapshots": "snapshots",
                                  "format": "text"})
        d = step(done, "Check for drift against snapshots")
        check(guarded(d["out"], evil), "drift step prints a file name as a workflow command:\n"
              + d["out"])
        v = step(done, "Validate profiles")
        check(guarded(v["out"], "profiles:"), "validate --format text not guarded:\n" + v["out"])


def example_workflow():
    """examples/ci/github-workflow.yml as a pipeline author copies it: the
    permissions upload-sarif needs, a clear error when the nettune
    repository variables are unset, no upload with a fork's read-only
    token, and an upload failure does not fail the check."""
    import yaml
    with open(os.path.join(SRCROOT, "examples", "ci", "github-workflow.yml")) as f:
        wf = yaml.safe_load(f)
    check(wf["permissions"] == {"contents": "read", "security-events": "write"},
          "workflow permissions %r" % wf["permissions"])
    steps = wf["jobs"]["validate"]["steps"]
    guard = [s for s in steps if "NETTUNE_REPOSITORY" in str(s.get("if", ""))]
    check(guard and "exit 1" in guard[0].get("run", "") and
          steps.index(guard[0]) < [i for i, s in enumerate(steps) if "repository" in s.get("with", {})][0],
          "no step stops with a clear error before checking out an unset NETTUNE_REPOSITORY")
    use = [s for s in steps if s.get("uses") == "./.nettune"]
    check(use and "head.repo.full_name == github.repository" in str(use[0]["with"].get("upload-sarif")),
          "the workflow uploads SARIF on pull requests from forks (read-only token)")
    up = [s for s in action_steps()["runs"]["steps"] if s["name"] == "Upload SARIF"]
    check(up and up[0].get("continue-on-error") is True,
          "a refused SARIF upload fails the action")


def action_paths():
    """paths ".": annotations name hosts/x.yaml, not ./hosts/x.yaml; a
    file named -x.yaml is checked; a mistyped path fails the step instead of
    finding no profile; thousands of files cost a few grep runs."""
    with tempfile.TemporaryDirectory(prefix="nt-action-paths-") as ws:
        make_repo(ws)
        with open(os.path.join(ws, "-dash.yaml"), "w") as f:
            f.write(BAD)
        done, _ = run_action(ws, {"paths": ".", "build": "false", "upload-sarif": "false"})
        v = step(done, "Validate profiles")
        check("::error file=hosts/broken.yaml,line=7" in v["out"] and
              "::error file=-dash.yaml,line=7" in v["out"] and "file=./" not in v["out"] and
              "4 profile(s)" in v["out"] and v["outputs"].get("status") == "1",
              "validate step with paths '.': %r\n%s%s" % (v["outputs"], v["out"], v["err"]))
        done, _ = run_action(ws, {"paths": "-dash.yaml", "build": "false", "upload-sarif": "false"})
        v = step(done, "Validate profiles")
        check("::error file=-dash.yaml,line=7" in v["out"] and v["outputs"].get("status") == "1",
              "validate step with paths '-dash.yaml': %r\n%s%s" % (v["outputs"], v["out"], v["err"]))
        os.unlink(os.path.join(ws, "-dash.yaml"))
        # the action checked out in the workspace (examples/ci: .nettune)
        # with its test profiles that are meant to fail: not checked
        own = os.path.join(ws, ".nettune")
        os.makedirs(os.path.join(own, "tests", "bad"))
        shutil.copy(os.path.join(ws, "hosts", "broken.yaml"), os.path.join(own, "tests", "bad"))
        os.unlink(os.path.join(ws, "hosts", "broken.yaml"))
        done, _ = run_action(ws, {"paths": ".", "build": "false", "upload-sarif": "false"},
                             extra_env={"GITHUB_ACTION_PATH": ws + "/./.nettune"})
        v = step(done, "Validate profiles")
        check(v["outputs"].get("status") == "0" and "2 profile(s)" in v["out"],
              "validate step with the action checked out at ./.nettune: %r\n%s" % (v["outputs"], v["out"]))
        shutil.rmtree(own)
        done, _ = run_action(ws, {"paths": "hosts host", "build": "false", "upload-sarif": "false"})
        v = step(done, "Validate profiles")
        check(v["outputs"].get("status") == "1" and "::error::" in v["out"] and "host" in v["out"],
              "validate step with a mistyped path: %r\n%s" % (v["outputs"], v["out"]))
        for i in range(1500):
            with open(os.path.join(ws, "hosts", "h %04d.yaml" % i), "w") as f:
                f.write((GOOD % 1500).replace("veth-lab", "h%d" % i))
        bindir = os.path.join(ws, ".bin")
        os.makedirs(bindir)
        log = os.path.join(ws, ".grep.log")
        with open(os.path.join(bindir, "grep"), "w") as f:
            f.write("#!/bin/sh\necho run >> '%s'\nexec %s \"$@\"\n" % (log, shutil.which("grep")))
        os.chmod(os.path.join(bindir, "grep"), 0o755)
        done, _ = run_action(ws, {"paths": "hosts", "build": "false", "upload-sarif": "false"},
                             extra_env={"PATH": bindir + os.pathsep + env()["PATH"]})
        v = step(done, "Validate profiles")
        runs = len(open(log).readlines()) if os.path.exists(log) else 0
        check(v["outputs"].get("status") == "0" and "1502 profile(s)" in v["out"] and runs <= 4,
              "validate step of 1502 profiles: %r, grep ran %d times\n%s" % (v["outputs"], runs,
                                                                          v["out"][-300:]))


# ---------------------------------------------------------------- schema
def bad_schema_cases():
    sys.path.insert(0, os.path.join(SRCROOT, "tests", "validate"))
    import validate_tests
    return [os.path.join(SRCROOT, "tests", "bad", n + ".yaml") for n in validate_tests.JSONSCHEMA_BAD]


def node_check(want, files):
    p = subprocess.run(["node", os.path.join(SRCROOT, "tests", "ci", "editor_schema.mjs"),
                        NODE_MODULES, os.path.join(SRCROOT, "schema", "nettune.schema.json"),
                        want] + files, capture_output=True, timeout=120)
    return p.returncode, p.stdout.decode("utf-8", "replace") + p.stderr.decode("utf-8", "replace")


def have_node():
    if not shutil.which("npm") or not shutil.which("node"):
        print("SKIP: npm/node missing; the editor schema test needs the npm packages yaml and ajv")
        return None
    if not all(os.path.isdir(os.path.join(NODE_MODULES, m)) for m in ("yaml", "ajv")):
        fail("npm is installed but tests/.node lacks yaml and ajv: run scripts/deps.sh test")
        return False
    return True


def t_editor_schema():
    h = have_node()
    if h is None:
        sys.exit(SKIP)
    if not h:
        return
    good = []
    for d in ("examples", "profiles"):
        good += sorted(os.path.join(SRCROOT, d, f) for f in os.listdir(os.path.join(SRCROOT, d))
                       if f.endswith(".yaml"))
    check(len(good) >= 8, "only %d examples and policies" % len(good))
    rc, out = node_check("good", good)
    check(rc == 0, "examples/policies against the schema as an editor reads them:\n" + out)
    bad = bad_schema_cases()
    rc, out = node_check("bad", bad)
    check(rc == 0, "bad cases against the schema:\n" + out)
    ok("%d examples/policies valid and %d bad cases invalid under YAML 1.2 and 1.1 (ajv)"
          % (len(good), len(bad)))


# Plain scalars the loader takes as on/off (check.c nt_parse_bool) and ones it
# refuses.  y/n are YAML 1.1 booleans a 1.1 reader hands over as true/false,
# so the schema cannot refuse them there; they are checked under 1.2 only.
ACCEPTED = ["on", "off", "On", "OFF", "oN", "yes", "No", "YES", "true", "False", "TRUE", "tRuE"]
REFUSED = ["enabled", "1", "0", "2", "onn", "of", "null", "~", "disabled", "'o n'", "[on]"]


def t_schema_loader():
    h = have_node()
    if h is None:
        sys.exit(SKIP)
    if not h:
        return
    with tempfile.TemporaryDirectory(prefix="nt-bools-") as tmp:
        groups = {"good": [], "bad": []}
        for want, words in (("good", ACCEPTED), ("bad", REFUSED)):
            for i, w in enumerate(words):
                p = os.path.join(tmp, "%s-%d.yaml" % (want, i))
                with open(p, "w") as f:
                    f.write("apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: h1}\n"
                            "target: linux\ninterfaces:\n  - name: eth0\n"
                            "    offloads: {gro: %s, tso: {all: %s}}\n"
                            "    coalesce: {adaptive_rx: %s}\n"
                            "    linux: {features: {rx-gro-list: %s}}\n" % (w, w, w, w))
                rc, out, err = sh([NETTUNE, "validate", p], tmp)
                check((rc == 0) == (want == "good"),
                      "loader on %r: exit %d, expected %s\n%s" % (w, rc, want, err))
                groups[want].append(p)
        # a plain number or yes/no where a string goes: the loader reads the
        # scalar's text; YAML readers hand over a number or a boolean
        p = os.path.join(tmp, "good-scalars.yaml")
        with open(p, "w") as f:
            f.write("apiVersion: nettune/v1\nkind: HostProfile\n"
                    "metadata: {name: 12345, description: yes}\ntarget: linux\n"
                    "interfaces:\n  - name: 10\n    mtu: 1500\n")
        rc, out, err = sh([NETTUNE, "validate", p], tmp)
        check(rc == 0, "loader on number/boolean scalars for strings: exit %d\n%s" % (rc, err))
        groups["good"].append(p)
        for want, files in groups.items():
            rc, out = node_check(want, files)
            check(rc == 0, "schema disagrees with the loader:\n" + out)
    ok("%d accepted and %d refused on/off spellings: loader and schema agree"
          % (len(ACCEPTED), len(REFUSED)))


def man_terms(section):
    with open(os.path.join(SRCROOT, "man", "nettune-profile.5")) as f:
        text = f.read()
    m = re.search(r"^\.SH %s\n(.*?)(?=^\.SH )" % re.escape(section), text, re.S | re.M)
    terms = set()
    for tp in re.finditer(r"^\.TP\n\.BR? ([^\n]+)", m.group(1), re.M):
        if tp.group(0).startswith(".TP\n.B policy") or "irqbalance:" in tp.group(1):
            continue
        for w in re.findall(r'[A-Za-z_]+', tp.group(1).replace("\\-", "-")):
            terms.add(w)
    return terms, text.replace("\\-", "-").replace("\\&", "")


def t_schema_docs():
    rc, out, err = sh([NETTUNE, "schema"], SRCROOT)
    schema = json.loads(out)
    top = schema["allOf"][0]["properties"]
    missing = []

    def walk(node, path):
        if not isinstance(node, dict):
            return
        for k, v in node.get("properties", {}).items():
            if not v.get("description"):
                missing.append(path + k)
            walk(v, path + k + ".")
        for k in ("items", "additionalProperties", "if", "then", "else", "not"):
            walk(node.get(k), path)
        for k in ("anyOf", "allOf", "oneOf"):
            for alt in node.get(k, []):
                walk(alt, path)
    walk(schema, "")
    check(not missing, "schema keys without a description: %s" % missing)
    top_terms, man = man_terms("TOP-LEVEL KEYS")
    if_terms, _ = man_terms("INTERFACE KEYS")
    check(set(top) == top_terms, "top-level keys: schema %s, man page %s" %
          (sorted(set(top) - top_terms), sorted(top_terms - set(top))))
    iface = top["interfaces"]["items"]["properties"]
    check(set(iface) == if_terms, "interface keys: schema %s, man page %s" %
          (sorted(set(iface) - if_terms), sorted(if_terms - set(iface))))
    # every nested key the schema documents is named in the man page too
    names = set()

    def keys(node):
        if isinstance(node, dict):
            names.update(node.get("properties", {}))
            for v in node.values():
                keys(v)
        elif isinstance(node, list):
            for v in node:
                keys(v)
    keys(schema)
    undocumented = sorted(n for n in names if not re.search(r"\b%s\b" % re.escape(n), man))
    check(not undocumented, "schema keys the man page never names: %s" % undocumented)
    nic = iface["nic"]["enum"]
    # the enum is auto plus exactly the built-in tables `nettune caps` lists
    rc, caps, _ = sh([NETTUNE, "caps"], SRCROOT, NETTUNE_CAPS_DIR="")
    ids = [line.split()[0] for line in caps.splitlines() if line.strip()]
    check(rc == 0 and len(ids) >= 20 and nic == ["auto"] + sorted(ids),
          "nic enum %r, nettune caps %r" % (nic, ids))
    ok("%d keys described; man page and schema name the same keys" % len(names))


def call_args(text, i):
    """The top-level arguments of the call whose '(' is at text[i]."""
    depth, parts, cur, j = 0, [], "", i
    while j < len(text):
        c = text[j]
        if c in "\"'":
            k = j + 1
            while text[k] != c:
                k += 2 if text[k] == "\\" else 1
            cur += text[j:k + 1]
            j = k + 1
            continue
        if c in "([{":
            depth += 1
            if depth == 1:
                j += 1
                continue
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return parts + [cur]
        elif c == "," and depth == 1:
            parts.append(cur)
            cur = ""
            j += 1
            continue
        cur += c
        j += 1
    return parts


def t_sarif_rules():
    src = {}
    # the rule id is the third argument (fourth of nt_diag_add); JERR and
    # LERR fix theirs in the macro
    call = re.compile(r"(?<![\w>.#])\b(nt_error|nt_warn|ERR|E|W|nt_diag_add)\s*\(")
    for root in ("compiler", "pipeline", "report", "cli", "appliers"):
        for dp, _, fn in os.walk(os.path.join(SRCROOT, root)):
            for f in fn:
                if not f.endswith(".c"):
                    continue
                text = open(os.path.join(dp, f), encoding="utf-8").read()
                for m in re.finditer(r'#define (JERR|LERR)\([^)]*\)[^\n]*"([a-z-]+)"', text):
                    src.setdefault(m.group(2), f)
                for m in call.finditer(text):
                    if text[:m.start()].rstrip().endswith("#define"):
                        continue
                    args = call_args(text, m.end() - 1)
                    n = 3 if m.group(1) == "nt_diag_add" else 2
                    lit = re.fullmatch(r'\s*"([a-z][a-z0-9-]*)"\s*', args[n]) if len(args) > n else None
                    if lit:
                        src.setdefault(lit.group(1), f)
    rows = re.findall(r'^\t\{"([a-z][a-z0-9-]*)", [PC],', open(
        os.path.join(SRCROOT, "compiler", "base", "rules.c"), encoding="utf-8").read(), re.M)
    check(rows == sorted(rows), "compiler/base/rules.c rows are not sorted by id")
    # a map of driver-given names brings its rule and its SARIF metadata
    # (compiler/language/ifkeys.def, the second argument of NT_LINUX_NAMES);
    # validate.c's check of the map's names uses it
    keyrules = re.findall(r'^NT_LINUX_NAMES\(\w+, "([a-z][a-z0-9-]*)",', open(
        os.path.join(SRCROOT, "compiler", "language", "ifkeys.def"), encoding="utf-8").read(), re.M)
    vsrc = open(os.path.join(SRCROOT, "compiler", "passes", "validate.c"), encoding="utf-8").read()
    check(not keyrules or "m->rule" in vsrc, "validate.c does not check the names of ifkeys.def's maps")
    check(not (set(keyrules) & set(rows)), "a rule of ifkeys.def also has a row in rules.c: %s" %
          sorted(set(keyrules) & set(rows)))
    for r in keyrules:
        src.setdefault(r, "validate.c")
    rows += keyrules
    check(len(src) >= 50, "only %d rule ids found in the sources" % len(src))
    check(not (set(src) - set(rows)), "rule ids without SARIF metadata in compiler/base/rules.c: %s" %
          sorted(set(src) - set(rows)))
    # a row whose id no source uses is stale (a literal that only looks like
    # a rule, e.g. a path component, is not a false alarm: rows come first)
    stale = sorted(set(rows) - set(src))
    check(not stale, "compiler/base/rules.c rows no diagnostic uses: %s" % stale)
    ok("%d rule ids, each with SARIF metadata" % len(rows))


def t_sarif_uris():
    """artifactLocation.uri is a percent-encoded URI reference that names the
    file: relative stays relative (no "./"), absolute becomes file:///."""
    from urllib.parse import unquote, urlsplit
    import jsonschema
    with open(os.path.join(SRCROOT, "tests", "validate", "sarif-schema-2.1.0.json")) as f:
        sarif_schema = json.load(f)
    names = ["a b.yaml", "c#d.yaml", "e%41f.yaml", "g:h,i.yaml", "q'uote.yaml", "x$(id).yaml",
             "back\\slash.yaml", "\u00fc.yaml", "nl\nx.yaml", "-dash.yaml", "?q.yaml"]
    with tempfile.TemporaryDirectory(prefix="nt-sarif-") as tmp:
        os.makedirs(os.path.join(tmp, "sub dir"))
        for n in names:
            with open(os.path.join(tmp, n), "w") as f:
                f.write(BAD)
        with open(os.path.join(tmp, "sub dir", "h.yaml"), "w") as f:
            f.write(BAD)
        args = ["--"] + names + ["./sub dir/h.yaml", os.path.join(tmp, "sub dir", "h.yaml")]
        rc, out, err = sh([NETTUNE, "validate", "--format", "sarif"] + args, tmp)
        doc = json.loads(out)
        errs = list(jsonschema.Draft7Validator(sarif_schema).iter_errors(doc))
        check(not errs, "SARIF with odd file names is not valid SARIF 2.1.0: %s"
              % (errs[0].message if errs else ""))
        uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                for r in doc["runs"][0]["results"]]
        check(len(uris) == len(names) + 2, "%d results for %d files" % (len(uris), len(names) + 2))
        want = {n for n in names} | {"sub dir/h.yaml"}
        got = set()
        for u in uris:
            check(re.fullmatch(r"[A-Za-z0-9._~/%-]+|file:///[A-Za-z0-9._~/%-]+", u) is not None,
                  "artifact uri %r is not a percent-encoded URI reference" % u)
            sp = urlsplit(u)
            if sp.scheme:
                check(sp.scheme == "file" and unquote(sp.path) == os.path.join(tmp, "sub dir", "h.yaml"),
                      "absolute path as uri %r" % u)
                continue
            check(not sp.fragment and not sp.query and not u.startswith("./"),
                  "relative uri %r has a scheme, query, fragment or ./" % u)
            got.add(unquote(u))
        check(got == want, "uris decode to %r, want %r" % (sorted(got), sorted(want)))
    ok("SARIF artifact URIs percent-encoded, relative or file:///, valid SARIF 2.1.0")


def t_gitlab():
    import yaml
    with open(os.path.join(SRCROOT, "dist", "ci", "gitlab-nettune.yml")) as f:
        tpl = yaml.safe_load(f)
    job = tpl["nettune-validate"]
    setup = tpl[job["extends"]]
    check(job["artifacts"]["reports"]["codequality"] == "gl-code-quality.json",
          "no codequality report in the template")
    with tempfile.TemporaryDirectory(prefix="nt-gitlab-") as ws:
        make_repo(ws)
        script = os.path.join(ws, ".job.sh")
        with open(script, "w") as f:
            f.write("\n".join(setup["before_script"] + job["script"]) + "\n")
        e = {k: str(v) for k, v in tpl["variables"].items()}
        e.update(NETTUNE_PATHS="hosts other.yaml",
                 NETTUNE_HOOK=os.path.join(SRCROOT, "scripts", "ci", "nettune-hook"),
                 NETTUNE_CODEQUALITY=os.path.join(SRCROOT, "scripts", "ci", "codequality.py"))
        rc, out, err = sh(["sh", script], ws, **e)
        check(rc == 1 and "hosts/broken.yaml:7:21: error:" in err,
              "gitlab validate job: exit %d\n%s%s" % (rc, out, err))
        with open(os.path.join(ws, "gl-code-quality.json")) as f:
            cq = json.load(f)
        check(len(cq) == 1 and cq[0]["location"] == {"path": "hosts/broken.yaml", "lines": {"begin": 7}}
              and cq[0]["severity"] == "major" and cq[0]["check_name"] == "nettune/type"
              and len(cq[0]["fingerprint"]) == 64, "code quality report: %r" % cq)
        with open(os.path.join(ws, "nettune.sarif")) as f:
            sarif = json.load(f)
        check(len(sarif["runs"][0]["results"]) == 1, "gitlab SARIF: %r" % sarif["runs"][0]["results"])
        # the template's default NETTUNE_PATHS "." finds ./hosts/...: the
        # report names hosts/broken.yaml, as GitLab matches paths
        e["NETTUNE_PATHS"] = "."
        rc, out, err = sh(["sh", script], ws, **e)
        with open(os.path.join(ws, "gl-code-quality.json")) as f:
            cq = json.load(f)
        check(rc == 1 and [c["location"]["path"] for c in cq] == ["hosts/broken.yaml"],
              "code quality paths with NETTUNE_PATHS='.': %r" % cq)
        with open(os.path.join(ws, "nettune.sarif")) as f:
            sarif = json.load(f)
        uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                for r in sarif["runs"][0]["results"]]
        check(uris == ["hosts/broken.yaml"], "SARIF uris with NETTUNE_PATHS='.': %r" % uris)
        # a file named -x.yaml is checked; a mistyped path fails the job
        with open(os.path.join(ws, "-dash.yaml"), "w") as f:
            f.write(BAD)
        e["NETTUNE_PATHS"] = "-dash.yaml"
        rc, out, err = sh(["sh", script], ws, **e)
        check(rc == 1 and "-dash.yaml:7:21: error:" in err and "1 profile(s)" in out,
              "gitlab job with NETTUNE_PATHS='-dash.yaml': exit %d\n%s%s" % (rc, out, err))
        os.unlink(os.path.join(ws, "-dash.yaml"))
        os.unlink(os.path.join(ws, "hosts", "broken.yaml"))
        e["NETTUNE_PATHS"] = "hosts host"
        rc, out, err = sh(["sh", script], ws, **e)
        check(rc == 1 and "names no file or directory: host" in err,
              "gitlab job with a mistyped path: exit %d\n%s%s" % (rc, out, err))
        # many files: one grep per batch
        for i in range(1500):
            with open(os.path.join(ws, "hosts", "h %04d.yaml" % i), "w") as f:
                f.write((GOOD % 1500).replace("veth-lab", "h%d" % i))
        bindir = os.path.join(ws, ".bin")
        os.makedirs(bindir)
        log = os.path.join(ws, ".grep.log")
        with open(os.path.join(bindir, "grep"), "w") as f:
            f.write("#!/bin/sh\necho run >> '%s'\nexec %s \"$@\"\n" % (log, shutil.which("grep")))
        os.chmod(os.path.join(bindir, "grep"), 0o755)
        e["NETTUNE_PATHS"] = "hosts"
        rc, out, err = sh(["sh", script], ws, PATH=bindir + os.pathsep + env()["PATH"], **e)
        runs = len(open(log).readlines()) if os.path.exists(log) else 0
        check(rc == 0 and "1502 profile(s)" in out and runs <= 4,
              "gitlab job on 1502 profiles: exit %d, grep ran %d times\n%s" % (rc, runs, err[-300:]))
    codequality_fingerprints()
    ok("GitLab template job: located log, Code Quality report, SARIF")


def codequality_fingerprints():
    """Fingerprints are unique within a report (identical diagnostics too)
    and stable when the lines move; absolute paths under the project are
    made relative."""
    def report(diags, cwd):
        p = subprocess.run([sys.executable, os.path.join(SRCROOT, "scripts", "ci", "codequality.py")],
                           input=json.dumps({"files": [], "diagnostics": diags}).encode(),
                           cwd=cwd, env=env(CI_PROJECT_DIR=cwd), capture_output=True, timeout=60)
        check(p.returncode == 0, "codequality.py: %s" % p.stderr.decode())
        return json.loads(p.stdout or b"[]")

    def diag(line, msg="gro must be on or off", f="hosts/a.yaml"):
        return {"file": f, "line": line, "column": 3, "severity": "error", "rule": "type",
                "message": msg}
    with tempfile.TemporaryDirectory(prefix="nt-cq-") as tmp:
        tmp = os.path.realpath(tmp)
        a = report([diag(7), diag(7), diag(9, "mtu too small")], tmp)
        fp = [c["fingerprint"] for c in a]
        check(len(set(fp)) == 3, "duplicate fingerprints in one report: %r" % fp)
        # two lines inserted above: the same issues, the same fingerprints
        b = report([diag(9), diag(9), diag(11, "mtu too small")], tmp)
        check([c["fingerprint"] for c in b] == fp,
              "fingerprints changed when lines moved: %r -> %r" % (fp, [c["fingerprint"] for c in b]))
        c = report([diag(7, f="./hosts/a.yaml"), diag(7, f=os.path.join(tmp, "hosts", "a.yaml"))], tmp)
        check([x["location"]["path"] for x in c] == ["hosts/a.yaml"] * 2,
              "code quality paths: %r" % [x["location"]["path"] for x in c])
        check(all(set(x) >= {"description", "check_name", "fingerprint", "severity", "location"}
                  and x["severity"] in ("info", "minor", "major", "critical", "blocker")
                  for x in a + b + c), "code quality issue fields: %r" % a)


def t_yaml():
    files = [".pre-commit-hooks.yaml", "action.yml", "dist/ci/gitlab-nettune.yml",
             "examples/ci/github-workflow.yml", "examples/ci/gitlab-ci.yml"]
    for f in files:
        check(os.path.exists(os.path.join(SRCROOT, f)), "%s is missing" % f)
    if not shutil.which("yamllint"):
        fail("yamllint is not installed (Debian package yamllint; scripts/deps.sh test)")
        return
    rc, out, err = sh(["yamllint", "-s", "-c", os.path.join(SRCROOT, "tests", "ci", "yamllint.yml")]
                      + files, SRCROOT)
    check(rc == 0, "yamllint:\n" + out + err)
    ok("yamllint clean: %s" % ", ".join(files))


TESTS = {"precommit": t_precommit, "action": t_action, "editor-schema": t_editor_schema,
         "schema-loader": t_schema_loader, "schema-docs": t_schema_docs,
         "sarif-rules": t_sarif_rules, "sarif-uris": t_sarif_uris, "gitlab": t_gitlab, "yaml": t_yaml}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in TESTS:
        sys.exit("usage: ci_tests.py {%s}" % "|".join(TESTS))
    TESTS[sys.argv[1]]()
    if failures:
        print("%d failure(s)" % len(failures))
        sys.exit(1)
