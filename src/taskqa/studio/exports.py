"""Every export of a study, by file name: the kind's own files plus ``raters.json``."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from taskqa.atomic import write_bytes
from taskqa.studio.kinds.base import Kind
from taskqa.studio.summary import flagged_raters, raters_json


def export_files(connection: sqlite3.Connection, kind: Kind) -> dict[str, bytes]:
    flagged = flagged_raters(connection, kind)
    files = kind.exports(connection, flagged)
    files["raters.json"] = raters_json(connection, kind)
    return files


def write_exports(connection: sqlite3.Connection, kind: Kind, out: Path) -> list[Path]:
    written = []
    for name, data in sorted(export_files(connection, kind).items()):
        write_bytes(out / name, data)
        written.append(out / name)
    return written
