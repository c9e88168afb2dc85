"""Speed of balancing and splitting (issue 4): 400,000 candidates in under 30 s on 2 cores.

Candidates are generated first (not timed) from a simulated corpus; then the balancing and
splitting passes are timed in-process stage by stage (balancing by text, the default, and by
reasoning type for comparison), and the whole `taskqa build
--candidates` command (reading, balancing, splitting, writing the folder, diagnostics, report
and figures) is timed as a fresh process with its peak memory.

    .venv/bin/python benchmarks/bench_build.py [--episodes 190] [--candidates FILE --corpus DIR]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_simulate import measure
from taskqa.benchmark.balance import BalanceConfig, balance
from taskqa.benchmark.candidates import read_candidates
from taskqa.benchmark.splits import indirect_split, normal_split

TARGET_SECONDS = 30.0


def _taskqa(*args: str) -> list[str]:
    return [sys.executable, "-m", "taskqa", *args]


def stages(candidates: Path) -> dict[str, float | int]:
    timings: dict[str, float | int] = {}
    start = time.perf_counter()
    table = read_candidates(candidates)
    timings["read_s"] = time.perf_counter() - start
    mark = time.perf_counter()
    balance(table, BalanceConfig(balance_by="type"))
    timings["balance_by_type_s"] = time.perf_counter() - mark
    mark = time.perf_counter()
    balanced = balance(table, BalanceConfig())  # by text, the default
    timings["balance_s"] = time.perf_counter() - mark
    mark = time.perf_counter()
    normal_split(table, balanced.rows, 0, partners=balanced.partners)
    indirect_split(table, balanced.rows, 0, balanced.partners)
    timings["split_s"] = time.perf_counter() - mark
    timings["total_s"] = time.perf_counter() - start - timings["balance_by_type_s"]
    timings["candidates"] = len(table)
    timings["balanced"] = len(balanced.rows)
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--episodes", type=int, default=190)
    parser.add_argument("--candidates", type=Path, help="reuse a `taskqa generate` output")
    parser.add_argument("--corpus", type=Path, help="the corpus the candidates come from")
    parser.add_argument("--json", type=Path, default=Path("out/bench/build.json"))
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="taskqa-bench-build-"))
    try:
        corpus, candidates = args.corpus, args.candidates
        if candidates is None or corpus is None:
            corpus, candidates = scratch / "corpus", scratch / "candidates.jsonl"
            simulate = _taskqa("simulate", "--episodes", str(args.episodes), "--out", str(corpus))
            subprocess.run(simulate, check=True, capture_output=True)
            generate = _taskqa("generate", str(corpus), "--out", str(candidates), "--workers", "2")
            subprocess.run(generate, check=True, capture_output=True)
        result: dict[str, object] = {"in_process": stages(candidates)}
        command = _taskqa(
            "build", str(corpus), "--out", str(scratch / "bench"), "--candidates", str(candidates)
        )
        elapsed, peak = measure(command, interval=0.05)
        result["build_command"] = {"seconds": round(elapsed, 2), "peak_mib": peak >> 20}
        result["target_seconds"] = TARGET_SECONDS
        print(json.dumps(result, indent=2))
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
