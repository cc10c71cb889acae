#!/usr/bin/env python3
"""Plan manifests, signatures and GitOps output, end to end through the CLI.

Usage: manifest_tests.py TEST
  roundtrip  plan --out is canonical and reproducible; fields, digests, sign keeps it canonical
  refusals   apply PLAN.json refuses each case with its exact message; a good plan applies
  bytes      a one-byte change anywhere in a signed manifest (or its .sig) is refused
  openssl    nettune <-> openssl pkeyutl cross-verification, key ids, key files
  sarif      validate --format sarif|json|github end to end; SARIF against the 2.1.0 schema
  compile    batch compile of 1,000 generated profiles with broken ones
  drift      plan --check exit codes and output
  loader     hand-edited manifests: each rejection located (FILE:LINE:COL)

Environment (tests/meson.build): NETTUNE = the binary, SRCROOT = the source tree.
--root fixtures (tests/fixtures/mkroot.py) stand in for a live host: no root needed.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

SRCROOT = os.path.realpath(os.environ.get("SRCROOT") or
                           os.path.join(os.path.dirname(__file__), "..", ".."))
NETTUNE = os.environ.get("NETTUNE") or os.path.join(SRCROOT, "build", "nettune")
MKROOT = os.path.join(SRCROOT, "tests", "fixtures", "mkroot.py")
X710 = "examples/x710-wireguard-gateway.yaml"
X710_STATE = "examples/states/x710-wireguard-gateway.json"
CREATED = "2030-01-01T00:00:00Z"

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def check(cond, msg):
    if not cond:
        fail(msg)
    return cond


class Env:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="nt-manifest-")
        self.env = dict(os.environ)
        self.env["NETTUNE_STATE_DIR"] = os.path.join(self.dir, "state")
        # no trust directory: only the default one may be absent (a missing
        # NETTUNE_TRUST_DIR is an error), so these tests need it absent
        self.env.pop("NETTUNE_TRUST_DIR", None)
        if os.path.lexists("/etc/nettune/trusted.d"):
            print("SKIP: /etc/nettune/trusted.d exists; these tests need it absent")
            sys.exit(77)
        self.env.pop("SOURCE_DATE_EPOCH", None)

    def p(self, *a):
        return os.path.join(self.dir, *a)

    def run(self, args, cwd=SRCROOT, env=None):
        e = dict(self.env)
        e.update(env or {})
        for attempt in range(20):
            try:
                r = subprocess.run([NETTUNE] + args, cwd=cwd, env=e, capture_output=True)
                break
            except (PermissionError, FileNotFoundError, OSError):
                time.sleep(0.5)	# the binary is being relinked by a concurrent build
        else:
            raise RuntimeError("cannot run " + NETTUNE)
        return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def keygen(E, name):
    rc, out, err = E.run(["keygen", "--out", E.p(name)])
    assert rc == 0, err
    return E.p(name), E.p(name + ".pub")


FIXTURE_PROFILE = """apiVersion: nettune/v1
kind: HostProfile
metadata: {name: fixture-x710, host: any}
target: linux
interfaces:
  - name: enp1s0f0
    irq: {policy: numa-local-spread}
sysctl:
  net.core.rps_sock_flow_entries: "32768"
"""

SMALL_PROFILE = """apiVersion: nettune/v1
kind: HostProfile
metadata: {name: fixture-x710, host: any}
target: linux
sysctl:
  net.core.rps_sock_flow_entries: "32768"
