"""The resume journal: every finished shard's result, kept beside the output until the run ends.

A run writes each shard's encoded result to ``<journal>/<shard>.json`` and its sha256 to
``<journal>/<shard>.sha256`` (both atomically, the digest last), and ``journal.json`` says which
run the shards belong to: a fingerprint of the command, its inputs and settings. After an
interruption, ``--resume`` takes every shard whose file is there and matches its recorded
digest, and computes only the others; a journal of another run is refused rather than mixed in.
A run that finishes removes its journal.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from taskqa.atomic import write_bytes, write_text
from taskqa.jsonio import load_json, write_json
from taskqa.problems import InvalidInputError, Problem

JOURNAL = "journal.json"


def fingerprint(*parts: str | bytes) -> str:
    """A digest of everything a run's output depends on (lengths keep the parts apart)."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        digest.update(f"{len(data)}:".encode())
        digest.update(data)
    return digest.hexdigest()


def journal_beside(out: Path) -> Path:
    """Where the journal of a run writing ``out`` lives: a hidden folder next to it."""
    return out.parent / f".{out.name}.shards"


class ShardJournal:
    def __init__(self, folder: Path, run: str, shards: int, resume: bool) -> None:
        self.folder = folder
        self.resumed = 0
        header = {"run": run, "shards": shards}
        if resume and (folder / JOURNAL).is_file():
            try:
                found = load_json(folder / JOURNAL)
            except (OSError, InvalidInputError):
                found = None
            if found != header:
                message = (
                    "the interrupted run had other inputs or settings; run again without "
                    "--resume to start over"
                )
                raise InvalidInputError([Problem(str(folder), "", message)])
            return
        shutil.rmtree(folder, ignore_errors=True)
        write_json(folder / JOURNAL, header)

    def _paths(self, index: int) -> tuple[Path, Path]:
        stem = f"{index:06d}"
        return self.folder / f"{stem}.json", self.folder / f"{stem}.sha256"

    def stored(self, index: int) -> bytes | None:
        """The shard's recorded result, if it is complete and matches its digest."""
        data_path, digest_path = self._paths(index)
        try:
            recorded = digest_path.read_text(encoding="ascii").strip()
            data = data_path.read_bytes()
        except OSError:
            return None
        return data if hashlib.sha256(data).hexdigest() == recorded else None

    def record(self, index: int, data: bytes) -> None:
        data_path, digest_path = self._paths(index)
        write_bytes(data_path, data)
        write_text(digest_path, hashlib.sha256(data).hexdigest() + "\n")

    def finish(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
