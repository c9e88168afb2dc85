"""Speed and memory of exhaustive question generation on a simulated corpus of ~2,000 clips.

Target (issue 3): at least 300,000 candidate questions in under 60 s on 2 cores, under 2 GB.
The corpus is simulated first (not timed); each generation run is a fresh `taskqa generate`
process, timed as a whole, with the summed resident memory of its process tree sampled.

    .venv/bin/python benchmarks/bench_generate.py [--episodes 520] [--workers 1 2]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_simulate import measure

TARGET_SECONDS = 60.0
TARGET_QUESTIONS = 300_000
TARGET_BYTES = 2 << 30


def _taskqa(*args: str) -> list[str]:
    return [sys.executable, "-m", "taskqa", *args]


def run_generate(corpus: Path, out: Path, workers: int) -> tuple[float, int]:
    command = _taskqa("generate", str(corpus), "--out", str(out), "--workers", str(workers))
    return measure(command, interval=0.05)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--episodes", type=int, default=520)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--json", type=Path, default=Path("out/bench/generate.json"))
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="taskqa-bench-"))
    try:
        corpus = scratch / "corpus"
        subprocess.run(
            _taskqa("simulate", "--episodes", str(args.episodes), "--out", str(corpus)),
            check=True,
            capture_output=True,
        )
        results = []
        for workers in args.workers:
            out = scratch / f"q{workers}.jsonl"
            elapsed, peak = run_generate(corpus, out, workers)
            summary = json.loads((scratch / f"q{workers}.summary.json").read_text())
            clips = len({json.loads(line)["clip"] for line in out.open()})
            count = summary["counts"].get("questions", 0)
            results.append(
                {
                    "workers": workers,
                    "recordings": summary["recordings"],
                    "clips_with_questions": clips,
                    "questions": count,
                    "seconds": round(elapsed, 2),
                    "questions_per_second_per_core": round(count / elapsed / workers),
                    "peak_rss_mib": round(peak / 2**20, 1),
                    "meets_targets": elapsed < TARGET_SECONDS
                    and count >= TARGET_QUESTIONS
                    and peak < TARGET_BYTES,
                }
            )
            print(json.dumps(results[-1]))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
