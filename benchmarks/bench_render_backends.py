"""The render back-ends side by side: the targets of issue 24 that this code can be held to.

    .venv/bin/python benchmarks/bench_render_backends.py [--frames 200] [--skip corpus ...]

- **draw rate**: the full kitchen (every object the domain puts in it, two people) drawn from
  the room camera and from each zone's first-person eye, one process, at 224x224, 320x240 and
  448x448: GL lit with shadows and 4x MSAA, GL without MSAA, and TinyRenderer, in one run;
- **render command**: `taskqa render` on `simulate --episodes 4 --seed 2`, one worker, both
  views, 2 fps, per back-end: frames per second over all views, H.264 encoding included;
- **determinism**: the GL files of two runs and of one and two workers, byte for byte;
- **stillness**: of consecutive first-person frame pairs (2 fps) inside actions of at least
  1.5 s, the share where nothing on screen changes (exactly equal frames);
- **whole corpus**: `simulate --episodes 400 --seed 5` rendered with `--workers 2` (or the first
  `--corpus-limit` recordings, with the time scaled to all of them by frames).

Frame rates depend on the machine and its load: the load average is printed beside them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path

import numpy as np

from bench_render import full_room
from taskqa.household.frames import frame_count, render_frames
from taskqa.household.look_spec import load_look
from taskqa.household.options import RenderOptions
from taskqa.household.scene import FIRST_PERSON_FOV, HouseholdScene, View
from taskqa.household.timeline import Timeline
from taskqa.render import gl
from taskqa.render.engine import Camera, gl_available
from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.corpus import simulate_corpus
from taskqa.simulation.domain import Domain, load_domain

STILL_MIN_SECONDS = 1.5
SIZES = ((224, 224), (320, 240), (448, 448))


def draw_rates(domain: Domain, frames: int) -> dict[str, float]:
    """Frames/s of the full kitchen per back-end and size, cycling the room and zone cameras."""
    print(f"\n## Draw rate, full kitchen, one process (load {os.getloadavg()[0]:.2f}, 2 cores)")
    print("back-end               size       frames/s")  # lit = key light + soft shadows
    room = "kitchen" if "kitchen" in domain.spec.rooms else next(iter(domain.spec.rooms))
    recording = full_room(domain, room)
    timeline = Timeline(recording, domain)
    rates: dict[str, float] = {}
    variants = (("gl textured, 4x MSAA", "gl", 4, "textured"),
                ("gl textured, post AA", "gl", 0, "textured"),
                ("gl shaded, post AA", "gl", 0, "shaded"),
                ("gl flat, post AA", "gl", 0, "flat"),
                ("tiny", "tiny", 0, "textured"))  # fmt: skip
    for label, backend, samples, appearance in variants:
        gl.SAMPLES = samples
        for width, height in SIZES:
            with HouseholdScene(
                timeline, domain, load_look(), room, width, height, backend, appearance
            ) as scene:
                zones = list(scene.layout.zones.values())
                stand = {
                    agent: ((zone.stand[0], zone.stand[1], 0.0), 0.0)
                    for agent, zone in zip(("P1", "P2"), zones, strict=False)
                }
                spec = scene.layout.third_person
                cameras = [Camera(spec.eye, spec.target, fov=spec.fov, width=width, height=height)]
                cameras += [
                    Camera((z.stand[0], z.stand[1], 1.6), z.look, fov=FIRST_PERSON_FOV,
                           width=width, height=height)
                    for z in zones
                ]  # fmt: skip
                gaze = {"P1": (cameras[1].eye, cameras[1].target)}
                scene.set_time(0.0, gaze, stand)
                scene.capture(View(cameras[0], None))
                count = frames if backend == "gl" else max(20, frames // 5)
                start = time.perf_counter()
                for index in range(count):
                    scene.capture(View(cameras[index % len(cameras)], None), masks=False)
                rate = count / (time.perf_counter() - start)
            rates[f"{label} {width}x{height}"] = rate
            print(f"{label:22s} {width}x{height:<5d} {rate:9.1f}")
    gl.SAMPLES = 0
    return rates


def digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def simulated(corpus: Path, episodes: int, seed: int) -> Path:
    """`taskqa simulate --episodes N --seed S --out CORPUS`, as a user runs it."""
    command = [sys.executable, "-m", "taskqa", "simulate", "--episodes", str(episodes),
               "--seed", str(seed), "--out", str(corpus)]  # fmt: skip
    subprocess.run(command, check=True, capture_output=True)
    return corpus


def render_command(domain: Domain, scratch: Path) -> dict[str, float | bool]:
    """`taskqa render` on simulate --episodes 4 --seed 2, one worker, per back-end; then the GL
    files again with one worker and with two."""
    corpus = simulated(scratch / "corpus4", episodes=4, seed=2)
    print("\n## taskqa render, simulate --episodes 4 --seed 2, 2 fps, both views, 224 px")
    figures: dict[str, float | bool] = {}
    outputs = {}
    for label, backend, workers in (("gl", "gl", 1), ("gl again", "gl", 1),
                                    ("gl, 2 workers", "gl", 2), ("tiny", "tiny", 1)):  # fmt: skip
        out = scratch / label.replace(" ", "-").replace(",", "")
        start = time.perf_counter()
        printed = subprocess.run(
            [sys.executable, "-m", "taskqa", "render", str(corpus), "--out", str(out),
             "--backend", backend, "--workers", str(workers)],
            check=True, capture_output=True, text=True,
        ).stdout  # fmt: skip
        seconds = time.perf_counter() - start
        frames = sum(_video_frames(path) for path in out.rglob("*.mp4"))
        outputs[label] = digest(out)
        figures[f"{label}: frames/s"] = frames / seconds
        rate = frames / seconds
        print(f"{label:14s} {frames:6d} frames in {seconds:6.1f} s: {rate:7.1f} frames/s "
              f"({printed.splitlines()[0]})")  # fmt: skip
    same_runs = outputs["gl"] == outputs["gl again"]
    same_workers = outputs["gl"] == outputs["gl, 2 workers"]
    figures["gl identical across runs"] = same_runs
    figures["gl identical across worker counts"] = same_workers
    print(f"gl files identical across two runs: {same_runs}; across 1 and 2 workers: "
          f"{same_workers}")  # fmt: skip
    return figures


def _video_frames(path: Path) -> int:
    import av

    with av.open(str(path)) as container:
        return sum(1 for _ in container.decode(video=0))


def stillness(domain: Domain, backend: str) -> float:
    """Share of still first-person frame pairs inside actions of 1.5 s or more."""
    recordings = simulate_corpus(SimulationConfig(episodes=4, seed=2), domain)
    pairs = still = 0
    options = RenderOptions(fps=2.0, views=("first",), backend=backend)
    for recording in recordings:
        count = frame_count(recording.duration, options.fps)
        frames = render_frames(recording, domain, load_look(), range(count), options)
        for agent in recording.agents:
            own = frames[f"{agent.id}-first"]
            for action in recording.actions_of(agent.id):
                if action.end - action.start < STILL_MIN_SECONDS:
                    continue
                inside = [i for i in range(count) if action.start <= i / 2.0 <= action.end]
                for a, b in pairwise(inside):
                    pairs += 1
                    still += bool(np.array_equal(own[a], own[b]))
    share = still / pairs if pairs else 0.0
    print(f"{backend}: {still} of {pairs} first-person frame pairs inside actions of "
          f"{STILL_MIN_SECONDS} s or more are still: {share:.1%}")  # fmt: skip
    return share


def whole_corpus(scratch: Path, limit: int | None) -> dict[str, float]:
    corpus = simulated(scratch / "corpus400", episodes=400, seed=5)
    records = [json.loads(line) for line in (corpus / "recordings.jsonl").open()]
    frames_all = sum(frame_count(r["duration"], 2.0) * (len(r["agents"]) + 1) for r in records)
    command = [sys.executable, "-m", "taskqa", "render", str(corpus), "--workers", "2"]
    chosen = records if limit is None else records[:limit]
    if limit is not None:
        command += ["--limit", str(limit)]
    frames_done = sum(frame_count(r["duration"], 2.0) * (len(r["agents"]) + 1) for r in chosen)
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    seconds = time.perf_counter() - start
    estimate = seconds * frames_all / frames_done
    print("\n## Whole corpus, simulate --episodes 400 --seed 5, --workers 2, both views, 2 fps")
    print(f"{len(chosen)} of {len(records)} recordings, {frames_done} of {frames_all} frames in "
          f"{seconds:.0f} s; all {len(records)}: {estimate / 60:.1f} min"
          + (" (scaled by frames)" if limit is not None else ""))  # fmt: skip
    return {"seconds": seconds, "minutes_all": estimate / 60, "recordings": len(chosen)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--corpus-limit", type=int, default=None)
    parser.add_argument(
        "--skip", nargs="*", default=[], choices=["draw", "command", "still", "corpus"]
    )
    parser.add_argument("--json", type=Path, default=Path("out/bench/render_backends.json"))
    args = parser.parse_args()
    problem = gl_available()
    if problem is not None:
        sys.exit(f"the GL back-end cannot start here ({problem}); `make gl` installs Mesa's EGL")
    domain = load_domain()
    results: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        if "draw" not in args.skip:
            results["draw_rates"] = draw_rates(domain, args.frames)
        if "command" not in args.skip:
            results["render_command"] = render_command(domain, scratch)
        if "still" not in args.skip:
            print("\n## Stillness inside actions (simulate --episodes 4 --seed 2, first person)")
            results["still"] = {b: stillness(domain, b) for b in ("gl", "tiny")}
        if "corpus" not in args.skip:
            results["whole_corpus"] = whole_corpus(scratch, args.corpus_limit)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=1))
    print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
