#!/usr/bin/env python3
"""Build the nettune.host Ansible collection artifact.

usage: build_collection.py SRCROOT VERSION MODULE CLI OUTDIR

Assembles ansible/collection (galaxy.yml, README, role), the binary module
MODULE and its sidecar documentation as plugins/modules/nettune{,.yml}, the
statically linked CLI as the persist role's files/nettune (both without
debugging sections when strip is there), the systemd units
(as templates, ExecStart under {{ nettune_bindir }}) and the udev rule, and
writes OUTDIR/nettune-host-VERSION.tar.gz with MANIFEST.json and FILES.json
in the format 'ansible-galaxy collection build' writes (without needing
ansible on the build machine).  Deterministic: fixed mtimes and owners.
"""
import gzip
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

NAMESPACE, NAME = "nettune", "host"


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def galaxy_meta(text):
    """The few galaxy.yml keys MANIFEST.json carries (flat YAML, no PyYAML needed)."""
    meta, key = {}, None
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.startswith("  - ") and key:
            meta[key] = (meta.get(key) or []) + [line[4:].strip()]
            continue
        if line.startswith(" ") and key:
            meta[key] = (meta.get(key) or "") + " " + line.strip()
            continue
        key, _, val = line.partition(":")
        val = val.strip()
        if val in (">-", ">", ""):
            meta[key] = None if val == "" else ""
        elif val == "null":
            meta[key] = None
        elif val == "{}":
            meta[key] = {}
        elif val == "[]":
            meta[key] = []
        elif val.startswith("["):
            meta[key] = [v.strip() for v in val.strip("[]").split(",") if v.strip()]
        else:
            meta[key] = val.strip('"')
    for k, v in meta.items():
        if isinstance(v, str):
            meta[k] = v.strip()
    return meta


def main():
    if len(sys.argv) != 6:
        print(__doc__, file=sys.stderr)
        return 64
    src, version, module, cli, outdir = sys.argv[1:]
    coll = os.path.join(src, "ansible", "collection")
    files = {}      # archive path -> (bytes, executable)

    def add(path, data, exe=False):
        files[path] = (data if isinstance(data, bytes) else data.encode(), exe)

    def read(p):
        with open(p, "rb") as f:
            return f.read()

    def read_stripped(p):
        """The binary without its debugging sections (as is without strip)."""
        strip = shutil.which("strip")
        if not strip:
            return read(p)
        with tempfile.TemporaryDirectory() as d:
            q = os.path.join(d, "bin")
            subprocess.run([strip, "--strip-debug", "-o", q, p], check=True)
            return read(q)

    galaxy = read(os.path.join(coll, "galaxy.yml.in")).decode().replace("@VERSION@", version)
    add("galaxy.yml", galaxy)
    add("README.md", read(os.path.join(coll, "README.md")))
    add("CHANGELOG.md", read(os.path.join(coll, "CHANGELOG.md")))
    add("meta/runtime.yml", read(os.path.join(coll, "meta", "runtime.yml")))
    for root, _, names in os.walk(os.path.join(coll, "roles")):
        for n in names:
            p = os.path.join(root, n)
            add(os.path.relpath(p, coll), read(p))
    add("plugins/modules/nettune", read_stripped(module), True)
    add("plugins/modules/nettune.yml", read(os.path.join(src, "ansible", "nettune.yml")))
    add("roles/persist/files/nettune", read_stripped(cli), True)
    add("roles/persist/files/80-nettune.rules", read(os.path.join(src, "dist", "udev", "80-nettune.rules")))
    for u in ("nettune.service", "nettune@.service", "nettune-drift.service", "nettune-drift.timer",
              "nettune-agent.service"):
        text = read(os.path.join(src, "dist", "systemd", u)).decode()
        if "{{" in text or "{%" in text:
            print("build_collection.py: %s contains Jinja syntax" % u, file=sys.stderr)
            return 1
        add("roles/persist/templates/%s.j2" % u, text.replace("@bindir@", "{{ nettune_bindir }}"))

    dirs = set()
    for p in files:
        d = os.path.dirname(p)
        while d:
            dirs.add(d)
            d = os.path.dirname(d)
    entries = [{"name": ".", "ftype": "dir", "chksum_type": None, "chksum_sha256": None, "format": 1}]
    for p in sorted(dirs | set(files)):
        if p in files:
            entries.append({"name": p, "ftype": "file", "chksum_type": "sha256",
                            "chksum_sha256": sha256(files[p][0]), "format": 1})
        else:
            entries.append({"name": p, "ftype": "dir", "chksum_type": None,
                            "chksum_sha256": None, "format": 1})
    files_json = json.dumps({"files": entries, "format": 1}, indent=4).encode()
    g = galaxy_meta(galaxy)
    manifest = {
        "collection_info": {
            "namespace": NAMESPACE, "name": NAME, "version": version,
            "authors": g.get("authors") or [], "readme": "README.md",
            "tags": g.get("tags") or [], "description": g.get("description"),
            "license": g.get("license") or [], "license_file": None,
            "dependencies": {}, "repository": g.get("repository"), "documentation": None,
            "homepage": None, "issues": None,
        },
        "file_manifest_file": {"name": "FILES.json", "ftype": "file", "chksum_type": "sha256",
                               "chksum_sha256": sha256(files_json), "format": 1},
        "format": 1,
    }
    manifest_json = json.dumps(manifest, indent=4).encode()

    out = os.path.join(outdir, "%s-%s-%s.tar.gz" % (NAMESPACE, NAME, version))
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) as tar:
        def member(name, data=None, exe=False):
            ti = tarfile.TarInfo(name)
            ti.uid = ti.gid = 0
            ti.uname = ti.gname = ""
            ti.mtime = 0
            if data is None:
                ti.type, ti.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(ti)
            else:
                ti.size, ti.mode = len(data), 0o755 if exe else 0o644
                tar.addfile(ti, io.BytesIO(data))
        member("MANIFEST.json", manifest_json)
        member("FILES.json", files_json)
        for p in sorted(dirs | set(files)):
            if p in files:
                member(p, *files[p])
            else:
                member(p)
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        with gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as gz:
            gz.write(raw.getvalue())
    os.replace(tmp, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
