"""taskqa's own corpus format: a folder with ``corpus.json`` and ``recordings.jsonl``.

``recordings.jsonl`` holds one :class:`~taskqa.model.Recording` per line, in a fixed order, so
the same recordings always serialize to the same bytes. ``corpus.json`` says what made them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from taskqa import __version__
from taskqa.atomic import staged_directory, write_text
from taskqa.model import Recording
from taskqa.problems import InvalidInputError, Problem, load_json, problems_from_validation_error

MANIFEST = "corpus.json"
RECORDINGS = "recordings.jsonl"
FORMAT_VERSION = 1


class CorpusManifest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    format: str = "taskqa-corpus"
    format_version: int = FORMAT_VERSION
    generator: str
    taskqa_version: str = __version__
    seed: int | None = None
    config: dict[str, Any] = Field(default_factory=dict)
    recordings: int = 0
    actions: int = 0
    files: dict[str, str] = Field(default_factory=dict, description="Extra files and their roles.")


def dump_recording(recording: Recording) -> str:
    return recording.model_dump_json(exclude_none=True)


def write_corpus(
    directory: Path,
    recordings: Iterable[Recording],
    manifest: CorpusManifest,
    extra_files: Mapping[str, str] | None = None,
) -> CorpusManifest:
    """Write a corpus folder atomically: a reader sees the old folder or the complete new one."""
    recordings = list(recordings)
    lines = [dump_recording(r) for r in recordings]
    actions = sum(len(r.actions) for r in recordings)
    return write_corpus_lines(directory, lines, actions, manifest, extra_files)


def write_corpus_lines(
    directory: Path,
    lines: Sequence[str],
    actions: int,
    manifest: CorpusManifest,
    extra_files: Mapping[str, str] | None = None,
) -> CorpusManifest:
    """Like :func:`write_corpus`, for recordings already serialised by :func:`dump_recording`."""
    manifest = manifest.model_copy(update={"recordings": len(lines), "actions": actions})
    with staged_directory(directory) as staging:
        write_text(staging / RECORDINGS, "".join(f"{line}\n" for line in lines))
        for name, text in (extra_files or {}).items():
            write_text(staging / name, text)
        write_text(staging / MANIFEST, manifest.model_dump_json(indent=2) + "\n")
    return manifest


def is_corpus(path: Path) -> bool:
    return path.is_dir() and (path / MANIFEST).is_file()


def read_manifest(directory: Path) -> CorpusManifest:
    raw = load_json(directory / MANIFEST)
    try:
        return CorpusManifest.model_validate(raw)
    except ValidationError as error:
        raise InvalidInputError(problems_from_validation_error(MANIFEST, [], error)) from None


def read_corpus(directory: Path) -> list[Recording]:
    """Read every recording, collecting all problems before raising."""
    read_manifest(directory)
    path = directory / RECORDINGS
    if not path.is_file():
        raise InvalidInputError([Problem(RECORDINGS, "", "file not found")])
    recordings: list[Recording] = []
    problems: list[Problem] = []
    with path.open(encoding="utf-8") as stream:
        for index, line in enumerate(stream):
            if not line.strip():
                continue
            try:
                payload = json.loads(line)
            except json.JSONDecodeError as error:
                problems.append(
                    Problem.at(
                        RECORDINGS, [index], f"invalid JSON on line {index + 1}: {error.msg}"
                    )
                )
                continue
            try:
                recordings.append(Recording.model_validate(payload))
            except ValidationError as error:
                problems.extend(problems_from_validation_error(RECORDINGS, [index], error))
    if problems:
        raise InvalidInputError(problems)
    return recordings
