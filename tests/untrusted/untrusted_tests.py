#!/usr/bin/env python3
"""Adversarial inputs: each must be refused promptly with its exact error.

Usage: untrusted_tests.py TEST
  fifo       a FIFO as profile, snapshot, plan and signature
  compile    compile DIR with a FIFO, a link to a file and a link to a directory
  trust      the trust directory: FIFO key, foreign-owned key, group-writable
             key and directory, links, missing and dangling directories
  extends    extends: a link to a secret outside the search path
  positions  invalid UTF-8, control characters and NUL bytes located at LINE:COL
  bigjson    a 100,000-key JSON object in a snapshot, with and without a repeat;
             100,000 interfaces and 100,000 features, the first repeated
  bigyaml    a 100,000-key YAML mapping in a profile, with and without a repeat
  datadir    a planted policy in a data directory others can write is not read
             (warned and skipped); a trusted one is; a build-tree binary never
             reads <exe>/../share
  terminal   control characters from a --caps-dir table, a journal and a
             profile file name reach stdout/stderr only escaped; plan --out
             refuses a name its PLAN.json could not carry
  notprofile a file that is not a profile (/etc/shadow-like) is never quoted,
             by the CLI or by the Ansible module

Every nettune run has a 10 s timeout, so that an input that blocks fails the
test instead of hanging it.  No timing is asserted.
Environment (tests/meson.build): NETTUNE = the binary, SRCROOT = the source tree.
"""
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile

NETTUNE = os.environ["NETTUNE"]
SRCROOT = os.environ["SRCROOT"]
GEN = os.path.join(SRCROOT, "bench", "gen_keys.py")
X710 = os.path.join(SRCROOT, "examples", "x710-wireguard-gateway.yaml")
X710_STATE = os.path.join(SRCROOT, "examples", "states", "x710-wireguard-gateway.json")
HOST = ("apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: h}\n"
        "target: linux\n")
failures = 0


LIMIT = 60 if "ASAN_OPTIONS" in os.environ else 10


def fail(msg):
    global failures
    failures += 1
    print("FAIL: " + msg)


class Env:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="nt-untrusted-")
        os.chmod(self.dir, 0o700)
        self.env = dict(os.environ)
        self.env.pop("NETTUNE_TRUST_DIR", None)
        self.env["NETTUNE_STATE_DIR"] = self.p("state")

    def p(self, *a):
        return os.path.join(self.dir, *a)

    def write(self, name, text, mode="w"):
        with open(self.p(name), mode) as f:
            f.write(text)
        return self.p(name)

    # a hang, not a speed limit: generous under the sanitizers (3-10x slower)
    def run(self, args, env=None):
        e = dict(self.env)
        e.update(env or {})
        try:
            r = subprocess.run([NETTUNE] + args, cwd=self.dir, env=e, capture_output=True,
                               timeout=LIMIT)
        except subprocess.TimeoutExpired:
            return None, "", "TIMEOUT after %d s" % LIMIT
        return (r.returncode, r.stdout.decode("utf-8", "replace"),
                r.stderr.decode("utf-8", "replace"))

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def expect(E, args, rc_want, err_want, env=None, what=""):
    """Exit status and the exact stderr."""
    rc, out, err = E.run(args, env)
    if rc != rc_want or err != err_want:
        fail("%s: %s\n  exit %s, want %d\n  want: %r\n  got:  %r" %
             (what, " ".join(args), rc, rc_want, err_want, err))
    return out, err


# ---------------------------------------------------------------- fifo

