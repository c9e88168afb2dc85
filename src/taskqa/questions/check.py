"""Re-executing stored programs against the annotations: every answer must come out the same.

The clips come from the clips file generation wrote (``q.clips.jsonl`` beside ``q.jsonl``), or,
for a split file of a built benchmark, from the benchmark's ``clips.jsonl``: windows are never
cut again here, so a check can't pass or fail because of a clip length it guessed.
"""

from __future__ import annotations

from pathlib import Path

from taskqa.problems import InvalidInputError, Problem
from taskqa.programs import Program
from taskqa.programs.clips import ClipRecord, read_clips
from taskqa.questions.generate import clips_path
from taskqa.questions.records import read_questions
from taskqa.questions.world import CorpusWorld, Unasked


def clips_for_questions(
    questions: Path, benchmark_clips: Path | None = None
) -> dict[str, ClipRecord]:
    """The clips a questions file was made on: its own clips file, else ``benchmark_clips``,
    the built benchmark's ``clips.jsonl`` when the file is one of its split files (which
    ``benchmark.folder.clips_of_split_file`` finds: this layer does not know that folder)."""
    beside = clips_path(questions)
    if beside.is_file():
        return read_clips(beside)
    if benchmark_clips is not None:
        return read_clips(benchmark_clips)
    message = (
        f"no clips file for it: expected {beside} (written by `taskqa generate` beside the "
        "questions) or, for a benchmark's split file, the benchmark's clips.jsonl"
    )
    raise InvalidInputError([Problem(str(questions), "", message)])


def check_questions(
    questions: Path, world: CorpusWorld, benchmark_clips: Path | None = None
) -> tuple[int, list[Problem]]:
    """How many questions were checked, and every one whose stored answer differs, asked in
    ``world`` (``CorpusWorld.open`` of the corpus they were made from, whose schemas
    generation's dependencies used); ``benchmark_clips`` as in ``clips_for_questions``."""
    numbered = list(read_questions(questions))
    indices, items = [index for index, _ in numbered], [question for _, question in numbered]
    found: list[tuple[int, Problem]] = []
    checked = 0
    clips = clips_for_questions(questions, benchmark_clips)
    for asked in world.ask(items, clips, str(questions)):
        kind = asked.field if isinstance(asked, Unasked) else "answer"
        where: list[str | int] = [indices[asked.position], kind]
        if isinstance(asked, Unasked):
            found.append((asked.position, Problem.at(questions.name, where, asked.message)))
            continue
        checked += 1
        question = asked.item
        if Program.from_json(question.program_graph) != asked.program:
            graph = Problem.at(
                questions, [where[0], "program_graph"], "differs from the one-line program"
            )
            found.append((asked.position, graph))
        given = asked.answer()
        if given != question.answer:
            message = f"stored {question.answer!r} but the program gives {given!r}"
            found.append((asked.position, Problem.at(questions.name, where, message)))
    return checked, [problem for _, problem in sorted(found, key=lambda f: f[0])]
