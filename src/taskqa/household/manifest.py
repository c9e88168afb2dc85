"""The rendered videos' manifest (``videos/manifest.json``): every file's sha256, and the
options the folder was last rendered with (what a minimal pair's second recording is drawn
with). Local folders and object-storage URLs get the same text."""

from __future__ import annotations

import os
from dataclasses import asdict
from pathlib import Path
from typing import Any

from taskqa.atomic import write_text
from taskqa.household.options import VIEWS, RenderOptions
from taskqa.jsonio import dumps, parse_json
from taskqa.problems import InvalidInputError

VIDEO_MANIFEST = "manifest.json"  # the sha256 of every rendered file


def write_manifest(
    folder: Path, corpus: Path, digests: dict[str, str], options: RenderOptions | None = None
) -> None:
    """Record each rendered file's sha256 in ``folder/manifest.json`` (paths relative to the
    folder), keeping the entries of files rendered by earlier runs, and the options of this
    run (``rendered_options``: what a minimal pair's second recording is drawn with)."""
    path = folder / VIDEO_MANIFEST
    files = _manifest_files(path.read_text(encoding="utf-8") if path.is_file() else None)
    base = folder.resolve()
    for name, digest in digests.items():
        files[Path(os.path.relpath((corpus / name).resolve(), base)).as_posix()] = digest
    write_text(path, _manifest_text(files, options))


def _manifest_text(files: dict[str, str], options: RenderOptions | None = None) -> str:
    manifest: dict[str, Any] = {"generator": "taskqa render", "files": dict(sorted(files.items()))}
    if options is not None:
        manifest["options"] = asdict(options)
    return dumps(manifest)


def rendered_options(corpus: Path) -> RenderOptions | None:
    """The options ``corpus/videos`` was last rendered with (None: not rendered, or by a
    taskqa that did not record them)."""
    path = corpus / "videos" / VIDEO_MANIFEST
    if not path.is_file():
        return None
    try:
        manifest = parse_json(path.read_text(encoding="utf-8"), VIDEO_MANIFEST, [])
    except InvalidInputError:
        return None
    raw = manifest.get("options") if isinstance(manifest, dict) else None
    if not isinstance(raw, dict):
        return None
    try:
        return RenderOptions(**{**raw, "views": tuple(raw.get("views", VIEWS))})
    except TypeError:
        return None


def _manifest_files(data: bytes | str | None) -> dict[str, str]:
    """The entries of an existing manifest; a damaged one is rebuilt from this run's files."""
    if data is None:
        return {}
    try:
        manifest = parse_json(data, VIDEO_MANIFEST, [])
    except InvalidInputError:
        return {}
    files = manifest.get("files") if isinstance(manifest, dict) else None
    return dict(files) if isinstance(files, dict) else {}


def write_remote_manifest(
    url: str, digests: dict[str, str], options: RenderOptions | None = None
) -> None:
    """``url/manifest.json`` as a local run writes it (paths relative to ``url``), keeping the
    entries of earlier runs; written whole in one put. ``digests`` are keyed by full URL."""
    from taskqa.execution.storage import join, read_object, write_object

    path = join(url, VIDEO_MANIFEST)
    files = _manifest_files(read_object(path))
    prefix = join(url, "")
    for name, digest in digests.items():
        files[name.removeprefix(prefix)] = digest
    write_object(path, _manifest_text(files, options).encode("utf-8"))
