"""The question record taskqa writes, one JSON object per line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from taskqa.jsonio import jsonl_lines, parse_json
from taskqa.problems import InvalidInputError, problems_from_validation_error
from taskqa.questions.tags import reasoning_type


class Question(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    recording: str
    clip: str
    agent: str
    template: str
    question: str
    program: str
    program_graph: list[dict[str, Any]]
    answer: str
    # other forms of the same answer that count as right: the world's raw form where the answer
    # is said in plain words ("put kettle to counter" for "put the kettle on the counter")
    answer_aliases: list[str] = []
    answer_kind: Literal["binary", "open"]
    # how an action answer is said (the template's ``answer_form``): "to ..." for why-questions
    answer_form: Literal["base", "to", "ing", "will"] = "base"
    # the few answers the question allows (yes/no; an attribute's values), empty for an open
    # vocabulary: balancing and the chance reference use how many there are
    answer_choices: list[str] = []
    types: list[str]
    scopes: list[str]
    semantic: str
    structural: str
    reference: str
    steps: int
    obfuscation: int = 0
    params: dict[str, str]
    # an indirect-reference question's direct form on the same clip ("the last thing they
    # changed" said as the object it is), by id; a built benchmark keeps it only where that
    # question is in the benchmark too (AGQA's ``direct_equiv``)
    direct_equiv: str | None = None
    # what the answer needs of the clip, from the vision-ablation audit of a built benchmark
    # (benchmark/evidence.py): no-frame, one-frame, first-frame, last-frame, several-frames,
    # order-free, order-dependent; empty where it was not audited
    evidence: list[str] = []
    split: Literal["train", "val", "test"] | None = None  # set in a built benchmark's split files

    @property
    def reasoning_type(self) -> str:
        """EgoTaskQA's ``$``-joined tag string (type, scope, semantic, structural, reference;
        ``tags.reasoning_type``)."""
        return reasoning_type(vars(self))


def read_questions(path: Path, name: str | None = None) -> Iterator[tuple[int, Question]]:
    """Questions of a JSONL file with their record index; a bad line raises naming the file
    (``name``; default: the path as given) and the record."""
    label = str(path) if name is None else name
    for index, number, line in jsonl_lines(path, label):
        yield index, _question(line, label, index, number)


def _question(line: bytes, label: str, index: int, number: int) -> Question:
    try:
        return Question.model_validate_json(line)  # about twice as fast as parse, then validate
    except ValidationError as error:
        if error.errors()[0]["type"] != "json_invalid":
            raise InvalidInputError(problems_from_validation_error(label, [index], error)) from None
    # Not JSON to pydantic: parse_json says why in the words every JSON reader uses, and reads
    # what only the standard library accepts (NaN, for one), which validation then judges.
    value = parse_json(line, label, [index], line=number)
    try:
        return Question.model_validate(value)
    except ValidationError as error:
        raise InvalidInputError(problems_from_validation_error(label, [index], error)) from None
