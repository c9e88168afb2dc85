"""A built benchmark folder (docs/benchmark-folder.md): manifest, splits, corpus, videos.

Evaluation reads the folder and nothing else, so a score can always be traced to the sha256 of
the folder's ``manifest.json``. This module is the one place that knows the folder's layout:
every path in it and the split families' names, its reader (``Benchmark``) and its writer
(``FolderWriter``), through which ``taskqa build`` (``--pairs`` too) and the tests' fixture
write it. What may change in a built folder afterwards is written here too: ``videos.csv`` and
the manifest's digests, once ``taskqa render BENCH`` has drawn the recordings of ``corpus/``
that had no video (``rewrite_video_list``).
"""

from __future__ import annotations

import csv
import hashlib
import io
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from taskqa.atomic import sha256_file, write_text
from taskqa.benchmark.splits import SPLITS
from taskqa.corpus import CorpusManifest, append_recordings, is_corpus, read_corpus, write_corpus
from taskqa.jsonio import dumps, jsonl_text, load_json, read_jsonl_objects, record_line, write_jsonl
from taskqa.model import Recording, VideoRef
from taskqa.problems import InvalidInputError, Problem, problems_from_validation_error
from taskqa.programs.clips import ClipRecord, clip_record, read_clips
from taskqa.questions.config import GenerationConfig
from taskqa.questions.records import Question

# --- the split families --------------------------------------------------------------------

NORMAL = "normal"  # stratified by reasoning type and answer (splits.normal_split)
INDIRECT = "indirect"  # indirect references held out (splits.indirect_split)
# the generalisation families (generalisation.py): the same balanced questions dealt otherwise
NOVEL_COMPOSITION = "novel-composition"
MORE_STEPS = "more-steps"
HELD_OUT_OBJECTS = "held-out-objects"
GENERALISATION_FAMILIES = (NOVEL_COMPOSITION, MORE_STEPS, HELD_OUT_OBJECTS)
# Every balanced split family a build may write, in report order; a folder holds those it could
# make (``families_in``): builds before the generalisation families, or a set too small for one.
FAMILIES = (NORMAL, INDIRECT, *GENERALISATION_FAMILIES)
# minimal pairs (build --pairs; docs/minimal-pairs.md): not balanced like the others, and listed
# in pairs.jsonl
PAIR_FAMILY = "pairs"
EVERY_FAMILY = (*FAMILIES, PAIR_FAMILY)

# --- the folder's files ----------------------------------------------------------------------

MANIFEST = "manifest.json"
CORPUS = "corpus"  # a copy of the corpus (a taskqa corpus folder), rendered files included
SPLITS_FOLDER = "splits"  # splits/<family>/<split>.jsonl
ANSWERS_FOLDER = "answers"  # answers/<family>.json: each balanced family's train vocabulary
DIAGNOSTICS_FOLDER = "diagnostics"  # the build report, and diagnostics.json
DIAGNOSTICS = "diagnostics.json"
CLIPS = "clips.jsonl"
VIDEOS = "videos.csv"
PAIRS = "pairs.jsonl"
# the questions asked of both recordings of every pair found, after the grounding check and
# before the split: what the pairs were chosen from (docs/benchmark-folder.md)
PAIR_CANDIDATES = "pairs.candidates.jsonl"
OLDER_BUILD = "the folder was built by an older taskqa; build it again with `taskqa build`"


@dataclass(frozen=True)
class SplitQuestion:
    """A question record of a split file: the generated question plus its split."""

    question: Question
    split: str

    @property
    def id(self) -> str:
        return self.question.id


@dataclass(frozen=True)
class VideoClip:
    """One row of ``videos.csv``: where a clip's frames are."""

    clip: str
    recording: str
    agent: str
    view: str
    video: Path
    start_s: float
    end_s: float


def family_folder(root: Path, family: str) -> Path:
    """The folder of a split family's split files."""
    return root / SPLITS_FOLDER / family


def split_file(root: Path, family: str, split: str) -> Path:
    """A split file: ``splits/<family>/<split>.jsonl``."""
    return family_folder(root, family) / f"{split}.jsonl"


def answers_file(root: Path, family: str) -> Path:
    """A balanced family's train answer vocabulary: ``answers/<family>.json``."""
    return root / ANSWERS_FOLDER / f"{family}.json"


def families_in(root: Path) -> tuple[str, ...]:
    """The split families a benchmark folder holds, in ``EVERY_FAMILY`` order."""
    return tuple(f for f in EVERY_FAMILY if family_folder(root, f).is_dir())


