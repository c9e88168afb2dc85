"""Figures for the physics family: detector precision/recall, simulation speed, the Table-1
comparison under simulated raters, and language-only baselines on the real CLEVRER-Humans file.

    .venv/bin/python benchmarks/bench_physics.py [--scenes 100] [--seed 0] [--ceg-scenes 40]

Every figure is deterministic for the given arguments except the timings.
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import replace
from pathlib import Path

from taskqa.physics.baselines import BASELINES, baseline_predictions
from taskqa.physics.ceg import graph_statistics
from taskqa.physics.clevrer_format import ClevrerAnnotation
from taskqa.physics.clevrer_questions import SceneQuestions, read_questions
from taskqa.physics.comparison import PAPER_TABLE_1, compare
from taskqa.physics.engine import simulate_scene
from taskqa.physics.events import (
    DetectorConfig,
    MatchCounts,
    detect_pair_events,
    ground_truth_events,
    match_collisions,
)
from taskqa.physics.pipeline import CegConfig, build_scene_ceg, labelled_pairs
from taskqa.physics.questions import graphs_from_questions
from taskqa.physics.scene import sample_scene
from taskqa.physics.scoring import score, split_scenes

HUMANS = Path(__file__).resolve().parents[2] / "shared" / "data" / "clevrer_humans" / "train.json"


def detector(annotations: list[ClevrerAnnotation]) -> None:
    print("\n## Collision detector vs simulated collisions (tolerance 3 frames)")
    print("velocity_change  detected  simulated  matched  precision  recall  f1")
    for change in (0.05, 0.1, 0.15, 0.2, 0.3, 0.5):
        config = replace(DetectorConfig(), velocity_change=change)
        total = MatchCounts(0, 0, 0)
        for annotation in annotations:
            found = detect_pair_events(annotation, config)
            total = total + match_collisions(found, ground_truth_events(annotation))
        marker = "  <- default" if change == DetectorConfig().velocity_change else ""
        print(
            f"{change:15.2f}  {total.detected:8d}  {total.actual:9d}  {total.true_positives:7d}"
            f"  {total.precision:9.3f}  {total.recall:6.3f}  {total.f1:.3f}{marker}"
        )


def table_one(seed: int, scenes: int) -> None:
    print(f"\n## Table 1 with SIMULATED raters (default RaterModel), {scenes} scenes")
    config = CegConfig()
    start = time.perf_counter()
    built = []
    for index in range(scenes):
        spec = sample_scene(seed, index)
        rng = random.Random(f"ceg:{seed}:{index}")
        built.append(build_scene_ceg(simulate_scene(spec), spec, config, rng))
    elapsed = time.perf_counter() - start
    runs = sum(c.counterfactual_runs for c in built)
    stats = graph_statistics([c.graph for c in built])
    print(f"graphs built in {elapsed:.1f} s with {runs} counterfactual simulations")
    print(
        f"nodes/graph {stats.mean_nodes:.2f}, edges/graph {stats.mean_edges:.2f} "
        f"(positive {stats.mean_positive_edges:.2f}), mean score {stats.mean_score:.2f}"
    )
    pairs = labelled_pairs(built)
    print(f"{len(pairs)} pairs; Y: P(Human|Y) P(Y|Human)  [paper]")
    for row in compare(pairs):
        paper = PAPER_TABLE_1[row.protocol]
        print(
            f"  {row.protocol:14s} {row.p_human_given_protocol or 0:.2f}  "
            f"{row.p_protocol_given_human or 0:.2f}   [{paper[0]:.2f} {paper[1]:.2f}]"
        )


def cross_validated(scenes: list[SceneQuestions], name: str, folds: int = 5) -> float:
    ordered = sorted(scenes, key=lambda s: s.scene_index)
    random.Random(2021).shuffle(ordered)
    right = total = 0
    for fold in range(folds):
        held = ordered[fold::folds]
        held_ids = {s.scene_index for s in held}
        train = [s for s in ordered if s.scene_index not in held_ids]
        row = score(held, baseline_predictions(name, train, held))[-1]
        right += row.options_right
        total += row.options
    return right / total


def real_file() -> None:
    if not HUMANS.is_file():
        print("\n(../shared/data/clevrer_humans/train.json not found: real-data figures skipped)")
        return
    scenes = read_questions(HUMANS)
    stats = graph_statistics(graphs_from_questions(scenes))
    print("\n## CLEVRER-Humans train.json")
    print(
        f"graphs recovered from QA: {stats.graphs}, nodes/graph {stats.mean_nodes:.2f}, "
        f"edges/graph {stats.mean_edges:.2f} (paper, full CEGs: 4.71 nodes, 12.7 edges)"
    )
    train, validation = split_scenes(scenes)
    print("baseline    per-option acc. (seed-2021 80/20 validation)   5-fold CV by scene")
    for name in BASELINES:
        row = score(validation, baseline_predictions(name, train, validation))[-1]
        print(
            f"{name:10s}  {row.per_option:.3f} ({row.options} options)"
            f"                        {cross_validated(scenes, name):.3f}"
        )
    answers = [c.answer for s in scenes for q in s.questions for c in q.choices or []]
    print(f"constant 'wrong' on the whole file: {answers.count('wrong') / len(answers):.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scenes", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ceg-scenes", type=int, default=40)
    args = parser.parse_args()
    start = time.perf_counter()
    annotations = [simulate_scene(sample_scene(args.seed, i)) for i in range(args.scenes)]
    elapsed = time.perf_counter() - start
    print(
        f"## Simulation: {args.scenes} scenes in {elapsed:.1f} s "
        f"({args.scenes / elapsed:.1f} scenes/s, 128 frames x 10 Bullet steps each)"
    )
    collisions = sum(len(a.collision) for a in annotations)
    print(f"{collisions} simulated collisions ({collisions / args.scenes:.2f} per scene)")
    detector(annotations)
    table_one(args.seed, args.ceg_scenes)
    real_file()


if __name__ == "__main__":
    main()
