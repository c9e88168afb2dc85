"""taskqa's own corpus format: a folder with ``corpus.json`` and ``recordings.jsonl``.

``recordings.jsonl`` holds one :class:`~taskqa.model.Recording` per line, in a fixed order, so
the same recordings always serialize to the same bytes. ``corpus.json`` says what made them.
This module writes both files, whoever makes the corpus: a new folder at once
(``write_corpus``), or in place in a folder being assembled (``write_corpus_files``,
``append_recordings``: a benchmark's corpus copy gaining the minimal pairs' recordings).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from taskqa import __version__
from taskqa.atomic import staged_directory, write_text
from taskqa.jsonio import jsonl_lines, load_json, parse_json
from taskqa.model import Recording, VideoRef
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
    with staged_directory(directory) as staging:
        for name, text in (extra_files or {}).items():
            write_text(staging / name, text)
        written = write_corpus_files(staging, lines, actions, manifest)
    return written


def write_corpus_files(
    directory: Path, lines: Sequence[str], actions: int, manifest: CorpusManifest
) -> CorpusManifest:
    """Write ``recordings.jsonl`` (``lines``, from :func:`dump_recording`) and ``corpus.json``
    (``manifest`` with the counts) into ``directory`` in place, leaving its other files (the
    domain file, rendered videos) as they are: for a folder that is staged already."""
    manifest = manifest.model_copy(update={"recordings": len(lines), "actions": actions})
    write_text(directory / RECORDINGS, "".join(f"{line}\n" for line in lines))
    write_text(directory / MANIFEST, manifest.model_dump_json(indent=2) + "\n")
    return manifest


def append_recordings(
    directory: Path, held: Sequence[Recording], added: Sequence[Recording]
) -> CorpusManifest:
    """Add ``added`` to the corpus in ``directory``, which holds ``held`` (as read from it), in
    place: its lines stay as they are, byte for byte, and its manifest keeps every setting."""
    lines = (directory / RECORDINGS).read_text(encoding="utf-8").splitlines()
    lines += [dump_recording(r) for r in added]
    actions = sum(len(r.actions) for r in (*held, *added))
    return write_corpus_files(directory, lines, actions, read_manifest(directory))


def point_videos(corpus: Path, videos: dict[str, list[VideoRef]]) -> None:
    """Rewrite ``recordings.jsonl`` with new video references for some recordings; every other
    line stays byte for byte as it was. The file is replaced atomically."""
    path = corpus / RECORDINGS
    file = str(path)
    out: list[str] = []
    for index, number, line in jsonl_lines(path, file):
        head = parse_json(line, file, [index], line=number)
        if not isinstance(head, dict):
            raise InvalidInputError([Problem.at(file, [index], "expected a JSON object")])
        refs = videos.get(str(head.get("id")))
        if refs is None:
            out.append(line.decode("utf-8") + "\n")
            continue
        recording = Recording.model_validate(head)
        recording.videos = list(refs)
        out.append(dump_recording(recording) + "\n")
    write_text(path, "".join(out))


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
