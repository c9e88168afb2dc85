"""How much longer `taskqa build --pairs` takes than `taskqa build`, on one corpus, in one run.

    .venv/bin/python benchmarks/bench_pairs_speed.py --corpus CORPUS --work DIR [--workers 1]
        [--warm]

Builds CORPUS twice into DIR, without and with ``--pairs``, one after the other on the same
machine, and prints one JSON object: both wall times, their ratio (issue 34's target: at most
2), the pairs found, and the seconds of each stage of the ``--pairs`` build (from the
timestamps of its progress lines). The grounding check caches the masks it draws
(``<taskqa cache>/grounding``), so a cold cache makes the first build that needs a
recording's masks pay for them; ``--warm`` runs the ``--pairs`` build once, untimed, first,
so that both timed builds find every mask drawn (its time is printed too).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from itertools import pairwise
from pathlib import Path

from taskqa.benchmark.folder import Benchmark

TASKQA = [sys.executable, "-m", "taskqa"]
# a progress line: "[0:01:06] minimal pairs: grounding check of both clips of every pair", with
# a count after the stage's name while it runs ("...: 12/60 episodes")
LINE = re.compile(r"^\[(\d+):(\d\d):(\d\d)\] (.*)$")
COUNT = re.compile(r":\s*\d.*$")
STATUS = "grounding"  # the grounding check's own running count, inside its stage


def build(corpus: Path, out: Path, workers: str, pairs: bool) -> tuple[float, str]:
    """Seconds a build takes, and what it printed."""
    command = [*TASKQA, "build", str(corpus), "--out", str(out), "--workers", workers]
    command += ["--overwrite", *(["--pairs"] if pairs else [])]
    started = time.perf_counter()
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    return time.perf_counter() - started, done.stdout + done.stderr


def stage_seconds(log: str, total: float) -> dict[str, float]:
    """Seconds from each stage's first progress line to the next stage's (the last one's: to
    the end of the build, ``total`` seconds after it began)."""
    starts: dict[str, int] = {}
    for line in log.splitlines():
        match = LINE.match(line.strip())
        if match is None:
            continue
        hours, minutes, seconds, said = match.groups()
        stage = COUNT.sub("", said).strip()
        if stage != STATUS:
            starts.setdefault(stage, 3600 * int(hours) + 60 * int(minutes) + int(seconds))
    ordered = sorted(starts.items(), key=lambda item: item[1])
    ordered.append(("", round(total)))
    return {stage: float(after - at) for (stage, at), (_, after) in pairwise(ordered)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--workers", default="1")
    parser.add_argument("--warm", action="store_true", help="fill the mask cache first")
    args = parser.parse_args()
    warming = None
    if args.warm:
        warming, _ = build(args.corpus, args.work / "pairs", args.workers, pairs=True)
    plain, _ = build(args.corpus, args.work / "plain", args.workers, pairs=False)
    paired, log = build(args.corpus, args.work / "pairs", args.workers, pairs=True)
    print(
        json.dumps(
            {
                "corpus": str(args.corpus),
                "workers": int(args.workers),
                "warm_mask_cache": args.warm,
                "warming_build_pairs_seconds": None if warming is None else round(warming, 1),
                "build_seconds": round(plain, 1),
                "build_pairs_seconds": round(paired, 1),
                "ratio": round(paired / plain, 2),
                "pairs": len(Benchmark(args.work / "pairs").pairs()),
                "pairs_build_stage_seconds": stage_seconds(log, paired),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
