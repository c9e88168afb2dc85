"""``taskqa validate``: recognise a file or folder and report every problem in it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import NamedTuple

from taskqa.checks.continuity import check_continuity
from taskqa.checks.domain_rules import check_against_domain
from taskqa.checks.references import check_references
from taskqa.checks.videos import check_videos, unchecked_uris
from taskqa.corpus import RECORDINGS, is_corpus, read_corpus
from taskqa.problems import InvalidInputError, Problem
from taskqa.simulation.corpus import corpus_domain
from taskqa.simulation.domain import load_domain

Validator = Callable[[Path], list[Problem]]


class Validation(NamedTuple):
    kind: str  # what the path was recognised as
    problems: list[Problem]
    # video references at URLs (object storage, https://): validate reads local files only,
    # so it says these were not checked rather than passing or failing them
    unchecked: list[str]


def validate_path(path: Path) -> Validation:
    """What ``path`` was recognised as, every problem found in it, and what was not checked."""
    if not path.exists():
        return Validation("missing", [Problem(str(path), "", "not found")], [])
    unchecked: list[str] = []
    for kind, detect, validate in _formats(unchecked):
        if detect(path):
            return Validation(kind, validate(path), unchecked)
    expected = (
        "not a format taskqa reads; expected a taskqa corpus folder, CaptainCook4D or ProMQA "
        "annotation files, EgoTaskQA/LEMMA annotations, or a domain .yaml file"
    )
    return Validation("unknown", [Problem(str(path), "", expected)], [])


def _formats(unchecked: list[str]) -> Iterator[tuple[str, Callable[[Path], bool], Validator]]:
    from taskqa.sources import captaincook4d, egotaskqa

    yield "taskqa corpus", is_corpus, partial(validate_corpus, unchecked=unchecked)
    yield "domain", _is_domain_file, _validate_domain
    yield "EgoTaskQA/LEMMA", egotaskqa.detect_egotaskqa, egotaskqa.validate_egotaskqa
    yield (
        "CaptainCook4D/ProMQA",
        captaincook4d.detect_captaincook4d,
        captaincook4d.validate_captaincook4d_file,
    )


def _is_domain_file(path: Path) -> bool:
    return path.is_file() and path.suffix in {".yaml", ".yml"}


def _validate_domain(path: Path) -> list[Problem]:
    try:
        load_domain(path)
    except InvalidInputError as error:
        return error.problems
    return []


def validate_corpus(directory: Path, unchecked: list[str] | None = None) -> list[Problem]:
    """Shape, then names that must resolve, then state continuity, then (for simulated
    corpora) the domain's action rules, then the video files the recordings reference; the
    references at URLs, which are not opened, are added to ``unchecked``."""
    try:
        recordings = read_corpus(directory)
    except InvalidInputError as error:
        return error.problems
    try:
        domain = corpus_domain(directory, recordings)
    except InvalidInputError as error:
        return error.problems
    problems: list[Problem] = []
    file = str(directory / RECORDINGS)
    for index, recording in enumerate(recordings):
        problems += check_references(recording, file, [index])
        problems += check_continuity(recording, file, [index])
        if domain is not None:
            problems += check_against_domain(recording, domain, file, [index])
        problems += check_videos(recording, directory, file, [index])
        if unchecked is not None:
            unchecked += unchecked_uris(recording)
    return problems
