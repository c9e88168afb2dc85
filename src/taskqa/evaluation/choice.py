"""``taskqa evaluate --mc EXPORT``: per-item and circular accuracy of multiple-choice replies.

The items are those of ``taskqa export mc`` (``benchmark/multiple_choice.py``); a reply file is
JSON Lines of ``{"question_id": "<question id>#<rotation>", "prediction": "B"}`` (a letter, or
an option's text; verbose replies such as "The answer is (B)." are read too). Beside the models,
the text-only baseline on the multiple-choice form (the option the question text had most
often in train) shows what reading alone gets: chance, by construction of the distractors.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from taskqa.benchmark.folder import Benchmark, parse_split_name
from taskqa.benchmark.multiple_choice import (
    MANIFEST,
    read_choice_export,
    score_choices,
    text_prior_replies,
)
from taskqa.evaluation.evaluate import model_names
from taskqa.evaluation.predictions import read_replies
from taskqa.jsonio import load_json
from taskqa.problems import InvalidInputError, Problem

TEXT_ONLY = "text-only (multiple choice)"


def evaluate_choices(
    bench: Benchmark, export: Path, split: str, files: list[Path], names: list[str] | None
) -> dict[str, Any]:
    """Scores of every reply file on ``split`` of the export, plus the text-only baseline."""
    family, part = parse_split_name(split)
    items = read_choice_export(export, family, part)
    manifest = load_json(export / MANIFEST)
    if manifest.get("benchmark_manifest_sha256") != bench.manifest_sha256:
        message = "was exported from another benchmark (manifest sha256 differs); export it again"
        raise InvalidInputError([Problem(str(export), "", message)])
    known = {item.ask_id(r) for item in items for r in range(item.rotations)}
    models: dict[str, Any] = {}
    for name, path in zip(model_names(files, names), files, strict=True):
        replies, coverage = read_replies(path)
        unknown = sorted(set(replies) - known)
        models[name] = {
            "file": str(path),
            "unknown_ids": len(unknown),
            "unknown_examples": unknown[:10],
            "duplicate_ids": coverage.duplicates,
            "scores": score_choices(items, replies),
        }
    prior = text_prior_replies(bench.questions(family, "train"), items)
    models[TEXT_ONLY] = {"file": None, "scores": score_choices(items, prior)}
    return {
        "split": split,
        "options": manifest.get("options"),
        "seed": manifest.get("seed"),
        "items": len(items),
        "models": models,
    }