def t_fifo():
    E = Env()
    try:
        os.mkfifo(E.p("prof.yaml"))
        os.mkfifo(E.p("state.json"))
        os.mkfifo(E.p("plan.json"))
        ok = E.write("ok.yaml", HOST)
        expect(E, ["validate", "prof.yaml"], 1,
               "prof.yaml: error: not a regular file (fifo)\n", what="validate FIFO")
        expect(E, ["plan", "prof.yaml"], 1,
               "prof.yaml: error: not a regular file (fifo)\n", what="plan FIFO")
        expect(E, ["plan", ok, "--state", "state.json"], 1,
               "state.json: error: not a regular file (fifo)\n", what="plan --state FIFO")
        expect(E, ["emit", "--format", "sh", ok, "--state", "state.json"], 1,
               "state.json: error: not a regular file (fifo)\n", what="emit --state FIFO")
        key = E.p("k")
        E.run(["keygen", "--out", key])
        expect(E, ["sign", "--key", key, "plan.json"], 1,
               "nettune sign: error: plan.json: not a regular file (fifo)\n", what="sign FIFO")
        expect(E, ["verify", "--pub", key + ".pub", "plan.json"], 1,
               "nettune verify: error: plan.json: not a regular file (fifo)\n",
               what="verify FIFO")
        expect(E, ["show", "plan.json"], 1,
               "nettune show: error: plan.json: not a regular file (fifo)\n", what="show FIFO")
        expect(E, ["show", "--json", "plan.json"], 1,
               "nettune show: error: plan.json: not a regular file (fifo)\n", what="show --json FIFO")
        expect(E, ["apply", "plan.json"], 1,
               "plan.json: error: not a regular file (fifo)\n", what="apply FIFO")
        os.mkfifo(E.p("fifo.pub"))
        expect(E, ["verify", "--pub", "fifo.pub", "plan.json"], 1,
               "nettune verify: error: fifo.pub: not a regular file (fifo)\n",
               what="--pub FIFO")
        # a signature that is a FIFO, next to a good plan
        rc, _, err = E.run(["plan", X710, "--state", X710_STATE, "--out", "good.json"])
        if rc != 2:
            fail("plan --out: %s %s" % (rc, err))
        E.run(["sign", "--key", key, "good.json"])
        os.unlink(E.p("good.json.sig"))
        os.mkfifo(E.p("good.json.sig"))
        expect(E, ["verify", "--pub", key + ".pub", "good.json"], 1,
               "nettune verify: error: signature good.json.sig: not a regular file (fifo)\n",
               what=".sig FIFO")
        # a directory is searched, however it is named; a FIFO in it is
        # refused, not waited on
        os.mkdir(E.p("dir.yaml"))
        os.mkfifo(E.p("dir.yaml", "f.yaml"))
        expect(E, ["validate", "dir.yaml"], 1,
               "dir.yaml/f.yaml: error: not a regular file (fifo)\n"
               "1 profile: 0 valid, 1 invalid\n", what="validate directory")
    finally:
        E.close()


# ---------------------------------------------------------------- compile

def t_compile():
    E = Env()
    try:
        os.makedirs(E.p("repo", "sub"))
        os.makedirs(E.p("elsewhere"))
        shutil.copy(os.path.join(SRCROOT, "examples", "veth-lab.yaml"), E.p("repo", "a.yaml"))
        shutil.copy(os.path.join(SRCROOT, "examples", "veth-lab.yaml"),
                    E.p("elsewhere", "b.yaml"))
        os.mkfifo(E.p("repo", "f.yaml"))
        os.mkfifo(E.p("repo", "not-a-profile.txt"))
        os.symlink(E.p("elsewhere"), E.p("repo", "linked-dir"))
        os.symlink(E.p("elsewhere", "b.yaml"), E.p("repo", "sub", "link.yaml"))
        rc, out, err = E.run(["compile", "--out-dir", "out", "repo"])
        want_err = ("repo/f.yaml: error: not a regular file (fifo)\n"
                    "repo/sub/link.yaml: error: is a symbolic link (not followed)\n")
        if rc != 1 or err != want_err:
            fail("compile DIR: exit %s\n  want: %r\n  got:  %r" % (rc, want_err, err))
        if not out.startswith("3 profiles in ") or \
           not out.rstrip().endswith("0 manifests written, 1 validated without a snapshot, "
                                     "0 policies, 2 failed"):
            fail("compile DIR summary: %r" % out)
        # the snapshot next to a walked profile is not followed through a link either
        os.makedirs(E.p("repo2", "states"))
        shutil.copy(os.path.join(SRCROOT, "examples", "veth-lab.yaml"), E.p("repo2", "h.yaml"))
        E.write("secret.json", '{"hunter2-do-not-print": 1}\n')
        os.symlink(E.p("secret.json"), E.p("repo2", "states", "h.json"))
        rc, out, err = E.run(["compile", "--out-dir", "out", "repo2"])
        if rc != 1 or err != "repo2/states/h.json: error: is a symbolic link (not followed)\n":
            fail("compile DIR, linked snapshot: exit %s %r" % (rc, err))
        # nor through a linked states/ directory, whose secret is never printed
        os.makedirs(E.p("repo3", "hosts"))
        os.makedirs(E.p("secretdir"))
        shutil.copy(os.path.join(SRCROOT, "examples", "veth-lab.yaml"), E.p("repo3", "hosts", "h.yaml"))
        E.write(os.path.join("secretdir", "h.json"), '{"hunter2-do-not-print": 1}\n')
        os.symlink(E.p("secretdir"), E.p("repo3", "hosts", "states"))
        rc, out, err = E.run(["compile", "--out-dir", "out", "repo3"])
        if rc != 1 or "repo3/hosts/states is a symbolic link or not a directory" not in err \
                or "hunter2" in err + out:
            fail("compile DIR, linked states/: exit %s %r" % (rc, err))
        # a file name with a control character would become a manifest its
        # own loader refuses: refused first
        os.makedirs(E.p("repo4"))
        shutil.copy(os.path.join(SRCROOT, "examples", "veth-lab.yaml"), E.p("repo4", "v\x1bx.yaml"))
        rc, out, err = E.run(["compile", "--out-dir", "out4", "repo4"])
        if rc != 1 or "the file name has a control character" not in err or \
                os.path.exists(E.p("out4")) and os.listdir(E.p("out4")):
            fail("compile DIR, control character in a name: exit %s %r" % (rc, err))
        # a link named on the command line is the user's choice and is followed
        rc, out, err = E.run(["compile", "--out-dir", "out", "repo/sub/link.yaml"])
        if rc != 0 or err:
            fail("compile LINK given by name: exit %s %r" % (rc, err))
    finally:
        E.close()


