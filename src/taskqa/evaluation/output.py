"""Writing prediction files (JSONL) and their ``.meta.json`` sidecar, atomically."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from taskqa.atomic import write_text
from taskqa.benchmark.folder import SplitQuestion
from taskqa.jsonio import jsonl_text, write_json
from taskqa.outputs import prediction_meta_path


def prediction_lines(questions: Sequence[SplitQuestion], predicted: Sequence[str | None]) -> str:
    return jsonl_text(
        {"question_id": q.id, "prediction": p} for q, p in zip(questions, predicted, strict=True)
    )


def write_predictions(
    out: Path,
    questions: Sequence[SplitQuestion],
    predicted: Sequence[str | None],
    meta: dict[str, Any],
) -> None:
    write_text(out, prediction_lines(questions, predicted))
    write_json(prediction_meta_path(out), meta, sort_keys=True)
