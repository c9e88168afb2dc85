"""Executor overhead and scaling: local processes against a local Ray instance.

Targets (issue 14): `taskqa generate` on 400 episodes with Ray (2 CPUs) within 1.2x of the
local 2-worker time on this machine; how generate and render scale from 1 to 2 Ray CPUs.
Every run is a fresh `taskqa` process timed as a whole (Ray's start included), and every run's
output must be byte-identical to the local one's. The machine's load average is recorded, as
other work on a shared machine skews the figures.

    .venv/bin/python benchmarks/bench_execution.py [--episodes 400] [--render 4] [--repeats 1]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_RATIO = 1.2


def _taskqa(*args: str | Path) -> list[str]:
    return [sys.executable, "-m", "taskqa", *(str(a) for a in args)]


def timed(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def digest(paths: list[Path]) -> str:
    """One sha256 over the files' bytes (and, inside folders, their relative paths)."""
    total = hashlib.sha256()
    for path in paths:
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for file in files:
            total.update(str(file.relative_to(path)).encode() if path.is_dir() else b"")
            total.update(file.read_bytes())
    return total.hexdigest()


def best_of(repeats: int, command: list[str], before: object = None) -> float:
    times = []
    for _ in range(repeats):
        if callable(before):
            before()
        times.append(timed(command))
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--episodes", type=int, default=400)
    parser.add_argument("--render", type=int, default=4, help="recordings rendered per run")
    parser.add_argument("--size", default="112")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--json", type=Path, default=Path("out/bench/execution.json"))
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="taskqa-bench-"))
    results: dict[str, object] = {"load_before": os.getloadavg()}
    try:
        corpus = scratch / "corpus"
        subprocess.run(
            _taskqa("simulate", "--episodes", args.episodes, "--workers", 2, "--out", corpus),
            check=True,
            capture_output=True,
        )
        generate: dict[str, float] = {}
        outputs: dict[str, str] = {}
        runs = {
            "local-2": ["--workers", "2"],
            "ray-1": ["--executor", "ray", "--workers", "1"],
            "ray-2": ["--executor", "ray", "--workers", "2"],
        }
        for name, extra in runs.items():
            out = scratch / f"{name}.jsonl"
            command = _taskqa("generate", corpus, "--out", out, *extra)
            generate[name] = round(best_of(args.repeats, command), 2)
            outputs[name] = digest([out])
            print(f"generate {name}: {generate[name]} s", flush=True)
        results["generate"] = {
            "episodes": args.episodes,
            "seconds": generate,
            "ray_over_local": round(generate["ray-2"] / generate["local-2"], 3),
            "ray_speedup_1_to_2": round(generate["ray-1"] / generate["ray-2"], 3),
            "identical": len(set(outputs.values())) == 1,
        }
        render: dict[str, float] = {}
        rendered: dict[str, str] = {}
        for name, extra in runs.items():
            copy = scratch / f"render-{name}"

            def fresh(copy: Path = copy) -> None:
                shutil.rmtree(copy, ignore_errors=True)
                shutil.copytree(corpus, copy)

            small = ["--limit", str(args.render), "--size", args.size, "--fps", "2"]
            command = _taskqa("render", copy, *small, *extra)
            render[name] = round(best_of(args.repeats, command, fresh), 2)
            rendered[name] = digest([copy / "videos", copy / "recordings.jsonl"])
            print(f"render {name}: {render[name]} s", flush=True)
        results["render"] = {
            "recordings": args.render,
            "size": args.size,
            "seconds": render,
            "ray_over_local": round(render["ray-2"] / render["local-2"], 3),
            "ray_speedup_1_to_2": round(render["ray-1"] / render["ray-2"], 3),
            "identical": len(set(rendered.values())) == 1,
        }
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    results["load_after"] = os.getloadavg()
    ratio = results["generate"]["ray_over_local"]  # type: ignore[index]
    results["target_met"] = ratio <= TARGET_RATIO
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
