"""The build report: answer distributions before and after balancing, counts per category, split
sizes and the shortcut baselines (EgoTaskQA Fig. 3c and supplementary Table 3)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib
from matplotlib.figure import Figure as MplFigure

from taskqa.benchmark.balance import top_share
from taskqa.benchmark.candidates import category_tags
from taskqa.reports import Figure, Heading, Paragraph, Report, Table
from taskqa.stats.plots import to_png

TOP_TYPES = 20
TOP_ANSWERS = 15
Distribution = Mapping[str, Mapping[str, int]]


def category_counts(records: Sequence[Mapping[str, Any]]) -> Counter[str]:
    """Questions per tag, counted in every tag a question carries (as EgoTaskQA's metric does)."""
    counts: Counter[str] = Counter()
    for record in records:
        counts.update(category_tags(record))
    return counts


def build_report(
    before: Distribution,
    after: Distribution,
    categories_before: Counter[str],
    categories_after: Counter[str],
    splits: Mapping[str, Mapping[str, int]],
    diagnostics: Mapping[str, Any],
    alpha: float,
) -> Report:
    report = Report("Benchmark build report")
    report.add(
        Paragraph(
            "Balancing keeps yes and no equal within every reasoning type, caps the most frequent "
            "open answers of each type, and sets binary to open questions at 1 : 2. The figures "
            "show, for the largest reasoning types, how the answers were spread before and after."
        ),
        Heading("Questions per category"),
        _category_table(categories_before, categories_after),
        Heading("Answer distributions per reasoning type"),
        _distribution_table(before, after, alpha),
        Figure("answers_before", to_png(_distribution_figure(before, "before balancing"))),
        Figure("answers_after", to_png(_distribution_figure(after, "after balancing"))),
        Heading("Splits"),
        _split_table(splits, diagnostics),
        Heading("Shortcut diagnostics (test splits)"),
        Paragraph(
            "Blind baselines that never see a video. Most likely: the most frequent train answer "
            "of the question's reasoning type. Question text: the most frequent train answer of "
            "the same question text, else template, else reasoning type. Accuracies in %."
        ),
        _baseline_table(diagnostics),
    )
    return report


def _category_table(before: Counter[str], after: Counter[str]) -> Table:
    rows: list[list[str | int | float | None]] = [
        [tag, before[tag], after.get(tag, 0)] for tag in sorted(before)
    ]
    return Table(["category", "candidates", "balanced"], rows)


def _largest(distribution: Distribution) -> list[str]:
    return sorted(distribution, key=lambda t: (-sum(distribution[t].values()), t))[:TOP_TYPES]


def _distribution_table(before: Distribution, after: Distribution, alpha: float) -> Table:
    rows: list[list[str | int | float | None]] = []
    for kind in _largest(before):
        counts_before, counts_after = before[kind], after.get(kind, {})
        total_after = sum(counts_after.values())
        rows.append(
            [
                kind,
                sum(counts_before.values()),
                total_after,
                100 * top_share(_open(counts_before), alpha),
                100 * top_share(_open(counts_after), alpha) if total_after else None,
                _top_answers(counts_after, total_after),
            ]
        )
    headers = [
        "reasoning type",
        "before",
        "after",
        "open top-20% share before",
        "after",
        "top answers",
    ]
    return Table(headers, rows)


def _open(counts: Mapping[str, int]) -> dict[str, int]:
    return {answer: n for answer, n in counts.items() if answer not in ("yes", "no")}


def _top_answers(counts: Mapping[str, int], total: int, shown: int = 3) -> str:
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:shown]
    return ", ".join(f"{answer} {100 * n / total:.0f}%" for answer, n in ranked) if total else ""


def _distribution_figure(distribution: Distribution, title: str) -> MplFigure:
    kinds = _largest(distribution)
    figure = MplFigure(figsize=(10, 0.35 * max(len(kinds), 4) + 1.2), layout="constrained")
    axes = figure.subplots()
    palette = matplotlib.colormaps["tab20"]
    colors = [palette(index) for index in range(20)]
    for row, kind in enumerate(kinds):
        counts = sorted(distribution[kind].values(), reverse=True)
        total = sum(counts)
        left = 0.0
        for rank, count in enumerate(counts[:TOP_ANSWERS]):
            axes.barh(row, count / total, left=left, color=colors[rank % 20], edgecolor="white")
            left += count / total
        axes.barh(row, 1 - left, left=left, color="#dddddd")
    axes.set_yticks(range(len(kinds)), [k.replace("$", " · ") for k in kinds], fontsize=7)
    axes.invert_yaxis()
    axes.set_xlim(0, 1)
    axes.set_xlabel(f"share of questions (top {TOP_ANSWERS} answers; grey: the rest)")
    axes.set_title(f"Answers per reasoning type, {title}")
    return figure


def _split_table(splits: Mapping[str, Mapping[str, int]], diagnostics: Mapping[str, Any]) -> Table:
    rows = []
    for family, sizes in splits.items():
        oov = diagnostics[family]["out_of_vocabulary"]
        rows.append(
            [
                family,
                sizes.get("train", 0),
                sizes.get("val", 0),
                sizes.get("test", 0),
                100 * oov["val"],
                100 * oov["test"],
            ]
        )
    headers = ["split family", "train", "val", "test", "val answers not in train %", "test %"]
    return Table(headers, rows)


def _baseline_table(diagnostics: Mapping[str, Any]) -> Table:
    rows = []
    for family, result in diagnostics.items():
        for name, scores in result["baselines"].items():
            rows.append([f"{family}: {name}", scores["all"], scores["binary"], scores["open"]])
    return Table(["baseline", "all", "binary", "open"], rows)
