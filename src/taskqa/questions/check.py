"""Re-executing stored programs against the annotations: every answer must come out the same.

The clips come from the clips file generation wrote (``q.clips.jsonl`` beside ``q.jsonl``), or,
for a split file of a built benchmark, from the benchmark's ``clips.jsonl``: windows are never
cut again here, so a check can't pass or fail because of a clip length it guessed.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from taskqa.model import Recording
from taskqa.problems import InvalidInputError, Problem
from taskqa.programs import Program, parse_program
from taskqa.programs.clips import ClipRecord, read_clips
from taskqa.programs.records import ClipView
from taskqa.questions.answers import answer, attempted_actions
from taskqa.questions.generate import clips_path, speaker_of
from taskqa.questions.records import read_questions
from taskqa.questions.views import clip_views
from taskqa.simulation.domain import Domain

BENCHMARK_CLIPS = "clips.jsonl"  # a built benchmark's clips (docs/benchmark-folder.md)


def clips_for_questions(questions: Path) -> dict[str, ClipRecord]:
    """The clips a questions file was made on: its own clips file, else (a benchmark's split
    file, ``BENCH/splits/<family>/<split>.jsonl``) the benchmark's ``clips.jsonl``."""
    beside = clips_path(questions)
    if beside.is_file():
        return read_clips(beside)
    benchmark = questions.parent.parent.parent / BENCHMARK_CLIPS
    if questions.parent.parent.name == "splits" and benchmark.is_file():
        return read_clips(benchmark)
    message = (
        f"no clips file for it: expected {beside} (written by `taskqa generate` beside the "
        "questions) or, for a benchmark's split file, the benchmark's clips.jsonl"
    )
    raise InvalidInputError([Problem(str(questions), "", message)])


def check_questions(
    questions: Path,
    recordings: Mapping[str, Recording],
    verb_templates: dict[str, str] | None = None,
    domain: Domain | None = None,
) -> tuple[int, list[Problem]]:
    """How many questions were checked, and every one whose stored answer differs; ``domain``
    is the corpus's world (``corpus_domain``), whose schemas generation's dependencies used."""
    clips: dict[str, list[ClipRecord]] = {}
    for record in clips_for_questions(questions).values():
        clips.setdefault(record.recording, []).append(record)
    problems: list[Problem] = []
    checked = 0
    views: dict[str, ClipView] = {}
    attempted: dict[str, frozenset[str]] = {}
    speaker = speaker_of(list(recordings.values()), domain)
    current = ""
    for index, question in read_questions(questions):
        if question.recording not in recordings:
            problems.append(
                Problem.at(
                    questions.name,
                    [index, "recording"],
                    f"no recording {question.recording!r} in the annotations",
                )
            )
            continue
        if question.recording != current:
            current = question.recording
            views = clip_views(
                recordings[current], clips.get(current, []), verb_templates, str(questions), domain
            )
            outcome_of = {action.id: action.outcome for action in recordings[current].actions}
            attempted = {clip: attempted_actions(v, outcome_of) for clip, v in views.items()}
        view = views.get(question.clip)
        if view is None:
            problems.append(
                Problem.at(questions, [index, "clip"], f"no clip {question.clip!r} in {current!r}")
            )
            continue
        checked += 1
        program = parse_program(question.program)
        if Program.from_json(question.program_graph) != program:
            problems.append(
                Problem.at(questions, [index, "program_graph"], "differs from the one-line program")
            )
        found = answer(program, view, speaker, attempted[question.clip], question.answer_form)
        if found != question.answer:
            problems.append(
                Problem.at(
                    questions.name,
                    [index, "answer"],
                    f"stored {question.answer!r} but the program gives {found!r}",
                )
            )
    return checked, problems
