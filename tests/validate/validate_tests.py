#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""CLI tests of `nettune validate`: the bad corpus, the good profiles, golden
outputs of every --format, the JSON Schema sync, SARIF 2.1.0 conformance and
usage errors.

Usage: validate_tests.py TEST [--update]
  TEST is one of: bad good golden schema-sync jsonschema sarif usage
  --update rewrites tests/bad/*.expected or tests/validate/golden/* from the
  current binary (read every diff before committing it).

Environment (set by tests/meson.build): NETTUNE = the binary, SRCROOT = the
source tree.
"""
import json
import os
import re
import subprocess
import sys

SRCROOT = os.path.realpath(os.environ.get("SRCROOT") or
                           os.path.join(os.path.dirname(__file__), "..", ".."))
NETTUNE = os.environ.get("NETTUNE") or os.path.join(SRCROOT, "build", "nettune")
BAD = os.path.join(SRCROOT, "tests", "bad")
HERE = os.path.join(SRCROOT, "tests", "validate")
GOLDEN = os.path.join(HERE, "golden")
MIN_BAD_CASES = 45

# Cases of tests/bad whose error the JSON Schema can express too: each must
# fail Draft 7 validation against schema/nettune.schema.json.
JSONSCHEMA_BAD = [
    "unknown-key", "unknown-key-suggest", "unknown-offload", "multi-schema-errors",
    "wrong-type-mapping", "wrong-type-sequence", "wrong-type-integer",
    "quoted-number", "negative-number", "bad-bool", "null-value",
    "mtu-too-small", "mtu-too-large", "bad-enum", "bad-enum-suggest",
    "missing-kind", "missing-underlay", "string-too-long", "not-a-mapping",
    "sysctl-value-not-scalar", "features-not-bool", "tunnel-bad-cipher",
    "tunnel-geneve-options-step", "tunnel-geneve-options-range", "tunnel-kind-number",
    "defaults-with-name", "defaults-with-tunnel",
    # the document's shape: apiVersion, what a HostProfile needs and a
    # PolicyProfile may not set
    "apiversion-wrong", "missing-metadata-name", "missing-target", "policy-with-host",
    # the kind rows of issue 19: txqueuelen, pause, flow hash, private flags
    "txqueuelen-zero", "txqueuelen-too-large", "txqueuelen-type", "pause-keys",
    "rows-offload-pause-type", "flow-hash-type", "flow-hash-field", "flow-hash-empty",
    "flow-hash-ah-esp", "flow-hash-repeated-field", "flow-hash-discard", "private-flag-name",
    "private-flag-shell", "private-flag-empty", "per-family-linux-only-offload",
]

# Golden outputs: (name, format, files relative to SRCROOT).
GOLDEN_CASES = [
    ("semantic", ["tests/bad/multi-semantic-errors.yaml", "tests/bad/tunnel-mtu-ipv4.yaml",
                  "examples/veth-lab.yaml"]),
    ("schema", ["tests/bad/multi-schema-errors.yaml", "tests/bad/winname-newline.yaml",
                "tests/bad/warning-and-error.yaml"]),
    ("good", ["examples/x710-wireguard-gateway.yaml"]),
]
FORMATS = ["json", "sarif", "github"]

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def env():
    e = dict(os.environ)
    e["NETTUNE_DATADIR"] = ""
    e.pop("NETTUNE_PROFILE_PATH", None)
    return e


def run(args, cwd):
    p = subprocess.run([NETTUNE] + args, cwd=cwd, env=env(), capture_output=True)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


_version = []


def version():
    if not _version:
        rc, out, _ = run(["--version"], SRCROOT)
        m = re.match(r"nettune (\S+)", out)
        _version.append(m.group(1) if rc == 0 and m else None)
    return _version[0]


def portable(text):
    """The source tree's absolute path and the version are the only parts of
    an output that differ between checkouts and releases."""
    text = text.replace(SRCROOT, "@SRCROOT@")
    v = version()
    if v:
        text = text.replace('"version": "%s"' % v, '"version": "@VERSION@"')
    return text


def diff(expected, actual):
    import difflib
    return "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                        "expected", "actual"))


def bad_cases():
    return sorted(f[:-5] for f in os.listdir(BAD) if f.endswith(".yaml"))


def case_args(name):
    """A case may start with '# args: ...' for options it needs
    (--profile-path policies for the extends cases)."""
    with open(os.path.join(BAD, name + ".yaml"), "rb") as f:
        first = f.readline().decode("utf-8", "replace")
    return first[len("# args:"):].split() if first.startswith("# args:") else []


def test_bad(update):
    cases = bad_cases()
    if len(cases) < MIN_BAD_CASES:
        fail("only %d bad cases; at least %d expected" % (len(cases), MIN_BAD_CASES))
    for f in os.listdir(BAD):
        if f.endswith(".expected") and not os.path.exists(os.path.join(BAD, f[:-9] + ".yaml")):
            fail("%s has no .yaml" % f)
    for name in cases:
        args = ["validate"] + case_args(name) + [name + ".yaml"]
        rc, out, err = run(args, BAD)
        err = portable(err)
        exp_path = os.path.join(BAD, name + ".expected")
        if update:
            with open(exp_path, "w") as f:
                f.write(err)
        if not os.path.exists(exp_path):
            fail("%s: no %s.expected" % (name, name))
            continue
        with open(exp_path) as f:
            exp = f.read()
        if rc != 1:
            fail("%s: exit status %d, expected 1" % (name, rc))
        if out:
            fail("%s: text format printed on stdout: %r" % (name, out))
        if not re.search(r"(^|\n)[^\n]*: error: ", err):
            fail("%s: no error diagnostic" % name)
        if err != exp:
            fail("%s: stderr differs from %s.expected\n%s" % (name, name, diff(exp, err)))
    print("%d bad cases checked" % len(cases))


def good_files():
    out = []
    for d in ("examples", "profiles"):
        out += sorted(os.path.join(d, f) for f in os.listdir(os.path.join(SRCROOT, d))
                      if f.endswith(".yaml"))
    return out


def test_good(update):
    files = good_files()
    if len(files) < 8:
        fail("expected at least 4 examples and 4 policies, found %d files" % len(files))
    for f in files:
        rc, out, err = run(["validate", f], SRCROOT)
        if rc != 0:
            fail("%s: exit status %d, expected 0" % (f, rc))
        if err or out:
            fail("%s: expected no output, got %r %r" % (f, out, err))
    # All of them in one call, too.
    rc, _, err = run(["validate"] + files, SRCROOT)
    summary = "%d profiles: %d valid, 0 invalid\n" % (len(files), len(files))
    if rc != 0 or err != summary:
        fail("validating all good files at once: exit %d, %r (want only %r)" % (rc, err, summary))
    # One bad file among good ones makes the whole call fail.
    rc, _, err = run(["validate"] + files + ["tests/bad/mtu-too-small.yaml"], SRCROOT)
    if rc != 1 or "tests/bad/mtu-too-small.yaml:8:10: error:" not in err:
        fail("a bad file among good ones: exit %d, %r" % (rc, err))
    print("%d good files checked" % len(files))


def test_golden(update):
    os.makedirs(GOLDEN, exist_ok=True)
    for name, files in GOLDEN_CASES:
        for fmt in FORMATS:
            rc, out, err = run(["validate", "--format", fmt] + files, SRCROOT)
            out = portable(out)
            want_rc = 0 if name == "good" else 1
            path = os.path.join(GOLDEN, "%s.%s" % (name, fmt))
            if update:
                with open(path, "w") as f:
                    f.write(out)
            if rc != want_rc:
                fail("%s.%s: exit status %d, expected %d" % (name, fmt, rc, want_rc))
            if err:
                fail("%s.%s: unexpected stderr %r" % (name, fmt, err))
            with open(path) as f:
                exp = f.read()
            if out != exp:
                fail("%s.%s differs from golden\n%s" % (name, fmt, diff(exp, out)))
            if fmt in ("json", "sarif"):
                json.loads(out)
        # The structured formats carry the same diagnostics as text.
        rc, _, text = run(["validate"] + files, SRCROOT)
        # several files: text ends with one summary line the other formats lack
        valid = len(files) - len({l.split(":")[0] for l in text.splitlines()
                                  if ": error: " in l})
        summary = "%d profiles: %d valid, %d invalid\n" % (len(files), valid, len(files) - valid)
        if len(files) > 1:
            if not text.endswith(summary):
                fail("%s: text output does not end with %r" % (name, summary))
            text = text[:-len(summary)]
        rc, out, _ = run(["validate", "--format", "json"] + files, SRCROOT)
        j = json.loads(out)
        lines = ["%s:%d:%d: %s: %s" % (d["file"], d["line"], d["column"], d["severity"],
                                       d["message"].replace("\n", "\\n"))
                 for d in j["diagnostics"]]
        if "\n".join(lines) + ("\n" if lines else "") != text:
            fail("%s: --format json and text disagree\n%s" % (name, diff(text, "\n".join(lines) + "\n")))
        if j["errors"] != sum(d["severity"] == "error" for d in j["diagnostics"]):
            fail("%s: json errors count is wrong" % name)
        rc, out, _ = run(["validate", "--format", "github"] + files, SRCROOT)
        if len(out.splitlines()) != len(j["diagnostics"]):
            fail("%s: --format github has %d lines for %d diagnostics" %
                 (name, len(out.splitlines()), len(j["diagnostics"])))
    print("golden outputs checked")


def test_schema_sync(update):
    p = subprocess.run([NETTUNE, "schema"], env=env(), capture_output=True)
    with open(os.path.join(SRCROOT, "schema", "nettune.schema.json"), "rb") as f:
        committed = f.read()
    if p.returncode != 0:
        fail("nettune schema: exit status %d" % p.returncode)
    if p.stdout != committed:
        fail("`nettune schema` differs from schema/nettune.schema.json; regenerate it with "
             "`nettune schema > schema/nettune.schema.json`")
    print("schema in sync (%d bytes)" % len(committed))


def load_yaml(path):
    """PyYAML reads on/off/yes/no as booleans (YAML 1.1), as nettune does."""
    import yaml
    with open(path) as f:
        return yaml.safe_load(f)


def test_jsonschema(update):
    import jsonschema
    with open(os.path.join(SRCROOT, "schema", "nettune.schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    v = jsonschema.Draft7Validator(schema)
    for f in good_files():
        doc = (load_yaml(os.path.join(SRCROOT, f)))
        errs = list(v.iter_errors(doc))
        for e in errs:
            fail("%s should validate against the JSON Schema: %s at %s" %
                 (f, e.message, "/".join(str(x) for x in e.absolute_path)))
    for name in JSONSCHEMA_BAD:
        path = os.path.join(BAD, name + ".yaml")
        if not os.path.exists(path):
            fail("%s listed in JSONSCHEMA_BAD but missing" % name)
            continue
        doc = (load_yaml(path))
        if v.is_valid(doc):
            fail("tests/bad/%s.yaml passes the JSON Schema; it must fail it" % name)
    print("%d good and %d bad documents checked against the JSON Schema" %
          (len(good_files()), len(JSONSCHEMA_BAD)))


def test_sarif(update):
    import jsonschema
    with open(os.path.join(HERE, "sarif-schema-2.1.0.json")) as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    v = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
    runs = [files for _, files in GOLDEN_CASES]
    runs.append(["tests/bad/" + n + ".yaml" for n in bad_cases()])
    for files in runs:
        rc, out, err = run(["validate", "--format", "sarif"] + files, SRCROOT)
        try:
            doc = json.loads(out)
        except ValueError as e:
            fail("SARIF for %s... is not JSON (%s); exit %d, stderr %r" % (files[0], e, rc, err[:300]))
            continue
        errs = list(v.iter_errors(doc))
        for e in errs[:5]:
            fail("SARIF for %s... is not valid SARIF 2.1.0: %s at %s" %
                 (files[0], e.message, "/".join(str(x) for x in e.absolute_path)))
        results = doc["runs"][0]["results"]
        driver = doc["runs"][0]["tool"]["driver"]
        rules = driver["rules"]
        if ".invalid" in out or "informationUri" in driver:
            fail("SARIF carries a placeholder or invented URI: %r" % driver.get("informationUri"))
        for rule in rules:
            for k in ("shortDescription", "fullDescription", "help"):
                if not rule.get(k, {}).get("text"):
                    fail("SARIF rule %s has no %s text" % (rule["id"], k))
            if not rule.get("help", {}).get("markdown"):
                fail("SARIF rule %s has no help markdown" % rule["id"])
            m = re.fullmatch(r"man:([a-z-]+)\((\d)\)", rule.get("helpUri", ""))
            if not m or not os.path.exists(os.path.join(SRCROOT, "man", "%s.%s" % m.groups())):
                fail("SARIF rule %s: helpUri %r names no man page of man/" %
                     (rule["id"], rule.get("helpUri")))
        for r in results:
            if rules[r["ruleIndex"]]["id"] != r["ruleId"]:
                fail("SARIF ruleIndex %d does not name rule %s" % (r["ruleIndex"], r["ruleId"]))
        if not results and files[0].startswith("tests/bad"):
            fail("SARIF of bad files has no results")
    print("SARIF checked against the SARIF 2.1.0 schema")


def test_usage(update):
    rc, out, err = run(["validate"], SRCROOT)
    if rc != 64 or "no PROFILE" not in err:
        fail("validate without a file: exit %d (want 64), %r" % (rc, err))
    rc, out, err = run(["validate", "--format", "bogus", "examples/veth-lab.yaml"], SRCROOT)
    if rc != 64 or "--format" not in err:
        fail("--format bogus: exit %d (want 64), %r" % (rc, err))
    rc, out, err = run(["validate", "--format"], SRCROOT)
    if rc != 64:
        fail("--format without a value: exit %d (want 64)" % rc)
    rc, out, err = run(["validate", "no-such-file.yaml"], SRCROOT)
    if rc != 1 or err != "no-such-file.yaml: error: cannot open: No such file or directory\n":
        fail("missing file: exit %d (want 1), %r" % (rc, err))
    # a directory is searched as compile searches it (tests/validate/walk_tests.py)
    rc, out, err = run(["validate", "tests/bad"], SRCROOT)
    if rc != 1 or "tests/bad/yaml-syntax.yaml:5:7: error: " not in err or \
            not re.search(r"^\d+ profiles: \d+ valid, \d+ invalid; skipped \d+ YAML files? not a "
                          r"nettune profile", err, re.M):
        fail("a directory as PROFILE: exit %d (want 1), %r" % (rc, err[-400:]))
    print("usage errors checked")


TESTS = {
    "bad": test_bad, "good": test_good, "golden": test_golden,
    "schema-sync": test_schema_sync, "jsonschema": test_jsonschema,
    "sarif": test_sarif, "usage": test_usage,
}


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in TESTS:
        print(__doc__, file=sys.stderr)
        return 2
    TESTS[sys.argv[1]]("--update" in sys.argv[2:])
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
