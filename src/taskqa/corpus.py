"""taskqa's own corpus format: a folder with ``corpus.json`` and ``recordings.jsonl``.

``recordings.jsonl`` holds one :class:`~taskqa.model.Recording` per line, in a fixed order, so
the same recordings always serialize to the same bytes. ``corpus.json`` says what made them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from taskqa import __version__
from taskqa.atomic import staged_directory, write_text
from taskqa.jsonio import jsonl_lines, load_json, parse_json
from taskqa.model import Recording
from taskqa.problems import InvalidInputError, Problem, problems_from_validation_error, shorten

MANIFEST = "corpus.json"
RECORDINGS = "recordings.jsonl"
FORMAT_VERSION = 1
MAX_PROBLEMS = 200  # problems listed before reading stops: a broken file has one per line


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
    if directory.exists() and not directory.is_dir():
        message = "is a file; expected a corpus folder holding corpus.json and recordings.jsonl"
        raise InvalidInputError([Problem(str(directory), "", message)])
    if not directory.exists():
        raise InvalidInputError([Problem(str(directory), "", "not found")])
    file = directory / MANIFEST
    raw = load_json(file)
    try:
        manifest = CorpusManifest.model_validate(raw)
    except ValidationError as error:
        raise InvalidInputError(problems_from_validation_error(str(file), [], error)) from None
    problems = []
    if manifest.format != "taskqa-corpus":
        problems.append(
            Problem.at(file, ["format"], f"{shorten(manifest.format)!r}; expected 'taskqa-corpus'")
        )
    if not 1 <= manifest.format_version <= FORMAT_VERSION:
        problems.append(
            Problem.at(
                file,
                ["format_version"],
                f"{manifest.format_version}; this taskqa reads versions 1 to {FORMAT_VERSION}",
            )
        )
    if problems:
        raise InvalidInputError(problems)
    return manifest


def read_corpus(directory: Path) -> list[Recording]:
    """Read every recording, collecting all problems before raising.

    Beyond each record's own shape: recording ids are unique and the counts the manifest
    declares match the file, so that every later command can rely on both."""
    manifest = read_manifest(directory)
    path = directory / RECORDINGS
    file = str(path)
    recordings: list[Recording] = []
    problems: list[Problem] = []
    first_line: dict[str, int] = {}
    for index, number, line in jsonl_lines(path, file):
        try:
            payload = parse_json(line, file, [index], line=number)
            recording = Recording.model_validate(payload)
        except InvalidInputError as error:
            problems.extend(error.problems)
            continue
        except ValidationError as error:
            problems.extend(problems_from_validation_error(file, [index], error))
            continue
        earlier = first_line.setdefault(recording.id, number)
        if earlier != number:
            problems.append(
                Problem.at(
                    file,
                    [index, "id"],
                    f"{shorten(recording.id)!r} repeats the id of line {earlier}; "
                    "expected unique recording ids",
                )
            )
        recordings.append(recording)
        if len(problems) >= MAX_PROBLEMS:
            break
    if not problems:
        problems += _count_problems(manifest, recordings, directory / MANIFEST)
    if not problems and not recordings:
        problems.append(Problem(file, "", "holds no recordings; expected one JSON object per line"))
    if problems:
        raise InvalidInputError(problems)
    return recordings


def _count_problems(
    manifest: CorpusManifest, recordings: list[Recording], file: Path
) -> list[Problem]:
    actions = sum(len(r.actions) for r in recordings)
    problems = []
    for field, declared, found in (
        ("recordings", manifest.recordings, len(recordings)),
        ("actions", manifest.actions, actions),
    ):
        if field in manifest.model_fields_set and declared != found:
            problems.append(
                Problem.at(file, [field], f"{declared}; recordings.jsonl holds {found}")
            )
    return problems
