"""Derived files: made locally from downloaded originals, kept only if they equal the reference.

Each recipe turns its inputs (files or folders of the cache, in the registry's order) into the
text of the derived file. :func:`make` writes it atomically, and only when its sha256 is the
registry's, the digest of the copy every benchmark number was computed from.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from taskqa.atomic import write_text
from taskqa.data.registry import DerivedFile
from taskqa.jsonio import dumps, load_json
from taskqa.problems import InvalidInputError, Problem

_RECORDING_ID = re.compile(r"^([0-9]+)_([0-9]+)$")
GOPRO_4K = "gopro_4k"


def recordings_with_4k_video(inputs: Sequence[Path]) -> str:
    """The recordings of ``download_links.json`` that have a 4K GoPro video.

    A recording has one when its ``gopro_4k`` link is a non-empty string (the downloader's own
    test is ``is not None``; a missing key counts as no link). Ids are sorted by activity, then
    number, and written one per line, as ``json.dumps(ids, indent=0)`` writes them (no final
    newline: the reference file has none).
    """
    (links_path,) = inputs
    links = load_json(links_path)
    file = links_path.name
    if not isinstance(links, dict):
        raise InvalidInputError([Problem(file, "", "expected a JSON object keyed by recording id")])
    problems: list[Problem] = []
    chosen: list[tuple[int, int, str]] = []
    for recording_id, record in links.items():
        match = _RECORDING_ID.match(recording_id)
        if match is None:
            problems.append(Problem.at(file, [recording_id], "expected an id <activity>_<number>"))
            continue
        if not isinstance(record, dict):
            problems.append(Problem.at(file, [recording_id], "expected an object of links"))
            continue
        link = record.get(GOPRO_4K)
        if link is not None and not isinstance(link, str):
            problems.append(
                Problem.at(file, [recording_id, GOPRO_4K], "expected a URL (text) or null")
            )
        elif link:
            chosen.append((int(match[1]), int(match[2]), recording_id))
    if problems:
        raise InvalidInputError(problems)
    ids = [recording_id for *_, recording_id in sorted(chosen)]
    # ids are ASCII (checked above), so keeping non-ASCII changes nothing; the reference ends
    # without a newline
    return dumps(ids, indent=0).removesuffix("\n")


def promqa_cleaned_annotations(inputs: Sequence[Path]) -> str:
    """ProMQA's ``cleaned_error_annotations.json`` (see :mod:`taskqa.data.promqa_cleaning`)."""
    from taskqa.data.promqa_cleaning import clean_release

    errors, complete, graphs = inputs
    return clean_release(errors, complete, graphs)


RECIPES: dict[str, Callable[[Sequence[Path]], str]] = {
    "recordings-with-4k-video": recordings_with_4k_video,
    "promqa-cleaning": promqa_cleaned_annotations,
}


def make(entry: DerivedFile, inputs: Sequence[Path], out: Path) -> None:
    """Run ``entry``'s recipe on ``inputs`` and write ``out`` if it matches the pinned sha256."""
    text = RECIPES[entry.recipe](inputs)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    if digest != entry.sha256:
        message = (
            f"made from {', '.join(p.name for p in inputs)}, but its sha256 {digest} is not the "
            f"reference {entry.sha256}; it was not kept (are the inputs the pinned files?)"
        )
        raise InvalidInputError([Problem(entry.name, "", message)])
    write_text(out, text)