# ---------------------------------------------------------------- trust

def t_trust():
    E = Env()
    try:
        key = E.p("ci")
        E.run(["keygen", "--out", key])
        rc, _, err = E.run(["plan", X710, "--state", X710_STATE, "--out", "plan.json"])
        if rc != 2:
            fail("plan --out: %s %s" % (rc, err))
        td = E.p("trusted.d")
        os.mkdir(td, 0o755)
        os.chmod(td, 0o755)
        shutil.copy(key + ".pub", os.path.join(td, "ci.pub"))
        os.chmod(os.path.join(td, "ci.pub"), 0o644)
        env = {"NETTUNE_TRUST_DIR": td}
        apply_ = ["apply", "plan.json"]
        unsigned = ("nettune apply: error: missing signature: plan.json is not signed (no "
                    "plan.json.sig) and trusted keys are configured (%s); sign it with "
                    "'nettune sign'\n" % td)
        # baseline: a good directory is read and the unsigned plan refused
        expect(E, apply_, 1, unsigned, env, "good trust dir")

        os.mkfifo(os.path.join(td, "fifo.pub"))
        expect(E, apply_, 1, "nettune apply: error: trusted key %s/fifo.pub: not a regular "
               "file (fifo)\n" % td, env, "FIFO key")
        os.unlink(os.path.join(td, "fifo.pub"))

        os.symlink(key + ".pub", os.path.join(td, "link.pub"))
        expect(E, apply_, 1, "nettune apply: error: trusted key %s/link.pub: is a symbolic "
               "link (not followed)\n" % td, env, "linked key")
        os.unlink(os.path.join(td, "link.pub"))

        os.chmod(os.path.join(td, "ci.pub"), 0o664)
        expect(E, apply_, 1, "nettune apply: error: trusted key %s/ci.pub is group-writable "
               "(mode 0664); refusing it\n" % td, env, "group-writable key")
        os.chmod(os.path.join(td, "ci.pub"), 0o646)
        expect(E, apply_, 1, "nettune apply: error: trusted key %s/ci.pub is world-writable "
               "(mode 0646); refusing it\n" % td, env, "world-writable key")
        os.chmod(os.path.join(td, "ci.pub"), 0o644)

        os.chmod(td, 0o775)
        expect(E, apply_, 1, "nettune apply: error: trust directory %s is group-writable "
               "(mode 0775); refusing it\n" % td, env, "group-writable dir")
        os.chmod(td, 0o755)

        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody").pw_uid
            os.chown(os.path.join(td, "ci.pub"), nobody, -1)
            expect(E, apply_, 1, "nettune apply: error: trusted key %s/ci.pub is owned by uid "
                   "%d, not by root; refusing it\n" % (td, nobody), env, "foreign-owned key")
            os.chown(os.path.join(td, "ci.pub"), 0, -1)
            os.chown(td, nobody, -1)
            expect(E, apply_, 1, "nettune apply: error: trust directory %s is owned by uid "
                   "%d, not by root; refusing it\n" % (td, nobody), env, "foreign-owned dir")
            os.chown(td, 0, -1)
        else:
            print("note: not root, foreign-owned key and directory not tested")

        # a world-writable parent without the sticky bit
        os.chmod(E.dir, 0o707)
        expect(E, apply_, 1, "nettune apply: error: trust directory %s: parent %s is "
               "world-writable (mode 0707); refusing it\n" % (td, os.path.realpath(E.dir)),
               env, "world-writable parent")
        os.chmod(E.dir, 0o700)

        missing = E.p("missing.d")
        expect(E, apply_, 1, "nettune apply: error: trust directory %s: No such file or "
               "directory (NETTUNE_TRUST_DIR names it)\n" % missing,
               {"NETTUNE_TRUST_DIR": missing}, "missing configured dir")
        dangling = E.p("dangling.d")
        os.symlink(E.p("nowhere"), dangling)
        expect(E, apply_, 1, "nettune apply: error: trust directory %s is a dangling "
               "symbolic link\n" % dangling, {"NETTUNE_TRUST_DIR": dangling},
               "dangling dir")
        os.mkfifo(E.p("fifo.d"))
        expect(E, apply_, 1, "nettune apply: error: trust directory %s: not a directory "
               "(fifo)\n" % E.p("fifo.d"), {"NETTUNE_TRUST_DIR": E.p("fifo.d")}, "FIFO dir")
        # a link to a good directory is fine: its target is checked
        os.symlink(td, E.p("linked.d"))
        expect(E, apply_, 1, unsigned.replace(td, E.p("linked.d")),
               {"NETTUNE_TRUST_DIR": E.p("linked.d")}, "linked dir")
    finally:
        E.close()


