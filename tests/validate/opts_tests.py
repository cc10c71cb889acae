#!/usr/bin/env python3
"""The option table parser (cli/opts.c) at its edges, through the commands
that use it: a value row with no value, --opt=VALUE, an unknown option's
did-you-mean (from the command's rows, never a short alias), '--' (skipped,
end of options, or unknown, as each command had it), '-' alone, and the
first problem in argument order winning.  The expected texts are the ones
the hand-written loops printed."""
import os
import subprocess
import sys

NETTUNE = os.environ["NETTUNE"]
CASES = [
    # a value row with no value: its own message, or 'OPT needs a value' as typed
    (['emit', '--format'], 64,
     "nettune emit: --format needs a value\nTry 'nettune emit --help'.\n"),
    (['emit', 'x', '-o'], 64,
     "nettune emit: -o needs a value\nTry 'nettune emit --help'.\n"),
    (['plan', '--state'], 64,
     "nettune plan: --state needs a SNAPSHOT file\nTry 'nettune plan --help'.\n"),
    (['plan', '--expires-in'], 64,
     "nettune plan: --expires-in takes a duration such as 30m, 24h or 7d (at most 400d)\nTry 'nettune plan --help'.\n"),
    (['plan', 'x', '--expires-in', '5x'], 64,
     "nettune plan: --expires-in takes a duration such as 30m, 24h or 7d (at most 400d)\nTry 'nettune plan --help'.\n"),
    (['compile', '--jobs'], 64,
     "nettune compile: --jobs needs a value\nTry 'nettune compile --help'.\n"),
    (['validate', '--jobs'], 64,
     "nettune validate: --jobs takes 1..256\nTry 'nettune validate --help'.\n"),
    (['watch', '--interval'], 64,
     "nettune watch: --interval needs a value\nTry 'nettune watch --help'.\n"),
    (['keygen', '--out'], 64,
     "nettune keygen: --out needs a KEY file\nTry 'nettune keygen --help'.\n"),
    (['verify', '--pub'], 64,
     "nettune verify: --pub needs a PUB file\nTry 'nettune verify --help'.\n"),
    (['show', '--trust'], 64,
     "nettune show: --trust needs a PUB file\nTry 'nettune show --help'.\n"),
    # --opt=VALUE where a row takes it, an unknown option where it does not
    (['emit', '--format=bogus', 'x'], 64,
     "nettune emit: unknown format 'bogus' (sh or ps1)\nTry 'nettune emit --help'.\n"),
    (['plan', '--out=x'], 64,
     "nettune plan: unknown option '--out=x'; did you mean '--out'?\nTry 'nettune plan --help'.\n"),
    (['validate', '--format='], 64,
     "nettune validate: --format takes text, json, sarif or github\nTry 'nettune validate --help'.\n"),
    (['collect', '--target=linux'], 64,
     "nettune collect: no collector for target 'linux': on Linux, 'nettune observe --json' writes the snapshot\nTry 'nettune collect --help'.\n"),
    (['sign', '--key=', 'a', 'b'], 64,
     "nettune sign: one PLAN.json at a time\nTry 'nettune sign --help'.\n"),
    # unknown options: did-you-mean among the rows' --long names only
    (['emit', '--fromat=sh'], 64,
     "nettune emit: unknown option '--fromat=sh'; did you mean '--format'?\nTry 'nettune emit --help'.\n"),
    (['plan', '--sttae=x'], 64,
     "nettune plan: unknown option '--sttae=x'; did you mean '--state'?\nTry 'nettune plan --help'.\n"),
    (['collect', '-x'], 64,
     "nettune collect: unknown option '-x'\nTry 'nettune collect --help'.\n"),
    (['plan', '--jsno'], 64,
     "nettune plan: unknown option '--jsno'; did you mean '--json'?\nTry 'nettune plan --help'.\n"),
    (['compile', '--stat-dir', 'd'], 64,
     "nettune compile: unknown option '--stat-dir'; did you mean '--state-dir'?\nTry 'nettune compile --help'.\n"),
    (['history', '--jsn'], 64,
     "nettune history: unknown option '--jsn'; did you mean '--json'?\nTry 'nettune history --help'.\n"),
    # '--': skipped, the end of the options, or unknown, per command; the first problem wins
    (['validate', '--', '--help'], 1,
     '--help: error: cannot open: No such file or directory\n'),
    (['plan', '--', '--json'], 64,
     "nettune plan: no PROFILE given\nTry 'nettune plan --help'.\n"),
    (['caps', '--'], 64,
     "nettune caps: unknown option '--'\nTry 'nettune caps --help'.\n"),
    (['caps', '-'], 64,
     "nettune caps: unknown option '-'\nTry 'nettune caps --help'.\n"),
    (['compile', '--'], 64,
     "nettune compile: unknown option '--'\nTry 'nettune compile --help'.\n"),
    (['schema', 'x', '--help'], 64,
     "nettune schema: takes no arguments\nTry 'nettune schema --help'.\n"),
    (['schema', '--help', 'x'], 0,
     ''),
    (['history', 'x'], 64,
     "nettune history: unknown argument 'x'\nTry 'nettune history --help'.\n"),
    (['show', 'a', 'b'], 64,
     "nettune show: one PLAN.json or JOURNAL at a time\nTry 'nettune show --help'.\n"),
    (['verify', '--pub=/nonexistent', 'x'], 1,
     'nettune verify: error: /nonexistent: cannot open: No such file or directory\n'),
    (['watch', '--count', '0'], 64,
     "nettune watch: --count takes 1..100000 intervals\nTry 'nettune watch --help'.\n"),
    (['compile', '--jobs', '0'], 64,
     "nettune compile: --jobs takes 1..256\nTry 'nettune compile --help'.\n"),
    (['validate', '--jobs', '0'], 64,
     "nettune validate: --jobs takes 1..256\nTry 'nettune validate --help'.\n"),
]


def main():
    failures = 0
    for args, rc, err in CASES:
        p = subprocess.run([NETTUNE] + args, capture_output=True, text=True, timeout=30,
                           stdin=subprocess.DEVNULL,
                           env=dict(os.environ, NETTUNE_STATE_DIR="/nonexistent-nt"))
        if p.returncode != rc or p.stderr != err:
            failures += 1
            print("FAIL: nettune %s: exit %d (want %d)\n  got:  %r\n  want: %r"
                  % (" ".join(args), p.returncode, rc, p.stderr, err))
    print("%d cases, %d failed" % (len(CASES), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
