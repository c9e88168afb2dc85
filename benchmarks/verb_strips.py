"""A strip of first-person frames per verb: can a person name each action from its frames?

    .venv/bin/python benchmarks/verb_strips.py [--out docs/images/verb-strips.png]
        [--episodes 40 --seed 2 --backend gl --frames 6]

For every verb of the domain, the first action of it (lasting the longest among the first few
found) in `simulate --episodes N --seed S` is drawn in its person's first-person view at
evenly spaced moments from its start to its end; each row is labelled with the action as the
recording says it. The image is what docs/rendering.md shows.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from taskqa.household.frames import render_frames
from taskqa.household.look_spec import load_look
from taskqa.household.options import RenderOptions
from taskqa.model import ActionSegment, Recording
from taskqa.render.engine import resolve_backend
from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.corpus import simulate_corpus
from taskqa.simulation.domain import load_domain
from taskqa.sources.lemma_actions import format_action

SIZE = 160
LABEL = 22


def longest_per_verb(recordings: list[Recording]) -> dict[str, tuple[Recording, ActionSegment]]:
    found: dict[str, tuple[Recording, ActionSegment]] = {}
    for recording in recordings:
        for action in sorted(recording.actions, key=lambda a: (a.start, a.id)):
            best = found.get(action.verb)
            if best is None or action.end - action.start > best[1].end - best[1].start:
                found[action.verb] = (recording, action)
    return dict(sorted(found.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("docs/images/verb-strips.png"))
    parser.add_argument("--episodes", type=int, default=40)
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--frames", type=int, default=6)
    args = parser.parse_args()
    backend, said = resolve_backend(args.backend)
    print(said)
    domain = load_domain()
    recordings = simulate_corpus(SimulationConfig(episodes=args.episodes, seed=args.seed), domain)
    rows = []
    fps = 8.0  # a fine frame grid, so the strip's moments fall inside short actions too
    options = RenderOptions(fps=fps, width=SIZE, height=SIZE, views=("first",), backend=backend)
    for verb, (recording, action) in longest_per_verb(recordings).items():
        moments = np.linspace(action.start, action.end, args.frames)
        indices = [int(round(t * fps)) for t in moments]
        frames = render_frames(recording, domain, load_look(), indices, options)
        strip = np.hstack(frames[f"{action.agent}-first"])
        label = Image.new("RGB", (strip.shape[1], LABEL), "white")
        text = format_action(action.verb, action.slots, domain.templates)
        seconds = action.end - action.start
        outcome = "" if action.outcome.value == "done" else f", {action.outcome.value}"
        ImageDraw.Draw(label).text(
            (4, 5), f"{verb}: {text} ({seconds:.1f} s{outcome})", fill="black"
        )
        rows.append(np.vstack([np.asarray(label), strip]))
        print(f"{verb:10s} {text} {seconds:.1f} s")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(np.vstack(rows)).save(args.out, optimize=True)
    print(f"wrote {args.out} ({len(rows)} verbs)")


if __name__ == "__main__":
    main()
