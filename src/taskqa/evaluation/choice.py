"""``taskqa evaluate --mc EXPORT``: per-item and circular accuracy of multiple-choice replies.

The items are those of ``taskqa export mc`` (``benchmark/multiple_choice.py``); a reply file is
JSON Lines of ``{"question_id": "<question id>#<rotation>", "prediction": "B"}`` (a letter, or
an option's text; verbose replies such as "The answer is (B)." are read too). Beside the models,
the text-only baseline on the multiple-choice form (the option the question text had most
often in train) shows what reading alone gets: chance, by construction of the distractors.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from taskqa.benchmark.folder import Benchmark, parse_split_name
from taskqa.benchmark.multiple_choice import (
    FORMAT,
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
    bench: Benchmark,
    export: Path,
    split: str,
    files: list[Path],
    names: list[str] | None,
    allow_partial: bool = False,
    other_ids: bool = False,
) -> dict[str, Any]:
    """Scores of every reply file on ``split`` of the export, plus the text-only baseline.

    The rule of open questions (``taskqa.evaluation.evaluate``): a file that leaves asks of the
    split unanswered or answers ids it does not have is refused, one problem per file, unless
    ``allow_partial``, which scores it on the items it answers in every rotation and says how
    many (``answered_asks`` of ``asks``; ``items_scored``). With ``other_ids`` a file may also
    answer asks of other splits (one file for every family).
    """
    family, part = parse_split_name(split)
    items = read_choice_export(export, family, part)
    manifest = load_json(export / MANIFEST)
    if manifest.get("benchmark_manifest_sha256") != bench.manifest_sha256:
        message = "was exported from another benchmark (manifest sha256 differs); export it again"
        raise InvalidInputError([Problem(str(export), "", message)])
    known = {item.ask_id(r) for item in items for r in range(item.rotations)}
    models: dict[str, Any] = {}
    refused: list[Problem] = []
    for name, path in zip(model_names(files, names), files, strict=True):
        replies, coverage = read_replies(path)
        unknown = sorted(set(replies) - known)
        answered = len(known) - len(known - set(replies))
        scored = [
            item for item in items if all(item.ask_id(r) in replies for r in range(item.rotations))
        ]
        fit = Fit(len(known), answered, len(scored), unknown)
        problem = _mismatch(path, split, fit, allow_partial, other_ids)
        if problem is not None:
            refused.append(problem)
            continue
        if not scored:
            message = (
                f"answers no item of {split} in every rotation: nothing to score, even with "
                "--allow-partial"
            )
            refused.append(Problem(str(path), "", message))
            continue
        models[name] = {
            "file": str(path),
            "asks": len(known),
            "answered_asks": answered,
            "items_scored": len(scored),
            "partial": len(scored) < len(items),
            "unknown_ids": len(unknown),
            "unknown_examples": unknown[:10],
            "duplicate_ids": coverage.duplicates,
            "scores": score_choices(scored, replies),
        }
    if refused:
        raise InvalidInputError(refused)
    prior = text_prior_replies(bench.questions(family, "train"), items)
    models[TEXT_ONLY] = {
        "file": None,
        "asks": len(known),
        "answered_asks": len(known),
        "items_scored": len(items),
        "partial": False,
        "scores": score_choices(items, prior),
    }
    return {
        "split": split,
        "options": manifest.get("options"),
        "seed": manifest.get("seed"),
        "items": len(items),
        "asks": len(known),
        "models": models,
    }


@dataclass(frozen=True)
class Fit:
    """How a reply file fits a split's asks."""

    asks: int  # of the split
    answered: int  # asks of the split the file has a line for
    items: int  # items the file answers in every rotation: what --allow-partial scores
    unknown: list[str]  # its ids the split does not ask


def _mismatch(
    path: Path, split: str, fit: Fit, allow_partial: bool, other_ids: bool
) -> Problem | None:
    """Why a reply file does not fit the split's asks (None when it does, and whenever
    ``allow_partial`` is given and the file answers at least one ask)."""
    unknown = [] if other_ids else fit.unknown
    if fit.answered == fit.asks and not unknown:
        return None
    if allow_partial and fit.answered:
        return None
    parts = [f"answers {fit.answered:,} of the {fit.asks:,} multiple-choice asks of {split}"]
    if unknown:
        parts.append(f"{len(unknown):,} of its ids {split} does not ask (e.g. {unknown[0]!r})")
    if not fit.answered:
        parts.append("made for another export or split?")
        hint = ""
    elif fit.answered < fit.asks:
        hint = (
            f"; pass --allow-partial to score it on the {fit.items:,} items it answers in "
            "every rotation"
        )
    else:
        hint = "; pass --allow-partial to score it, leaving out the lines of other ids"
    return Problem(str(path), "", "; ".join(parts) + hint)


def choice_options(export: Path, family: str, split: str) -> dict[str, tuple[str, ...]]:
    """Every ask id (``<question id>#<rotation>``) of one split of an export, with the options
    as that ask shows them."""
    items = read_choice_export(export, family, split)
    return {item.ask_id(r): item.asked(r) for item in items for r in range(item.rotations)}


def choice_families(export: Path, split: str) -> list[str]:
    """The families of the export that have ``split``, in the export's order."""
    manifest = load_json(export / MANIFEST)
    splits = manifest.get("splits") if isinstance(manifest, dict) else None
    if not isinstance(splits, dict):
        message = f"not a multiple-choice export (no {MANIFEST} of format {FORMAT})"
        raise InvalidInputError([Problem(str(export), "", message)])
    return [
        family
        for family, parts in splits.items()
        if isinstance(parts, dict)
        and split in parts
        and (export / family / f"{split}.jsonl").is_file()
    ]
