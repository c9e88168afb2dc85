"""The study kinds, by the name ``taskqa studio create KIND`` takes."""

from __future__ import annotations

from taskqa.problems import InvalidInputError, Problem
from taskqa.studio.kinds.base import Kind

KIND_NAMES = ("answer", "judge", "verify-task", "verify")


def get_kind(name: str) -> Kind:
    if name == "answer":
        from taskqa.studio.kinds.answer import AnswerKind

        return AnswerKind()
    if name == "judge":
        from taskqa.studio.kinds.judge import JudgeKind

        return JudgeKind()
    if name == "verify-task":
        from taskqa.studio.kinds.verify_task import VerifyTaskKind

        return VerifyTaskKind()
    if name == "verify":
        from taskqa.studio.kinds.verify import VerifyKind

        return VerifyKind()
    raise InvalidInputError(
        [Problem(name, "", f"unknown study kind; expected one of {', '.join(KIND_NAMES)}")]
    )
