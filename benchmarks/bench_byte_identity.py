"""Byte identity of a refactor: the same commands run by two source trees give the same files.

Runs ``simulate --episodes 4 --seed 2`` + ``render`` and ``simulate --episodes 400 --seed 5`` +
``build`` (the default build) with the source tree ``--old`` (e.g. a ``git archive`` of the
commit before the change, unpacked) and with the installed taskqa, then compares the sha256 of
every file of both output folders and the manifest's file digests.

    git archive b937acf | tar -x -C /tmp/old
    python benchmarks/bench_byte_identity.py --old /tmp/old/src --out /tmp/identity
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

STEPS = (
    ("w4", [["simulate", "--episodes", "4", "--seed", "2", "--out", "{w}/corpus"],
            ["render", "{w}/corpus", "--workers", "2"]]),
    ("w400", [["simulate", "--episodes", "400", "--seed", "5", "--out", "{w}/corpus"],
              ["build", "{w}/corpus", "--out", "{w}/bench", "--workers", "2"]]),
)  # fmt: skip


def digests(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def run(side: Path, source: str | None, quiet: bool) -> None:
    side.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = source
    for name, commands in STEPS:
        for command in commands:
            args = [a.format(w=name) for a in command]  # relative: the manifest names the corpus
            subprocess.run(
                [sys.executable, "-m", "taskqa", *args],
                cwd=side,
                env=env,
                check=True,
                stdout=subprocess.DEVNULL if quiet else None,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True, help="the old tree's src folder")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    run(args.out / "old", args.old, True)
    run(args.out / "new", None, True)
    same = True
    for name, _ in STEPS:
        old, new = digests(args.out / "old" / name), digests(args.out / "new" / name)
        differ = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
        print(f"{name}: {len(old)} files, {len(differ)} differ", *differ[:20], sep="\n  ")
        same = same and not differ
    manifests = [
        json.loads((args.out / side / "w400" / "bench" / "manifest.json").read_text())["files"]
        for side in ("old", "new")
    ]
    print(f"manifest file digests identical: {manifests[0] == manifests[1]} ({len(manifests[0])})")
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