def parse_split_name(name: str) -> tuple[str, str]:
    """``"normal/test"`` -> ``("normal", "test")``, refusing anything else."""
    family, _, split = name.partition("/")
    if family not in EVERY_FAMILY or split not in SPLITS:
        choices = ", ".join(f"{f}/{s}" for f in EVERY_FAMILY for s in SPLITS)
        raise InvalidInputError([Problem(name, "", f"unknown split; expected one of {choices}")])
    return family, split


class Benchmark:
    def __init__(self, root: Path) -> None:
        if not (root / MANIFEST).is_file():
            raise InvalidInputError(
                [Problem(str(root), "", "not a benchmark folder (no manifest.json)")]
            )
        self.root = root
        manifest = load_json(root / MANIFEST)
        if not isinstance(manifest, dict):
            raise InvalidInputError([Problem("manifest.json", "", "expected a JSON object")])
        self.manifest: dict[str, Any] = manifest
        self._splits: dict[tuple[str, str], list[SplitQuestion]] = {}
        self._clips: dict[str, ClipRecord] | None = None

    @cached_property
    def manifest_sha256(self) -> str:
        return sha256_file(self.root / MANIFEST)

    @property
    def corpus_dir(self) -> Path:
        return self.root / CORPUS

    def split_path(self, family: str, split: str) -> Path:
        return split_file(self.root, family, split)

    def questions(self, family: str, split: str) -> list[SplitQuestion]:
        key = (family, split)
        if key not in self._splits:
            self._splits[key] = read_split(self.split_path(family, split))
        return self._splits[key]

    def answers(self) -> set[str]:
        """The closed answer vocabulary: every answer of every split file."""
        return {
            q.question.answer
            for family in EVERY_FAMILY
            for split in SPLITS
            if self.split_path(family, split).is_file()
            for q in self.questions(family, split)
        }

    def generation_config(self) -> GenerationConfig:
        """How the questions were generated: ``manifest["generation"]``, which ``build`` writes
        from the candidates' own settings (each clip of ``clips.jsonl`` carries the same)."""
        raw = self.manifest.get("generation")
        if not isinstance(raw, dict):
            raise InvalidInputError([Problem(self._name(MANIFEST), "generation", OLDER_BUILD)])
        try:
            return GenerationConfig.model_validate(raw)
        except ValidationError as error:
            where: list[str | int] = ["generation"]
            raise InvalidInputError(
                problems_from_validation_error(self._name(MANIFEST), where, error)
            ) from None

    def clips(self) -> dict[str, ClipRecord]:
        """Every clip the benchmark's questions are asked on (``clips.jsonl``), by id: the one
        source of clip windows for the oracle, adapters, exports and ``check``."""
        if self._clips is None:
            path = self.root / CLIPS
            if not path.is_file():
                raise InvalidInputError(
                    [Problem(self._name(CLIPS), "", f"not found; {OLDER_BUILD}")]
                )
            self._clips = read_clips(path, self._name(CLIPS))
        return self._clips

    def _name(self, file: str) -> str:
        return str(self.root / file)

    def pairs(self) -> list[dict[str, Any]]:
        """The minimal pairs (``pairs.jsonl``: question ids ``a`` and ``b``, the intervention,
        both recordings, the split); none for a build without ``--pairs``."""
        path = self.root / PAIRS
        if not path.is_file():
            return []
        pairs = []
        for index, record in read_jsonl_objects(path, self._name(PAIRS)):
            if not isinstance(record.get("a"), str) or not isinstance(record.get("b"), str):
                raise InvalidInputError(
                    [Problem.at(self._name(PAIRS), [index], "expected question ids a and b")]
                )
            pairs.append(record)
        return pairs

    def videos(self) -> VideoIndex:
        path = self.root / VIDEOS
        return read_videos(path, self.root) if path.is_file() else VideoIndex([])


def read_split(path: Path) -> list[SplitQuestion]:
    """Every question of a split file; a bad line raises with the file and its record path."""
    if not path.is_file():
        raise InvalidInputError([Problem(str(path), "", f"split file not found: {path}")])
    return [
        _split_question(path.name, index, record)
        for index, record in read_jsonl_objects(path, path.name)
    ]


def _split_question(file: str, index: int, record: dict[str, Any]) -> SplitQuestion:
    split = record.pop("split", "")
    record.pop("reasoning_type", None)  # recomputed from the tags; see docs/evaluation.md
    try:
        question = Question.model_validate(record)
    except ValidationError as error:
        raise InvalidInputError(problems_from_validation_error(file, [index], error)) from None
    return SplitQuestion(question, str(split))


