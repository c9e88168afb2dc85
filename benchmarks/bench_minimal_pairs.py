"""Minimal pairs on a simulated corpus: how many, of which kinds, and what blind models get.

    .venv/bin/python benchmarks/bench_minimal_pairs.py --corpus CORPUS --work DIR [--workers 2]

Builds CORPUS with `taskqa build --pairs` (the default build otherwise) into DIR/bench, then
checks what issue 25 asks of the pairs: every pair's two texts identical and answers different,
both in one split, every intervention kind represented; at least 5,000 pairs on `simulate
--episodes 400 --seed 5`; the oracle right on every pair of the test split; and the text-only
baseline (`taskqa baseline text-only`, TF-IDF + logistic regression) no more than 5 points per
pair above chance. Prints one JSON object; the build's own time is in it.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from taskqa.answers import normalize_answer
from taskqa.benchmark.folder import Benchmark

TASKQA = [sys.executable, "-m", "taskqa"]


def run(*args: str) -> None:
    subprocess.run([*TASKQA, *args], check=True, stdout=subprocess.DEVNULL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--workers", default="2")
    args = parser.parse_args()
    bench_dir = args.work / "bench"
    started = time.perf_counter()
    run("build", str(args.corpus), "--out", str(bench_dir), "--pairs", "--workers", args.workers,
        "--overwrite")  # fmt: skip
    build_seconds = time.perf_counter() - started
    bench = Benchmark(bench_dir)
    pairs = bench.pairs()
    questions = {
        q.id: q for split in ("train", "val", "test") for q in bench.questions("pairs", split)
    }
    broken = [
        p
        for p in pairs
        if questions[p["a"]].question.question != questions[p["b"]].question.question
        or normalize_answer(questions[p["a"]].question.answer)
        == normalize_answer(questions[p["b"]].question.answer)
        or questions[p["a"]].split != questions[p["b"]].split
    ]
    predictions = args.work / "predictions"
    for baseline in ("oracle", "text-only"):
        run("baseline", baseline, "-b", str(bench_dir), "--split", "pairs/test",
            "-o", str(predictions / f"{baseline}.jsonl"))  # fmt: skip
    evaluation = args.work / "evaluation"
    files = [str(predictions / f"{name}.jsonl") for name in ("oracle", "text-only")]
    run("evaluate", "-b", str(bench_dir), "--split", "pairs/test", "-o", str(evaluation),
        "-p", files[0], "-p", files[1])  # fmt: skip
    results = json.loads((evaluation / "results.json").read_text())
    scores = {m["name"]: m for m in results["models"]}
    diagnostics = json.loads((bench_dir / "diagnostics" / "diagnostics.json").read_text())
    blind = diagnostics["pairs"]["blind"]
    chance = blind["chance_per_pair"]
    text_only = 100 * scores["text-only"]["pairs"]["all"]["pair_accuracy"]
    print(
        json.dumps(
            {
                "pairs": len(pairs),
                "by_intervention": dict(Counter(p["intervention"]["kind"] for p in pairs)),
                "by_split": dict(Counter(p["split"] for p in pairs)),
                "pairs_not_minimal": len(broken),
                "test_pairs": scores["oracle"]["pairs"]["all"]["pairs"],
                "oracle_pair_accuracy": 100 * scores["oracle"]["pairs"]["all"]["pair_accuracy"],
                "oracle_question_accuracy": 100 * scores["oracle"]["accuracy"],
                "text_only_question_accuracy": 100 * scores["text-only"]["accuracy"],
                "text_only_pair_accuracy": text_only,
                "chance_per_pair": chance,
                "text_only_over_chance": round(text_only - chance, 2),
                "build_blind": blind,
                "build_seconds": round(build_seconds, 1),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
