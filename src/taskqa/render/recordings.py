"""Household recordings to video: one MP4 per person's first-person view and per room's fixed
third-person camera, optional per-frame instance masks, and the corpus pointing at them.

Each recording renders on its own (a fresh pybullet client, frames at ``i / fps``), so the
files do not depend on how many worker processes share the work.
"""

from __future__ import annotations

import csv
import io
import json
import os
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from taskqa.atomic import sha256_file, write_bytes, write_text
from taskqa.corpus import RECORDINGS, dump_recording, read_corpus
from taskqa.execution import Execution, ShardJournal, fingerprint, run_shards
from taskqa.jsonio import dumps, jsonl_lines, parse_json
from taskqa.model import Recording, Source, VideoRef, View
from taskqa.problems import InvalidInputError, Problem
from taskqa.render.engine import Camera, Vec3
from taskqa.render.gaze import Director, room_camera
from taskqa.render.household import FIRST_PERSON_FOV, HouseholdScene
from taskqa.render.household import View as SceneView
from taskqa.render.models import LookSpec, load_look, parse_look
from taskqa.render.timeline import Timeline
from taskqa.render.video import write_mp4
from taskqa.simulation.corpus import corpus_domain_file
from taskqa.simulation.domain import Domain, load_domain, parse_domain

THIRD = "third"
FIRST = "first"
VIEWS = (FIRST, THIRD)
MASKS_SUFFIX = ".masks.npz"
DEPTH_SUFFIX = ".depth.npz"
VIDEO_MANIFEST = "manifest.json"  # the sha256 of every rendered file


@dataclass(frozen=True)
class RenderOptions:
    fps: float = 2.0
    width: int = 224
    height: int = 224
    views: tuple[str, ...] = VIEWS
    masks: bool = False
    backend: str = "tiny"  # gl or tiny, as engine.resolve_backend chose it
    depth: bool = False  # per-frame depth in millimetres, from the same pass as the masks
    appearance: str = "textured"  # the GL back-end's look: flat, shaded or textured
    # seen, or held-out: colours and surfaces no seen render uses (models.LookSpec.held_out)
    appearance_set: str = "seen"


@dataclass
class RenderedRecording:
    recording: str
    videos: list[VideoRef] = field(default_factory=list)
    files: list[str] = field(default_factory=list)  # relative to the corpus, or uploads' URLs
    frames: int = 0


def _views_drawn(timeline: Timeline, options: RenderOptions) -> list[tuple[str | None, str]]:
    """(agent, file name) of every view ``options`` asks for: each person's, then the room's."""
    views: list[tuple[str | None, str]] = []
    if FIRST in options.views:
        views += [(agent, view_name(agent)) for agent in timeline.agents]
    if THIRD in options.views:
        views.append((None, THIRD))
    return views


def frame_count(duration: float, fps: float) -> int:
    """Frames of a recording's video: its duration on the frame grid, at least one."""
    return max(1, round(duration * fps))


def view_name(agent: str | None) -> str:
    return f"{agent}-{FIRST}" if agent is not None else THIRD


def render_recording(
    recording: Recording,
    domain: Domain,
    look: LookSpec,
    folder: Path,
    corpus: Path,
    options: RenderOptions,
) -> RenderedRecording:
    """Render one recording into ``folder`` and return the video references (relative to
    ``corpus``)."""
    result = RenderedRecording(recording.id)
    with household_scene(recording, domain, look, options) as scene:
        timeline = scene.timeline
        director = Director(scene)
        views = _views_drawn(timeline, options)
        count = frame_count(recording.duration, options.fps)
        frames: dict[str, list[npt.NDArray[np.uint8]]] = {name: [] for _, name in views}
        labels: dict[str, list[npt.NDArray[np.uint16]]] = {name: [] for _, name in views}
        depths: dict[str, list[npt.NDArray[np.uint16]]] = {name: [] for _, name in views}
        passes = options.masks or options.depth
        for index in range(count):
            t = index / options.fps
            gaze, stand = director.at(t)
            scene.set_time(t, gaze, stand)
            for agent, name in views:
                camera = view_camera(scene, options, agent, gaze, stand)
                frame = scene.capture(_view(camera, agent), masks=passes)
                frames[name].append(frame.rgb)
                if options.masks:
                    labels[name].append(frame.labels)
                if options.depth and frame.depth is not None:
                    depths[name].append(millimetres(frame.depth))
        target = folder / recording.id
        for agent, name in views:
            path = target / f"{name}.mp4"
            write_mp4(path, frames[name], options.fps)
            uri = Path(os.path.relpath(path, corpus)).as_posix()
            kind = View.THIRD_PERSON if agent is None else View.FIRST_PERSON
            result.videos.append(VideoRef(uri=uri, view=kind, agent=agent))
            result.files.append(uri)
            if options.masks:
                mask_path = target / f"{name}{MASKS_SUFFIX}"
                write_bytes(mask_path, masks_npz(np.stack(labels[name]), scene.labels))
                result.files.append(Path(os.path.relpath(mask_path, corpus)).as_posix())
            if options.depth:
                depth_path = target / f"{name}{DEPTH_SUFFIX}"
                write_bytes(depth_path, arrays_npz({"depth_mm": np.stack(depths[name])}))
                result.files.append(Path(os.path.relpath(depth_path, corpus)).as_posix())
        result.frames = count
    return result


