"""Building the EgoTV-style benchmark: trials per split, episodes, and labelled pairs.

Every trial gives one episode and two pairs, a positive and a negative, so each split is exactly
50/50. Split definitions follow EgoTV (``alfred/gen/constants.py``):

* train: the 55 non-novel tasks, scenes 1-25, no held-out verb-noun pair, no shelf;
* novel_tasks: the 27 novel compositions, scenes 1-25, the same object filters;
* novel_steps: train tasks less ``cool_simple`` and ``pick_simple``, keeping only trials that
  use a held-out pair (heat+egg, clean+plate, slice+lettuce, place on shelf);
* novel_scenes: train tasks in the unseen scenes 26-30;
* abstraction: train tasks less the six simple ones, with under-specified descriptions.

Scenes 1-25 also carry EgoTV's context exclusions (heat tomato in 1-5, cool cup in 6-10, place on
countertop in 11-15, slice potato in 16-20, clean knife/fork/spoon in 21-25).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from taskqa.atomic import sha256_file, staged_directory
from taskqa.execution import Execution, ShardJournal, fingerprint, journal_beside, run_shards
from taskqa.execution.media import media_folder, media_intact, move_media
from taskqa.jsonio import write_json, write_jsonl
from taskqa.verify.descriptions import (
    DESCRIPTION_NEGATIVES,
    VIDEO_NEGATIVES,
    negative_blocks,
    negative_video,
    render,
    satisfied,
    task_blocks,
)
from taskqa.verify.graph import SubTask
from taskqa.verify.kitchen import (
    AFFORDANCES,
    PLACE_RECEPTACLES,
    TARGET_OBJECTS,
    Episode,
    Scene,
    act_out,
)
from taskqa.verify.render import KitchenRenderOptions, render_episode
from taskqa.verify.tasks import NOVEL_TASKS, TASKS, TRAIN_TASKS, Task

SPLITS = ("train", "novel_tasks", "novel_steps", "novel_scenes", "abstraction")
TEST_SPLITS = SPLITS[1:]
HELD_OUT_PAIRS = frozenset({
    (SubTask.HEAT, "egg"), (SubTask.CLEAN, "plate"), (SubTask.SLICE, "lettuce"),
    (SubTask.PLACE, "shelf"),
})  # fmt: skip
CONTEXT_EXCLUSIONS: tuple[tuple[range, SubTask, frozenset[str]], ...] = (
    (range(1, 6), SubTask.HEAT, frozenset({"tomato"})),
    (range(6, 11), SubTask.COOL, frozenset({"cup"})),
    (range(11, 16), SubTask.PLACE, frozenset({"countertop"})),
    (range(16, 21), SubTask.SLICE, frozenset({"potato"})),
    (range(21, 26), SubTask.CLEAN, frozenset({"knife", "fork", "spoon"})),
)
VIDEO_NEGATIVE_RATE = 0.2


@dataclass(frozen=True)
class Trial:
    split: str
    index: int
    task: Task
    obj: str
    receptacle: str | None
    scene: int

    @property
    def trial_id(self) -> str:
        return f"{self.split}-{self.index:05d}"


def split_tasks(split: str) -> tuple[Task, ...]:
    if split == "novel_tasks":
        return NOVEL_TASKS
    if split == "novel_steps":
        return tuple(t for t in TRAIN_TASKS if t.name not in {"cool_simple", "pick_simple"})
    if split == "abstraction":
        return tuple(t for t in TRAIN_TASKS if t.complexity > 1)
    if split in ("train", "novel_scenes"):
        return TRAIN_TASKS
    raise ValueError(f"unknown split {split!r}; expected one of {', '.join(SPLITS)}")


def _pairs_used(task: Task, obj: str, receptacle: str | None) -> set[tuple[SubTask, str]]:
    return {(s, receptacle if s is SubTask.PLACE else obj) for s in task.subtasks}  # type: ignore[misc]


def _excluded(task: Task, obj: str, receptacle: str | None, scene: int) -> bool:
    used = _pairs_used(task, obj, receptacle)
    return any(
        scene in scenes and any((s, n) in used for n in names)
        for scenes, s, names in CONTEXT_EXCLUSIONS
    )


def sample_trial(split: str, index: int, seed: int) -> Trial:
    """Rejection sampling of (task, object, receptacle, scene) under the split's filters."""
    rng = random.Random(f"{seed}-{split}-{index}-trial")
    tasks = split_tasks(split)
    scenes = range(26, 31) if split == "novel_scenes" else range(1, 26)
    for _ in range(10_000):
        task = rng.choice(tasks)
        objects = [o for o in TARGET_OBJECTS if set(task.subtasks) <= AFFORDANCES[o]]
        obj = rng.choice(objects)
        scene = rng.choice(scenes)
        present = [r for r in Scene.generate(scene).receptacles if r in PLACE_RECEPTACLES]
        receptacle = rng.choice(present) if SubTask.PLACE in task.subtasks else None
        held = bool(_pairs_used(task, obj, receptacle) & HELD_OUT_PAIRS)
        if held != (split == "novel_steps") or _excluded(task, obj, receptacle, scene):
            continue
        return Trial(split, index, task, obj, receptacle, scene)
    raise RuntimeError(f"no trial satisfies the {split} filters")  # unreachable with these tables


