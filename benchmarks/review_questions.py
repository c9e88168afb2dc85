"""A human-style review of generated questions: draw a sample to judge, then count the verdicts.

    python benchmarks/review_questions.py sample BENCH --n 200 --seed 0 --out REVIEW.jsonl
    python benchmarks/review_questions.py summary REVIEW.jsonl

`sample` draws questions uniformly (seeded) from the normal splits of a built benchmark and
writes one line per question with empty `verdict`, `problems` and `note` fields, plus what a
reviewer needs beside the text: the answer, the template and the clip's actions in order (so a
reviewer can tell whether the answer is right and whether the text alone gives it away).
`summary` counts the filled-in verdicts by the rubric of docs/question-quality.md and exits
with status 1 when a line is not filled in or uses a label outside the rubric.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from taskqa.benchmark.folder import Benchmark
from taskqa.corpus import read_corpus
from taskqa.model import ActionSegment, Recording
from taskqa.programs.clips import Clip

VERDICTS = ("ok", "not ok")
PROBLEMS = ("ill-posed", "gives answer away", "vague", "ungrammatical", "wrong answer")
ILL_POSED = "ill-posed"


def _rank(seed: int, identifier: str) -> int:
    return int.from_bytes(hashlib.blake2b(f"{seed}:{identifier}".encode(), digest_size=8).digest())


def _recordings(bench: Path) -> dict[str, Recording]:
    return {recording.id: recording for recording in read_corpus(bench / "corpus")}


def _clip_lines(recording: Recording, clip: Clip) -> list[str]:
    """What the clip shows, exactly as the generator cut it (the benchmark's clips.jsonl): the
    person's actions, the other person's overlapping ones, and the person's next actions
    (marked ``[unseen]``)."""
    actions = {action.id: action for action in recording.actions}
    shown = sorted((*clip.observed, *clip.others), key=lambda i: (actions[i].start, actions[i].end))
    return [_line(actions[i], "") for i in shown] + [
        _line(actions[i], "[unseen] ") for i in clip.future
    ]


def _line(action: ActionSegment, mark: str) -> str:
    outcome = "" if action.outcome == "done" else f" ({action.outcome})"
    return f"{mark}{action.agent}: {action.verb} {' '.join(action.slots.objects())}{outcome}"


def sample(bench: Path, count: int, seed: int, out: Path) -> None:
    questions: list[dict[str, Any]] = []
    for split in ("train", "val", "test"):
        with (bench / "splits" / "normal" / f"{split}.jsonl").open(encoding="utf-8") as stream:
            questions.extend(json.loads(line) for line in stream)
    chosen = sorted(questions, key=lambda q: _rank(seed, q["id"]))[:count]
    recordings = _recordings(bench)
    clips = Benchmark(bench).clips()
    lines = []
    for question in chosen:
        actions = _clip_lines(recordings[question["recording"]], clips[question["clip"]].clip)
        lines.append(
            {
                "id": question["id"],
                "template": question["template"],
                "question": question["question"],
                "answer": question["answer"],
                "person": question[
                    "agent"
                ],  # "the person" of the question; others are "the other person"
                "clip_actions": actions,
                "verdict": "",
                "problems": [],
                "note": "",
            }
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
    print(f"wrote {len(lines)} questions to {out}")


def summary(review: Path) -> int:
    verdicts: Counter[str] = Counter()
    problems: Counter[str] = Counter()
    by_template: Counter[str] = Counter()
    bad = 0
    lines = review.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, start=1):
        record = json.loads(line)
        verdict = record.get("verdict")
        labels = record.get("problems", [])
        if verdict not in VERDICTS or any(label not in PROBLEMS for label in labels):
            print(
                f"{review}:{number}: verdict {verdict!r} / problems {labels!r} outside the rubric"
            )
            bad += 1
            continue
        verdicts[verdict] += 1
        problems.update(labels)
        if verdict == "not ok":
            by_template[record["template"]] += 1
    total = sum(verdicts.values())
    print(f"{total} questions judged: {verdicts['ok']} ok, {verdicts['not ok']} not ok")
    for label in PROBLEMS:
        share = 100 * problems[label] / total if total else 0.0
        print(f"  {label:18} {problems[label]:4}  ({share:.1f}%)")
    for template, count in by_template.most_common(10):
        print(f"  not ok in {template}: {count}")
    return 1 if bad else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    draw = commands.add_parser("sample")
    draw.add_argument("bench", type=Path)
    draw.add_argument("--n", type=int, default=200)
    draw.add_argument("--seed", type=int, default=0)
    draw.add_argument("--out", type=Path, required=True)
    count = commands.add_parser("summary")
    count.add_argument("review", type=Path)
    args = parser.parse_args()
    if args.command == "sample":
        sample(args.bench, args.n, args.seed, args.out)
        return 0
    return summary(args.review)


if __name__ == "__main__":
    sys.exit(main())
