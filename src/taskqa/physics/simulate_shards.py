"""``taskqa physics simulate`` as shards: one scene each, on any executor, same files.

A scene is a pure function of (seed, scene index, layout), so scenes can run anywhere. With
``render``, a shard draws its scene's video into the journal's media folder
(``taskqa.execution.media``) and the driver moves it into the output at the end.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from taskqa.atomic import sha256_file, staged_directory, write_text
from taskqa.execution import Execution, ShardJournal, fingerprint, journal_beside, run_shards
from taskqa.execution.media import media_folder, media_intact, move_media
from taskqa.physics.scene import LayoutConfig

# What every scene shard shares: the seed, the layout, whether to render and the media folder.
SceneContext = tuple[int, LayoutConfig, str, str]  # seed, layout, back-end or "", media
# One scene: annotation file name and text, collision count, and its video's sha256 by name.
SceneShard = tuple[str, str, int, dict[str, str]]


@dataclass(frozen=True)
class SimulatedScenes:
    scenes: int
    collisions: int
    videos: int


def simulate_scene_shard(context: SceneContext, index: int) -> SceneShard:
    from taskqa.physics.clevrer_format import annotation_filename, annotation_json
    from taskqa.physics.engine import simulate_scene
    from taskqa.physics.scene import sample_scene
    from taskqa.physics.video import render_mp4

    seed, layout, backend, media = context
    annotation = simulate_scene(sample_scene(seed, index, layout))
    digests: dict[str, str] = {}
    if backend:
        path = Path(media) / annotation.video_filename
        render_mp4(annotation, path, backend=backend)
        digests[annotation.video_filename] = sha256_file(path)
    text = annotation_json(annotation)
    return annotation_filename(index), text, len(annotation.collision), digests


def _decode(data: bytes) -> SceneShard:
    name, text, collisions, digests = json.loads(data)  # a worker's message, from encode_json
    return name, text, collisions, digests


def simulate_scenes(
    out: Path,
    scenes: int,
    seed: int,
    first_index: int = 0,
    render: bool = False,
    execution: Execution | None = None,
    on_progress: Callable[[int], None] | None = None,
    backend: str = "tiny",
) -> SimulatedScenes:
    """Write one CLEVRER annotation per scene (and its video) and ``scenes.json`` into ``out``."""
    from taskqa.physics.pipeline import MANIFEST, manifest_json

    execution = execution or Execution()
    layout = LayoutConfig()
    indices = list(range(first_index, first_index + scenes))
    journal_path = journal_beside(out)
    media = media_folder(journal_path)
    drawn = backend if render else ""
    run = fingerprint("physics simulate", str(seed), repr(layout), drawn, repr(indices))
    journal = ShardJournal(journal_path, run, len(indices), execution.resume)
    context: SceneContext = (seed, layout, drawn, str(media.resolve()))
    labels = [f"{i} (scene {index})" for i, index in enumerate(indices)]
    collisions = 0
    videos: list[str] = []
    with execution.open() as executor, staged_directory(out) as staging:
        results = run_shards(
            executor,
            simulate_scene_shard,
            context,
            indices,
            labels,
            journal,
            decode=_decode,
            still_valid=lambda shard: media_intact(media)(shard[3]),
        )
        for name, text, count, digests in results:
            collisions += count
            write_text(staging / name, text)
            videos += sorted(digests)
            if on_progress:
                on_progress(1)
        move_media(media, staging, videos)
        write_text(staging / MANIFEST, manifest_json(seed, layout, indices))
    journal.finish()
    return SimulatedScenes(len(indices), collisions, len(videos))