class VideoIndex:
    """The rows of ``videos.csv``, found by clip id or by recording, agent and start time."""

    def __init__(self, rows: list[VideoClip]) -> None:
        self.rows = rows
        self._by_clip = {row.clip: row for row in rows if row.clip}

    def find(self, clip: str, recording: str, agent: str, start_s: float) -> VideoClip | None:
        if clip in self._by_clip:
            return self._by_clip[clip]
        for row in self.rows:
            same_person = row.recording == recording and row.agent == agent
            if same_person and abs(row.start_s - start_s) < START_TOLERANCE_S:
                return row
        return None


START_TOLERANCE_S = 0.05  # clip starts are frame-rounded in ids; 50 ms covers 20+ fps


def read_videos(path: Path, root: Path) -> VideoIndex:
    """Rows of ``videos.csv``; relative video paths are relative to the benchmark folder."""
    with path.open(encoding="utf-8", newline="") as stream:
        rows = [
            _video_row(path.name, index, row, root)
            for index, row in enumerate(csv.DictReader(stream))
        ]
    return VideoIndex(rows)


def _video_row(file: str, index: int, row: dict[str, str], root: Path) -> VideoClip:
    video = row.get("video") or row.get("video_file") or row.get("file") or ""
    try:
        start, end = float(row.get("start_s", "")), float(row.get("end_s", ""))
    except ValueError:
        raise InvalidInputError(
            [Problem.at(file, [index], "start_s and end_s must be numbers")]
        ) from None
    path = Path(video)
    return VideoClip(
        clip=row.get("clip", ""),
        recording=row.get("recording", ""),
        agent=row.get("agent", ""),
        view=row.get("view", ""),
        video=path if path.is_absolute() else root / path,
        start_s=start,
        end_s=end,
    )


class FolderWriter:
    """Writes a benchmark folder in the layout its reader (``Benchmark``) reads: ``taskqa build``
    into its staged folder, the minimal pairs' files and second recordings
    (``taskqa.benchmark.pairs``), ``rewrite_video_list``, and the tests' fixture. Each method
    writes one part; ``manifest`` comes last, since it lists the sha256 of every other file."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @property
    def corpus(self) -> Path:
        """The corpus copy's folder (``corpus/``)."""
        return self.root / CORPUS

    @property
    def diagnostics(self) -> Path:
        """The folder of the build report and ``diagnostics.json``."""
        return self.root / DIAGNOSTICS_FOLDER

    @property
    def pair_candidates(self) -> Path:
        """``pairs.candidates.jsonl``: written here, then narrowed by the grounding check."""
        return self.root / PAIR_CANDIDATES

    def write_family(
        self, family: str, by_split: Mapping[str, Iterable[Mapping[str, Any]]]
    ) -> dict[str, int]:
        """A split family's three split files, each question record with its ``split`` (an
        empty file for a split without questions); returns the questions per split."""
        sizes: dict[str, int] = {}
        for split in SPLITS:
            lines = [record_line({**record, "split": split}) for record in by_split.get(split, ())]
            write_text(split_file(self.root, family, split), "".join(lines))
            sizes[split] = len(lines)
        return sizes

    def write_answers(self, family: str, vocabulary: Sequence[tuple[str, int]]) -> None:
        """A balanced family's train answer vocabulary, ``[[answer, count], ...]``."""
        write_text(answers_file(self.root, family), dumps(vocabulary))

    def write_pairs(self, lines: Iterable[Mapping[str, Any]]) -> None:
        """``pairs.jsonl``, one line per minimal pair."""
        write_text(self.root / PAIRS, jsonl_text(lines))

    def write_pair_candidates(self, records: Iterable[Mapping[str, Any]]) -> Path:
        """Every question asked of both recordings of the pairs found (``pair_candidates``)."""
        write_text(self.pair_candidates, jsonl_text(records))
        return self.pair_candidates

    def copy_corpus(self, source: Path, recordings: Sequence[Recording]) -> None:
        """``corpus/``: a copy of the corpus folder ``source`` (its rendered files included),
        or, for recordings read from another format, a taskqa corpus of them."""
        if is_corpus(source):
            shutil.copytree(source, self.corpus)
            return
        manifest = CorpusManifest(generator=f"taskqa build (from {source.name})")
        write_corpus(self.corpus, recordings, manifest)

    def add_recordings(self, held: Sequence[Recording], added: Sequence[Recording]) -> None:
        """Add recordings (the pairs' second ones) to the corpus copy, which holds ``held``."""
        append_recordings(self.corpus, held, added)

    def write_clips(self, clips: Iterable[ClipRecord]) -> None:
        """``clips.jsonl``: every clip a question is asked on, with the settings that cut it."""
        write_jsonl(self.root / CLIPS, (clip_record(r.clip, r.generation) for r in clips))

    def write_videos(self, recordings: Sequence[Recording], clips: Sequence[ClipRecord]) -> None:
        """``videos.csv`` of ``clips``, from the video references of ``recordings``."""
        self.write_video_list(video_list(recordings, clips))

    def write_video_list(self, text: str) -> None:
        """``videos.csv`` as ``video_list`` made it."""
        write_text(self.root / VIDEOS, text)

    def write_diagnostics(self, diagnostics: Mapping[str, Any]) -> None:
        """``diagnostics/diagnostics.json``."""
        write_text(self.diagnostics / DIAGNOSTICS, dumps(diagnostics))

    def corpus_digest(self) -> str:
        """One digest of the corpus copy (the manifest's ``corpus.sha256``)."""
        return corpus_digest(self.corpus)

    def manifest(self, fields: Mapping[str, Any]) -> dict[str, Any]:
        """``fields`` with ``files``: the sha256 of every file of the folder but the manifest,
        as the folder holds them now (in the place ``fields`` has it, else last)."""
        return {**fields, "files": file_digests(self.root)}

    def write_manifest(self, manifest: Mapping[str, Any]) -> None:
        """``manifest.json``, made by ``manifest`` once every other file is written."""
        write_text(self.root / MANIFEST, dumps(manifest))