"""


def fixture(E, profile=FIXTURE_PROFILE, queues=4):
    root = E.p("root")
    # the image's host name: under --root nettune reports it, not this machine's
    subprocess.run([sys.executable, MKROOT, root, "--queues", str(queues),
                    "--hostname", "fixture-host"], check=True, capture_output=True)
    with open(E.p("p.yaml"), "w") as f:
        f.write(profile)
    return root


def plan_out(E, root, out, extra=()):
    rc, o, err = E.run(["--root", root, "plan", E.p("p.yaml"), "--out", out] + list(extra))
    assert rc in (0, 2), err
    return rc


# ---------------------------------------------------------------- roundtrip

def t_roundtrip():
    E = Env()
    try:
        a, b = E.p("a.json"), E.p("b.json")
        rc1, _, e1 = E.run(["plan", X710, "--state", X710_STATE, "--out", a, "--created", CREATED])
        rc2, _, e2 = E.run(["plan", X710, "--state", X710_STATE, "--out", b],
                           env={"SOURCE_DATE_EPOCH": "1893456000"})
        check(rc1 == 2 and rc2 == 2, "plan --out exit codes %d %d: %s %s" % (rc1, rc2, e1, e2))
        ba, bb = open(a, "rb").read(), open(b, "rb").read()
        check(ba == bb, "--created and SOURCE_DATE_EPOCH of the same instant give different bytes")
        m = json.loads(ba)
        check(list(m) == ["format", "nettune", "target", "host", "profile", "sources", "against",
                          "created", "expires", "signer", "summary", "actions"],
              "top-level key order %s" % list(m))
        check(m["format"] == "nettune-plan/1", "format")
        rc, out, _ = E.run(["--version"])
        check(out.strip() == "nettune " + m["nettune"], "nettune version %s vs %s" % (m["nettune"], out))
        check(m["created"] == CREATED and m["expires"] == "2030-01-02T00:00:00Z",
              "created/expires default 24h: %s %s" % (m["created"], m["expires"]))
        check(m["host"]["name"] == "sg-gw-01" and m["target"] == "linux", "host/target")
        check(m["signer"] is None, "unsigned manifest has a signer")
        files = [s["file"] for s in m["sources"]]
        check(files[0] == X710 and "profiles/wireguard-gateway.yaml" in files, "sources %s" % files)
        for s in m["sources"]:
            want = hashlib.sha256(open(os.path.join(SRCROOT, s["file"]), "rb").read()).hexdigest()
            check(s["sha256"] == want, "digest of %s" % s["file"])
        check(re.fullmatch(r"[0-9a-f]{64}", m["profile"]["merged_sha256"]), "merged digest")
        # actions are exactly plan --json's, in order
        rc, pj, _ = E.run(["plan", "--json", X710, "--state", X710_STATE])
        pj = json.loads(pj)
        key = lambda a: (a["object"], a["attribute"], a["from"], a["to"], a["source"])
        check([key(x) for x in m["actions"]] == [key(x) for x in pj["actions"]],
              "manifest actions differ from plan --json")
        check(m["summary"]["changes"] == len(m["actions"]) == pj["changes"], "summary")
        check(all(("disruptive" in x["flags"]) == y["disruptive"] for x, y in
                  zip(m["actions"], pj["actions"])), "disruptive flags")
        # --expires-in
        rc, _, err = E.run(["plan", X710, "--state", X710_STATE, "--out", b, "--created", CREATED,
                            "--expires-in", "90m"])
        check(json.load(open(b))["expires"] == "2030-01-01T01:30:00Z", "--expires-in 90m")
        for bad in ["0", "1y", "401d", "-5m", ""]:
            rc, _, err = E.run(["plan", X710, "--state", X710_STATE, "--out", b, "--expires-in", bad])
            check(rc == 64, "--expires-in %r accepted (%d)" % (bad, rc))
        rc, _, err = E.run(["plan", X710, "--state", X710_STATE, "--out", b, "--created", "yesterday"])
        check(rc == 64 and "--created must be an RFC 3339" in err, "--created yesterday: %d %s" % (rc, err))
        # sign rewrites only the signer; the result is canonical (verify reloads it)
        key_, pub = keygen(E, "k")
        rc, _, err = E.run(["sign", "--key", key_, a])
        check(rc == 0, "sign: %s" % err)
        signed = open(a, "rb").read()
        m2 = json.loads(signed)
        kid = m2["signer"]
        check(re.fullmatch(r"sha256:[0-9a-f]{64}", kid or ""), "signer %r" % kid)
        m2["signer"] = None
        check(m2 == m, "sign changed more than the signer")
        check(signed.replace(('"signer": "%s"' % kid).encode(), b'"signer": null') == ba,
              "signed bytes are not the unsigned bytes with the signer filled in")
        rc, out, err = E.run(["verify", "--pub", pub, a])
        check(rc == 0 and "good signature by " + kid in out, "verify after sign: %d %s %s" % (rc, out, err))
        # signing twice is idempotent: byte-identical manifest and signature (Ed25519 is deterministic)
        sig1 = open(a + ".sig", "rb").read()
        E.run(["sign", "--key", key_, a])
        check(open(a, "rb").read() == signed and open(a + ".sig", "rb").read() == sig1,
              "re-signing is not byte-identical")
        check(len(sig1) == 64, "signature is %d bytes" % len(sig1))
        # a new plan --out drops the stale signature
        E.run(["plan", X710, "--state", X710_STATE, "--out", a, "--created", CREATED])
        check(not os.path.exists(a + ".sig"), "plan --out left the previous signature")
        # every example with a snapshot round-trips through verify's loader
        for prof in sorted(os.listdir(os.path.join(SRCROOT, "examples"))):
            st = os.path.join("examples/states", prof.replace(".yaml", ".json"))
            if not prof.endswith(".yaml") or not os.path.exists(os.path.join(SRCROOT, st)):
                continue
            out = E.p(prof + ".plan.json")
            rc, _, err = E.run(["plan", "examples/" + prof, "--state", st, "--out", out,
                                "--created", CREATED])
            if not check(rc in (0, 2) and os.path.exists(out), "plan --out %s: %s" % (prof, err)):
                continue
            rc, _, err = E.run(["sign", "--key", key_, out])
            check(rc == 0, "sign %s: %s" % (prof, err))
            rc, _, err = E.run(["verify", "--pub", pub, out])
            check(rc == 0, "verify %s: %s" % (prof, err))
    finally:
        E.close()


# ---------------------------------------------------------------- refusals

def expect(E, args, rc_want, msg, env=None, what=""):
    rc, out, err = E.run(args, env=env)
    check(rc == rc_want, "%s: exit %d, want %d\n%s%s" % (what, rc, rc_want, out, err))
    check(msg in err, "%s: message\n  want: %s\n  got:  %s" % (what, msg, err.strip()))
    return err


def t_refusals():
    E = Env()
    try:
        root = fixture(E)
        plan = E.p("plan.json")
        key, pub = keygen(E, "ci")
        okey, opub = keygen(E, "other")
        plan_out(E, root, plan)
        apply_ = ["--root", root, "apply", plan]
        # missing signature
        expect(E, apply_ + ["--trust", pub], 1,
               "nettune apply: error: missing signature: %s is not signed (no %s.sig) and trusted "
               "keys are configured (--trust %s); sign it with 'nettune sign'" % (plan, plan, pub),
               what="unsigned")
        # trust directory: present -> unsigned plans refused even without --trust
        tdir = E.p("trusted.d")
        os.mkdir(tdir)
        shutil.copy(pub, os.path.join(tdir, "ci.pub"))
        expect(E, apply_, 1, "nettune apply: error: missing signature: %s is not signed (no %s.sig) "
               "and trusted keys are configured (%s)" % (plan, plan, tdir),
               env={"NETTUNE_TRUST_DIR": tdir}, what="unsigned, trust dir")
        # signer named, .sig deleted
        E.run(["sign", "--key", key, plan])
        kid = json.load(open(plan))["signer"]
        sig = open(plan + ".sig", "rb").read()
        os.unlink(plan + ".sig")
        expect(E, apply_ + ["--trust", pub], 1, "nettune apply: error: missing signature: %s names "
               "signer %s but %s.sig does not exist" % (plan, kid, plan), what="sig deleted")
        # bad signature: a signature of other bytes
        open(plan + ".sig", "wb").write(bytes(64))
        expect(E, apply_ + ["--trust", pub], 1, "nettune apply: error: bad signature: %s.sig does "
               "not verify %s with key %s (%s): the plan was changed after signing, or the "
               "signature is not this key's" % (plan, plan, kid, pub), what="zero signature")
        open(plan + ".sig", "wb").write(sig[:63])
        expect(E, apply_ + ["--trust", pub], 1, "nettune apply: error: bad signature: %s.sig is 63 "
               "bytes, not a 64-byte Ed25519 signature" % plan, what="short signature")
        open(plan + ".sig", "wb").write(sig)
        # unknown key
        expect(E, apply_ + ["--trust", opub], 1, "nettune apply: error: unknown key: %s is signed by "
               "%s, which is not a trusted key (trusted: --trust %s)" % (plan, kid, opub),
               what="unknown key")
        # unknown key: an empty trust directory trusts nobody
        edir = E.p("empty.d")
        os.mkdir(edir)
        expect(E, apply_, 1, "nettune apply: error: unknown key: %s is signed by %s, which is not a "
               "trusted key (trusted: no keys)" % (plan, kid), env={"NETTUNE_TRUST_DIR": edir},
               what="empty trust dir")
        # expired (an old --created; signed, so the signature is fine)
        old = E.p("old.json")
        plan_out(E, root, old, ["--created", "2020-01-01T00:00:00Z", "--expires-in", "1h"])
        E.run(["sign", "--key", key, old])
        expect(E, ["--root", root, "apply", old, "--trust", pub], 1,
               "nettune apply: error: expired plan: %s expired at 2020-01-01T01:00:00Z (created "
               "2020-01-01T00:00:00Z); make a new plan" % old, what="expired")
        # from the future: created after this host's clock (beyond 5 min of skew)
        fut = E.p("future.json")
        plan_out(E, root, fut, ["--created", "2099-01-01T00:00:00Z", "--expires-in", "1h"])
        E.run(["sign", "--key", key, fut])
        expect(E, ["--root", root, "apply", fut, "--trust", pub], 1,
               "nettune apply: error: plan from the future: %s was created at 2099-01-01T00:00:00Z, "
               "after this host's clock; check the clocks of the planner and this host" % fut,
               what="future")
        # another host: the X710 gateway's snapshot (no machine-id) vs this host
        other = E.p("other.json")
        E.run(["plan", X710, "--state", X710_STATE, "--out", other])
        E.run(["sign", "--key", key, other])
        expect(E, ["--root", root, "apply", other, "--trust", pub], 1,
               "nettune apply: error: plan for another host: %s is for host sg-gw-01, this host is "
               "fixture-host" % other, what="other host by name")
        # another host by machine-id: same fixture layout, other machine-id
        root2 = E.p("root2")
        subprocess.run([sys.executable, MKROOT, root2, "--queues", "4", "--hostname", "host2"],
                       check=True)
        open(os.path.join(root2, "etc/machine-id"), "w").write("fedcba9876543210fedcba9876543210\n")
        expect(E, ["--root", root2, "apply", plan, "--trust", pub], 1,
               "nettune apply: error: plan for another host: %s is for machine-id "
               "0123456789abcdef0123456789abcdef (host fixture-host), this host is machine-id "
               "fedcba9876543210fedcba9876543210 (host host2)" % plan,
               what="other host by machine-id")
        # stale: two observed values changed since the plan was made
        sysctl = os.path.join(root, "proc/sys/net/core/rps_sock_flow_entries")
        irq = os.path.join(root, "proc/irq/201/smp_affinity_list")
        was_sysctl, was_irq = open(sysctl).read().strip(), open(irq).read().strip()
        open(sysctl, "w").write("4096\n")
        open(irq, "w").write("7\n")
        err = expect(E, apply_ + ["--trust", pub], 1, "nettune apply: error: stale plan: 2 settings "
                     "of this host changed since %s was made" % plan, what="stale")
        check("  sysctl net.core.rps_sock_flow_entries: planned from %s, the host now has "
              "4096\n" % was_sysctl in err, "stale: sysctl difference not shown:\n" + err)
        check("  irq-affinity 0: planned from %s, the host now has 7\n" % was_irq in err
              or ": planned from %s, the host now has 7\n" % was_irq in err,
              "stale: irq difference not shown:\n" + err)
        check(open(sysctl).read().strip() == "4096", "a stale plan changed the host")
        open(sysctl, "w").write(was_sysctl + "\n")
        open(irq, "w").write(was_irq + "\n")
        # not a manifest any more: a located rejection
        bad = E.p("bad.json")
        text = open(plan).read().replace('"format": "nettune-plan/1"', '"format": "nettune-plan/9"')
        open(bad, "w").write(text)
        err = expect(E, ["--root", root, "apply", bad, "--trust", pub], 1,
                     "%s:2:13: error: format \"nettune-plan/9\" is not nettune-plan/1" % bad,
                     what="bad format")
        check("is not a valid plan manifest; nothing was changed" in err, "bad format summary")
        # --only and --trust with a profile are usage errors
        expect(E, apply_ + ["--only", "enp1s0f0"], 64, "--only does not apply to a PLAN.json",
               what="--only")
        expect(E, ["--root", root, "apply", E.p("p.yaml"), "--trust", pub], 64,
               "--trust is for a signed PLAN.json", what="--trust with a profile")
        # no trust configured: applies with a warning; here the good signed plan applies
        rc, out, err = E.run(apply_ + ["--trust", pub, "--dry-run"])
        check(rc == 2 and "Dry run" in out, "dry run of a good plan: %d %s %s" % (rc, out, err))
        rc, out, err = E.run(apply_, env={"NETTUNE_TRUST_DIR": tdir})
        check(rc == 0, "apply of a good signed plan: %d %s %s" % (rc, out, err))
        check(open(sysctl).read().strip() == "32768", "sysctl not applied")
        rc, out, err = E.run(["--root", root, "plan", "--check", E.p("p.yaml")])
        check(rc == 0 and out.startswith("in sync: "), "after apply: plan --check %d %s" % (rc, out))
        # the same plan again: the host holds every planned value (a retry is not an error)
        rc, out, err = E.run(apply_ + ["--trust", pub])
        check(rc == 0 and out.startswith("Already converged: this host already holds every value ")
              and "nothing was changed" in out and "stale" not in err,
              "re-apply of an applied plan: %d %s %s" % (rc, out, err))
        # one value undone by hand: stale, and the missing value is named
        with open(sysctl, "w") as f:
            f.write("4096\n")
        expect(E, apply_ + ["--trust", pub], 1, "nettune apply: error: stale plan: ",
               what="re-apply after a value was undone")
        check(open(sysctl).read().strip() == "4096", "stale re-apply changed the sysctl")
        with open(sysctl, "w") as f:
            f.write("32768\n")
        # unsigned without any trust: a warning, and it applies (converged plan: nothing to do)
        conv = E.p("conv.json")
        rc = plan_out(E, root, conv)
        rc, out, err = E.run(["--root", root, "apply", "--yes", conv])
        check(rc == 0 and "warning: no trusted keys" in err and "Nothing to do" in out,
              "unsigned converged plan without trust: %d %s %s" % (rc, out, err))
    finally:
        E.close()


# ---------------------------------------------------------------- bytes

def t_bytes():
    E = Env()
    try:
        root = fixture(E, SMALL_PROFILE)
        plan = E.p("plan.json")
        key, pub = keygen(E, "ci")
        plan_out(E, root, plan, ["--created", CREATED])
        rc, _, err = E.run(["sign", "--key", key, plan])
        assert rc == 0, err
        good, sig = open(plan, "rb").read(), open(plan + ".sig", "rb").read()
        rc, _, err = E.run(["verify", "--pub", pub, plan])
        check(rc == 0, "the untouched manifest does not verify: " + err)
        check(len(good) < 4096, "small manifest is %d bytes" % len(good))
        # every byte position of the manifest (a bit flip, and for every
        # tenth position a change to '0'), every byte of the signature,
        # and an added or removed byte
        cases = []
        for i in range(len(good)):
            for flip in ((0x01, ord("0")) if i % 10 == 0 else (0x01,)):
                data = bytearray(good)
                data[i] = data[i] ^ 0x01 if flip == 0x01 else (flip if data[i] != flip else ord("1"))
                cases.append((("plan", i, flip), bytes(data), sig))
        for i in range(len(sig)):
            s = bytearray(sig)
            s[i] ^= 0x01
            cases.append((("sig", i), good, bytes(s)))
        for data in (good + b"\n", good[:-1], b" " + good):
            cases.append((("len", len(data)), data, sig))

        def one(k):
            what, data, s = cases[k]
            t = E.p("t%d.json" % k)
            open(t, "wb").write(data)
            open(t + ".sig", "wb").write(s)
            rc, _, err = E.run(["verify", "--pub", pub, t])
            os.unlink(t)
            os.unlink(t + ".sig")
            bad = rc != 1 or "Segmentation" in err or "Sanitizer" in err
            return (what, rc) if bad else None

        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(max_workers=8) as ex:
            accepted = [r for r in ex.map(one, range(len(cases))) if r]
        check(not accepted, "%d one-byte changes were accepted: %s" % (len(accepted), accepted[:10]))
        print("ok: %d changes over %d manifest bytes, %d signature bytes, 3 length changes refused"
              % (len(cases) - len(sig) - 3, len(good), len(sig)))
    finally:
        E.close()


# ---------------------------------------------------------------- openssl

def openssl(args, **kw):
    return subprocess.run(["openssl"] + args, capture_output=True, **kw)


def t_openssl():
    if not shutil.which("openssl"):
        print("SKIP: no openssl command")
        sys.exit(77)
    E = Env()
    try:
        key, pub = keygen(E, "ci")
        mode = os.stat(key).st_mode & 0o777
        check(mode == 0o600, "private key mode %o" % mode)
        rc, _, err = E.run(["keygen", "--out", key])
        check(rc == 1 and "refusing to overwrite a key" in err, "keygen overwrote a key: " + err)
        plan = E.p("plan.json")
        E.run(["plan", X710, "--state", X710_STATE, "--out", plan])
        rc, _, err = E.run(["sign", "--key", key, plan])
        check(rc == 0, "sign: " + err)
        # nettune -> openssl: the README command, verbatim
        r = openssl(["pkeyutl", "-verify", "-pubin", "-inkey", pub, "-rawin", "-in", plan,
                     "-sigfile", plan + ".sig"])
        check(r.returncode == 0 and b"Signature Verified Successfully" in r.stdout,
              "openssl does not verify nettune's signature: %s %s" % (r.stdout, r.stderr))
        # and rejects a changed plan
        t = E.p("t.json")
        open(t, "wb").write(open(plan, "rb").read().replace(b'"to": 1440', b'"to": 1441', 1))
        r = openssl(["pkeyutl", "-verify", "-pubin", "-inkey", pub, "-rawin", "-in", t,
                     "-sigfile", plan + ".sig"])
        check(r.returncode != 0, "openssl verified a changed plan")
        # key id = SHA-256 of the DER public key
        der = openssl(["pkey", "-pubin", "-in", pub, "-outform", "DER"]).stdout
        check(json.load(open(plan))["signer"] == "sha256:" + hashlib.sha256(der).hexdigest(),
              "signer id is not sha256 of the DER public key")
        # openssl -> nettune: a key and a signature made by openssl alone
        okey, opub = E.p("o.pem"), E.p("o.pub")
        check(openssl(["genpkey", "-algorithm", "ed25519", "-out", okey]).returncode == 0, "genpkey")
        openssl(["pkey", "-in", okey, "-pubout", "-out", opub])
        plan2 = E.p("plan2.json")
        E.run(["plan", X710, "--state", X710_STATE, "--out", plan2])
        r = openssl(["pkeyutl", "-sign", "-inkey", okey, "-rawin", "-in", plan2, "-out", plan2 + ".sig"])
        check(r.returncode == 0, "openssl sign: %s" % r.stderr)
        rc, out, err = E.run(["verify", "--pub", opub, plan2])
        check(rc == 0 and "good signature" in out, "nettune does not verify openssl's signature: %s %s"
              % (out, err))
        rc, out, err = E.run(["verify", "--pub", pub, plan2])
        check(rc == 1 and "bad signature: %s.sig does not verify %s with any trusted key (--pub %s)"
              % (plan2, plan2, pub) in err, "openssl signature with the wrong key: %s" % err)
        # verify names the keys it was given as it was given them: --pub,
        # not apply's --trust
        nkey, npub = keygen(E, "verify-other")
        plan3 = E.p("plan3.json")
        E.run(["plan", X710, "--state", X710_STATE, "--out", plan3])
        E.run(["sign", "--key", nkey, plan3])
        rc, out, err = E.run(["verify", "--pub", pub, plan3])
        check(rc == 1 and err == "nettune verify: error: unknown key: %s is signed by %s, which is "
              "not a trusted key (trusted: --pub %s)\n" % (plan3, json.load(open(plan3))["signer"], pub),
              "verify --pub with an unknown signer: %r" % err)
        # nettune signs with the openssl-made key; openssl verifies
        rc, _, err = E.run(["sign", "--key", okey, plan2])
        r = openssl(["pkeyutl", "-verify", "-pubin", "-inkey", opub, "-rawin", "-in", plan2,
                     "-sigfile", plan2 + ".sig"])
        check(rc == 0 and r.returncode == 0, "openssl key used by nettune: %s %s" % (err, r.stderr))
        # other key types are refused
        rsa = E.p("rsa.pem")
        openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", rsa])
        rc, _, err = E.run(["sign", "--key", rsa, plan2])
        check(rc == 1 and "is a EC key; nettune signs with Ed25519 only" in err, "EC key: " + err)
        rc, _, err = E.run(["verify", "--pub", plan2, plan2])
        check(rc == 1 and "not a PEM public key" in err, "garbage public key: " + err)
    finally:
        E.close()


# ---------------------------------------------------------------- sarif

def t_sarif():
    try:
        import jsonschema
    except ImportError:
        print("SKIP: python3-jsonschema missing")
        sys.exit(77)
    schema_path = os.path.join(SRCROOT, "tests", "validate", "sarif-schema-2.1.0.json")
    schema = json.load(open(schema_path))
    E = Env()
    try:
        bad = sorted(os.path.join("tests/bad", f) for f in os.listdir(os.path.join(SRCROOT, "tests/bad"))
                     if f.endswith(".yaml"))
        good = [X710, "examples/veth-lab.yaml", "examples/windows-wireguard-host.yaml"]
        for files, want in ((good, 0), (bad, 1), (good + bad[:5], 1)):
            rc, out, _ = E.run(["validate", "--format", "sarif"] + files)
            check(rc == want, "validate sarif exit %d, want %d" % (rc, want))
            doc = json.loads(out)
            try:
                jsonschema.validate(doc, schema)
            except jsonschema.ValidationError as e:
                fail("SARIF does not match the 2.1.0 schema: %s at %s" % (e.message, list(e.path)))
            results = doc["runs"][0]["results"]
            rc, js, _ = E.run(["validate", "--format", "json"] + files)
            j = json.loads(js)
            check(len(results) == len(j["diagnostics"]), "sarif %d results, json %d diagnostics"
                  % (len(results), len(j["diagnostics"])))
            for r, d in zip(results, j["diagnostics"]):
                loc = r["locations"][0]["physicalLocation"]
                line = loc.get("region", {}).get("startLine", 0)
                check(loc["artifactLocation"]["uri"].endswith(d["file"]) and line == d["line"],
                      "sarif/json location mismatch %s %s" % (loc, d))
            rc, gh, _ = E.run(["validate", "--format", "github"] + files)
            lines = gh.splitlines()
            check(len(lines) == len(j["diagnostics"]), "github lines")
            for l, d in zip(lines, j["diagnostics"]):
                where = ",line=%d,col=%d" % (d["line"], d["column"]) if d["line"] else ""
                check(re.match(r"::(error|warning|notice) file=%s%s(,title=[^:]*)?::" %
                               (re.escape(d["file"]), re.escape(where)), l),
                      "github annotation %r" % l)
        print("ok: SARIF of %d bad + %d good profiles matches SARIF 2.1.0" % (len(bad), len(good)))
    finally:
        E.close()


# ---------------------------------------------------------------- compile

BROKEN = {
    # a nettune profile (its apiVersion says so) that is not valid YAML;
    # YAML without it is not a profile and a walk skips it
    "broken-syntax": ("apiVersion: nettune/v1\nmetadata: {name: x\n", None),
    "broken-key": ("interfaces:\n  - name: eth0\n    nic: veth\n    mtuu: 1500\n", (8, 5)),
    "broken-mtu": ("interfaces:\n  - name: eth0\n    nic: veth\n    mtu: 70000\n", (8, 10)),
    "broken-extends": ("extends: [no-such-policy]\ninterfaces: []\n", (5, 11)),
    "broken-snapshot": ("interfaces:\n  - {name: eth0, nic: veth, mtu: 1500}\n", None),
}


def t_compile():
    E = Env()
    try:
        tree = E.p("fleet")
        os.makedirs(os.path.join(tree, "states"))
        os.makedirs(os.path.join(tree, "rack2", "states"))
        state = json.load(open(os.path.join(SRCROOT, "examples/states/veth-lab.json"))) \
            if os.path.exists(os.path.join(SRCROOT, "examples/states/veth-lab.json")) else None
        if state is None:
            # a snapshot of the veth lab from the profile's own desired state is not needed:
            # the X710 gateway snapshot serves every generated host
            pass
        x710 = open(os.path.join(SRCROOT, X710)).read()
        snap = open(os.path.join(SRCROOT, X710_STATE)).read()
        n = 0
        for i in range(1000 - len(BROKEN) - 2):
            sub = "rack2" if i % 2 else ""
            name = "gw-%04d" % i
            with open(os.path.join(tree, sub, name + ".yaml"), "w") as f:
                f.write(x710.replace("name: sg-gw-01", "name: " + name))
            if i % 10 != 9:		# every tenth host has no snapshot: validated only
                with open(os.path.join(tree, sub, "states", name + ".json"), "w") as f:
                    f.write(snap)
            n += 1
        head = "apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: %s, host: any}\ntarget: linux\n"
        for name, (body, _) in BROKEN.items():
            with open(os.path.join(tree, name + ".yaml"), "w") as f:
                f.write(body if name == "broken-syntax" else head % name + body)
            shutil.copy(os.path.join(SRCROOT, X710_STATE), os.path.join(tree, "states", name + ".json"))
        open(os.path.join(tree, "states", "broken-snapshot.json"), "w").write('{"format": 7}\n')
        # a policy profile is validated and skipped; a duplicate host name fails
        shutil.copy(os.path.join(SRCROOT, "profiles/wireguard-gateway.yaml"), os.path.join(tree, "policy.yaml"))
        os.makedirs(os.path.join(tree, "rack3", "states"))
        with open(os.path.join(tree, "rack3", "gw-0000.yaml"), "w") as f:
            f.write(x710.replace("name: sg-gw-01", "name: gw-dup"))
        shutil.copy(os.path.join(SRCROOT, X710_STATE), os.path.join(tree, "rack3", "states", "gw-0000.json"))
        key, pub = keygen(E, "ci")
        out = E.p("out")
        env = {"NETTUNE_PROFILE_PATH": os.path.join(SRCROOT, "profiles")}
        t0 = time.time()
        rc, so, se = E.run(["--profile-path", os.path.join(SRCROOT, "profiles"), "compile",
                            "--out-dir", out, "--key", key, "--created", CREATED, tree], env=env)
        dt = time.time() - t0
        total = n + len(BROKEN) + 2
        check(rc == 1, "compile exit %d with broken profiles" % rc)
        print(so.strip())
        print("rate: %d profiles in %.2fs = %.0f/s (wall clock of the whole command)" % (total, dt, total / dt))
        check(so.startswith("%d profiles in " % total), "summary line: " + so)
        check("%d failed" % (len(BROKEN) + 1) in so, "failed count: " + so)
        check("1 policy" in so, "policy count: " + so)
        check("\r" not in se, "progress written to a non-terminal")
        for name, (_, pos) in BROKEN.items():
            f = os.path.join(tree, name + ".yaml")
            if name == "broken-snapshot":
                pat = re.escape(os.path.join(tree, "states", name + ".json")) + r":1:\d+: error: "
            elif pos:
                pat = re.escape(f) + r":%d:%d: error: " % pos
            else:
                pat = re.escape(f) + r":\d+:\d+: error: "
            check(re.search(pat, se, re.M), "%s not reported as %s in:\n%s" % (name, pat, se[:3000]))
        check("rack3/gw-0000.yaml: error: %s/gw-0000.yaml also compiles to %s/gw-0000.plan.json"
              % (tree, out) in se, "duplicate output name not reported")
        made = sorted(os.listdir(out))
        want_plans = sorted("gw-%04d.plan.json" % i for i in range(n) if i % 10 != 9)
        check([m for m in made if m.endswith(".plan.json")] == want_plans,
              "%d manifests written, want %d" % (len([m for m in made if m.endswith(".json")]), len(want_plans)))
        check(all(os.path.getsize(os.path.join(out, p + ".sig")) == 64 for p in want_plans), "signatures")
        for p in want_plans[::97]:
            rc, _, err = E.run(["verify", "--pub", pub, os.path.join(out, p)])
            check(rc == 0, "verify %s: %s" % (p, err))
        m = json.load(open(os.path.join(out, "gw-0000.plan.json")))
        check(m["profile"]["name"] == "gw-0000" and m["created"] == CREATED, "manifest of gw-0000")
        # reproducible: the same batch gives byte-identical manifests
        out2 = E.p("out2")
        E.run(["--profile-path", os.path.join(SRCROOT, "profiles"), "compile", "--out-dir", out2,
               "--key", key, "--created", CREATED, "--jobs", "1", tree], env=env)
        check(all(open(os.path.join(out, p), "rb").read() == open(os.path.join(out2, p), "rb").read()
                  for p in want_plans[::50]), "two batch runs differ")
        # only good profiles: exit 0
        good = [os.path.join(tree, "gw-%04d.yaml" % i) for i in range(0, 20, 2)]
        rc, so, se = E.run(["--profile-path", os.path.join(SRCROOT, "profiles"), "compile",
                            "--out-dir", E.p("out3"), "--state-dir", os.path.join(tree, "states")] + good)
        check(rc == 0 and "0 failed" in so, "compile of good profiles: %d %s %s" % (rc, so, se))
        rc, _, _ = E.run(["compile", tree])
        check(rc == 64, "compile without --out-dir: %d" % rc)
        # one snapshot for several hosts (a hard link, a symbolic link, a
        # copy): a worker parses it once, and every manifest is still the
        # one a compile of that profile alone writes
        sh = E.p("shared")
        os.makedirs(os.path.join(sh, "states"))
        hosts = ["h%d" % i for i in range(4)]
        for i, h in enumerate(hosts):
            with open(os.path.join(sh, h + ".yaml"), "w") as f:
                f.write(x710.replace("name: sg-gw-01", "name: " + h).replace("mtu: 1500", "mtu: %d" % (1500 + i)))
        shutil.copy(os.path.join(SRCROOT, X710_STATE), os.path.join(sh, "states", "h0.json"))
        os.link(os.path.join(sh, "states", "h0.json"), os.path.join(sh, "states", "h1.json"))
        os.symlink("h0.json", os.path.join(sh, "states", "h2.json"))
        # h3: the same snapshot but for its observed MTU
        snap3 = snap.replace('"attribute": "mtu",\n      "value": 1500', '"attribute": "mtu",\n      "value": 1280', 1)
        check(snap3 != snap, "the snapshot has no enp1s0f0 mtu to change")
        open(os.path.join(sh, "states", "h3.json"), "w").write(snap3)
        files = [os.path.join(sh, h + ".yaml") for h in hosts]
        rc, so, se = E.run(["--profile-path", os.path.join(SRCROOT, "profiles"), "compile", "--jobs", "1",
                            "--out-dir", E.p("out4"), "--created", CREATED] + files)
        check(rc == 0 and "4 manifests written" in so, "compile with a shared snapshot: %d %s %s" % (rc, so, se))
        for h, f in zip(hosts, files):
            E.run(["--profile-path", os.path.join(SRCROOT, "profiles"), "compile",
                   "--out-dir", E.p("out5"), "--created", CREATED, f])
            a = open(os.path.join(E.p("out4"), h + ".plan.json"), "rb").read()
            b = open(os.path.join(E.p("out5"), h + ".plan.json"), "rb").read()
            check(a == b and (b'"name": "%s"' % h.encode()) in a and
                  (b'"from": 1280' in a) == (h == "h3"),
                  "%s: the manifest from a shared snapshot differs from its own compile" % h)
    finally:
        E.close()


# ---------------------------------------------------------------- drift

def t_drift():
    E = Env()
    try:
        rc, out, err = E.run(["plan", "--check", X710, "--state", X710_STATE])
        check(rc == 2, "drift exit %d" % rc)
        lines = out.splitlines()
        check(re.match(r"drift: \d+ settings of %s differ from %s$" % (re.escape(X710_STATE), re.escape(X710)),
                       lines[0]), "drift header %r" % lines[0])
        check("  wg0 mtu: 1420 (want 1440)" in lines, "drift line for wg0 mtu:\n" + out)
        rc, pj, _ = E.run(["plan", "--json", X710, "--state", X710_STATE])
        check(len(lines) - 1 == json.loads(pj)["changes"], "one drift line per change")
        rc, out, err = E.run(["plan", "--check", "no-such.yaml"])
        check(rc == 1, "drift error exit %d" % rc)
        rc, out, err = E.run(["plan", "--check", "--json", X710, "--state", X710_STATE])
        check(rc == 64, "--check --json exit %d" % rc)
        # in sync on a --root fixture after apply
        root = fixture(E)
        rc, out, _ = E.run(["--root", root, "plan", "--check", E.p("p.yaml")])
        check(rc == 2, "fixture drift %d" % rc)
        E.run(["--root", root, "apply", "--yes", E.p("p.yaml")])
        rc, out, _ = E.run(["--root", root, "plan", "--check", E.p("p.yaml")])
        check(rc == 0 and out == "in sync: the live host matches %s\n" % E.p("p.yaml"), "in sync: %d %r" % (rc, out))
    finally:
        E.close()


# ---------------------------------------------------------------- loader

def t_loader():
    E = Env()
    try:
        plan = E.p("plan.json")
        E.run(["plan", X710, "--state", X710_STATE, "--out", plan, "--created", CREATED])
        good = open(plan).read()
        cases = [
            ("not-json", lambda s: s[:100], r":\d+:\d+: error: "),
            ("array", lambda s: "[]\n", r":1:1: error: a plan manifest is a JSON object, not an array"),
            ("unknown-key", lambda s: s.replace('"nettune": ', '"colour": 1, "nettune": '),
             r":3:13: error: unknown key \"colour\" in the manifest"),
            ("missing", lambda s: s.replace('  "against": "%s",\n' % X710_STATE, ""),
             r":1:1: error: the manifest has no \"against\""),
            ("target", lambda s: s.replace('"target": "linux"', '"target": "bsd"'),
             r":4:13: error: target must be linux or windows"),
            ("time", lambda s: s.replace(CREATED, "2030-02-30T00:00:00Z"),
             r":\d+:14: error: \"created\" must be an RFC 3339 UTC time"),
            ("expires", lambda s: s.replace('"expires": "2030-01-02', '"expires": "2029-01-02'),
             r":\d+:14: error: \"expires\" must be later than \"created\""),
            ("digest", lambda s: s.replace('"merged_sha256": "', '"merged_sha256": "X', 1),
             r":\d+:\d+: error: \"merged_sha256\" must be a SHA-256 digest"),
            ("attribute", lambda s: s.replace('"attribute": "mtu"', '"attribute": "colour"', 1),
             r":\d+:\d+: error: unknown attribute \"colour\""),
            ("from-type", lambda s: s.replace('"from": 1420', '"from": "big"', 1),
             r":\d+:\d+: error: \"from\" of mtu must be a whole number"),
            ("flag", lambda s: s.replace('"flags": []', '"flags": ["urgent"]', 1),
             r":\d+:\d+: error: unknown flag"),
            ("summary", lambda s: re.sub(r'"changes": \d+', '"changes": 1', s),
             r":\d+:\d+: error: summary \"changes\" is 1 but the actions say \d+"),
            ("source", lambda s: s.replace('"source": "examples/x710-wireguard-gateway.yaml:', '"source": "examples/x710-wireguard-gateway.yaml:L', 1),
             r":\d+:\d+: error: \"source\" must be FILE:LINE:COL"),
            ("control", lambda s: s.replace('"object": "wg0"', '"object": "wg\\u00010"', 1),
             r":\d+:\d+: error: \"object\" must be a non-empty printable string"),
            ("spacing", lambda s: s.replace('"format": ', '"format":  '),
             r":2:13: error: not in canonical form: byte 14 differs"),
            ("number", lambda s: s.replace('"from": 1420', '"from": 1420.0', 1),
             r":\d+:\d+: error: \"from\" of mtu must be a whole number"),
            ("deep", lambda s: "[" * 5000 + "]" * 5000, r":1:\d+: error: "),
        ]
        for name, edit, pat in cases:
            p = E.p(name + ".json")
            open(p, "w").write(edit(good))
            rc, out, err = E.run(["verify", "--pub", "/dev/null", p])
            key, pub = E.p("k"), E.p("k.pub")
            if not os.path.exists(key):
                E.run(["keygen", "--out", key])
            rc, out, err = E.run(["verify", "--pub", pub, p])
            check(rc == 1 and re.search("^" + re.escape(p) + pat, err, re.M),
                  "%s: exit %d, want a located error /%s/ in:\n%s" % (name, rc, pat, err))
            check("is not a valid plan manifest" in err, "%s: summary line" % name)
    finally:
        E.close()


TESTS = {"roundtrip": t_roundtrip, "refusals": t_refusals, "bytes": t_bytes, "openssl": t_openssl,
         "sarif": t_sarif, "compile": t_compile, "drift": t_drift, "loader": t_loader}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in TESTS:
        print(__doc__)
        sys.exit(64)
    TESTS[sys.argv[1]]()
    if failures:
        print("%d failure(s)" % len(failures))
        sys.exit(1)
    print("ok: " + sys.argv[1])
