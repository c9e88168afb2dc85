"""Which recordings of a corpus a render draws: named ones, a benchmark's, or all, then a few."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

from taskqa.corpus import RECORDINGS
from taskqa.model import Recording, Source
from taskqa.problems import InvalidInputError, Problem


def select_recordings(
    recordings: Sequence[Recording],
    ids: Sequence[str] | None = None,
    clips_from: Path | None = None,
    limit: int | None = None,
    source: str = RECORDINGS,
) -> list[Recording]:
    """The recordings to render: named ones, those a benchmark's clips use, or all; then the
    first ``limit``."""
    chosen = list(recordings)
    known = {r.id for r in recordings}
    if ids:
        missing = [i for i in ids if i not in known]
        if missing:
            raise InvalidInputError(
                [
                    Problem(
                        source, "", f"no recording with id {i!r}; expected one of the corpus's ids"
                    )
                    for i in missing
                ]
            )
        wanted = set(ids)
        chosen = [r for r in chosen if r.id in wanted]
    if clips_from is not None:
        wanted = _clip_recordings(clips_from)
        chosen = [r for r in chosen if r.id in wanted]
    if limit is not None:
        chosen = chosen[:limit]
    index = {r.id: i for i, r in enumerate(recordings)}
    foreign = [
        Problem.at(
            source,
            [index[r.id], "source"],
            f"{r.source.value}; expected a simulated recording (only simulated worlds are drawn)",
        )
        for r in chosen
        if r.source != Source.SIMULATED
    ]
    if foreign:
        raise InvalidInputError(foreign)
    return chosen


def _clip_recordings(bench: Path) -> set[str]:
    table = bench / "videos.csv"
    if not table.is_file():
        raise InvalidInputError(
            [
                Problem(
                    bench.name, "", "no videos.csv; expected a benchmark folder from `taskqa build`"
                )
            ]
        )
    with table.open(encoding="utf-8", newline="") as stream:
        rows = list(csv.DictReader(stream))
    if rows and "recording" not in rows[0]:
        raise InvalidInputError(
            [
                Problem(
                    "videos.csv",
                    "[0]",
                    "no `recording` column; expected the clip table of a benchmark",
                )
            ]
        )
    return {row["recording"] for row in rows}
