"""Writing prediction files (JSONL) and their ``.meta.json`` sidecar, atomically."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from taskqa.atomic import write_text
from taskqa.benchmark.folder import SplitQuestion
from taskqa.evaluation.evaluate import meta_path


def prediction_lines(questions: Sequence[SplitQuestion], predicted: Sequence[str | None]) -> str:
    return "".join(
        json.dumps({"question_id": q.id, "prediction": p}, ensure_ascii=False) + "\n"
        for q, p in zip(questions, predicted, strict=True)
    )


def write_predictions(
    out: Path,
    questions: Sequence[SplitQuestion],
    predicted: Sequence[str | None],
    meta: dict[str, Any],
) -> None:
    write_text(out, prediction_lines(questions, predicted))
    write_text(meta_path(out), json.dumps(meta, indent=2, sort_keys=True) + "\n")
