"""The evaluation report: a Table-2-style grid (categories as rows, models as columns), bar
charts per category group, the noisy-oracle curve, coverage and paired comparisons."""

from __future__ import annotations

from typing import Any

import matplotlib.style
import numpy as np
from matplotlib.figure import Figure as MplFigure
from matplotlib.font_manager import FontProperties
from matplotlib.textpath import TextPath

from taskqa.evaluation.evaluate import SCORED_ON_ANSWERED, Evaluation
from taskqa.reports import Block, Figure, Heading, Paragraph, Report, Table
from taskqa.stats.plots import to_png

# Breakdowns of the main grid, with the row label prefix shown in the report.
GRID = (
    ("open_binary_structural", "by structure"),
    ("open_binary_answer", "by answer"),
    ("type", "type"),
    ("scope", "scope"),
    ("semantic", "semantic"),
    ("structural", "structural"),
    ("reference", "reference"),
    ("obfuscation", "objects hidden"),
)
CHARTS = ("open_binary_structural", "type", "scope", "semantic", "reference")
NOISE_BASELINES = ("oracle", "noisy-oracle")


def _percent(value: Any) -> float | None:
    return None if value is None else 100.0 * float(value)


def build_report(evaluation: Evaluation, results: dict[str, Any]) -> Report:
    models = results["models"]
    names = [m["name"] for m in models]
    bench = results["benchmark"]
    sampled = [m for m in models if m.get("scored_on") == SCORED_ON_ANSWERED]
    paired = any(m.get("pairs") for m in models)
    report = Report(f"Evaluation on {bench['split']}")
    report.add(
        Paragraph(
            f"{bench['questions']:,} questions over {bench['clips']:,} clips; benchmark manifest "
            f"sha256 {bench['manifest_sha256'][:16]}…; answer normalization version "
            f"{results['normalization']['version']}; taskqa {results['taskqa_version']}. "
            "Accuracy in percent; every question of the split is in the denominator (an "
            "invalid answer counts as not correct)"
            + (
                ", except in the columns of models scored on the questions their files answer "
                "(below)"
                if sampled
                else ""
            )
            + ". Tags are multi-label: a question counts "
            "in every type and scope it carries, so rows of one group do not add up."
        ),
        Heading("Models"),
        Table(
            [
                "model",
                "what it is",
                "accuracy (%)",
                "answered (coverage)",
                *(["pair accuracy (%)"] if paired else []),
                "scored on (questions)",
            ],
            [
                [
                    m["name"],
                    describe_model(m["meta"]),
                    _percent(m["accuracy"]),
                    _answered(m, bench["questions"]),
                    *([_pair_accuracy(m)] if paired else []),
                    _scored_on(m, bench["questions"]),
                ]
                for m in models
            ],
        ),
        *_sampled_note(sampled, bench["questions"]),
        Heading("Accuracy by category"),
        _grid(models, names, results.get("chance")),
        Paragraph(
            "Open/Binary are given under both readings, because EgoTaskQA's code never defined "
            "them: *by structure* (open = query, binary = verify questions) and *by answer* "
            "(binary = the answer is yes or no)."
        ),
        Heading("95% confidence intervals"),
        _intervals(models, names, results["bootstrap"]),
        Heading("Coverage of each prediction file"),
        _coverage(models),
    )
    if results["comparisons"]:
        report.add(Heading("Paired comparisons"), _comparisons(results["comparisons"]))
    report.add(Heading("Charts"))
    with matplotlib.style.context("default"):
        for name in CHARTS:
            report.add(
                Figure(f"accuracy_{name}", to_png(_bars(models, name)), _caption(evaluation, name))
            )
        curve = _noise_curve(models)
        if curve is not None:
            report.add(
                Figure("noisy_oracle", to_png(curve), "Oracle accuracy as facts are misread")
            )
    templates = _templates(models, names)
    if templates.rows:  # an empty table is left out
        report.add(Heading("Per template"), templates)
    if paired:
        report.add(*_pairs_section(evaluation, models, names))
    return report


