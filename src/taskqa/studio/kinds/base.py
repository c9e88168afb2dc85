"""What every study kind provides: its items, its form, its catch check and its exports."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from taskqa.studio.db import Item

ANSWER = "answer"  # the stage of an ordinary item: one person gives one response
ADJUDICATE = "adjudicate"  # verify's second stage: decides what the two reviewers left open


@dataclass(frozen=True)
class CreateOptions:
    per_category: int = 50
    raters: int = 3
    per_item: int | None = None  # raters per item; None: the kind's default
    catch: int = 5  # catch trials per rater
    min_catch: float = 0.8  # raters below this catch accuracy are flagged in the exports
    seed: int = 0
    split: str = "normal/test"
    require_video: bool = False
    media: Path | None = None
    adjudicators: int = 1  # staged kinds (verify): raters who only adjudicate, the last ones
    # answer: each question's clip is cut into this folder, which becomes the media root, so
    # that no rater can scrub past the clip into the future a predictive question asks about
    clip_folder: Path | None = None


@dataclass(frozen=True)
class ItemSpec:
    key: str
    category: str
    payload: dict[str, Any]
    media: str | None = None  # relative to the media root
    start_s: float | None = None
    end_s: float | None = None
    expected: Any = None  # the known response (catch trials; reference answers)
    catch: bool = False


@dataclass
class Plan:
    items: list[ItemSpec]
    catches: list[ItemSpec]
    media_root: Path | None
    meta: dict[str, Any] = field(default_factory=dict)
    stages: tuple[str, ...] = (ANSWER,)  # verify adds an adjudication stage


Level = Literal["nominal", "ordinal"]


class Kind(Protocol):
    name: str
    title: str
    template: str
    default_per_item: int
    level: Level  # how agreement values are compared (Krippendorff's alpha)

    def plan(self, source: Path, options: CreateOptions) -> Plan: ...

    def parse(
        self, form: dict[str, str], item: Item, stage: str, connection: sqlite3.Connection
    ) -> dict[str, Any]: ...

    def catch_correct(self, response: dict[str, Any], expected: Any) -> bool: ...

    def agreement_value(self, response: dict[str, Any]) -> str | int | None: ...

    def context(self, connection: sqlite3.Connection, item: Item, stage: str) -> dict[str, Any]: ...

    def exports(self, connection: sqlite3.Connection, flagged: set[str]) -> dict[str, bytes]: ...
