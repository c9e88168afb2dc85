"""``taskqa evaluate --split all/SPLIT``: one table of every split family's scores.

The generalisation families (docs/benchmark-folder.md) split the same balanced questions in
different ways, so a zero-shot model's one predictions file is scored on every family, and a
model trained per family brings one file per family; each family's full results stay in their
own folder, and this summary puts the overall accuracies side by side with most likely and
chance, so a drop on novel compositions or longer programs reads at a glance.
"""

from __future__ import annotations

from collections.abc import Mapping
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


def families_summary(
    scored: Mapping[str, Mapping[str, Any]],
    part: str,
    skipped: Mapping[str, Mapping[str, str]] | None = None,
) -> dict[str, Any]:
    """Per family: its questions, every model's overall accuracy and chance (fractions), and
    the files left out of it because they answer only part of its split."""
    families: dict[str, Any] = {}
    for family, results in scored.items():
        chance = (results.get("chance") or {}).get("overall", {}).get("all")
        families[family] = {
            "split": f"{family}/{part}",
            "questions": results["benchmark"]["questions"],
            "chance": chance,
            "models": {
                model["name"]: model["breakdowns"]["overall"]["all"]["accuracy"]
                for model in results["models"]
            },
            "skipped": dict((skipped or {}).get(family, {})),
        }
    return {"split": part, "families": families}


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
    for family, entry in families.items():
        cells = [_percent(entry["models"].get(m)) for m in models]
        row = [family, f"{entry['questions']:,}", _percent(entry["chance"]), *cells]
        lines.append("| " + " | ".join(row) + " |")
    notes = [
        f"- {family}: {name} left out ({why}; --allow-partial scores it on those)"
        for family, entry in families.items()
        for name, why in entry.get("skipped", {}).items()
    ]
    if notes:
        lines += ["", "Files left out of a family because they answer only part of its split:", ""]
        lines += notes
    return "\n".join(lines) + "\n"


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.2f}"
