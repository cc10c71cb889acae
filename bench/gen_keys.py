#!/usr/bin/env python3
"""Inputs with one very large mapping, for bench/parsers.sh and tests/untrusted.

usage: gen_keys.py [--dup] json|yaml N OUT
  json   a snapshot whose cpus.nodes object has N keys ("0", "1", ...)
  yaml   a HostProfile whose sysctl mapping has N keys (net.bench.k0, ...)
  --dup  one more key at the end that repeats the first: the parser must
         find it after N keys and stop there with one error
"""
import sys


def main():
    args = sys.argv[1:]
    dup = args[0] == "--dup"
    if dup:
        args = args[1:]
    kind, n, out = args[0], int(args[1]), args[2]
    with open(out, "w") as f:
        if kind == "json":
            f.write('{"format": "nettune-snapshot/1",\n'
                    ' "host": {"name": "big", "target": "linux"},\n'
                    ' "cpus": {"online": "0-3", "nodes": {\n')
            keys = list(range(n)) + ([0] if dup else [])
            f.write(",\n".join('  "%d": "0-3"' % i for i in keys))
            f.write('\n }}}\n')
        elif kind == "yaml":
            f.write("apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: big}\n"
                    "target: linux\nsysctl:\n")
            f.write("".join("  net.bench.k%d: %d\n" % (i, i) for i in range(n)))
            if dup:
                f.write("  net.bench.k0: 0\n")
        else:
            sys.exit("gen_keys.py: json or yaml")


if __name__ == "__main__":
    main()