def _pairs_section(
    evaluation: Evaluation, models: list[dict[str, Any]], names: list[str]
) -> list[Block]:
    """Pair accuracy per model and category, and one pair's two clips side by side."""
    from taskqa.evaluation.pair_scores import pair_strip

    keys = list(dict.fromkeys(key for m in models for key in m.get("pairs") or {}))
    rows = [
        [key, max((m.get("pairs") or {}).get(key, {}).get("pairs", 0) for m in models)]
        + [_percent(m.get("pairs", {}).get(key, {}).get("pair_accuracy")) for m in models]
        for key in keys
    ]
    blocks: list[Block] = [
        Heading("Minimal pairs"),
        Paragraph(
            "A pair asks one text of two clips that differ in one intervention, with different "
            "answers: a pair is right only when both of its questions are. A model that does "
            "not watch answers both alike and gets no pair right."
        ),
        Table(["pairs of", "pairs", *[f"{n} pair accuracy (%)" for n in names]], rows),
    ]
    pairs = [
        p
        for p in evaluation.benchmark.pairs()
        if p.get("split") == evaluation.split.partition("/")[2]
    ]
    strip = pair_strip(evaluation.benchmark, pairs[0]) if pairs else None
    if strip is not None:
        first = pairs[0]
        caption = (
            f"{first['question']} — the same question on two clips ({first['intervention']['kind']}"
            f": {first['intervention'].get('text', '')}); first recording above, second below"
        )
        blocks.append(Figure("minimal_pair", strip, caption))
    return blocks


# What each baseline is, in one sentence for the report: three of them read only the text.
BASELINE_DESCRIPTIONS = {
    "most-likely": "the most frequent train answer of the question's reasoning type; never "
    "reads the question or the video",
    "text-only": "a TF-IDF + logistic regression classifier trained on the train split's "
    "question texts; never sees the video",
    "text-embedding": "a logistic regression classifier on sentence embeddings of the question "
    "text; never sees the video",
    "oracle": "each question's program run on the annotations: the ceiling",
    "chat": "a model behind an OpenAI-compatible server, given the clip's frames",
    "human": "people answering in a `taskqa studio` study (the raters' majority answer, "
    "raters who failed the catch trials left out)",
}


def describe_model(meta: dict[str, Any]) -> str:
    """One sentence on what a prediction file's maker is, from its sidecar metadata."""
    baseline = str(meta.get("baseline", ""))
    if baseline == "noisy-oracle":
        share = float(meta.get("flip", 0.0))
        return (
            f"the oracle's programs run on annotations in which {100 * share:.0f}% of the state "
            "facts were flipped: how much the answers depend on annotation noise, not a model "
            f"that gets {100 * share:.0f}% of the answers wrong (one flipped fact changes few "
            "answers)"
        )
    return BASELINE_DESCRIPTIONS.get(baseline, str(meta.get("model", "predictions from a file")))


def _answered(model: dict[str, Any], split_questions: int) -> str:
    """How many of the split's questions a model's file answers, beside its score."""
    answered = int((model.get("coverage") or {}).get("answered", split_questions))
    share = 100 * answered / split_questions if split_questions else 0.0
    return f"{answered:,} of {split_questions:,} ({share:.1f}%)"


def _pair_accuracy(model: dict[str, Any]) -> str:
    """Pair accuracy (%) with the number of pairs it is over; "-" without pairs."""
    found = (model.get("pairs") or {}).get("all")
    if not found:
        return "-"
    return f"{100 * found['pair_accuracy']:.1f} ({found['pairs']:,} pairs)"


def _scored_on(model: dict[str, Any], split_questions: int) -> str:
    scored = int(model.get("questions_scored", split_questions))
    if model.get("scored_on") == SCORED_ON_ANSWERED:
        return f"{scored:,} of {split_questions:,}: the questions its file answers"
    return f"{scored:,}: the whole split"


