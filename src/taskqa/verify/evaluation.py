"""Loading a built benchmark, running verifiers on it, and reporting F1 and accuracy.

Metrics follow EgoTV: accuracy and F1 of the positive class at threshold 0.5 over all pairs of
a split, and the same per (complexity, ordering) cell of the test splits (appendix Fig. 8).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure as MplFigure

from taskqa.jsonio import read_jsonl_objects, write_json
from taskqa.problems import InvalidInputError, Problem
from taskqa.reports import Figure, Heading, Paragraph, Report, Table, write_report
from taskqa.stats.plots import to_png
from taskqa.verify.benchmark import SPLITS, TEST_SPLITS
from taskqa.verify.graph import SubTask
from taskqa.verify.kitchen import Segment
from taskqa.verify.scorers import PairView, Text2TextVerifier, Verifier

PAIR_KEYS = (
    "pair_id",
    "episode_id",
    "split",
    "task",
    "complexity",
    "ordering",
    "description",
    "label",
)


@dataclass(frozen=True)
class Pair:
    view: PairView
    split: str
    task: str
    complexity: int
    ordering: int
    label: int
    negative_kind: str | None


def _segment(record: dict[str, Any]) -> Segment:
    subtask = record["subtask"]
    return Segment(
        int(record["index"]), str(record["action"]), None if subtask is None else SubTask(subtask),
        record["object"], record["receptacle"], tuple(record["objects_in_view"]),
        dict(record["state_after"]),
    )  # fmt: skip


def load_benchmark(folder: Path) -> list[Pair]:
    """Every pair with the segments it shows; problems name the file and record path."""
    episodes_path, pairs_path = folder / "episodes.jsonl", folder / "pairs.jsonl"
    episodes: dict[str, list[Segment]] = {}
    problems: list[Problem] = []
    for number, record in read_jsonl_objects(episodes_path):
        try:
            episodes[record["episode_id"]] = [_segment(s) for s in record["segments"]]
        except (KeyError, TypeError, ValueError) as error:
            problems.append(Problem.at(episodes_path, [number], f"malformed episode: {error!r}"))
    pairs: list[Pair] = []
    for number, record in read_jsonl_objects(pairs_path):
        missing = [key for key in PAIR_KEYS if key not in record]
        if missing:
            problems.append(Problem.at(pairs_path, [number, missing[0]], "missing"))
            continue
        if record["episode_id"] not in episodes:
            message = f"unknown episode {record['episode_id']!r}"
            problems.append(Problem.at(pairs_path, [number, "episode_id"], message))
            continue
        segments = episodes[record["episode_id"]]
        shown = record.get("segments")
        try:
            view = tuple(segments[i] for i in shown) if shown is not None else tuple(segments)
        except (IndexError, TypeError):
            problems.append(Problem.at(pairs_path, [number, "segments"], "bad segment index"))
            continue
        pairs.append(
            Pair(
                PairView(record["pair_id"], record["description"], view), record["split"],
                record["task"], int(record["complexity"]), int(record["ordering"]),
                int(record["label"]), record.get("negative_kind"),
            )
        )  # fmt: skip
    if problems:
        raise InvalidInputError(problems)
    return pairs


def f1_and_accuracy(labels: Sequence[int], probabilities: Sequence[float]) -> dict[str, float]:
    predicted = [p >= 0.5 for p in probabilities]
    tp = sum(1 for y, p in zip(labels, predicted, strict=True) if y and p)
    fp = sum(1 for y, p in zip(labels, predicted, strict=True) if not y and p)
    fn = sum(1 for y, p in zip(labels, predicted, strict=True) if y and not p)
    correct = sum(1 for y, p in zip(labels, predicted, strict=True) if bool(y) == p)
    f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    return {"f1": 100 * f1, "accuracy": 100 * correct / max(len(labels), 1), "pairs": len(labels)}


def run_verifier(
    verifier: Verifier, pairs: Sequence[Pair], tick: Callable[[], None]
) -> list[float]:
    if isinstance(verifier, Text2TextVerifier):
        result = verifier.probabilities([p.view for p in pairs])
        for _ in pairs:
            tick()
        return result
    probabilities = []
    for pair in pairs:
        probabilities.append(verifier.probability(pair.view))
        tick()
    return probabilities


def summarize(pairs: Sequence[Pair], probabilities: Sequence[float]) -> dict[str, Any]:
    by_split = {}
    for split in SPLITS:
        chosen = [
            (p.label, q) for p, q in zip(pairs, probabilities, strict=True) if p.split == split
        ]
        if chosen:
            by_split[split] = f1_and_accuracy([c[0] for c in chosen], [c[1] for c in chosen])
    cells: dict[str, dict[str, float]] = {}
    test = [(p, q) for p, q in zip(pairs, probabilities, strict=True) if p.split in TEST_SPLITS]
    for axis in ("complexity", "ordering"):
        for value in sorted({getattr(p, axis) for p, _ in test}):
            chosen = [(p.label, q) for p, q in test if getattr(p, axis) == value]
            cells[f"{axis}={value}"] = f1_and_accuracy(
                [c[0] for c in chosen], [c[1] for c in chosen]
            )
    return {"splits": by_split, "test_axes": cells}


def axes_figure(results: dict[str, dict[str, Any]]) -> MplFigure:
    figure = MplFigure(figsize=(8.0, 3.2), dpi=100)
    for position, axis in enumerate(("complexity", "ordering")):
        ax = figure.add_subplot(1, 2, position + 1)
        for name, result in results.items():
            cells = {
                int(k.split("=")[1]): v["f1"]
                for k, v in result["test_axes"].items()
                if k.startswith(axis)
            }
            ax.plot(list(cells), list(cells.values()), marker="o", label=name)
        ax.set_xlabel(axis)
        ax.set_ylabel("F1 (test splits)")
        ax.set_ylim(0, 105)
    figure.axes[0].legend(fontsize=7, loc="lower left")
    figure.tight_layout()
    return figure


def write_results(out: Path, results: dict[str, dict[str, Any]], notes: Sequence[str]) -> None:
    write_json(out / "results.json", results, sort_keys=True)
    report = Report("Task verification (EgoTV-style) results")
    for note in notes:
        report.add(Paragraph(note))
    report.add(Heading("F1 / accuracy per split"))
    headers = ["verifier", *[f"{s} F1" for s in SPLITS], *[f"{s} acc" for s in SPLITS]]
    rows = [
        [name, *[r["splits"].get(s, {}).get("f1") for s in SPLITS],
         *[r["splits"].get(s, {}).get("accuracy") for s in SPLITS]]
        for name, r in results.items()
    ]  # fmt: skip
    report.add(Table(headers, rows))
    report.add(Heading("By complexity and ordering (test splits)"))
    cells = sorted({c for r in results.values() for c in r["test_axes"]})
    report.add(
        Table(
            ["verifier", *cells],
            [
                [n, *[r["test_axes"].get(c, {}).get("f1") for c in cells]]
                for n, r in results.items()
            ],
            caption="F1",
        )
    )
    report.add(
        Figure(
            "f1_by_complexity_ordering",
            to_png(axes_figure(results)),
            "F1 by complexity and ordering, test splits",
        )
    )
    write_report(report, out)
