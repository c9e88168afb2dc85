"""How long scoring takes: 1,000,000 predictions with every breakdown and 1,000 clip resamples.

Questions come from a small simulated corpus and are replicated (with new ids and clip ids) up to
the wanted count, so the split has the shape of a real one: ~100 templates, ~2,000 clips. The
figure the issue asks about is *read + validate + score*: parsing the prediction file, checking
every line, normalizing, and computing every breakdown with its bootstrap interval. Loading the
split and building its question table happen once per split and are reported apart.

    .venv/bin/python benchmarks/bench_evaluate.py [--questions 1000000] [--resamples 1000]
"""

from __future__ import annotations

import argparse
import json
import resource
import tempfile
import time
from pathlib import Path

from taskqa.benchmark.folder import SplitQuestion
from taskqa.evaluation.evaluate import ModelRun, _model_json
from taskqa.evaluation.metrics import BootstrapConfig, clip_weights, score_groups
from taskqa.evaluation.predictions import read_predictions
from taskqa.evaluation.table import build_table
from taskqa.questions.config import GenerationConfig
from taskqa.questions.generate import generate_file
from taskqa.questions.records import read_questions
from taskqa.questions.template import load_templates
from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.corpus import simulate_corpus
from taskqa.simulation.domain import load_domain


def make_questions(count: int, work: Path) -> list[SplitQuestion]:
    domain = load_domain()
    recordings = simulate_corpus(SimulationConfig(episodes=12, seed=11), domain)
    generate_file(recordings, load_templates(None), work / "q.jsonl", GenerationConfig(),
                  domain.templates)  # fmt: skip
    base = [q for _, q in read_questions(work / "q.jsonl")]
    questions: list[SplitQuestion] = []
    copy = 0
    while len(questions) < count:
        for q in base[: count - len(questions)]:
            update = {"id": f"{q.id}-{copy}", "clip": f"{q.clip}#{copy}"}
            questions.append(SplitQuestion(q.model_copy(update=update), "test"))
        copy += 1
    return questions


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", type=int, default=1_000_000)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        started = time.perf_counter()
        questions = make_questions(args.questions, work)
        made = time.perf_counter() - started
        answers = {q.question.answer for q in questions}
        started = time.perf_counter()
        table = build_table(questions, answers)
        built = time.perf_counter() - started
        path = work / "predictions.jsonl"
        vocabulary = sorted(answers)
        with path.open("w") as stream:
            for i, q in enumerate(questions):  # about 60% right, some invalid, one null in 50
                prediction = q.question.answer if i % 5 < 3 else vocabulary[i % len(vocabulary)]
                value = None if i % 50 == 7 else (prediction if i % 97 else "no idea")
                stream.write(json.dumps({"question_id": q.id, "prediction": value}) + "\n")
        config = BootstrapConfig(resamples=args.resamples, seed=0)
        started = time.perf_counter()
        predictions = read_predictions(path, table)
        read = time.perf_counter() - started
        weights = clip_weights(table, config)
        scores = score_groups(table, predictions.outcomes, weights, config)
        run = ModelRun("bench", str(path), predictions.sha256, predictions.outcomes,
                       predictions.coverage, scores)  # fmt: skip
        results = _model_json(run, table)
        total = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    pairs = table.pair_groups.size
    print(f"questions: {table.size:,} in {len(table.clips):,} clips, {table.group_count} groups, "
          f"{pairs:,} (question, group) pairs")  # fmt: skip
    print(f"making the split: {made:.1f} s; building its table (once per split): {built:.2f} s")
    print(f"read + validate predictions: {read:.2f} s")
    print(
        f"read + validate + score every breakdown, {args.resamples} clip resamples: {total:.2f} s"
    )
    print(f"overall accuracy {results['accuracy']:.4f}, peak memory {peak:.0f} MiB")


if __name__ == "__main__":
    main()