def _sampled_note(sampled: list[dict[str, Any]], split_questions: int) -> list[Paragraph]:
    """The plain warning a column scored on a sample needs: it is not the same test."""
    return [
        Paragraph(
            f"**{m['name']} was scored on {m['questions_scored']:,} of the split's "
            f"{split_questions:,} questions**, the ones its prediction file answers ("
            + (
                "its file leaves the others unanswered and `--allow-partial` scored it on what "
                "it answers"
                if m.get("partial")
                else 'its meta file says `"scored_on": "answered"`, as a human study on a '
                "sample does"
            )
            + "), not on the whole split: its column is not comparable question-for-question "
            "with the columns scored on the full split, its per-category cells are over the "
            "answered questions of each category, and its paired comparisons use only the "
            "questions both models were scored on."
        )
        for m in sampled
    ]


def _caption(evaluation: Evaluation, name: str) -> str:
    label = f"Accuracy by {dict(GRID).get(name, name.replace('_', ' '))}"  # never the identifier
    for breakdown in evaluation.table.breakdowns:
        if breakdown.name == name:
            label = breakdown.caption
    return f"{label} (bars: accuracy; whiskers: 95% clip-bootstrap interval)"


def _grid(
    models: list[dict[str, Any]], names: list[str], chance: dict[str, Any] | None = None
) -> Table:
    """Accuracy per category, with the chance reference (1/k of the answers each question
    allows, averaged) beside the models where the results have it."""
    chance = chance or {}
    rows: list[list[str | float | int | None]] = []
    for breakdown, label in GRID:
        groups = models[0]["breakdowns"].get(breakdown, {})
        for group in groups:
            row: list[str | float | int | None] = [f"{label}: {group}", groups[group]["questions"]]
            if chance:
                row.append(_percent(chance.get(breakdown, {}).get(group)))
            row += [_percent(m["breakdowns"][breakdown][group]["accuracy"]) for m in models]
            rows.append(row)
    headers = ["category", "questions", *(["chance"] if chance else []), *names]
    return Table(headers, rows, caption="Accuracy (%)")


def _intervals(models: list[dict[str, Any]], names: list[str], boot: dict[str, Any]) -> Table:
    rows: list[list[str | float | int | None]] = []
    for breakdown, label in GRID[:2]:
        for group in models[0]["breakdowns"][breakdown]:
            cells: list[str | float | int | None] = [f"{label}: {group}"]
            for m in models:
                low, high = m["breakdowns"][breakdown][group]["ci95"]
                cells.append("-" if low is None else f"{100 * low:.1f} to {100 * high:.1f}")
            rows.append(cells)
    caption = f"{boot['resamples']} clip resamples, seed {boot['seed']}"
    return Table(["category", *names], rows, caption=caption)


def _coverage(models: list[dict[str, Any]]) -> Table:
    rows: list[list[str | float | int | None]] = []
    for m in models:
        total = m["breakdowns"]["overall"]["all"]
        cov = m["coverage"]
        rows.append(
            [m["name"], cov["lines"], cov["unknown_ids"], cov["duplicate_ids"],
             cov["missing_ids"], total["invalid"], total["wrong"], total["correct"],
             m.get("questions_scored", total["questions"])]
        )  # fmt: skip
    headers = ["model", "lines", "unknown ids", "duplicates", "missing", "invalid", "wrong",
               "correct", "scored on"]  # fmt: skip
    return Table(headers, rows)


def _comparisons(comparisons: list[dict[str, Any]]) -> Table:
    rows: list[list[str | float | int | None]] = [
        [
            f"{c['first']} - {c['second']}",
            c["questions"],
            100 * c["difference"],
            f"{100 * c['difference_ci95'][0]:.1f} to {100 * c['difference_ci95'][1]:.1f}",
            c["only_first_correct"],
            c["only_second_correct"],
            p_value(c["mcnemar_exact_p"]),
            p_value(c["paired_bootstrap_p"]),
        ]
        for c in comparisons
    ]
    headers = ["pair", "questions", "difference (points)", "95% interval", "only first right",
               "only second right", "McNemar exact p", "paired bootstrap p"]  # fmt: skip
    return Table(headers, rows)


