#!/usr/bin/env python3
"""Embeds a text file as a C string constant: embed.py IN OUT NAME."""
import sys

src, out, name = sys.argv[1:4]
with open(src, encoding="utf-8") as f:
    text = f.read()
with open(out, "w", encoding="utf-8") as f:
    f.write(f"/* Generated from {src.split('/')[-1]} by scripts/embed.py; do not edit. */\n")
    f.write(f"static const char {name}[] =\n")
    for line in text.splitlines(keepends=True):
        esc = line.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t").replace("\n", "\\n").replace("?", "\\?")
        f.write(f'\t"{esc}"\n')
    f.write("\t;\n")
