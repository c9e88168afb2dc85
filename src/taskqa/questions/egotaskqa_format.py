"""Writing questions as EgoTaskQA's released QA files, for its baselines and data loaders.

``tagged_qas.json`` is a JSON list of records with the fields the released pipeline adds stage by
stage (question, program, answer, interval, type, category, semantic, structural, step,
reference, then video_id in order of first appearance of the interval and a running
question_id), and ``reasoning_type`` as the ``$``-joined tag string the split files carry.
``vid_intervals.json`` is the sorted list of intervals. The list is streamed, so a file of any
size is written without holding it in memory.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from taskqa.atomic import staged_directory
from taskqa.jsonio import record_text, write_json
from taskqa.questions.records import Question

QA_FILE = "tagged_qas.json"
INTERVALS_FILE = "vid_intervals.json"


def egotaskqa_record(question: Question, video_id: int, question_id: int) -> dict[str, Any]:
    return {
        "question": question.question,
        "program": question.program,
        "answer": question.answer,
        "interval": question.clip,
        "type": question.types,
        "category": question.scopes,
        "semantic": question.semantic,
        "structural": question.structural,
        "step": question.steps,
        "reference": question.reference,
        "reasoning_type": question.reasoning_type,
        "video_id": video_id,
        "question_id": question_id,
    }


def write_egotaskqa_questions(questions: Iterable[Question], out_dir: Path) -> int:
    """Write the QA folder atomically; returns the number of questions."""
    videos: dict[str, int] = {}
    count = 0
    with (
        staged_directory(out_dir) as staging,
        (staging / QA_FILE).open("w", encoding="utf-8") as stream,
    ):
        stream.write("[")
        for count, question in enumerate(questions, start=1):
            video_id = videos.setdefault(question.clip, len(videos))
            record = egotaskqa_record(question, video_id, count - 1)
            stream.write(("\n" if count == 1 else ",\n") + record_text(record))
        stream.write("\n]\n")
        write_json(staging / INTERVALS_FILE, sorted(videos), indent=0)  # the release's layout
    return count