P_FLOOR = 0.001  # below it a p-value is said as a bound: "0" read as impossible


def p_value(p: float) -> str:
    """A p-value to three significant digits, "< 0.001" below that (a bootstrap p of 0 only
    says no resample fell on the far side)."""
    return f"< {P_FLOOR}" if p < P_FLOOR else f"{p:.3g}"


def _templates(models: list[dict[str, Any]], names: list[str]) -> Table:
    groups = models[0]["breakdowns"]["template"]
    rows: list[list[str | float | int | None]] = [
        [template, groups[template]["questions"]]
        + [_percent(m["breakdowns"]["template"][template]["accuracy"]) for m in models]
        for template in groups
    ]
    return Table(["template", "questions", *names], rows, caption="Accuracy (%) per template")


LEGEND_FONT = "small"
# the colour patch, the gap to its text and the gap to the next entry, in font sizes (ems):
# matplotlib's legend.handlelength 2.0 + handletextpad 0.8 + columnspacing 2.0, rounded up
LEGEND_ENTRY_EMS = 5.0


def _legend_columns(names: list[str], width: float) -> int:
    """As many legend entries per row as fit ``width`` inches, never fewer than one."""
    size = FontProperties(size=LEGEND_FONT).get_size_in_points()
    widest = max((TextPath((0, 0), n, size=size).get_extents().width for n in names), default=0)
    entry = (widest + LEGEND_ENTRY_EMS * size) / 72
    return max(1, min(len(names), int((width - 0.2) // entry)))


def _bars(models: list[dict[str, Any]], breakdown: str) -> MplFigure:
    groups = list(models[0]["breakdowns"][breakdown])
    names = [str(m["name"]) for m in models]
    width = max(5.0, 1.1 * len(groups) * max(1, len(models)) ** 0.5)
    columns = _legend_columns(names, width)
    rows = -(-len(names) // columns)
    figure = MplFigure(figsize=(width, 3.2 + 0.22 * rows), layout="constrained")
    axes = figure.add_subplot()
    bar_width = 0.8 / max(1, len(models))
    positions = np.arange(len(groups), dtype=float)
    for k, model in enumerate(models):
        cells = [model["breakdowns"][breakdown][g] for g in groups]
        values = np.array([100 * (c["accuracy"] or 0.0) for c in cells])
        low = np.array([100 * (c["ci95"][0] if c["ci95"][0] is not None else 0.0) for c in cells])
        high = np.array([100 * (c["ci95"][1] if c["ci95"][1] is not None else 0.0) for c in cells])
        errors = np.vstack([np.clip(values - low, 0, None), np.clip(high - values, 0, None)])
        axes.bar(
            positions + k * bar_width, values, bar_width, yerr=errors, capsize=2, label=names[k]
        )
    axes.set_xticks(positions + bar_width * (len(models) - 1) / 2, groups, rotation=20, ha="right")
    axes.set_ylabel("accuracy (%)")
    axes.set_ylim(0, 100)
    # below the chart, outside the axes (bars reach 100%: a legend inside covers them), in as
    # many columns as the names fit: an expanded legend squeezed long names onto each other
    figure.legend(loc="outside lower center", ncols=columns, fontsize=LEGEND_FONT, frameon=False)
    return figure


def _noise_curve(models: list[dict[str, Any]]) -> MplFigure | None:
    points = sorted(
        (float(m["meta"].get("flip", 0.0)), 100 * m["accuracy"])
        for m in models
        if m["meta"].get("baseline") in NOISE_BASELINES
    )
    if len(points) < 2:
        return None
    figure = MplFigure(figsize=(4.5, 3.0))
    axes = figure.add_subplot()
    axes.plot([p for p, _ in points], [a for _, a in points], marker="o")
    axes.set_xlabel("fact misreading rate P")
    axes.set_ylabel("accuracy (%)")
    axes.set_ylim(0, 100)
    figure.tight_layout()
    return figure
