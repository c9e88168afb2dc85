"""A household corpus to video: its chosen recordings rendered, and the corpus pointing at them.

One shard is one recording (``recording_files.render_recording``); workers write its files
themselves, into a local folder or an object-storage URL, and send back only references and
digests, which go to the videos' manifest. ``recordings.jsonl`` is then rewritten with the new
video references, every other line byte for byte as it was.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from taskqa.atomic import sha256_file
from taskqa.corpus import dump_recording, point_videos, read_corpus
from taskqa.execution import Execution, ShardJournal, fingerprint, run_shards
from taskqa.household.look_spec import LookSpec, load_look, look_source, parse_look
from taskqa.household.manifest import write_manifest, write_remote_manifest
from taskqa.household.options import RenderOptions
from taskqa.household.recording_files import RenderedRecording, render_recording
from taskqa.household.selection import select_recordings
from taskqa.model import Recording, VideoRef
from taskqa.problems import InvalidInputError, Problem
from taskqa.simulation.corpus import corpus_domain
from taskqa.simulation.domain import Domain, parse_domain


def domain_to_draw(corpus: Path, recordings: Sequence[Recording]) -> Domain:
    """The world ``recordings`` of ``corpus`` are drawn in: the corpus's own domain, by the one
    rule every stage uses (``simulation.corpus.corpus_domain``); refused where there is none
    (recordings of a world this corpus does not carry cannot be drawn)."""
    domain = corpus_domain(corpus, recordings)
    if domain is None:
        message = (
            "no world to draw these recordings in: they are not simulated from the built-in "
            "world and the corpus carries no domain.yaml"
        )
        raise InvalidInputError([Problem(str(corpus), "", message)])
    return domain


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
    domain = domain_to_draw(corpus, recordings)
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
