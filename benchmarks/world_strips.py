"""Frame strips of the two other worlds, for the docs: EgoTV kitchen episodes and physics scenes.

    .venv/bin/python benchmarks/world_strips.py [--out docs/images] [--backend gl]

Writes ``egotv-strip.png`` (six evenly spaced first-person frames of each of three episodes,
224 px) and ``physics-frames.png`` (three moments of each of four scenes, 480x320 halved to
240x160). Both draw through the same code as ``taskqa verify build --render`` and
``taskqa physics render``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import numpy.typing as npt
from PIL import Image

from taskqa.physics.engine import simulate_scene
from taskqa.physics.scene import sample_scene
from taskqa.physics.video import SceneVideo
from taskqa.render.engine import resolve_backend
from taskqa.verify.benchmark import build_trial, sample_trial
from taskqa.verify.render import KitchenRenderOptions, KitchenVideo

Frame = npt.NDArray[np.uint8]


def kitchen_rows(backend: str, episodes: int = 3, per_row: int = 6) -> list[Frame]:
    rows = []
    for index in range(episodes):
        episode, _ = build_trial(sample_trial("train", index, 0), 0)
        with KitchenVideo(episode, KitchenRenderOptions(backend=backend)) as video:
            frames = list(video.frames())
        picks = np.linspace(0, len(frames) - 1, per_row).round().astype(int)
        rows.append(np.concatenate([frames[i] for i in picks], axis=1))
    return rows


def physics_rows(
    backend: str, scenes: int = 4, moments: tuple[int, ...] = (10, 60, 110)
) -> list[Frame]:
    rows = []
    for index in range(scenes):
        annotation = simulate_scene(sample_scene(0, index))
        with SceneVideo(annotation, backend=backend) as video:
            frames = [picture.rgb for picture in video.pictures()]
        halves = [
            np.asarray(Image.fromarray(frames[m]).resize((240, 160), Image.LANCZOS))
            for m in moments
        ]
        rows.append(np.concatenate(halves, axis=1))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("docs/images"))
    parser.add_argument("--backend", default="auto")
    args = parser.parse_args()
    backend, line = resolve_backend(args.backend)
    print(line)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, rows in (
        ("egotv-strip.png", kitchen_rows(backend)),
        ("physics-frames.png", physics_rows(backend)),
    ):
        path = args.out / name
        Image.fromarray(np.concatenate(rows, axis=0)).save(path, optimize=True)
        print(f"wrote {path} ({path.stat().st_size // 1024} kB)")


if __name__ == "__main__":
    main()
