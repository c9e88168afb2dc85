"""Figures for the physics scenes and the EgoTV kitchen: frames per second (drawing alone, and
drawing plus H.264 encoding) and byte-identical files across runs and processes.

    .venv/bin/python benchmarks/bench_render_worlds.py [--scenes 3] [--episodes 3] [--seed 0]
        [--backend tiny --backend gl]

Each back-end named (both by default; ``gl`` only where a headless GL context starts) gets its
own tables and its own identity check.

``benchmarks/bench_render.py`` runs the same section after the household figures. Frame rates
depend on the machine and its load (printed beside them); the identity checks do not.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from taskqa.physics.engine import simulate_scene
from taskqa.physics.scene import sample_scene
from taskqa.physics.video import SceneVideo, render_mp4
from taskqa.render.engine import gl_available
from taskqa.verify.benchmark import build_trial, sample_trial
from taskqa.verify.render import KitchenRenderOptions, KitchenVideo, render_episode


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def physics(scenes: int, seed: int, folder: Path, backend: str) -> dict[int, str]:
    print(f"\n## Physics scenes ({backend}): CLEVRER-style camera, 480x320, 128 frames each")
    print(f"load average before: {os.getloadavg()[0]:.2f} (2 cores)")
    print("scene  objects  draw frames/s  draw+encode frames/s  bytes   sha256")
    digests = {}
    for index in range(scenes):
        annotation = simulate_scene(sample_scene(seed, index))
        started = time.perf_counter()
        with SceneVideo(annotation, backend=backend) as video:
            drawn = sum(1 for _ in video.pictures())
        draw = drawn / (time.perf_counter() - started)
        path = folder / f"video_{index:05d}.mp4"
        started = time.perf_counter()
        frames = render_mp4(annotation, path, backend=backend)
        total = frames / (time.perf_counter() - started)
        digests[index] = _digest(path)
        objects = len(annotation.object_property)
        size = path.stat().st_size
        print(f"{index:5d}  {objects:7d}  {draw:13.1f}  {total:20.1f}  {size:6d}  {digests[index]}")
    return digests


def kitchen(episodes: int, seed: int, folder: Path, backend: str) -> dict[str, str]:
    print(f"\n## EgoTV kitchen episodes ({backend}): first person, 224x224 at 6 frames/s")
    print("episode          segments  frames  draw frames/s  draw+encode frames/s  sha256")
    options = KitchenRenderOptions(backend=backend)
    digests = {}
    for index in range(episodes):
        episode, _ = build_trial(sample_trial("train", index, seed), seed)
        started = time.perf_counter()
        with KitchenVideo(episode, options) as video:
            drawn = sum(1 for _ in video.frames())
        draw = drawn / (time.perf_counter() - started)
        path = folder / f"{episode.episode_id}.mp4"
        started = time.perf_counter()
        written = render_episode(episode, path, options)
        total = written.frames / (time.perf_counter() - started)
        digests[episode.episode_id] = _digest(path)
        segments = len(episode.segments)
        print(
            f"{episode.episode_id:15s}  {segments:8d}  {written.frames:6d}  {draw:13.1f}  "
            f"{total:20.1f}  {digests[episode.episode_id]}"
        )
    return digests


def identity(scenes: int, episodes: int, seed: int, backend: str) -> None:
    """Render everything again in a fresh process and compare the files byte for byte."""
    with tempfile.TemporaryDirectory() as first, tempfile.TemporaryDirectory() as second:
        physics_a = physics(scenes, seed, Path(first), backend)
        kitchen_a = kitchen(episodes, seed, Path(first), backend)
        command = [
            sys.executable, __file__, "--scenes", str(scenes), "--episodes", str(episodes),
            "--seed", str(seed), "--backend", backend, "--into", second,
        ]  # fmt: skip
        subprocess.run(command, check=True, capture_output=True)
        physics_b = {i: _digest(Path(second) / f"video_{i:05d}.mp4") for i in physics_a}
        kitchen_b = {e: _digest(Path(second) / f"{e}.mp4") for e in kitchen_a}
    print(f"\n## Byte identity across two processes ({backend})")
    same_physics = sum(physics_a[i] == physics_b[i] for i in physics_a)
    same_kitchen = sum(kitchen_a[e] == kitchen_b[e] for e in kitchen_a)
    print(f"physics videos identical: {same_physics} of {len(physics_a)}")
    print(f"kitchen videos identical: {same_kitchen} of {len(kitchen_a)}")


def section(
    scenes: int = 3, episodes: int = 3, seed: int = 0, backends: tuple[str, ...] = ("tiny", "gl")
) -> None:
    for backend in backends:
        if backend == "gl" and gl_available() is not None:
            print(f"\n(gl skipped: {gl_available()})")
            continue
        identity(scenes, episodes, seed, backend)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scenes", type=int, default=3)
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--backend", action="append", choices=("tiny", "gl"))
    parser.add_argument("--into", type=Path, help=argparse.SUPPRESS)  # the second process
    args = parser.parse_args()
    backends = tuple(args.backend or ("tiny", "gl"))
    if args.into is not None:
        physics(args.scenes, args.seed, args.into, backends[0])
        kitchen(args.episodes, args.seed, args.into, backends[0])
        return
    section(args.scenes, args.episodes, args.seed, backends)


if __name__ == "__main__":
    main()