def build_trial(trial: Trial, seed: int) -> tuple[Episode, list[dict[str, Any]]]:
    """The episode and its positive and negative pair."""
    episode = act_out(
        trial.trial_id, trial.task, trial.obj, trial.receptacle, Scene.generate(trial.scene),
        f"{seed}-{trial.trial_id}-plan",
    )  # fmt: skip
    rng = random.Random(f"{seed}-{trial.trial_id}-text")
    abstract = trial.split == "abstraction"
    blocks = task_blocks(trial.task, trial.receptacle)
    positive = render(trial.obj, blocks, rng, abstract)
    if not satisfied(positive.graph, episode.segments):
        raise AssertionError(f"{trial.trial_id}: the positive is not carried out by its episode")
    base = {
        "episode_id": episode.episode_id, "split": trial.split, "task": trial.task.name,
        "complexity": trial.task.complexity, "ordering": trial.task.ordering,
    }  # fmt: skip
    pairs = [
        {**base, "pair_id": f"{trial.trial_id}-pos", "description": positive.text,
         "graph": positive.graph.to_dsl(), "label": 1, "negative_kind": None, "segments": None},
    ]  # fmt: skip
    pairs.append(
        {
            **base,
            "pair_id": f"{trial.trial_id}-neg",
            **_negative(episode, blocks, positive.text, rng, abstract),
        }
    )
    return episode, pairs


def _negative(
    episode: Episode, blocks: list[list[tuple[SubTask, str | None]]], positive: str,
    rng: random.Random, abstract: bool,
) -> dict[str, Any]:  # fmt: skip
    kinds = list(DESCRIPTION_NEGATIVES)
    rng.shuffle(kinds)
    if rng.random() < VIDEO_NEGATIVE_RATE:
        kinds = rng.sample(VIDEO_NEGATIVES, 2) + kinds
    for kind in kinds:
        if kind in VIDEO_NEGATIVES:
            shown = negative_video(kind, episode, rng)
            if shown is None:
                continue
            description = render(episode.obj, blocks, rng, abstract)
            if not satisfied(description.graph, [episode.segments[i] for i in shown]):
                return {"description": description.text, "graph": description.graph.to_dsl(),
                        "label": 0, "negative_kind": kind, "segments": shown}  # fmt: skip
            continue
        candidate = negative_blocks(kind, blocks, episode, rng)
        if candidate is None or (abstract and kind == "wrong_receptacle"):
            continue
        description = render(episode.obj, candidate, rng, abstract)
        if description.text != positive and not satisfied(description.graph, episode.segments):
            return {"description": description.text, "graph": description.graph.to_dsl(),
                    "label": 0, "negative_kind": kind, "segments": None}  # fmt: skip
    raise AssertionError(f"{episode.episode_id}: no negative could be made")


def episode_record(episode: Episode) -> dict[str, Any]:
    return {
        "episode_id": episode.episode_id,
        "task": episode.task,
        "object": episode.obj,
        "receptacle": episode.receptacle,
        "scene": episode.scene,
        "order": [str(s) for s in episode.order],
        "segments": [
            {
                "index": s.index,
                "action": s.action,
                "subtask": None if s.subtask is None else str(s.subtask),
                "object": s.obj,
                "receptacle": s.receptacle,
                "objects_in_view": list(s.objects_in_view),
                "state_after": s.state_after,
            }
            for s in episode.segments
        ],
    }


