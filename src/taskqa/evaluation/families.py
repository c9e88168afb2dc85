"""``taskqa evaluate --split all/SPLIT``: one table of every split family's scores.

The generalisation families (docs/benchmark-folder.md) split the same balanced questions in
different ways, so a zero-shot model's one predictions file is scored on every family, and a
model trained per family brings one file per family; each family's full results stay in their
own folder, and this summary puts the overall accuracies side by side with most likely and
chance, so a drop on novel compositions or longer programs reads at a glance.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from taskqa.jsonio import read_jsonl


def answered_ids(path: Path) -> set[str]:
    """The question ids a predictions file has a line for (its format is checked when scored)."""
    found: set[str] = set()
    for _, record in read_jsonl(path):
        if isinstance(record, dict) and isinstance(record.get("question_id"), str):
            found.add(record["question_id"])
    return found


@dataclass
class FamilyPlan:
    """Which prediction files (by index) are scored on which family's split, and why the
    others are left out."""

    chosen: dict[str, list[int]]  # family -> the files scored on it
    skipped: dict[str, dict[str, str]]  # family -> file label -> why it is left out
    unused: list[int]  # files scored on no family: refused before anything is written


def plan_families(
    answered: Sequence[set[str]],
    wanted: Mapping[str, set[str]],
    labels: Sequence[str],
    allow_partial: bool,
) -> FamilyPlan:
    """A file is scored on every family whose split (``wanted``: its ids) it answers in full;
    one that answers only part of a family's split (made for another family) is left out of
    it, and said so, unless ``allow_partial`` scores it on what it answers there."""
    chosen: dict[str, list[int]] = {}
    skipped: dict[str, dict[str, str]] = {}
    for family, ids in wanted.items():
        counts = [len(seen & ids) for seen in answered]
        chosen[family] = [i for i, n in enumerate(counts) if n and (allow_partial or n == len(ids))]
        skipped[family] = {
            labels[i]: f"answers {n:,} of {len(ids):,}"
            for i, n in enumerate(counts)
            if n and i not in chosen[family]
        }
    used = {i for files in chosen.values() for i in files}
    return FamilyPlan(chosen, skipped, [i for i in range(len(answered)) if i not in used])


def families_summary(
    scored: Mapping[str, Mapping[str, Any]],
    part: str,
    skipped: Mapping[str, Mapping[str, str]] | None = None,
) -> dict[str, Any]:
    """Per family: its questions, every model's overall accuracy and chance (fractions), how
    many of the family's questions each model's file answers (a partial file is scored on
    those), pair accuracy where the family has minimal pairs, and the files left out of it
    because they answer only part of its split."""
    families: dict[str, Any] = {}
    for family, results in scored.items():
        chance = (results.get("chance") or {}).get("overall", {}).get("all")
        models = results["models"]
        families[family] = {
            "split": f"{family}/{part}",
            "questions": results["benchmark"]["questions"],
            "chance": chance,
            "models": {
                model["name"]: model["breakdowns"]["overall"]["all"]["accuracy"] for model in models
            },
            "answered": {model["name"]: _answered(model, results) for model in models},
            "skipped": dict((skipped or {}).get(family, {})),
        }
        pairs = {m["name"]: m["pairs"]["all"] for m in models if "all" in m.get("pairs", {})}
        if pairs:
            families[family]["pair_accuracy"] = pairs
    return {"split": part, "families": families}


def _answered(model: Mapping[str, Any], results: Mapping[str, Any]) -> int:
    """The questions of the split a model's file answers (the whole split for a built-in)."""
    coverage = model.get("coverage") or {}
    return int(coverage.get("answered", results["benchmark"]["questions"]))


def summary_markdown(summary: Mapping[str, Any]) -> str:
    """The summary as a Markdown table: a row per family, a column per model (accuracy %)."""
    families = summary["families"]
    models: list[str] = []
    for entry in families.values():
        models += [m for m in entry["models"] if m not in models]
    lines = [
        f"# Accuracy per split family ({summary['split']} splits)",
        "",
        "| family | questions | chance | " + " | ".join(models) + " |",
        "|---|---:|---:|" + "---:|" * len(models),
    ]
    partial = False
    for family, entry in families.items():
        cells = []
        for m in models:
            cell = _percent(entry["models"].get(m))
            answered = entry.get("answered", {}).get(m, entry["questions"])
            if m in entry["models"] and answered < entry["questions"]:
                cell += f" ({answered:,} of {entry['questions']:,} answered)"
                partial = True
            cells.append(cell)
        row = [family, f"{entry['questions']:,}", _percent(entry["chance"]), *cells]
        lines.append("| " + " | ".join(row) + " |")
    if partial:
        lines += [
            "",
            "A cell with (N of M answered) is the accuracy on the N questions its file answers "
            "(--allow-partial), not on the whole split.",
        ]
    lines += _pairs_lines(families, models)
    notes = [
        f"- {family}: {name} left out ({why}; --allow-partial scores it on those)"
        for family, entry in families.items()
        for name, why in entry.get("skipped", {}).items()
    ]
    if notes:
        lines += ["", "Files left out of a family because they answer only part of its split:", ""]
        lines += notes
    return "\n".join(lines) + "\n"


def _pairs_lines(families: Mapping[str, Any], models: list[str]) -> list[str]:
    """Pair accuracy (%) of the families with minimal pairs: both questions of a pair right."""
    paired = {
        f: entry["pair_accuracy"] for f, entry in families.items() if entry.get("pair_accuracy")
    }
    if not paired:
        return []
    lines = [
        "",
        "Pair accuracy (%): both questions of a minimal pair right (docs/minimal-pairs.md).",
        "",
        "| family | " + " | ".join(models) + " |",
        "|---|" + "---:|" * len(models),
    ]
    for family, scores in paired.items():
        cells = [
            f"{_percent(scores[m]['pair_accuracy'])} ({scores[m]['pairs']:,} pairs)"
            if m in scores
            else "-"
            for m in models
        ]
        lines.append("| " + " | ".join([family, *cells]) + " |")
    return lines


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.2f}"
