"""The question record taskqa writes, one JSON object per line."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict


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

    @property
    def reasoning_type(self) -> str:
        """EgoTaskQA's ``$``-joined tag string (type, scope, semantic, structural, reference)."""
        return "$".join([*self.types, *self.scopes, self.semantic, self.structural, self.reference])
