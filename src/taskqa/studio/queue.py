"""Who may see what: token look-up, each rater's queue, views and idempotent submissions."""

from __future__ import annotations

import json
import re
import sqlite3
import time
from dataclasses import dataclass
from typing import Any

from taskqa.studio import db
from taskqa.studio.kinds.base import ADJUDICATE
from taskqa.studio.security import FormError, new_token, token_hash

SUBMISSION_ID = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
DAY_S = 86_400.0


class AccessError(Exception):
    """A request the token does not allow; the message is shown as it is."""

    def __init__(self, message: str, status: int = 403) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Person:
    id: int
    name: str
    role: str


def person_for(connection: sqlite3.Connection, token: str, role: str) -> Person:
    """The rater (or admin) a token belongs to; forged, revoked or expired tokens are refused."""
    if not token or len(token) > 200:
        raise AccessError("invalid invitation link")
    row = connection.execute(
        "SELECT id, name, role, expires_at FROM raters WHERE token_sha256 = ?",
        (token_hash(token),),
    ).fetchone()
    if row is None:
        raise AccessError("invalid invitation link")
    if row[3] is not None and row[3] < time.time():
        raise AccessError(
            "this invitation link has expired; ask the study's organiser for a new one"
        )
    if row[2] != role:
        raise AccessError("this link does not open this page")
    return Person(row[0], row[1], row[2])


def invite(
    connection: sqlite3.Connection, raters: int | None, days: float
) -> tuple[list[tuple[str, str]], str]:
    """New tokens for the first ``raters`` raters and the admin; older links stop working."""
    names = db.rater_names(connection)
    count = len(names) if raters is None else raters
    if count > len(names):
        raise FormError(f"the study has {len(names)} rater queues (set by --raters at create)")
    expires = time.time() + days * DAY_S
    issued: list[tuple[str, str]] = []
    with db.write(connection):
        for name in names[:count]:
            token = new_token()
            connection.execute(
                "UPDATE raters SET token_sha256 = ?, expires_at = ? WHERE name = ?",
                (token_hash(token), expires, name),
            )
            issued.append((name, token))
        admin = new_token()
        connection.execute(
            "UPDATE raters SET token_sha256 = ?, expires_at = ? WHERE role = 'admin'",
            (token_hash(admin), expires),
        )
    return issued, admin


def stage_of(connection: sqlite3.Connection, person: Person, item_id: int) -> str:
    row = connection.execute(
        "SELECT stage FROM assignments WHERE rater_id = ? AND item_id = ?", (person.id, item_id)
    ).fetchone()
    if row is None:
        raise AccessError(f"item {item_id} is not in your queue", 404)
    return str(row[0])


@dataclass(frozen=True)
class QueueState:
    next_item: int | None
    done: int
    total: int
    waiting: int  # items that wait for other people (verify's adjudication)


def queue_state(connection: sqlite3.Connection, person: Person) -> QueueState:
    """The rater's first unanswered item in queue order, and how far they are."""
    rows = connection.execute(
        "SELECT a.item_id, a.stage, r.id IS NOT NULL FROM assignments a "
        "LEFT JOIN responses r ON r.rater_id = a.rater_id AND r.item_id = a.item_id "
        "WHERE a.rater_id = ? ORDER BY a.position",
        (person.id,),
    ).fetchall()
    done = sum(1 for row in rows if row[2])
    waiting = skipped = 0
    next_item = None
    for item_id, stage, answered in rows:
        if answered:
            continue
        state = stage_status(connection, item_id, stage)
        if state == "wait":
            waiting += 1
        elif state == "skip":
            skipped += 1
        elif next_item is None:
            next_item = item_id
    return QueueState(next_item, done + skipped, len(rows), waiting)


def stage_status(connection: sqlite3.Connection, item_id: int, stage: str) -> str:
    """``ready``, ``wait`` (for other people's work) or ``skip`` (nothing left to decide).

    A first stage is ready at once. Adjudication (the verify kind, ProMQA's Table 13) waits
    until both reviews are in, and is skipped when they leave nothing open.
    """
    if stage != ADJUDICATE:
        return "ready"
    from taskqa.studio.kinds.verify import adjudication_status

    return adjudication_status(connection, item_id)


def record_view(connection: sqlite3.Connection, person: Person, item_id: int) -> None:
    """The first time the item was shown to the rater: time on task counts from it."""
    with db.write(connection):
        connection.execute(
            "INSERT OR IGNORE INTO views (rater_id, item_id, first_shown) VALUES (?, ?, ?)",
            (person.id, item_id, time.time()),
        )


def own_response(
    connection: sqlite3.Connection, person: Person, item_id: int
) -> dict[str, Any] | None:
    row = connection.execute(
        "SELECT response FROM responses WHERE rater_id = ? AND item_id = ?", (person.id, item_id)
    ).fetchone()
    return None if row is None else dict(json.loads(row[0]))


def submit(
    connection: sqlite3.Connection,
    person: Person,
    item_id: int,
    stage: str,
    submission_id: str,
    response: dict[str, Any],
) -> bool:
    """Store a response once. A retry with the same submission id is acknowledged again
    without a second row (True: stored now, False: it was already stored)."""
    if not SUBMISSION_ID.match(submission_id):
        raise FormError("field 'submission_id' must be 16-64 letters, digits, - or _")
    with db.write(connection):
        earlier = connection.execute(
            "SELECT rater_id, item_id FROM responses WHERE submission_id = ?", (submission_id,)
        ).fetchone()
        if earlier is not None:
            if tuple(earlier) != (person.id, item_id):
                raise FormError("this submission id was used for another item", 409)
            return False
        answered = connection.execute(
            "SELECT 1 FROM responses WHERE rater_id = ? AND item_id = ?", (person.id, item_id)
        ).fetchone()
        if answered is not None:
            raise FormError(f"item {item_id} is already answered", 409)
        if stage_status(connection, item_id, stage) != "ready":
            raise FormError(f"item {item_id} is not open for answers yet", 409)
        shown = connection.execute(
            "SELECT first_shown FROM views WHERE rater_id = ? AND item_id = ?",
            (person.id, item_id),
        ).fetchone()
        now = time.time()
        connection.execute(
            "INSERT INTO responses (submission_id, rater_id, item_id, stage, response, seconds, "
            "submitted_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                submission_id,
                person.id,
                item_id,
                stage,
                json.dumps(response, sort_keys=True, ensure_ascii=False),
                None if shown is None else round(now - shown[0], 3),
                now,
            ),
        )
    return True
