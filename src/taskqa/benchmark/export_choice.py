"""The multiple-choice form in the Hugging Face and lmms-eval exports (docs/multiple-choice.md).

Each split family gets a ``<family>-mc`` config: one row per asked rotation of every item of
``benchmark/multiple_choice.py`` (4 options, seed 0, as ``taskqa export mc`` makes them by
default), with the same clip video columns as the open-ended rows. The lmms-eval export gets a
``taskqa_<family>_mc`` task whose replies are read as letters or option texts by the copy of
``taskqa.answers`` beside it (``parse_choice``), scored per item (rotation 0), per ask and
circularly (an item right only if every rotation is), so its numbers are those of
``taskqa evaluate --mc``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from taskqa.benchmark.multiple_choice import ChoiceItem, ask_records

MC_SUFFIX = "-mc"
MC_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("question_id", pa.string()),
        ("rotation", pa.int32()),
        ("rotations", pa.int32()),
        ("recording", pa.string()),
        ("clip", pa.string()),
        ("question", pa.string()),
        ("options", pa.list_(pa.string())),
        ("answer", pa.string()),
        ("answer_text", pa.string()),
        ("prompt", pa.string()),
        ("template", pa.string()),
        ("answer_kind", pa.string()),
        ("types", pa.list_(pa.string())),
        ("scopes", pa.list_(pa.string())),
        ("semantic", pa.string()),
        ("reference", pa.string()),
        ("video", pa.string()),
        ("source_video", pa.string()),
        ("start_s", pa.float64()),
        ("end_s", pa.float64()),
    ]
)
MC_DESCRIPTIONS = {
    "id": "The asked item: <question_id>#<rotation>.",
    "question_id": "The open-ended twin: the question of this id in the open config.",
    "rotation": "Which rotation of the options this ask shows (0: the seeded base order).",
    "rotations": "How many options, so how many asks the item has (circular evaluation).",
    "recording": "The recording the clip comes from.",
    "clip": "Clip id: recording|agent|start frame|prediction start frame.",
    "question": "The question text.",
    "options": "The options in this ask's order: answers the same question text has on other "
    "clips of the split (yes/no for a yes/no question).",
    "answer": "The letter of the right option in this ask.",
    "answer_text": "The right option's text.",
    "prompt": "The question, the lettered options and the instruction to answer with a letter.",
    "template": "The template id.",
    "answer_kind": "binary (yes/no) or open.",
    "types": "descriptive, predictive, counterfactual, explanatory.",
    "scopes": "world, intent, multi-agent.",
    "semantic": "action, object, state or change.",
    "reference": "direct or indirect.",
    "video": "The clip's own video file (videos/<clip>.mp4), or empty when not exported.",
    "source_video": "The recording's video the clip comes from, as videos.csv names it.",
    "start_s": "Where the clip starts in the recording's video (seconds).",
    "end_s": "Where the clip ends in the recording's video (seconds).",
}


def write_choice_parquet(
    items: Sequence[ChoiceItem], path: Path, video_columns: Callable[[str], dict[str, Any]]
) -> int:
    """The asks of ``items`` as Parquet at ``path``, with the video columns of each item's clip
    (``video_columns``: clip id -> video, source_video, start_s, end_s). Returns the rows."""
    columns: dict[str, list[Any]] = {field.name: [] for field in MC_SCHEMA}
    for record in ask_records(items):
        row = {**record, **video_columns(str(record["clip"]))}
        for name, values in columns.items():
            values.append(row[name])
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    pq.write_table(pa.table(columns, schema=MC_SCHEMA), temporary, compression="zstd")
    temporary.replace(path)
    return len(columns["id"])