# ---------------------------------------------------------------- extends

def t_extends():
    E = Env()
    try:
        secret = "hunter2-do-not-print"
        E.write("secret.txt", "%s: %s\n" % (secret, secret))
        os.mkdir(E.p("profiles"))
        E.write("profiles/host.yaml", HOST + "extends: [leak]\n")
        os.symlink(E.p("secret.txt"), E.p("profiles", "leak.yaml"))
        for args in (["validate", "profiles/host.yaml"],
                     ["validate", "--format", "json", "profiles/host.yaml"],
                     ["validate", "--format", "sarif", "profiles/host.yaml"],
                     ["plan", "profiles/host.yaml", "--state", X710_STATE],
                     ["--profile-path", E.dir, "validate", "profiles/host.yaml"]):
            rc, out, err = E.run(args)
            if rc != 1 or secret in out or secret in err:
                fail("extends link to a secret: %s: exit %s, output %r %r" %
                     (" ".join(args), rc, out, err))
        expect(E, ["validate", "profiles/host.yaml"], 1,
               "profiles/host.yaml:5:11: error: policy profile 'leak': profiles/leak.yaml: "
               "leads outside the profile search directory profiles; not read\n",
               what="extends link out")
        # a link that stays inside the search directory is fine
        os.unlink(E.p("profiles", "leak.yaml"))
        E.write("profiles/real-policy.yaml", "apiVersion: nettune/v1\nkind: PolicyProfile\n"
                "metadata: {name: real-policy}\n")
        os.symlink("real-policy.yaml", E.p("profiles", "leak.yaml"))
        expect(E, ["validate", "profiles/host.yaml"], 0, "", what="extends link inside")
        os.unlink(E.p("profiles", "leak.yaml"))
        os.mkfifo(E.p("profiles", "leak.yaml"))
        expect(E, ["validate", "profiles/host.yaml"], 1,
               "profiles/host.yaml:5:11: error: policy profile 'leak': profiles/leak.yaml: "
               "not a regular file (fifo)\n", what="extends FIFO")
        os.unlink(E.p("profiles", "leak.yaml"))
        os.symlink("nowhere.yaml", E.p("profiles", "leak.yaml"))
        expect(E, ["validate", "profiles/host.yaml"], 1,
               "profiles/host.yaml:5:11: error: policy profile 'leak': profiles/leak.yaml: "
               "is a dangling symbolic link\n", what="extends dangling link")
    finally:
        E.close()


# ---------------------------------------------------------------- positions

def t_positions():
    E = Env()
    try:
        head = HOST + "sysctl:\n"
        cases = [
            # (bytes of line 6, expected error)
            (b'  net.core.x: "ab\xffcd"\n',
             "6:18: error: invalid leading UTF-8 octet (#xFF); a profile is UTF-8 text"),
            (b'  net.core.\xc3\xa9\xc3\xa9: "\xe2\x82\xac\xe2\x82\x28"\n',
             "6:20: error: invalid trailing UTF-8 octet (#x28); a profile is UTF-8 text"),
            (b'  net.core.x: "a\x01"\n',
             "6:17: error: control characters are not allowed (#x1); a profile is UTF-8 text"),
            (b'  net.core.\xc3\xa9: "a\x00"\n',
             "6:17: error: file contains a NUL byte; not a YAML text file"),
        ]
        for i, (line, want) in enumerate(cases):
            name = "u%d.yaml" % i
            E.write(name, head.encode() + line, "wb")
            expect(E, ["validate", name], 1, "%s:%s\n" % (name, want), what="position %d" % i)
        # CR LF and CR-only line ends count like LF
        E.write("crlf.yaml", head.replace("\n", "\r\n").encode() + b"  k: \xfe\r\n", "wb")
        expect(E, ["validate", "crlf.yaml"], 1, "crlf.yaml:6:6: error: invalid leading UTF-8 "
               "octet (#xFE); a profile is UTF-8 text\n", what="CR LF")
        # JSON: columns count characters; invalid UTF-8 in a string is located
        ok = E.write("ok.yaml", HOST)
        E.write("a.json", '{"format":\n "\u00e9\u00e9", "b": x}', "w")
        expect(E, ["plan", ok, "--state", "a.json"], 1, "a.json:2:13: error: unexpected 'x': expected a value\n",
               what="JSON column after UTF-8")
        E.write("b.json", b'{"format":\r "\xc3\xa9\xff"}', "wb")
        expect(E, ["plan", ok, "--state", "b.json"], 1,
               "b.json:2:4: error: invalid UTF-8 in string\n", what="JSON invalid UTF-8")
    finally:
        E.close()


