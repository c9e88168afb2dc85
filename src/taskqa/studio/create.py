"""``taskqa studio create``: a study file with its items and every rater's queue.

Items, queues and catch positions depend only on the source and the seed. The file is written
under a temporary name and renamed when complete, so a failed creation leaves nothing behind.
"""

from __future__ import annotations

import json
import os
import random
import secrets
import sqlite3
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from taskqa import __version__
from taskqa.problems import InvalidInputError, Problem
from taskqa.studio import db
from taskqa.studio.kinds import get_kind
from taskqa.studio.kinds.base import ADJUDICATE, CreateOptions, ItemSpec, Plan

__all__ = ["ADJUDICATE", "ADMIN", "Created", "create_study"]
ADMIN = "admin"


@dataclass(frozen=True)
class Created:
    items: int
    catches: int
    raters: int
    per_item: int
    categories: dict[str, int]


def rater_name(index: int) -> str:
    return f"rater-{index + 1:02d}"


def adjudicator_name(index: int) -> str:
    return f"adjudicator-{index + 1:02d}"


def create_study(kind_name: str, source: Path, out: Path, options: CreateOptions) -> Created:
    kind = get_kind(kind_name)
    if out.exists():
        raise InvalidInputError(
            [Problem(out.name, "", "already exists; a study file is never overwritten")]
        )
    plan = kind.plan(source, options)
    per_item = options.per_item or min(kind.default_per_item, options.raters)
    if len(plan.stages) > 1:  # a staged kind's reviewers per item are fixed (verify: two)
        per_item = options.per_item or kind.default_per_item
    # a later stage (adjudication) goes to raters of its own, who do nothing else
    adjudicators = options.adjudicators if len(plan.stages) > 1 else 0
    if len(plan.stages) > 1 and adjudicators < 1:
        raise InvalidInputError([Problem(kind_name, "", "needs at least 1 adjudicator")])
    needed = per_item + adjudicators
    if needed > options.raters:
        message = f"needs at least {needed} raters (got --raters {options.raters})"
        if adjudicators:
            message += f": {per_item} reviewers per item and {adjudicators} adjudicator(s)"
        raise InvalidInputError([Problem(kind_name, "", message)])
    if not plan.items:
        raise InvalidInputError([Problem(source.name, "", "no items to study in this source")])
    out.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    os.close(handle)
    Path(temporary).unlink()
    try:
        connection = db.create_database(Path(temporary))
        with db.write(connection):
            _fill(connection, kind_name, source, plan, options, per_item, adjudicators)
        connection.close()
        os.replace(temporary, out)
    finally:
        for suffix in ("", "-wal", "-shm"):
            Path(temporary + suffix).unlink(missing_ok=True)
    categories: dict[str, int] = {}
    for item in plan.items:
        categories[item.category] = categories.get(item.category, 0) + 1
    return Created(len(plan.items), len(plan.catches), options.raters, per_item, categories)


def _fill(
    connection: sqlite3.Connection,
    kind_name: str,
    source: Path,
    plan: Plan,
    options: CreateOptions,
    per_item: int,
    adjudicators: int,
) -> None:
    settings = {key: str(value) if isinstance(value, Path) else value
                for key, value in asdict(options).items()}  # fmt: skip
    for key, value in {
        "kind": kind_name,
        "source": str(source.resolve()),
        "options": settings | {"per_item": per_item},
        "media_root": str(plan.media_root) if plan.media_root else None,
        "min_catch": options.min_catch,
        "secret": secrets.token_hex(32),  # signs CSRF tokens; never leaves the file
        "taskqa_version": __version__,
        "plan": plan.meta,
    }.items():
        db.set_meta(connection, key, value)
    reviewers = options.raters - adjudicators
    raters = [rater_name(i) for i in range(reviewers)]
    raters += [adjudicator_name(i) for i in range(adjudicators)]
    for index, name in enumerate(raters):
        connection.execute(
            "INSERT INTO raters (id, name, role) VALUES (?, ?, 'rater')", (index + 1, name)
        )
    connection.execute(
        "INSERT INTO raters (id, name, role) VALUES (?, ?, 'admin')", (len(raters) + 1, ADMIN)
    )
    item_ids = [_insert_item(connection, spec) for spec in plan.items]
    catch_ids = [_insert_item(connection, spec) for spec in plan.catches]
    first_stage, *later = plan.stages
    queues: dict[int, list[tuple[int, str]]] = {i: [] for i in range(len(raters))}
    order = list(range(len(item_ids)))
    random.Random(f"studio:queues:{options.seed}").shuffle(order)
    for j, position in enumerate(order):
        # round robin over the shuffled items: every reviewer gets the same share
        chosen = [(j * per_item + r) % reviewers for r in range(per_item)]
        for rater in chosen:
            queues[rater].append((item_ids[position], first_stage))
        if later:  # and the same for the adjudicators, who come after the reviewers
            queues[reviewers + j % adjudicators].append((item_ids[position], later[0]))
    for rater, queue in queues.items():
        rng = random.Random(f"studio:catch:{options.seed}:{rater}")
        # catch trials are for the first stage: an adjudicator's queue has none
        mixed = queue if rater >= reviewers else _mix_catches(queue, catch_ids, first_stage, rng)
        for position, (item_id, stage) in enumerate(mixed):
            connection.execute(
                "INSERT INTO assignments (rater_id, item_id, stage, position) VALUES (?, ?, ?, ?)",
                (rater + 1, item_id, stage, position),
            )


def _mix_catches(
    queue: list[tuple[int, str]], catch_ids: list[int], stage: str, rng: random.Random
) -> list[tuple[int, str]]:
    """Catch trials at seeded places among the rater's items (never first: a warm-up is real)."""
    mixed = list(queue)
    for catch in catch_ids:
        mixed.insert(rng.randint(1, max(1, len(mixed))), (catch, stage))
    return mixed


def _insert_item(connection: sqlite3.Connection, spec: ItemSpec) -> int:
    cursor = connection.execute(
        "INSERT INTO items (key, category, catch, expected, media, start_s, end_s, payload) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            spec.key,
            spec.category,
            int(spec.catch),
            None if spec.expected is None else json.dumps(spec.expected, sort_keys=True),
            spec.media,
            spec.start_s,
            spec.end_s,
            json.dumps(spec.payload, sort_keys=True, ensure_ascii=False),
        ),
    )
    return int(cursor.lastrowid or 0)
