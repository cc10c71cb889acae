#!/usr/bin/env python3
"""Baseline for the batch benchmark: python3-jsonschema validating the same
profiles against schema/nettune.schema.json, all in one process (the
validator is built once; YAML is parsed with PyYAML's C loader when present).
usage: jsonschema_baseline.py SCHEMA LISTFILE
prints "load S validate S invalid N"."""
import json
import sys
import time

import jsonschema
import yaml

Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
schema = json.load(open(sys.argv[1]))
cls = jsonschema.validators.validator_for(schema)
v = cls(schema)
files = [l.strip() for l in open(sys.argv[2]) if l.strip()]
t0 = time.perf_counter()
docs = [yaml.load(open(f), Loader=Loader) for f in files]
t1 = time.perf_counter()
invalid = 0
for d in docs:
    for _ in v.iter_errors(d):
        invalid += 1
        break
t2 = time.perf_counter()
print(f"load {t1 - t0:.3f} validate {t2 - t1:.3f} invalid {invalid}")