# ---------------------------------------------------------------- big maps

def gen(E, kind, n, dup, name):
    subprocess.run([sys.executable, GEN] + (["--dup"] if dup else []) + [kind, str(n), E.p(name)],
                   check=True)
    return name


def t_bigjson():
    E = Env()
    try:
        ok = E.write("ok.yaml", HOST)
        n = 100000
        s = gen(E, "json", n, True, "dup.json")
        expect(E, ["plan", ok, "--state", s], 1,
               'dup.json:%d:3: error: duplicate key "0"\n' % (n + 4), what="100k JSON + repeat")
        s = gen(E, "json", n, False, "big.json")
        rc, out, err = E.run(["plan", ok, "--state", s])
        lines = err.splitlines()
        # node numbers 0..63 are valid; each of the others is one located error
        want_first = 'big.json:68:9: error: cpus.nodes["64"] must be a CPU list of node 0..63'
        want_last = ('big.json:%d:12: error: cpus.nodes["%d"] must be a CPU list of node 0..63' %
                     (n + 3, n - 1))
        if rc != 1 or len(lines) != n - 64 or lines[0] != want_first or lines[-1] != want_last:
            fail("100k JSON: exit %s, %d lines, first %r, last %r" %
                 (rc, len(lines), lines[:1], lines[-1:]))
        # 100,000 interfaces and 100,000 features of one, each with the first repeated
        head = ('{"format": "nettune-snapshot/1", "host": {"name": "big", "target": "linux"},\n'
                ' "interfaces": [\n')
        names = ["e%d" % i for i in range(n)] + ["e0"]
        E.write("ifs.json", head + ",\n".join('  {"name": "%s"}' % x for x in names) + "\n]}\n")
        expect(E, ["plan", ok, "--state", "ifs.json"], 1, 'ifs.json:%d:12: error: interface '
               '"e0" is listed twice\n' % (n + 3), what="100k interfaces + repeat")
        head = ('{"format": "nettune-snapshot/1", "host": {"name": "big", "target": "linux"},\n'
                ' "settings": [\n')
        E.write("feat.json", head + ",\n".join(
            '  {"object": "e0", "attribute": "feature f%d", "value": true}' % i
            for i in list(range(n)) + [0]) + "\n]}\n")
        expect(E, ["plan", ok, "--state", "feat.json"], 1, 'feat.json:%d:3: error: e0 feature '
               'f0 is listed twice\n' % (n + 3), what="100k features + repeat")
    finally:
        E.close()


def t_bigyaml():
    E = Env()
    try:
        n = 100000
        p = gen(E, "yaml", n, True, "dup.yaml")
        expect(E, ["validate", p], 1, "dup.yaml:%d:3: error: duplicate key 'net.bench.k0' "
               "(first at line 6)\n" % (n + 6), what="100k YAML + repeat")
        p = gen(E, "yaml", n, False, "big.yaml")
        expect(E, ["validate", p], 1, "big.yaml:6:3: error: sysctl allows at most 1024 "
               "entries, has %d\n" % n, what="100k YAML")
    finally:
        E.close()


# ---------------------------------------------------------------- datadir

PLANTED = "|/bin/false planted-by-the-datadir-test"
POLICY_PLANT = ("apiVersion: nettune/v1\nkind: PolicyProfile\nmetadata: {name: throughput}\n"
                "sysctl:\n  kernel.core_pattern: \"%s\"\n" % PLANTED)
EXTENDS_THROUGHPUT = HOST + "extends: [throughput]\n"


def plant_tree(top):
    """top/build/nettune (a copy of the binary) and top/share/nettune/profiles/
    throughput.yaml (the planted policy); returns (binary, profiles dir)."""
    os.makedirs(os.path.join(top, "build"))
    prof = os.path.join(top, "share", "nettune", "profiles")
    os.makedirs(prof)
    for d in (os.path.join(top, "share"), os.path.join(top, "share", "nettune"), prof):
        os.chmod(d, 0o755)
    binary = os.path.join(top, "build", "nettune")
    shutil.copy2(NETTUNE, binary)
    with open(os.path.join(prof, "throughput.yaml"), "w") as f:
        f.write(POLICY_PLANT)
    os.chmod(os.path.join(prof, "throughput.yaml"), 0o644)
    return binary, prof


