"""Output folders a command replaces as a whole are never replaced by surprise.

``simulate``, ``build``, ``convert``, the exports, ``verify build`` and ``physics simulate``
write their folder through :func:`taskqa.atomic.staged_directory`, which swaps the new folder
in and deletes the old one. Before any work starts, :func:`claim_output` checks what is there:

- nothing, or an empty folder: go ahead;
- the same kind of folder (this command's own earlier output, known by its marker files):
  replace it, unless that would delete rendered videos the command does not make again;
- anything else: refuse, unless the user passed ``--overwrite``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from taskqa.problems import InvalidInputError, Problem


@dataclass(frozen=True)
class FolderKind:
    """What a command writes: a name for messages, the files every such folder holds, and the
    glob patterns of rendered videos that replacing one would delete."""

    what: str
    markers: tuple[str, ...]
    videos: tuple[str, ...] = ()
    video_place: str = ""  # how messages name where the videos lie


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

OverwriteOption = Annotated[
    bool,
    typer.Option(
        "--overwrite",
        help="Replace --out even when it holds something else, or rendered videos that would "
        "be deleted (a folder this command wrote before is replaced without it).",
    ),
]
ADVICE = "choose another --out or pass --overwrite"


def claim_output(out: Path, kind: FolderKind, overwrite: bool) -> str | None:
    """Check that ``kind`` may be written to ``out``, raising InvalidInputError if not.

    Returns the line that says what the write replaces, for the command to print once it has
    written; None when ``out`` is new or empty."""
    if not out.exists():
        return None
    if not out.is_dir():
        message = f"is a file; expected a folder to write the {kind.what} to"
        raise InvalidInputError([Problem(str(out), "", message)])
    if next(out.iterdir(), None) is None:
        return None
    own = all((out / marker).exists() for marker in kind.markers)
    videos = count_videos(out, kind) if own else 0
    if not overwrite and not own:
        message = f"folder is not empty and is not a {kind.what}; {ADVICE}"
        raise InvalidInputError([Problem(str(out), "", message)])
    if not overwrite and videos:
        message = (
            f"replacing this {kind.what} would delete its {_files(videos, 'rendered video')} "
            f"({kind.video_place}); {ADVICE}"
        )
        raise InvalidInputError([Problem(str(out), "", message)])
    if own:
        deleted = f", deleting its {_files(videos, 'rendered video')}" if videos else ""
        return f"replaced the earlier {kind.what} in {out}{deleted}"
    files = sum(1 for path in out.rglob("*") if path.is_file())
    return f"replaced {out} and the {_files(files, '')} it held (--overwrite)"


def count_videos(out: Path, kind: FolderKind) -> int:
    return len({path for pattern in kind.videos for path in out.glob(pattern) if path.is_file()})


def _files(count: int, adjective: str) -> str:
    noun = "file" if count == 1 else "files"
    return f"{count:,} {adjective} {noun}".replace("  ", " ")
