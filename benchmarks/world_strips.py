"""Frame strips for the docs: the household world's variation, EgoTV kitchen episodes and
physics scenes.

    .venv/bin/python benchmarks/world_strips.py [--out docs/images] [--backend gl] [--only NAME]

Writes ``household-variation.png`` (rows of the room camera, 224 px: the other person closing
the fridge the first left open, a knife that starts on the cutting board and is taken from
there, a milk carton that starts on the counter; and a dirty vessel rinsed before use, from the
person's own eyes), ``egotv-strip.png`` (six evenly spaced
first-person frames of each of three episodes, 224 px) and ``physics-frames.png`` (three
moments of each of four scenes, 480x320 halved to 240x160). They draw through the same code as
``taskqa render``, ``taskqa verify build --render`` and ``taskqa physics render``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import numpy.typing as npt
from PIL import Image

from taskqa.household.frames import render_frames
from taskqa.household.look_spec import load_look
from taskqa.household.options import THIRD, RenderOptions, view_name
from taskqa.model import Recording
from taskqa.physics.engine import simulate_scene
from taskqa.physics.scene import sample_scene
from taskqa.physics.video import SceneVideo
from taskqa.render.engine import resolve_backend
from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.corpus import simulate_corpus
from taskqa.simulation.domain import load_domain
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


def household_rows(backend: str, per_row: int = 4) -> list[Frame]:
    """Room-camera frames of three kitchen episodes of a seeded corpus, each around the moment
    its variation shows: an interruption that closes the fridge, a get from a place off the
    thing's default (the knife on the cutting board, the milk on the counter), a dirty vessel
    rinsed before use."""
    domain = load_domain()
    corpus = simulate_corpus(SimulationConfig(episodes=120, seed=5, rooms={"kitchen": 1}), domain)
    options = RenderOptions(backend=backend)
    rows = []
    for recording, moment, view in _variation_moments(corpus):
        last = round(recording.duration * options.fps) - 1
        picks = [round((moment + offset) * options.fps) for offset in (-3.0, -1.0, 1.0, 3.0)]
        indices = [min(max(0, i), last) for i in picks[:per_row]]
        frames = render_frames(recording, domain, load_look(), indices, options)[view]
        rows.append(np.concatenate(frames, axis=1))
    return rows


def _variation_moments(corpus: list[Recording]) -> list[tuple[Recording, float, str]]:
    """(recording, seconds, view) of the first interruption closing the fridge, the first get
    of the knife from the cutting board and the first get of the milk from the counter (the
    room camera), and the first rinsing of a dirty cup, bowl, mug or pot (the person's view)."""
    wanted = [
        lambda r, a: a.verb == "close"
        and a.slots.patient == ["fridge"]
        and a.id in str(r.metadata.get("interruption_actions", "")).split(),
        lambda r, a: a.verb == "get"
        and a.slots.source == ["cutting-board"]
        and a.slots.patient == ["knife"],
        lambda r, a: a.verb == "get"
        and a.slots.source == ["counter"]
        and a.slots.patient == ["milk"]
        and bool(a.tasks),
        # a vessel that started dirty, rinsed by its task's step before anything is poured in
        lambda r, a: a.verb == "wash" and (a.step or "").startswith("wash-") and bool(a.tasks),
    ]
    found = []
    for index, test in enumerate(wanted):
        hit = next(((r, a) for r in corpus for a in r.actions if test(r, a)), None)
        if hit is not None:
            recording, action = hit
            # the rinsing from the person's own eyes: the room camera sees their back
            view = view_name(action.agent) if index == len(wanted) - 1 else THIRD
            found.append((recording, action.start, view))
    return found


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


STRIPS = {
    "household-variation.png": household_rows,
    "egotv-strip.png": kitchen_rows,
    "physics-frames.png": physics_rows,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("docs/images"))
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--only", choices=sorted(STRIPS), help="draw just this strip")
    args = parser.parse_args()
    backend, line = resolve_backend(args.backend)
    print(line)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, rows_of in STRIPS.items():
        if args.only not in (None, name):
            continue
        rows = rows_of(backend)
        path = args.out / name
        image = Image.fromarray(np.concatenate(rows, axis=0))
        if name.startswith("household"):  # a flat-shaded room: a palette keeps the file small
            image = image.quantize(colors=96)
        image.save(path, optimize=True)
        print(f"wrote {path} ({path.stat().st_size // 1024} kB)")


if __name__ == "__main__":
    main()
