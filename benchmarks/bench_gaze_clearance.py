"""Do two people ever share a spot? The first-person camera must never stand inside a figure.

    .venv/bin/python benchmarks/bench_gaze_clearance.py [--episodes 80 --seed 5 --fps 2]

For every recording with two or more people in `simulate --episodes N --seed S`, at each frame
of the 2 fps grid, the horizontal distance from each person's eye to every other person's eye
and body middle (where `gaze.Director` puts them). Reports the share of frames where an eye is
inside another figure (< 0.3 m: the camera draws the inside of a body) and where two people are
closer than the Director's clearance, and how many beats were moved aside.
"""

from __future__ import annotations

import argparse
import json
import math

from taskqa.household.frames import household_scene
from taskqa.household.gaze import Director
from taskqa.household.look_spec import load_look
from taskqa.household.options import RenderOptions
from taskqa.render.engine import resolve_backend
from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.corpus import simulate_corpus
from taskqa.simulation.domain import load_domain

INSIDE = 0.3
CLEARANCE = 0.55  # gaze.CLEARANCE


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=80)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--fps", type=float, default=2.0)
    args = parser.parse_args()
    domain = load_domain()
    look = load_look()
    backend, _ = resolve_backend("tiny")
    options = RenderOptions(fps=args.fps, width=32, height=32, backend=backend)
    recordings = simulate_corpus(SimulationConfig(episodes=args.episodes, seed=args.seed), domain)
    frames = inside = crowded = recordings_seen = 0
    for recording in recordings:
        agents = sorted({a.agent for a in recording.actions})
        if len(agents) < 2:
            continue
        recordings_seen += 1
        with household_scene(recording, domain, look, options) as scene:
            director = Director(scene)
            count = int(recording.duration * args.fps) + 1
            for index in range(count):
                gaze, stand = director.at(index / args.fps)
                people = list(gaze)
                worst = math.inf
                for me in people:
                    eye = gaze[me][0]
                    for other in people:
                        if other == me:
                            continue
                        body = stand[other][0]
                        worst = min(
                            worst,
                            math.hypot(eye[0] - body[0], eye[1] - body[1]),
                            math.hypot(eye[0] - gaze[other][0][0], eye[1] - gaze[other][0][1]),
                        )
                frames += 1
                inside += worst < INSIDE
                crowded += worst < CLEARANCE - 0.05
    print(
        json.dumps(
            {
                "recordings_with_two_people": recordings_seen,
                "frames": frames,
                "eye_inside_a_figure": round(inside / max(frames, 1), 4),
                "closer_than_clearance": round(crowded / max(frames, 1), 4),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
