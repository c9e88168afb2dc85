"""Re-executing stored programs against the annotations: every answer must come out the same."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from taskqa.causal import build_structure
from taskqa.model import Recording
from taskqa.problems import Problem
from taskqa.programs import Program, parse_program
from taskqa.programs.clips import cut_clips
from taskqa.programs.records import ClipView, build_view
from taskqa.questions.answers import answer
from taskqa.questions.generate import GenerationConfig, summary_path
from taskqa.questions.records import read_questions


def read_generation_config(questions: Path) -> GenerationConfig:
    summary = summary_path(questions)
    if not summary.is_file():
        return GenerationConfig()
    return GenerationConfig.model_validate(
        json.loads(summary.read_text(encoding="utf-8"))["config"]
    )


def check_questions(
    questions: Path,
    recordings: Mapping[str, Recording],
    verb_templates: dict[str, str] | None = None,
) -> tuple[int, list[Problem]]:
    """How many questions were checked, and every one whose stored answer differs."""
    config = read_generation_config(questions)
    problems: list[Problem] = []
    checked = 0
    views: dict[str, ClipView] = {}
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
            views = _views(recordings[current], config, verb_templates)
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
        found = answer(program, view)
        if found != question.answer:
            problems.append(
                Problem.at(
                    questions.name,
                    [index, "answer"],
                    f"stored {question.answer!r} but the program gives {found!r}",
                )
            )
    return checked, problems


def _views(
    recording: Recording, config: GenerationConfig, verb_templates: dict[str, str] | None
) -> dict[str, ClipView]:
    structure = build_structure(recording, config.rules)
    return {
        clip.id: build_view(recording, clip, structure, verb_templates)
        for clip in cut_clips(recording, config.clips)
    }