def render_frames(
    recording: Recording,
    domain: Domain,
    look: LookSpec,
    indices: Sequence[int],
    options: RenderOptions,
) -> dict[str, list[npt.NDArray[np.uint8]]]:
    """Only some frames of a recording, by index on its frame grid (``i / options.fps``), per
    view name (``view_name``: ``<agent>-first``, ``third``), in the order of ``indices``; no
    file is written. The cameras and times are those of ``render_recording``, so frame ``i``
    shows what frame ``i`` of the rendered video shows, before the video's compression."""
    with household_scene(recording, domain, look, options) as scene:
        timeline = scene.timeline
        director = Director(scene)
        views = _views_drawn(timeline, options)
        frames: dict[str, list[npt.NDArray[np.uint8]]] = {name: [] for _, name in views}
        for index in indices:
            t = index / options.fps
            gaze, stand = director.at(t)
            scene.set_time(t, gaze, stand)
            for agent, name in views:
                camera = view_camera(scene, options, agent, gaze, stand)
                frames[name].append(scene.capture(_view(camera, agent), masks=False).rgb)
    return frames


def household_scene(
    recording: Recording, domain: Domain, look: LookSpec, options: RenderOptions
) -> HouseholdScene:
    """The recording's room as a scene, drawn as ``options`` say (size, back-end, look)."""
    room = recording.environment or next(iter(domain.spec.rooms))
    return HouseholdScene(
        Timeline(recording, domain),
        domain,
        look,
        room,
        options.width,
        options.height,
        options.backend,
        options.appearance,
        options.appearance_set,
    )


def _view(camera: Camera, agent: str | None) -> SceneView:
    return SceneView(camera=camera, agent=agent)


def _first_person(
    gaze: tuple[tuple[float, float, float], tuple[float, float, float]], options: RenderOptions
) -> Camera:
    eye, target = gaze
    return Camera(
        eye=eye, target=target, fov=FIRST_PERSON_FOV, width=options.width, height=options.height
    )


def view_camera(
    scene: HouseholdScene,
    options: RenderOptions,
    agent: str | None,
    gaze: dict[str, tuple[Vec3, Vec3]],
    stand: dict[str, tuple[Vec3, float]],
) -> Camera:
    """The camera of one view at this moment: ``agent``'s eyes, or (None) the room camera,
    framed on the people where the room's look asks."""
    if agent is not None:
        return _first_person(gaze[agent], options)
    return room_camera(scene.layout.third_person, gaze, stand, options.width, options.height)


def millimetres(depth: npt.NDArray[np.float32]) -> npt.NDArray[np.uint16]:
    """Metres as whole millimetres in 16 bits (65.535 m at most: every room is smaller)."""
    whole: npt.NDArray[np.uint16] = np.clip(np.rint(depth * 1000.0), 0, 65535).astype(np.uint16)
    return whole


def masks_npz(labels: npt.NDArray[np.uint16], names: Sequence[str]) -> bytes:
    """An .npz with ``labels`` (frames, height, width; 0 = room) and ``names`` (label -> thing),
    written with fixed zip timestamps so the same masks always give the same bytes."""
    return arrays_npz({"labels": labels, "names": np.asarray(list(names), dtype=np.str_)})