def plan_with(E, binary, env=None):
    e = dict(E.env)
    e.pop("NETTUNE_DATADIR", None)
    e.update(env or {})
    r = subprocess.run([binary, "plan", "p.yaml", "--state", X710_STATE], cwd=E.dir, env=e,
                       capture_output=True, timeout=LIMIT)
    return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")


def t_datadir():
    E = Env()
    try:
        E.write("p.yaml", EXTENDS_THROUGHPUT)
        top = E.p("top")
        os.mkdir(top)
        binary, prof = plant_tree(top)
        root = os.geteuid() == 0

        def refused(what, reason, env=None, b=None):
            rc, out, err = plan_with(E, b or binary, env)
            if rc != 2 or PLANTED in out or "planted" in err:
                fail("%s: the planted policy was read (exit %s):\n%s%s" % (what, rc, out, err))
            elif "nettune: warning: policy directory " not in err or reason not in err:
                fail("%s: no warning with %r:\n%s" % (what, reason, err))
            elif "net.core.rmem_max" not in out:
                fail("%s: the built-in throughput policy was not used:\n%s" % (what, out))

        # the build in a world-writable directory (no sticky bit): whoever
        # may write it can swap share/ itself
        os.chmod(top, 0o777)
        refused("world-writable parent", "parent %s is group- and world-writable (mode 0777)" % top)
        # sticky like /tmp: the parent is fine, but the directory is not
        os.chmod(top, 0o1777)
        os.chmod(prof, 0o777)
        refused("world-writable profiles/", "%s is group- and world-writable (mode 0777)" % prof)
        os.chmod(prof, 0o775)
        refused("group-writable profiles/", "%s is group-writable (mode 0775)" % prof)
        os.chmod(prof, 0o755)
        if root:
            os.chown(prof, 65534, 65534)
            refused("profiles/ of another user", "%s is owned by uid 65534, not by root" % prof)
            os.chown(prof, 0, 0)
            os.chown(os.path.join(top, "share"), 65534, 65534)
            refused("share/ of another user", "parent %s is owned by uid 65534" %
                    os.path.join(top, "share"))
            os.chown(os.path.join(top, "share"), 0, 0)
        else:
            print("not root: foreign owners not tried")
        # owned by root (or the user), writable by nobody else: the documented
        # order takes it before the built-in policies, without a warning
        rc, out, err = plan_with(E, binary)
        want_src = os.path.relpath(os.path.join(prof, "throughput.yaml"), E.dir) + ":5:24"
        if rc != 2 or PLANTED not in out or want_src not in out or "warning: policy" in err:
            fail("a trusted data directory was not used (exit %s):\n%s%s" % (rc, out, err))
        # a trusted directory with a file others may write: an error, located
        os.chmod(os.path.join(prof, "throughput.yaml"), 0o666)
        rc, out, err = plan_with(E, binary)
        if rc != 1 or PLANTED in out or ("the data directory's policy throughput.yaml is "
                                         "group- and world-writable (mode 0666)") not in err:
            fail("a world-writable policy file: exit %s:\n%s%s" % (rc, out, err))
        os.chmod(os.path.join(prof, "throughput.yaml"), 0o644)
        # $NETTUNE_DATADIR is checked the same way
        os.chmod(prof, 0o777)
        refused("NETTUNE_DATADIR world-writable", "%s is group- and world-writable" % prof,
                env={"NETTUNE_DATADIR": os.path.join(top, "share", "nettune")}, b=NETTUNE)
        os.chmod(prof, 0o755)
        # an executable in its build tree reads the source tree, never a
        # share/ beside itself (a build has none of its own)
        build = os.path.dirname(os.path.realpath(NETTUNE))
        inside = tempfile.mkdtemp(prefix="nt-datadir-", dir=build)
        try:
            b2, p2 = plant_tree(os.path.join(inside, "t"))
            rc, out, err = plan_with(E, b2)
            if rc != 2 or PLANTED in out or "profiles/throughput.yaml" not in out or \
                    "<built-in>" in out:
                fail("a build-tree binary read %s (exit %s):\n%s%s" % (p2, rc, out, err))
        finally:
            shutil.rmtree(inside, ignore_errors=True)
    finally:
        E.close()


# ---------------------------------------------------------------- terminal