def pair_id(a: str, b: str) -> str:
    """A minimal pair's id: its two question ids, first recording's first. A question of the
    first recording is in one pair only, so the id is unique in the benchmark."""
    return f"{a}-{b}"


def pair_ids(pair: Mapping[str, Any]) -> str:
    """The id of a line of ``pairs.jsonl`` (a build before pair ids wrote none: made again)."""
    return str(pair.get("id") or pair_id(str(pair["a"]), str(pair["b"])))


def pairs_both_right(
    pairs: Iterable[Mapping[str, Any]], right: Mapping[str, bool]
) -> tuple[int, int]:
    """Of the pairs both of whose questions are scored (``right``: question id -> right), how
    many have both right, and how many there are."""
    scored = [p for p in pairs if p["a"] in right and p["b"] in right]
    return sum(right[p["a"]] and right[p["b"]] for p in scored), len(scored)


def pair_accuracy(
    pairs: Iterable[Mapping[str, Any]], right: Mapping[str, bool]
) -> dict[str, float | int]:
    """Pair accuracy, the one definition the build's blind scores and ``taskqa evaluate`` use:
    the pairs scored and the share of them (a fraction; 0.0 for none) whose two questions are
    both right. The lmms-eval and VLMEvalKit exports carry their own copy, since they run
    without taskqa."""
    both, scored = pairs_both_right(pairs, right)
    return {"pairs": scored, "pair_accuracy": both / scored if scored else 0.0}


# --- videos.csv ------------------------------------------------------------------------------


def clips_of_split_file(path: Path) -> Path | None:
    """The benchmark's ``clips.jsonl`` for one of its split files
    (``BENCH/splits/<family>/<split>.jsonl``); None for any other file."""
    root = path.parent.parent.parent
    if path.parent.parent.name == SPLITS_FOLDER and (root / CLIPS).is_file():
        return root / CLIPS
    return None


def is_benchmark(path: Path) -> bool:
    """Whether ``path`` is a built benchmark folder (a manifest, splits and a corpus copy)."""
    return (
        (path / MANIFEST).is_file() and (path / SPLITS_FOLDER).is_dir() and is_corpus(path / CORPUS)
    )


def benchmark_of(path: Path) -> Path | None:
    """The benchmark folder ``path`` names: a built benchmark, or the ``corpus/`` copy inside
    one (whose videos only count once ``videos.csv`` names them); None for anything else."""
    if is_benchmark(path):
        return path
    if path.name == CORPUS and is_benchmark(path.parent):
        return path.parent
    return None


def video_file(corpus: Path, uri: str) -> Path | None:
    """The local file a video reference names (relative to ``corpus``); None for a ``sim://``
    address of an unrendered recording, or a URL."""
    if "://" in uri:
        return None
    path = Path(uri)
    return path if path.is_absolute() else corpus / path