def arrays_npz(arrays: dict[str, npt.NDArray[Any]]) -> bytes:
    """Arrays as an .npz with fixed zip timestamps: the same arrays always give the same bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for key, array in arrays.items():
            member = io.BytesIO()
            np.lib.format.write_array(member, np.ascontiguousarray(array), allow_pickle=False)
            info = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, member.getvalue())
    return buffer.getvalue()


def read_masks(path: Path) -> tuple[npt.NDArray[np.uint16], list[str]]:
    with np.load(path, allow_pickle=False) as data:
        return np.asarray(data["labels"], dtype=np.uint16), [str(n) for n in data["names"]]


# --- a whole corpus ----------------------------------------------------------------------------
def corpus_domain(corpus: Path) -> Domain:
    """The domain a simulated corpus was made from (its domain.yaml), else the built-in one."""
    return load_domain(corpus_domain_file(corpus))  # refuses a named domain.yaml that is gone


def select_recordings(
    recordings: Sequence[Recording],
    ids: Sequence[str] | None = None,
    clips_from: Path | None = None,
    limit: int | None = None,
    source: str = RECORDINGS,
) -> list[Recording]:
    """The recordings to render: named ones, those a benchmark's clips use, or all; then the
    first ``limit``."""
    chosen = list(recordings)
    known = {r.id for r in recordings}
    if ids:
        missing = [i for i in ids if i not in known]
        if missing:
            raise InvalidInputError(
                [
                    Problem(
                        source, "", f"no recording with id {i!r}; expected one of the corpus's ids"
                    )
                    for i in missing
                ]
            )
        wanted = set(ids)
        chosen = [r for r in chosen if r.id in wanted]
    if clips_from is not None:
        wanted = _clip_recordings(clips_from)
        chosen = [r for r in chosen if r.id in wanted]
    if limit is not None:
        chosen = chosen[:limit]
    index = {r.id: i for i, r in enumerate(recordings)}
    foreign = [
        Problem.at(
            source,
            [index[r.id], "source"],
            f"{r.source.value}; expected a simulated recording (only simulated worlds are drawn)",
        )
        for r in chosen
        if r.source != Source.SIMULATED
    ]
    if foreign:
        raise InvalidInputError(foreign)
    return chosen


def _clip_recordings(bench: Path) -> set[str]:
    table = bench / "videos.csv"
    if not table.is_file():
        raise InvalidInputError(
            [
                Problem(
                    bench.name, "", "no videos.csv; expected a benchmark folder from `taskqa build`"
                )
            ]
        )
    with table.open(encoding="utf-8", newline="") as stream:
        rows = list(csv.DictReader(stream))
    if rows and "recording" not in rows[0]:
        raise InvalidInputError(
            [
                Problem(
                    "videos.csv",
                    "[0]",
                    "no `recording` column; expected the clip table of a benchmark",
                )
            ]
        )
    return {row["recording"] for row in rows}


# What every render shard shares: domain and look (text and file name), the video folder, the
# corpus folder and the options. Workers get JSON and YAML text: cheap to send, and parsed the
# same way everywhere.
RenderContext = tuple[str, str, str, str, str, str, RenderOptions]
# One rendered recording: its video references (JSON), files, frames and each file's sha256.
RenderShard = tuple[str, list[str], int, dict[str, str]]


def _render_one(context: RenderContext, line: str) -> RenderShard:
    from taskqa.execution.storage import split_url
    from taskqa.render.engine import quiet_pybullet

    domain_source, domain_file, look_source, look_file, folder, corpus, options = context
    quiet_pybullet()
    domain = parse_domain(domain_source, domain_file)
    look = parse_look(look_source, look_file)
    recording = Recording.model_validate_json(line)
    if split_url(folder) is not None:
        return _render_and_upload(recording, domain, look, folder, options)
    rendered = render_recording(recording, domain, look, Path(folder), Path(corpus), options)
    videos = [v.model_dump_json(exclude_none=True) for v in rendered.videos]
    digests = {name: sha256_file(Path(corpus) / name) for name in rendered.files}
    return json.dumps(videos), rendered.files, rendered.frames, digests


def _render_and_upload(
    recording: Recording, domain: Domain, look: LookSpec, url: str, options: RenderOptions
) -> RenderShard:
    """Render into a local temporary folder as into a local ``--out`` (the same bytes), then
    upload each file to ``url/<recording>/<file>``. The references, files and digests name
    the uploaded objects by their full URLs: they are not relative to the corpus."""
    import shutil
    import tempfile

    from taskqa.execution.storage import join, upload

    scratch = Path(tempfile.mkdtemp(prefix="taskqa-render-"))
    try:
        rendered = render_recording(recording, domain, look, scratch, scratch, options)
        digests: dict[str, str] = {}
        for name in rendered.files:
            upload(scratch / name, join(url, name))
            digests[join(url, name)] = sha256_file(scratch / name)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    videos = [
        video.model_copy(update={"uri": join(url, video.uri)}).model_dump_json(exclude_none=True)
        for video in rendered.videos
    ]
    return json.dumps(videos), list(digests), rendered.frames, digests


def _decode_render(data: bytes) -> RenderShard:
    videos, files, frames, digests = json.loads(data)
    return videos, files, frames, digests


def _files_intact(corpus: Path) -> Callable[[RenderShard], bool]:
    """Whether a journaled shard's files are still there as they were written (``--resume``);
    uploaded objects (named by URL) are read back and their sha256 compared."""
    from taskqa.execution.storage import sha256_url, split_url

    def same(name: str, digest: str) -> bool:
        if split_url(name) is not None:
            return sha256_url(name) == digest
        return (corpus / name).is_file() and sha256_file(corpus / name) == digest

    def intact(shard: RenderShard) -> bool:
        return all(same(name, digest) for name, digest in shard[3].items())

    return intact


def render_corpus(
    corpus: Path,
    out: Path | str | None = None,
    options: RenderOptions | None = None,
    ids: Sequence[str] | None = None,
    clips_from: Path | None = None,
    limit: int | None = None,
    workers: int = 1,
    on_progress: Callable[[int], None] | None = None,
    look_path: Path | None = None,
    execution: Execution | None = None,
    journal: Path | None = None,
) -> list[RenderedRecording]:
    """Render the chosen recordings of ``corpus`` into ``out`` (default: ``corpus/videos``) and
    point their video references at the files; other recordings keep theirs.

    One shard is one recording; workers write its files into ``out`` themselves (on a cluster
    it must be a path every node sees) and send back only references and digests, which go to
    ``out/manifest.json``. ``out`` may also be an object-storage URL (a ``str`` such as
    ``s3://bucket/videos``): workers upload the files there, the references are their URLs
    and the manifest is written there (``taskqa.execution.storage``). ``execution`` says where
    shards run (default: ``workers`` local processes) and ``journal`` is the folder recording
    finished shards for a resumed run.
    """
    execution = execution or Execution(workers=workers)
    options = options or RenderOptions()
    folder = out if out is not None else corpus / "videos"
    if isinstance(folder, str):
        from taskqa.execution.storage import check_store

        check_store(folder)  # before any work: the back-end is there and the store answers
    recordings = read_corpus(corpus)
    domain = corpus_domain(corpus)
    look = load_look(look_path)
    look_text, look_file = look_source(look_path)
    chosen = select_recordings(recordings, ids, clips_from, limit)
    context: RenderContext = (
        domain.source_text,
        domain.file_name,
        look_text,
        look_file,
        folder if isinstance(folder, str) else str(folder.resolve()),
        str(corpus.resolve()),
        options,
    )
    del look
    lines = [dump_recording(r) for r in chosen]
    labels = [f"{index} (recording {r.id})" for index, r in enumerate(chosen)]
    shards = None
    if journal is not None:
        run = fingerprint("render", json.dumps([*context[:6], repr(options)]), *lines)
        shards = ShardJournal(journal, run, len(lines), execution.resume)
    digests: dict[str, str] = {}
    with execution.open() as executor:
        results = run_shards(
            executor,
            _render_one,
            context,
            lines,
            labels,
            shards,
            decode=_decode_render,
            still_valid=_files_intact(corpus.resolve()),
        )
        rendered = _collect(chosen, results, on_progress, digests)
    if isinstance(folder, str):
        write_remote_manifest(folder, digests, options)
    else:
        write_manifest(folder, corpus, digests, options)
    point_videos(corpus, {r.recording: r.videos for r in rendered})
    if shards is not None:
        shards.finish()
    return rendered


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


def look_source(path: Path | None) -> tuple[str, str]:
    if path is None:
        from importlib import resources

        from taskqa.render.models import BUILTIN

        return resources.files("taskqa.render").joinpath(BUILTIN).read_text(
            encoding="utf-8"
        ), BUILTIN
    return path.read_text(encoding="utf-8"), path.name


def _collect(
    chosen: Sequence[Recording],
    results: Iterable[RenderShard],
    on_progress: Callable[[int], None] | None,
    digests: dict[str, str],
) -> list[RenderedRecording]:
    rendered = []
    for recording, (videos, files, frames, written) in zip(chosen, results, strict=True):
        refs = [VideoRef.model_validate_json(v) for v in json.loads(videos)]
        rendered.append(RenderedRecording(recording.id, refs, list(files), frames))
        digests.update(written)
        if on_progress:
            on_progress(1)
    return rendered


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
