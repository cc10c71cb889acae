#!/usr/bin/env python3
"""An unknown option gets a did-you-mean: every command's options, typed one
or two edits wrong, are suggested ("nettune plan --stat" -> "did you mean
'--state'?"), global options too, and nothing is suggested for an option
far from all of them.  Each option listed here is also one the command
accepts (it does not answer "unknown option"), so the list is the parsers'."""
import os
import subprocess
import sys

NETTUNE = os.environ["NETTUNE"]
OPTS = {
    "validate": "--format --jobs",
    "plan": "--state --json --out --check --map --created --expires-in",
    "apply": "--dry-run --yes --confirm-timeout --trust --only --wait --skip-missing",
    "observe": "--json --profile",
    "rollback": "--discard",
    "confirm": "",
    "history": "--json",
    "show": "--json --trust",
    "watch": "--count --interval --json --svg",
    "emit": "--format --state --out --sign-cert --sign-key",
    "collect": "--target --sign-cert --sign-key",
    "caps": "",
    "keygen": "--out",
    "sign": "--key",
    "verify": "--pub",
    "compile": "--out-dir --key --state-dir --created --expires-in --jobs",
    "schema": "",
}
failures = 0


def run(args):
    p = subprocess.run([NETTUNE] + args, capture_output=True, text=True, timeout=30,
                       stdin=subprocess.DEVNULL, env=dict(os.environ, NETTUNE_STATE_DIR="/nonexistent-nt"))
    return p.returncode, p.stderr


def fail(msg):
    global failures
    failures += 1
    print("FAIL: " + msg)


def typo(o):
    """two adjacent letters after the dashes swapped, or one dropped"""
    body = o[2:]
    if len(body) >= 3 and body[1] != body[2]:
        return "--" + body[0] + body[2] + body[1] + body[3:]
    return o[:-1]


def main():
    for cmd, opts in OPTS.items():
        for o in opts.split():
            t = typo(o)
            rc, err = run([cmd, t])
            want = "nettune %s: unknown option '%s'; did you mean '%s'?\n" % (cmd, t, o)
            if rc != 64 or not err.startswith(want):
                fail("%s %s: exit %d %r, want %r" % (cmd, t, rc, err, want))
            # the option is the command's: never "unknown option"
            rc, err = run([cmd, o])
            if "unknown option" in err:
                fail("%s does not accept %s: %r" % (cmd, o, err))
        # global options and --help, whatever the command
        rc, err = run([cmd, "--hlep"])
        if rc != 64 or "did you mean '--help'?" not in err:
            fail("%s --hlep: %d %r" % (cmd, rc, err))
        rc, err = run([cmd, "--zzzzzzzz"])
        if rc != 64 or "did you mean" in err or "unknown option '--zzzzzzzz'" not in err:
            fail("%s --zzzzzzzz: %d %r" % (cmd, rc, err))
    rc, err = run(["plan", "--netsn", "x"])
    if rc != 64 or "did you mean '--netns'?" not in err:
        fail("plan --netsn: %d %r" % (rc, err))
    rc, err = run(["validate", "--fromat=json", "x.yaml"])
    if rc != 64 or not err.startswith("nettune validate: unknown option '--fromat=json'; did you mean '--format'?\n"):
        fail("validate --fromat=json: %d %r" % (rc, err))
    if failures:
        print("%d failure(s)" % failures)
        return 1
    print("did-you-mean for every command's options")
    return 0


if __name__ == "__main__":
    sys.exit(main())
