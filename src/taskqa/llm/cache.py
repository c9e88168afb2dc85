"""A SQLite cache of chat completions, keyed by a hash of the whole request.

One file holds every response; writes commit at once, so an interrupted run keeps what it paid
for and a rerun resumes from there. Connections are per thread (SQLite objects must not cross
threads) and writers serialise on SQLite's own lock.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

_SCHEMA = """
CREATE TABLE IF NOT EXISTS completions (
    key TEXT PRIMARY KEY,
    request TEXT NOT NULL,
    response TEXT NOT NULL
)
"""


class ResponseCache:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        with self._connect() as connection:
            connection.execute(_SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = sqlite3.connect(self.path, timeout=30.0)
            connection.execute("PRAGMA journal_mode=WAL")
            self._local.connection = connection
        return connection

    def get(self, key: str) -> str | None:
        row = (
            self._connect()
            .execute("SELECT response FROM completions WHERE key = ?", (key,))
            .fetchone()
        )
        return None if row is None else str(row[0])

    def put(self, key: str, request_json: str, response: str) -> None:
        with self._connect() as connection:
            connection.execute(
                "INSERT OR REPLACE INTO completions (key, request, response) VALUES (?, ?, ?)",
                (key, request_json, response),
            )

    def __len__(self) -> int:
        row = self._connect().execute("SELECT COUNT(*) FROM completions").fetchone()
        return int(row[0])

    def close(self) -> None:
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is not None:
            connection.close()
            self._local.connection = None
