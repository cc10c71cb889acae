#!/usr/bin/env python3
"""Inputs with one very large mapping, for bench/parsers.sh.

usage: gen_keys.py json|yaml|policy N OUT
  json    a snapshot whose cpus.nodes object has N keys (node numbers)
  yaml    a HostProfile whose sysctl mapping has N keys
  policy  a PolicyProfile whose sysctl mapping has N keys (for extends)
"""
import sys


def main():
    kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(out, "w") as f:
        if kind == "json":
            f.write('{"format": "nettune-snapshot/1",\n'
                    ' "host": {"name": "big", "target": "linux"},\n'
                    ' "cpus": {"online": "0-3", "nodes": {\n')
            f.write(",\n".join('  "%d": "0-3"' % i for i in range(n)))
            f.write('\n }}}\n')
        else:
            head = ("apiVersion: nettune/v1\nkind: %s\nmetadata: {name: big}\n" %
                    ("HostProfile" if kind == "yaml" else "PolicyProfile"))
            if kind == "yaml":
                head += "target: linux\n"
            f.write(head + "sysctl:\n")
            f.write("".join("  net.bench.k%d: %d\n" % (i, i) for i in range(n)))


if __name__ == "__main__":
    main()