def _record(episode: Episode, folder: Path, render: KitchenRenderOptions | None) -> dict[str, Any]:
    record = episode_record(episode)
    if render is None:
        return record
    relative = f"videos/{episode.episode_id}.mp4"
    video = render_episode(episode, folder / relative, render)
    record.update({"video": relative, "fps": video.fps, "frames": video.frames})
    for segment, (start, end), (first, last) in zip(
        record["segments"], video.times, video.boundaries, strict=True
    ):
        segment.update({"start": start, "end": end, "start_frame": first, "end_frame": last})
    return record


def iter_trials(
    trials_per_split: int, seed: int, splits: tuple[str, ...] = SPLITS
) -> Iterator[Trial]:
    for split in splits:
        for index in range(trials_per_split):
            yield sample_trial(split, index, seed)


def build_benchmark(
    out: Path,
    trials_per_split: int,
    seed: int,
    tick: Callable[[], None] = lambda: None,
    render: KitchenRenderOptions | None = None,
    rendered: Callable[[], None] = lambda: None,
    execution: Execution | None = None,
) -> dict[str, Any]:
    """Write episodes.jsonl, pairs.jsonl, tasks.json and manifest.json into ``out`` atomically;
    with ``render``, also ``videos/<episode id>.mp4`` and each segment's time and frame span.

    One shard is one trial (episode, pairs, video), run where ``execution`` says; videos go
    through the journal's media folder (``taskqa.execution.media``).
    """
    execution = execution or Execution()
    keys = [(split, index) for split in SPLITS for index in range(trials_per_split)]
    journal_path = journal_beside(out)
    media = media_folder(journal_path)
    run = fingerprint("verify build", str(seed), str(trials_per_split), repr(render))
    journal = ShardJournal(journal_path, run, len(keys), execution.resume)
    context: TrialContext = (seed, render, str(media.resolve()))
    labels = [f"{i} (trial {split}/{index})" for i, (split, index) in enumerate(keys)]
    episodes: list[dict[str, Any]] = []
    pairs: list[dict[str, Any]] = []
    videos: list[str] = []
    with execution.open() as executor, staged_directory(out) as staging:
        results = run_shards(
            executor,
            build_trial_shard,
            context,
            keys,
            labels,
            journal,
            still_valid=lambda shard: media_intact(media)(shard[2]),
        )
        for record, made, digests in results:
            episodes.append(record)
            pairs.extend(made)
            videos += sorted(digests)
            tick()
            if render is not None:
                rendered()
        manifest = {
            "seed": seed,
            "trials_per_split": trials_per_split,
            "pairs": dict(sorted(Counter(f"{p['split']}/{p['label']}" for p in pairs).items())),
            "negative_kinds": dict(
                sorted(Counter(str(p["negative_kind"]) for p in pairs if not p["label"]).items())
            ),
            "tasks_per_split": {s: len(split_tasks(s)) for s in SPLITS},
        }
        tasks = [
            {"name": t.name, "complexity": t.complexity, "ordering": t.ordering, "novel": t.novel}
            for t in TASKS
        ]
        if render is not None:
            manifest["render"] = {"fps": render.fps, "size": render.size}
        move_media(media, staging, videos)
        write_jsonl(staging / "episodes.jsonl", episodes, sort_keys=True)
        write_jsonl(staging / "pairs.jsonl", pairs, sort_keys=True)
        write_json(staging / "tasks.json", tasks)
        write_json(staging / "manifest.json", manifest, sort_keys=True)
    journal.finish()
    return manifest


# What every trial shard shares: the seed, the render options and the media folder.
TrialContext = tuple[int, KitchenRenderOptions | None, str]


def build_trial_shard(
    context: TrialContext, key: tuple[str, int]
) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, str]]:
    """One trial's episode record, its pairs and its video's sha256 (by path) if rendered."""
    seed, render, media = context
    split, index = key
    episode, made = build_trial(sample_trial(split, index, seed), seed)
    record = _record(episode, Path(media), render)
    video = record.get("video")
    digests = {video: sha256_file(Path(media) / video)} if isinstance(video, str) else {}
    return record, made, digests
