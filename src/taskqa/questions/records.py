"""The question record taskqa writes, one JSON object per line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from taskqa.problems import InvalidInputError, problems_from_validation_error


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
    answer_kind: Literal["binary", "open"]
    types: list[str]
    scopes: list[str]
    semantic: str
    structural: str
    reference: str
    steps: int
    obfuscation: int = 0
    params: dict[str, str]
    split: Literal["train", "val", "test"] | None = None  # set in a built benchmark's split files

    @property
    def reasoning_type(self) -> str:
        """EgoTaskQA's ``$``-joined tag string (type, scope, semantic, structural, reference)."""
        return "$".join([*self.types, *self.scopes, self.semantic, self.structural, self.reference])


def read_questions(path: Path) -> Iterator[tuple[int, Question]]:
    """Questions of a JSONL file with their line index; a bad line raises with its path."""
    with path.open(encoding="utf-8") as stream:
        for index, line in enumerate(stream):
            if not line.strip():
                continue
            try:
                yield index, Question.model_validate_json(line)
            except ValidationError as error:
                problems = problems_from_validation_error(str(path), [index], error)
                raise InvalidInputError(problems) from None
