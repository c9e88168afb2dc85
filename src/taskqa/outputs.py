"""No command replaces what is at its output path by surprise.

One rule for every command that writes: before any work starts, :func:`claim_output` looks at
the output path and

- nothing there, an empty folder or an empty file: go ahead;
- this command's own earlier output (the same *kind*, known cheaply, below): replace it, unless
  that would delete rendered videos the command does not make again;
- anything else: refuse in one line that names the path and says why, unless the user passed
  ``--overwrite``.

How an earlier output is known:

- a folder by its marker files (glob patterns; :class:`FolderKind`): ``corpus.json`` for a
  corpus, ``results.json`` for evaluation results, ``stats.json`` for statistics... Commands
  that swap in a whole new folder (``simulate``, ``build``, ``convert``, the exports, ``verify
  build``, ``physics simulate``: ``taskqa.atomic.staged_directory``) delete what the old one
  held; the others write their files into the folder and leave any other file there alone.
- a file by its first record (:class:`FileKind`): a JSON Lines file whose first line is an
  object with the fields this command writes (``question`` and ``program`` for ``generate``,
  ``question_id`` and ``prediction`` for ``baseline``), a JSON file whose object (or whose
  list's first object) has them, a PNG for a picture, a graph in the DSL for ``verify
  parse``. Only the start of a file is read: a foreign file fails on its first line.

The sidecars a file output writes beside itself (``OUT.meta.json``, ``OUT.summary.json``,
caches, resume journals) are named after the output and go with it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from taskqa.jsonio import parse_json
from taskqa.problems import InvalidInputError, Problem
from taskqa.terminal import console


@dataclass(frozen=True)
class FolderKind:
    """What a command writes as a folder: a name for messages, the files (glob patterns) every
    such folder holds, and the glob patterns of rendered videos that replacing one would
    delete."""

    what: str
    markers: tuple[str, ...]
    videos: tuple[str, ...] = ()
    video_place: str = ""  # how messages name where the videos lie
    # True: the command replaces the folder as a whole; False: it writes its files into the
    # folder, and files it does not write stay.
    whole: bool = True
    # Other sets of markers that also make a folder this command's own (another mode of it,
    # such as `evaluate --mc`, or the folder of the command whose output it draws on).
    alike: tuple[tuple[str, ...], ...] = ()

    def holds_own(self, out: Path) -> bool:
        return any(
            all(next(out.glob(marker), None) is not None for marker in markers)
            for markers in (self.markers, *self.alike)
        )


Recognise = Callable[[bytes], bool]  # the start of a file -> whether this command wrote it
HEAD_BYTES = 1 << 20  # a first record longer than 1 MiB is not one these commands write


@dataclass(frozen=True)
class FileKind:
    """What a command writes as one file: a name for messages, and how to recognise one from
    its start (at most ``HEAD_BYTES``; whole JSON documents are read in full)."""

    what: str
    recognise: Recognise
    whole_document: bool = False  # read the whole file (one JSON document), not just its head
    # the file the command always writes beside its output (a predictions file's ``.meta.json``):
    # a hand-made file in the same format has none, and it is the user's, not the command's
    companion: Callable[[Path], Path] | None = None

    def holds_own(self, out: Path) -> bool:
        if self.companion is not None and not self.companion(out).is_file():
            return False
        try:
            with out.open("rb") as stream:
                data = stream.read() if self.whole_document else stream.read(HEAD_BYTES)
        except OSError:
            return False
        return self.recognise(data)


def jsonl_with(*fields: str) -> Recognise:
    """A JSON Lines file whose first line is an object with every one of ``fields``."""

    def recognise(data: bytes) -> bool:
        first = data.split(b"\n", 1)[0]
        return _has_fields(_json(first), fields, ())

    return recognise


def json_with(*fields: str, without: tuple[str, ...] = ()) -> Recognise:
    """A JSON document that is an object with ``fields`` (and none of ``without``), or a list
    whose first item is one; an empty list too (a command that found nothing to write)."""

    def recognise(data: bytes) -> bool:
        value = _json(data)
        if isinstance(value, list):
            return not value or _has_fields(value[0], fields, without)
        return _has_fields(value, fields, without)

    return recognise


def starts_with(prefix: bytes) -> Recognise:
    return lambda data: data.startswith(prefix)


def first_line_matches(pattern: str) -> Recognise:
    compiled = re.compile(pattern)

    def recognise(data: bytes) -> bool:
        first = data.split(b"\n", 1)[0].decode("utf-8", "replace")
        return compiled.match(first) is not None

    return recognise


def _json(data: bytes) -> Any:
    """The JSON value ``data`` holds, None when it is none: only a sniff of what a file is."""
    try:
        return parse_json(data, "", [])
    except InvalidInputError:
        return None


def _has_fields(value: Any, fields: tuple[str, ...], without: tuple[str, ...]) -> bool:
    return (
        isinstance(value, dict)
        and all(field in value for field in fields)
        and not any(field in value for field in without)
    )


# --- folders replaced as a whole ---------------------------------------------------------------
CORPUS = FolderKind("taskqa corpus", ("corpus.json",), ("videos/**/*",), "videos/")
BENCHMARK = FolderKind("taskqa benchmark", ("manifest.json", "splits"))
HF_EXPORT = FolderKind("Hugging Face export", ("croissant.json",))
LMMS_EXPORT = FolderKind("lmms-eval task", ("taskqa_normal.yaml",))
CHOICE_EXPORT = FolderKind("multiple-choice export", ("manifest.json", "normal"))
VLMEVAL_EXPORT = FolderKind("VLMEvalKit dataset", ("taskqa_vlmeval.py",))
EGOTASKQA = FolderKind("EgoTaskQA annotation folder", ("parsed.json",))
EGOTASKQA_QUESTIONS = FolderKind("EgoTaskQA QA folder", ("tagged_qas.json",))
VERIFY_BENCHMARK = FolderKind(
    "task verification benchmark", ("manifest.json", "pairs.jsonl"), ("videos/**/*",), "videos/"
)
PHYSICS_SCENES = FolderKind(
    "physics scene folder", ("scenes.json",), ("video_*.mp4", "video_*.gif"), "video_*"
)

# --- folders written into ----------------------------------------------------------------------
EVALUATION = FolderKind(
    "taskqa evaluation folder",
    ("results.json",),
    whole=False,
    alike=(("mc-results.json",), ("families.json",)),  # `evaluate --mc`, `--split all/...`
)
STATS = FolderKind("corpus statistics folder", ("stats.json",), whole=False)
CAUSAL_GRAPHS = FolderKind("causal graph folder", ("*.dot",), whole=False)
# `physics events`, `ceg`, `real-ceg` and `score` name their reports apart (detector.md, ceg.md,
# real_ceg.md, score.md) so that one folder can hold them all: any of them makes it theirs.
PHYSICS_REPORTS = FolderKind(
    "physics report folder",
    ("events.json",),
    whole=False,
    alike=(("cegs.json",), ("real_ceg.md",), ("score.md",)),
)
PHYSICS_VIDEOS = FolderKind(
    "physics video folder",
    ("video_*.*",),
    whole=False,
    alike=(("scenes.json",),),  # the videos of a scene folder go beside its annotations
)
PROCEDURAL_GRAPHS = FolderKind("recipe graph folder", ("recipe.dot",), whole=False)
PROCEDURAL_REPORT = FolderKind("procedural QA report", ("report.md",), whole=False)
RENDERED_VIDEOS = FolderKind("rendered video folder", ("manifest.json", "*/*.mp4"), whole=False)
PROBE = FolderKind("pixel probe folder", ("probe.json",), whole=False)
VERIFY_RESULTS = FolderKind("task verification results folder", ("results.json",), whole=False)
STUDY_EXPORT = FolderKind("study export folder", ("raters.json",), whole=False)

# --- single files ------------------------------------------------------------------------------
QUESTIONS = FileKind("questions file", jsonl_with("id", "question", "answer", "program"))


def prediction_meta_path(predictions: Path) -> Path:
    """The sidecar ``NAME.meta.json`` that ``taskqa baseline`` writes beside ``NAME.jsonl``."""
    return predictions.with_name(predictions.name.removesuffix(".jsonl") + ".meta.json")


PREDICTIONS = FileKind(
    "predictions file written by taskqa baseline",
    jsonl_with("question_id", "prediction"),
    companion=prediction_meta_path,
)
JSON_SCHEMA = FileKind("JSON Schema", json_with("$schema"), whole_document=True)
CONTACT_SHEET = FileKind("PNG picture", starts_with(b"\x89PNG\r\n\x1a\n"))
DSL_GRAPHS = FileKind("graphs file", first_line_matches(r'^$|^"Step \d+ '))
PARSER_SCORES = FileKind("parser scores file", json_with("exact_match_strict"), whole_document=True)
_RECORDS = "ProMQA-style records file"
PROCEDURAL_CANDIDATES = FileKind(
    f"{_RECORDS} of candidates",
    json_with("question_id", "type", "current_step", without=("generation",)),
    whole_document=True,
)
PROCEDURAL_GENERATED = FileKind(
    f"{_RECORDS} of generated questions",
    json_with("question_id", "generation", without=("verification", "prediction")),
    whole_document=True,
)
PROCEDURAL_JUDGMENTS = FileKind(
    "verification file", json_with("question_id", "judges"), whole_document=True
)
PROCEDURAL_VERIFIED = FileKind(
    f"{_RECORDS} of verified questions",
    json_with("question_id", "question", "answers", without=("prediction", "open_answers")),
    whole_document=True,
)
PROCEDURAL_OPEN_ITEMS = FileKind(
    "list of open items", json_with("question_id", "open_answers"), whole_document=True
)
PROCEDURAL_PREDICTIONS = FileKind(
    f"{_RECORDS} of predictions",
    json_with("question_id", "prediction", without=("evaluation",)),
    whole_document=True,
)
PROCEDURAL_JUDGED = FileKind(
    f"{_RECORDS} of judged predictions",
    json_with("question_id", "evaluation"),
    whole_document=True,
)

OverwriteOption = Annotated[
    bool,
    typer.Option(
        "--overwrite",
        help="Write the output even where a file or folder that this command did not write is "
        "in the way, or rendered videos would be deleted (its own earlier output is replaced "
        "without it).",
    ),
]


def advice(option: str = "--out") -> str:
    return f"choose another {option} or pass --overwrite"


ADVICE = advice()


def claim_output(
    out: Path, kind: FolderKind | FileKind, overwrite: bool, option: str = "--out"
) -> str | None:
    """Check that ``kind`` may be written to ``out`` (given as ``option``), raising
    InvalidInputError if not.

    Returns the line that says what the write replaces, for the command to print once it has
    written (:func:`say_replaced`); None when ``out`` is new or empty, or when the command
    writes into a folder of its own."""
    if isinstance(kind, FileKind):
        return _claim_file(out, kind, overwrite, option)
    if not out.exists():
        return None
    if not out.is_dir():
        message = f"is a file; expected a folder to write the {kind.what} to"
        raise InvalidInputError([Problem(str(out), "", message)])
    if next(out.iterdir(), None) is None:
        return None
    own = kind.holds_own(out)
    videos = count_videos(out, kind) if own and kind.whole else 0
    if not overwrite and not own:
        message = f"folder is not empty and is not a {kind.what}; {advice(option)}"
        raise InvalidInputError([Problem(str(out), "", message)])
    if not overwrite and videos:
        message = (
            f"replacing this {kind.what} would delete its {_files(videos, 'rendered video')} "
            f"({kind.video_place}); {advice(option)}"
        )
        raise InvalidInputError([Problem(str(out), "", message)])
    if own and not kind.whole:
        return None  # its own files are written again; nothing else is touched
    if own:
        deleted = f", deleting its {_files(videos, 'rendered video')}" if videos else ""
        return f"replaced the earlier {kind.what} in {out}{deleted}"
    files = sum(1 for path in out.rglob("*") if path.is_file())
    if not kind.whole:
        return f"wrote into {out}, beside the {_files(files, 'other')} it held (--overwrite)"
    return f"replaced {out} and the {_files(files, '')} it held (--overwrite)"


def _claim_file(out: Path, kind: FileKind, overwrite: bool, option: str) -> str | None:
    if not out.exists():
        return None
    if out.is_dir():
        message = f"is a folder; expected a file to write the {kind.what} to"
        raise InvalidInputError([Problem(str(out), "", message)])
    if out.stat().st_size == 0:
        return None
    if kind.holds_own(out):
        return f"replaced the earlier {kind.what} {out}"
    if not overwrite:
        message = f"file exists and is not a {kind.what}; {advice(option)}"
        raise InvalidInputError([Problem(str(out), "", message)])
    return f"replaced {out} (--overwrite)"


def say_replaced(line: str | None) -> None:
    """Print what a command's write replaced (the line :func:`claim_output` returned), once
    the command has written."""
    if line is not None:
        console.print(line, highlight=False, markup=False)


def count_videos(out: Path, kind: FolderKind) -> int:
    return len({path for pattern in kind.videos for path in out.glob(pattern) if path.is_file()})


def _files(count: int, adjective: str) -> str:
    noun = "file" if count == 1 else "files"
    return f"{count:,} {adjective} {noun}".replace("  ", " ")