def has_video(corpus: Path, recording: Recording) -> bool:
    """Whether every video of ``recording`` is a file in ``corpus``: it was rendered there."""
    files = [video_file(corpus, video.uri) for video in recording.videos]
    return bool(files) and all(file is not None and file.is_file() for file in files)


def video_list(recordings: Sequence[Recording], clips: Sequence[ClipRecord]) -> str:
    """``videos.csv``: where each clip's pixels are (recording, agent, view, video, start and end
    seconds), one row per video of the clip's person and of the room."""
    by_id = {recording.id: recording for recording in recordings}
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["clip", "recording", "agent", "view", "video", "start_s", "end_s"])
    for clip in clips:
        recording = by_id[clip.recording]
        videos: list[VideoRef | None] = [
            v for v in recording.videos if v.agent in (None, clip.agent)
        ]
        for video in videos or [None]:
            writer.writerow(
                [
                    clip.id,
                    recording.id,
                    clip.agent,
                    video.view.value if video else "",
                    _video_path(video.uri) if video else "",
                    f"{clip.start:.3f}",
                    f"{clip.end:.3f}",
                ]
            )
    return buffer.getvalue()


def _video_path(uri: str) -> str:
    """A video as ``videos.csv`` names it: relative to the benchmark folder, whose ``corpus/``
    is a copy of the corpus (rendered files included); URLs and ``sim://`` addresses as they are.
    """
    if "://" in uri or Path(uri).is_absolute():
        return uri
    return f"{CORPUS}/{uri}"


def recordings_without_video(bench: Path) -> list[str]:
    """The recordings of ``bench/corpus`` that the benchmark's clips use and that have no video
    file there (never rendered, or rendered elsewhere), in corpus order: what ``taskqa render
    BENCH`` draws. Both recordings of a minimal pair are among them or neither is, once
    rendered by it."""
    used = {clip.recording for clip in Benchmark(bench).clips().values()}
    corpus = bench / CORPUS
    return [r.id for r in read_corpus(corpus) if r.id in used and not has_video(corpus, r)]


@dataclass(frozen=True)
class VideoList:
    """What ``videos.csv`` holds after ``rewrite_video_list``."""

    clips: int
    without_video: int  # clips whose video (first-person, as the exports choose) is no file
    changed: bool  # whether videos.csv (and so manifest.json) changed

    def line(self, bench: Path) -> str:
        said = "rewrote" if self.changed else "kept"
        missing = (
            f"{self.without_video:,} of them without a video file"
            if self.without_video
            else "every one with its video file"
        )
        updated = "; manifest.json's digests updated" if self.changed else ""
        return f"{said} {bench / VIDEOS}: {self.clips:,} clips, {missing}{updated}"


def rewrite_video_list(bench: Path) -> VideoList:
    """Write ``videos.csv`` again from the video references of ``corpus/recordings.jsonl`` (which
    ``taskqa render`` sets) and ``clips.jsonl``, in the clips' order as the build wrote it, and
    bring ``manifest.json``'s file digests and corpus digest up to date with what the folder now
    holds (its sha256 changes with them: the benchmark's videos did)."""
    from taskqa.benchmark.clip_videos import videos_by_clip

    benchmark, folder = Benchmark(bench), FolderWriter(bench)
    clips = list(benchmark.clips().values())
    text = video_list(read_corpus(folder.corpus), clips)
    path = bench / VIDEOS
    changed = not path.is_file() or path.read_text(encoding="utf-8") != text
    if changed:
        folder.write_video_list(text)
    fields = dict(benchmark.manifest)
    corpus = fields.get("corpus")
    if isinstance(corpus, dict):
        fields["corpus"] = {**corpus, "sha256": folder.corpus_digest()}
    manifest = folder.manifest(fields)
    if manifest != benchmark.manifest:
        folder.write_manifest(manifest)
        changed = True
    chosen = videos_by_clip(read_videos(path, bench))
    seen = {clip for clip, row in chosen.items() if row.video.is_file()}
    without = sum(1 for clip in clips if clip.id not in seen)
    return VideoList(clips=len(clips), without_video=without, changed=changed)


def file_digests(folder: Path) -> dict[str, str]:
    """The sha256 of every file of ``folder`` but its manifest, by relative path (sorted)."""
    return {
        path.relative_to(folder).as_posix(): sha256_file(path)
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.name != MANIFEST
    }


def corpus_digest(folder: Path) -> str:
    """One digest of a corpus copy: of its files' names and digests."""
    digest = hashlib.sha256()
    for name, value in file_digests(folder).items():
        digest.update(f"{name}:{value}\n".encode())
    return digest.hexdigest()
