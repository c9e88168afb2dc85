"""The study database: one SQLite file per study, in WAL mode, a short transaction per write.

Each server thread keeps one connection of its own (a connection is never shared between
threads). Writes run inside ``BEGIN IMMEDIATE`` so that two requests never interleave a read and
a write of the same rows; readers are never blocked in WAL mode.

``synchronous=NORMAL`` in WAL mode: a commit is appended to the WAL file (in the operating
system's page cache) before ``COMMIT`` returns, and only checkpoints fsync. An acknowledged
answer therefore survives a killed or crashed server process (the SIGKILL test in
tests/test_studio_live.py); what it does not survive is a power loss or kernel crash before
the system writes its page cache out (Linux: within about 30 s) or the next checkpoint does.
``FULL`` fsyncs every commit (about 4 ms on this disk) while holding the write lock, which
capped the server at some 125 answers/s (two writes per answer: the view and the response)
and made the queue of writers the largest part of the latency under load.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from taskqa.problems import InvalidInputError, Problem

SCHEMA_VERSION = 1
BUSY_TIMEOUT_MS = 10_000
# Writers of one process queue on this lock instead of on SQLite's busy handler, which sleeps
# in steps of up to 100 ms and made the slowest answers wait a second under load.
WRITE_LOCK = threading.Lock()

SCHEMA = """
CREATE TABLE study (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE raters (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  role TEXT NOT NULL CHECK (role IN ('rater', 'admin')),
  token_sha256 TEXT UNIQUE,
  expires_at REAL
);
CREATE TABLE items (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL,
  category TEXT NOT NULL,
  catch INTEGER NOT NULL DEFAULT 0,
  expected TEXT,
  media TEXT,
  start_s REAL,
  end_s REAL,
  payload TEXT NOT NULL
);
CREATE TABLE assignments (
  rater_id INTEGER NOT NULL REFERENCES raters(id),
  item_id INTEGER NOT NULL REFERENCES items(id),
  stage TEXT NOT NULL,
  position INTEGER NOT NULL,
  PRIMARY KEY (rater_id, item_id)
);
CREATE INDEX assignments_by_item ON assignments(item_id);
CREATE TABLE views (
  rater_id INTEGER NOT NULL,
  item_id INTEGER NOT NULL,
  first_shown REAL NOT NULL,
  PRIMARY KEY (rater_id, item_id)
);
CREATE TABLE responses (
  id INTEGER PRIMARY KEY,
  submission_id TEXT NOT NULL UNIQUE,
  rater_id INTEGER NOT NULL REFERENCES raters(id),
  item_id INTEGER NOT NULL REFERENCES items(id),
  stage TEXT NOT NULL,
  response TEXT NOT NULL,
  seconds REAL,
  submitted_at REAL NOT NULL,
  UNIQUE (rater_id, item_id)
);
"""


def connect(path: Path) -> sqlite3.Connection:
    """A connection to an existing study file (refusing anything that is not one)."""
    if not path.is_file():
        raise InvalidInputError([Problem(path.name, "", f"study file not found: {path}")])
    connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    try:
        version = connection.execute("SELECT value FROM study WHERE key = 'schema'").fetchone()
        _configure(connection)
    except sqlite3.DatabaseError:
        connection.close()
        raise InvalidInputError(
            [Problem(path.name, "", "not a taskqa studio file (no study table)")]
        ) from None
    if version is None or json.loads(version[0]) != SCHEMA_VERSION:
        connection.close()
        raise InvalidInputError(
            [Problem(path.name, "", f"expected a studio file of schema {SCHEMA_VERSION}")]
        )
    return connection


def _open(path: Path) -> sqlite3.Connection:
    # isolation_level=None: transactions are explicit (BEGIN IMMEDIATE in ``write``).
    connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    _configure(connection)
    return connection


def _configure(connection: sqlite3.Connection) -> None:
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=NORMAL")  # see the module's docstring
    connection.execute("PRAGMA foreign_keys=ON")
    connection.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")


def create_database(path: Path) -> sqlite3.Connection:
    """A new, empty study file at ``path`` (which must not exist yet)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = _open(path)
    with write(connection):
        for statement in SCHEMA.split(";"):
            if statement.strip():
                connection.execute(statement)
        set_meta(connection, "schema", SCHEMA_VERSION)
    return connection


@contextmanager
def write(connection: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction: taken at once (IMMEDIATE), committed or rolled back as a whole."""
    with WRITE_LOCK:
        connection.execute("BEGIN IMMEDIATE")
        try:
            yield connection
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        connection.execute("COMMIT")


def set_meta(connection: sqlite3.Connection, key: str, value: Any) -> None:
    connection.execute(
        "INSERT INTO study (key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, json.dumps(value, sort_keys=True)),
    )


def meta(connection: sqlite3.Connection) -> dict[str, Any]:
    return {key: json.loads(value) for key, value in connection.execute("SELECT * FROM study")}


@dataclass(frozen=True)
class Item:
    id: int
    key: str
    category: str
    catch: bool
    expected: Any
    media: str | None
    start_s: float | None
    end_s: float | None
    payload: dict[str, Any]


ITEM_COLUMNS = "id, key, category, catch, expected, media, start_s, end_s, payload"


def item_from_row(row: tuple[Any, ...]) -> Item:
    expected = json.loads(row[4]) if row[4] is not None else None
    return Item(
        row[0], row[1], row[2], bool(row[3]), expected, row[5], row[6], row[7], json.loads(row[8])
    )


def items(connection: sqlite3.Connection) -> list[Item]:
    rows = connection.execute(f"SELECT {ITEM_COLUMNS} FROM items ORDER BY id")
    return [item_from_row(row) for row in rows]


@dataclass(frozen=True)
class Response:
    rater: str
    rater_id: int
    item_id: int
    stage: str
    response: dict[str, Any]
    seconds: float | None
    submitted_at: float


def responses(connection: sqlite3.Connection) -> list[Response]:
    rows = connection.execute(
        "SELECT raters.name, responses.rater_id, item_id, stage, response, seconds, submitted_at "
        "FROM responses JOIN raters ON raters.id = responses.rater_id ORDER BY responses.id"
    )
    return [
        Response(name, rater_id, item_id, stage, json.loads(data), seconds, at)
        for name, rater_id, item_id, stage, data, seconds, at in rows
    ]


def rater_names(connection: sqlite3.Connection) -> list[str]:
    rows = connection.execute("SELECT name FROM raters WHERE role = 'rater' ORDER BY id")
    return [name for (name,) in rows]