def raw_controls(data):
    """The control characters of data (bytes) a terminal would act on:
    C0 but newline and tab, DEL, C1 (raw or as UTF-8), invalid UTF-8."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return ["invalid UTF-8 at %d" % e.start]
    return ["U+%04X" % ord(c) for c in text
            if (ord(c) < 0x20 and c not in "\n\t") or 0x7f <= ord(c) <= 0x9f]


def run_bytes(E, args, env=None, cwd=None):
    e = dict(E.env)
    e.update(env or {})
    r = subprocess.run([NETTUNE] + args, cwd=cwd or E.dir, env=e, capture_output=True,
                       timeout=LIMIT)
    return r.returncode, r.stdout, r.stderr


def clean(what, rc, out, err, want_rc, shown=()):
    """No raw control character in either stream; each of shown (the
    escaped forms) in one of them."""
    if rc not in (want_rc if isinstance(want_rc, tuple) else (want_rc,)):
        fail("%s: exit %s:\n%r\n%r" % (what, rc, out, err))
        return
    for name, data in (("stdout", out), ("stderr", err)):
        bad = raw_controls(data)
        if bad:
            fail("%s: raw control characters on %s: %s\n%r" % (what, name, bad[:8], data[:2000]))
    both = (out + err).decode("utf-8", "replace")
    for s in shown:
        if s not in both:
            fail("%s: %r not in the output:\n%s" % (what, s, both[:3000]))
    if "\nforged" in both:
        fail("%s: a newline in a field began a line of its own:\n%s" % (what, both[:3000]))


# ESC[2J clears the screen, OSC 0 sets the title, a newline forges a line,
# U+009B is CSI for an 8-bit terminal, U+202E reverses what follows
HOSTILE_FILE = "p\x1b]0;owned\x07\x1b[2J\nforged line.yaml"
HOSTILE_SHOWN = "p\\x1b]0;owned\\x07\\x1b[2J\\nforged line.yaml"


def t_terminal():
    E = Env()
    try:
        # a --caps-dir table: name, driver-independent text and sources
        caps = E.p("caps")
        os.mkdir(caps)
        with open(os.path.join(SRCROOT, "schema", "nics", "intel-x722.yaml")) as f:
            text = f.read()
        text = text.replace('name: "Intel Ethernet Connection X722"',
                            'name: "X722\\e]0;owned\\a\\e[2J\\nforged \\x9b2J \\u202Eevil 中文"')
        text = text.replace('source: "unknown"', 'source: "unk\\e[31mred\\rforged"')
        with open(os.path.join(caps, "intel-x722.yaml"), "w") as f:
            f.write(text)
        rc, out, err = run_bytes(E, ["--caps-dir", caps, "caps"])
        clean("caps list", rc, out, err, 0,
              ["X722\\x1b]0;owned\\x07\\x1b[2J\\nforged \\u009b2J \\u202eevil 中文"])
        rc, out, err = run_bytes(E, ["--caps-dir", caps, "caps", "intel-x722"])
        clean("caps show", rc, out, err, 0, ["unk\\x1b[31mred\\rforged", "中文"])
        rc, out, err = run_bytes(E, ["caps", "x\x1b[2Jy"])
        clean("caps unknown model", rc, out, err, 1, ["x\\x1b[2Jy"])

        # a journal whose profile path and host name hold control characters
        r = E.p("root")
        subprocess.run([sys.executable, os.path.join(SRCROOT, "tests", "fixtures", "mkroot.py"),
                        r, "--queues", "2"], check=True, capture_output=True)
        E.write(HOSTILE_FILE, HOST + "sysctl:\n  net.core.rps_sock_flow_entries: \"32768\"\n")
        rc, out, err = run_bytes(E, ["--root", r, "plan", HOSTILE_FILE])
        clean("plan text", rc, out, err, 2, [HOSTILE_SHOWN + ":6:35"])
        rc, out, err = run_bytes(E, ["--root", r, "apply", "--yes", HOSTILE_FILE])
        clean("apply", rc, out, err, 0)
        jdir = os.path.join(E.env["NETTUNE_STATE_DIR"], "journal")
        names = [n for n in os.listdir(jdir) if n.endswith(".json")]
        if len(names) != 1:
            fail("apply left %d journals" % len(names))
            return
        jpath = os.path.join(jdir, names[0])
        with open(jpath) as f:
            j = json.load(f)
        if j["profile"] != E.p(HOSTILE_FILE):
            fail("the journal's profile is %r" % j["profile"])
        j["host"]["hostname"] = "h\x1b[2Jost\u009b\u202e"
        st = os.stat(jpath)
        with open(jpath, "w") as f:
            json.dump(j, f)
        os.chmod(jpath, st.st_mode & 0o7777)
        jid = names[0][:-5]
        rc, out, err = run_bytes(E, ["history"])
        clean("history", rc, out, err, 0, [HOSTILE_SHOWN, "h\\x1b[2Jost\\u009b\\u202e"])
        rc, out, err = run_bytes(E, ["show", jid])
        clean("show JOURNAL", rc, out, err, 0,
              ["  profile  %s/%s" % (E.dir, HOSTILE_SHOWN), "h\\x1b[2Jost\\u009b\\u202e"])
        for args in (["history", "--json"], ["show", "--json", jid]):
            rc, out, err = run_bytes(E, args)
            clean(" ".join(args), rc, out, err, 0)
            doc = json.loads(out)
            got = (doc[0] if isinstance(doc, list) else doc).get("profile")
            if got != E.p(HOSTILE_FILE):
                fail("%s does not carry the exact profile path: %r" % (" ".join(args), got))

        # plan --out: refused before anything is written, with the reason
        rc, out, err = run_bytes(E, ["--root", r, "plan", HOSTILE_FILE, "--out", "plan.json"])
        clean("plan --out", rc, out, err, 1,
              ["error: the profile path '" + HOSTILE_SHOWN + "' contains the control "
               "character \\x1b: a plan manifest cannot hold it", "nothing was written"])
        if os.path.exists(E.p("plan.json")):
            fail("plan --out wrote a PLAN.json its loader refuses")
        latin1 = os.path.join(E.dir.encode(), b"caf\xe9.yaml")  # not UTF-8
        with open(latin1, "w") as f:
            f.write(HOST)
        rc, out, err = run_bytes(E, ["--root", r, "plan", os.path.basename(latin1),
                                     "--out", "plan.json"])
        clean("plan --out latin-1", rc, out, err, 1,
              ["caf\\xe9.yaml' is not valid UTF-8 (byte \\xe9)"])
        if os.path.exists(E.p("plan.json")):
            fail("plan --out wrote a PLAN.json for a name that is not UTF-8")
        # an ordinary Chinese file name round-trips
        E.write("中文.yaml", HOST + "sysctl:\n  net.core.rps_sock_flow_entries: \"65536\"\n")
        rc, out, err = run_bytes(E, ["--root", r, "plan", "中文.yaml", "--out", "plan.json"])
        clean("plan --out 中文", rc, out, err, 2, ["中文.yaml:6:35"])
        rc, out, err = run_bytes(E, ["show", "plan.json"])
        clean("show plan.json 中文", rc, out, err, 0, ["  profile    中文.yaml"])
    finally:
        E.close()


# ---------------------------------------------------------------- notprofile

def t_notprofile():
    E = Env()
    try:
        secret = "$6$SECRETHASHnotshown"
        shadow = E.write("shadow", "root:%s:19000:0:99999:7:::\nbin:*:19000:0:99999:7:::\n" % secret)
        dup = E.write("shadow-dup", "root:%s:1::\nroot:%s:1::\n" % (secret, secret))
        kv = E.write("secret.env", "password: %s\n" % secret)
        for f in (shadow, dup, kv):
            for args in (["validate", f], ["validate", "--format", "json", f],
                         ["validate", "--format", "sarif", f], ["plan", f, "--state", X710_STATE],
                         ["validate", f, shadow]):
                rc, out, err = E.run(args)
                if rc != 1 or "SECRETHASH" in out or "SECRETHASH" in err or "password" in err:
                    fail("%s: exit %s, quotes the file: %r %r" % (" ".join(args), rc, out, err))
        expect(E, ["validate", shadow], 1, "%s:1:1: error: not a nettune profile: no apiVersion "
               "or kind at the top level (the file's contents are not quoted)\n" % shadow,
               what="shadow")
        # the Ansible module sends its message to the controller
        module = os.path.join(os.path.dirname(NETTUNE), "ansible", "nettune")
        if not os.access(module, os.X_OK):
            print("no Ansible module next to %s: module not tried" % NETTUNE)
            return
        for f in (shadow, dup, kv):
            args = E.write("args.json", json.dumps({"profile": f, "state": "planned",
                                                    "_ansible_check_mode": True}))
            r = subprocess.run([module, args], capture_output=True, timeout=LIMIT,
                               env=E.env, cwd=E.dir)
            res = json.loads(r.stdout)
            if not res.get("failed") or "SECRETHASH" in r.stdout.decode() or \
                    "SECRETHASH" in r.stderr.decode() or "password" in res.get("msg", ""):
                fail("the module quotes %s: %r" % (f, r.stdout))
            elif "not a nettune profile" not in res.get("msg", ""):
                fail("the module does not say %s is no profile: %r" % (f, res.get("msg")))
    finally:
        E.close()


TESTS = {"fifo": t_fifo, "compile": t_compile, "trust": t_trust, "extends": t_extends,
         "positions": t_positions, "bigjson": t_bigjson, "bigyaml": t_bigyaml,
         "datadir": t_datadir, "terminal": t_terminal, "notprofile": t_notprofile}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in TESTS:
        sys.exit(__doc__)
    TESTS[sys.argv[1]]()
    print("%s: %s" % (sys.argv[1], "FAILED (%d)" % failures if failures else "ok"))
    sys.exit(1 if failures else 0)
