"""Progress and quality: answers per rater and per category, catch accuracy, agreement."""

from __future__ import annotations

import math
import sqlite3
import statistics
from dataclasses import asdict, dataclass
from typing import Any

from taskqa.jsonio import dumps
from taskqa.studio import db
from taskqa.studio.kinds.base import ADJUDICATE, Kind


@dataclass(frozen=True)
class RaterStats:
    rater: str
    assigned: int
    answered: int
    catch_answered: int
    catch_correct: int
    median_seconds: float | None
    flagged: bool

    @property
    def catch_accuracy(self) -> float | None:
        return self.catch_correct / self.catch_answered if self.catch_answered else None


def rater_stats(connection: sqlite3.Connection, kind: Kind) -> list[RaterStats]:
    min_catch = float(db.meta(connection).get("min_catch", 0.0))
    items = {item.id: item for item in db.items(connection)}
    assigned = dict(
        connection.execute(
            "SELECT raters.name, COUNT(*) FROM assignments JOIN raters ON raters.id = rater_id "
            "GROUP BY raters.name"
        ).fetchall()
    )
    answered: dict[str, int] = {}
    catches: dict[str, list[bool]] = {}
    seconds: dict[str, list[float]] = {}
    for response in db.responses(connection):
        answered[response.rater] = answered.get(response.rater, 0) + 1
        item = items[response.item_id]
        if item.catch:
            ok = kind.catch_correct(response.response, item.expected)
            catches.setdefault(response.rater, []).append(ok)
        if response.seconds is not None:
            seconds.setdefault(response.rater, []).append(response.seconds)
    stats = []
    for name in db.rater_names(connection):
        checks = catches.get(name, [])
        accuracy = sum(checks) / len(checks) if checks else None
        stats.append(
            RaterStats(
                rater=name,
                assigned=int(assigned.get(name, 0)),
                answered=answered.get(name, 0),
                catch_answered=len(checks),
                catch_correct=sum(checks),
                median_seconds=statistics.median(seconds[name]) if name in seconds else None,
                # a rater is flagged only on evidence: catch trials answered, and too few right
                flagged=accuracy is not None and accuracy < min_catch,
            )
        )
    return stats


def flagged_raters(connection: sqlite3.Connection, kind: Kind) -> set[str]:
    return {s.rater for s in rater_stats(connection, kind) if s.flagged}


def per_category(connection: sqlite3.Connection) -> list[tuple[str, int, int]]:
    """(category, responses, items) for the study's items (catch trials apart)."""
    rows = connection.execute(
        "SELECT i.category, COUNT(r.id), COUNT(DISTINCT i.id) FROM items i "
        "LEFT JOIN responses r ON r.item_id = i.id WHERE i.catch = 0 "
        "GROUP BY i.category ORDER BY i.category"
    ).fetchall()
    return [(str(c), int(n), int(k)) for c, n, k in rows]


def agreement(connection: sqlite3.Connection, kind: Kind) -> dict[str, Any]:
    """Krippendorff's alpha over items with at least two responses in the first stage."""
    import krippendorff
    import numpy as np

    values: dict[int, dict[int, str | int]] = {}
    for response in db.responses(connection):
        if response.stage == ADJUDICATE:
            continue
        value = kind.agreement_value(response.response)
        if value is not None:
            values.setdefault(response.item_id, {})[response.rater_id] = value
    paired = {item: by_rater for item, by_rater in values.items() if len(by_rater) >= 2}
    result: dict[str, Any] = {"level": kind.level, "items": len(paired), "alpha": None}
    if not paired:
        return result
    raters = sorted({r for by_rater in paired.values() for r in by_rater})
    codes = _codes(paired, kind.level)
    matrix = np.full((len(raters), len(paired)), np.nan)
    for column, by_rater in enumerate(paired.values()):
        for rater, value in by_rater.items():
            matrix[raters.index(rater), column] = codes[value]
    try:
        alpha = float(krippendorff.alpha(reliability_data=matrix, level_of_measurement=kind.level))
    except ValueError:  # one value only: agreement is undefined, not perfect
        return result
    result["alpha"] = None if math.isnan(alpha) else round(alpha, 4)
    return result


def _codes(paired: dict[int, dict[int, str | int]], level: str) -> dict[str | int, float]:
    seen = sorted({v for by_rater in paired.values() for v in by_rater.values()}, key=str)
    if level == "ordinal":
        return {value: float(value) for value in seen}
    return {value: float(index) for index, value in enumerate(seen)}


def raters_json(connection: sqlite3.Connection, kind: Kind) -> bytes:
    meta = db.meta(connection)
    data = {
        "kind": meta["kind"],
        "min_catch": meta.get("min_catch"),
        "raters": [
            asdict(s) | {"catch_accuracy": s.catch_accuracy} for s in rater_stats(connection, kind)
        ],
        "agreement": agreement(connection, kind),
    }
    return dumps(data, sort_keys=True).encode("utf-8")
