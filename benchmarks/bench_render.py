"""Figures for the household render layer: frames per second for a full room, byte-identical
output across runs and worker counts, and the pixel probe against the majority class.

    .venv/bin/python benchmarks/bench_render.py [--frames 120] [--probe-episodes 40] [--seed 0]

Frame rates depend on the machine and on what else runs on it: the load average is printed
beside them. Every other figure is deterministic for the given arguments.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import tempfile
import time
from pathlib import Path

from taskqa.household.corpus_videos import render_corpus
from taskqa.household.look_spec import load_look
from taskqa.household.options import RenderOptions
from taskqa.household.probe import TARGET, run_probe
from taskqa.household.scene import FIRST_PERSON_FOV, HouseholdScene, View
from taskqa.household.timeline import Timeline
from taskqa.model import Agent, Recording, Relation, Snapshot, Source
from taskqa.render.engine import Camera
from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.corpus import simulate_corpus, write_simulated_corpus
from taskqa.simulation.domain import Domain, load_domain


def full_room(domain: Domain, room: str) -> Recording:
    """Every object the domain puts in ``room`` (distractors too), where the domain puts it."""
    initial = {}
    for name in domain.objects_in(room):
        spec = domain.spec.objects[name]
        relations = []
        if spec.at is not None:
            holds = domain.spec.objects[spec.at].holds or "on-top-of"
            relations.append(Relation(subject=name, relation=holds, object=spec.at))
        initial[name] = Snapshot(attributes=domain.initial_attributes(name), relations=relations)
    return Recording(
        id=f"full-{room}",
        source=Source.SIMULATED,
        duration=1.0,
        fps=1.0,
        environment=room,
        agents=[Agent(id="P1"), Agent(id="P2")],
        initial_state=initial,
    )


def reference_rate(frames: int) -> float:
    """Frames/s of a fixed scene of 150 boxes, 40 cylinders and 20 spheres: how fast this
    machine draws right now, to read the figures below against (other work shares the CPU)."""
    from taskqa.render.engine import RenderScene

    with RenderScene() as scene:
        for k in range(210):
            x, y, z = (k * 0.37) % 6 - 3, (k * 0.53) % 6 - 3, (k * 0.11) % 2
            colour = ((k * 0.13) % 1, 0.5, 0.5, 1.0)
            if k < 150:
                scene.add_box((0.1, 0.1, 0.1), colour, (x, y, z))
            elif k < 190:
                scene.add_cylinder(0.05, 0.1, colour, (x, y, z))
            else:
                scene.add_sphere(0.05, colour, (x, y, z))
        camera = Camera(eye=(0.0, -3.5, 2.2), target=(0.0, 0.0, 0.8))
        scene.capture(camera)
        start = time.perf_counter()
        for _ in range(frames):
            scene.capture(camera)
        return frames / (time.perf_counter() - start)


def frame_rates(domain: Domain, frames: int) -> None:
    print("\n## Frames per second, one process, full room (every object of the room)")
    print(f"load average before: {os.getloadavg()[0]:.2f} (2 cores)")
    print(f"reference scene (210 primitives, 224x224): {reference_rate(frames):.0f} frames/s")
    print("room         size     objects  bodies  view           frames/s")
    look = load_look()
    for room in domain.spec.rooms:
        recording = full_room(domain, room)
        timeline = Timeline(recording, domain)
        for width, height in ((224, 224), (320, 240)):
            with HouseholdScene(timeline, domain, look, room, width, height) as scene:
                layout = scene.layout
                zones = list(layout.zones.values())
                # People stand in two zones looking at their things: both drawn as figures.
                stand = {
                    agent: ((zone.stand[0], zone.stand[1], 0.0), 0.0)
                    for agent, zone in zip(("P1", "P2"), zones, strict=False)
                }
                third = Camera(
                    eye=layout.third_person.eye,
                    target=layout.third_person.target,
                    fov=layout.third_person.fov,
                    width=width,
                    height=height,
                )
                firsts = []
                for zone in zones:
                    eye = (zone.stand[0], zone.stand[1], 1.6)
                    firsts.append(
                        Camera(eye, zone.look, fov=FIRST_PERSON_FOV, width=width, height=height)
                    )
                gaze = {"P1": (firsts[0].eye, firsts[0].target)}
                scene.set_time(0.0, gaze, stand)
                bodies = scene.body_count
                for name, cameras in (("third-person", [third]), ("first-person", firsts)):
                    scene.capture(View(cameras[0], None))
                    start = time.perf_counter()
                    for index in range(frames):
                        scene.set_time(index * 0.5, gaze, stand)
                        scene.capture(View(cameras[index % len(cameras)], None))
                    rate = frames / (time.perf_counter() - start)
                    print(
                        f"{room:12s} {width}x{height:<4d} {len(scene.things):7d}  {bodies:6d}  "
                        f"{name:13s}  {rate:8.1f}"
                    )
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print(f"reference scene again: {reference_rate(frames):.0f} frames/s")


def digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def determinism(domain: Domain, seed: int) -> None:
    print("\n## Byte-identical rendering (3 recordings, 2 fps, 224 px, masks)")
    config = SimulationConfig(episodes=3, seed=seed)
    recordings = simulate_corpus(config, domain)
    options = RenderOptions(fps=2.0, masks=True)
    with tempfile.TemporaryDirectory() as scratch:
        corpus = Path(scratch) / "corpus"
        write_simulated_corpus(corpus, config, recordings, domain)
        results = {}
        for label, workers in (("run 1, 1 worker", 1), ("run 2, 1 worker", 1), ("2 workers", 2)):
            out = Path(scratch) / label.replace(" ", "-").replace(",", "")
            start = time.perf_counter()
            render_corpus(corpus, out, options, workers=workers)
            seconds = time.perf_counter() - start
            results[label] = digest(out)
            print(f"{label:16s} {len(results[label])} files in {seconds:.1f} s")
        first = results["run 1, 1 worker"]
        for label, found in results.items():
            print(f"{label:16s} identical to run 1: {found == first}")


def probe(domain: Domain, episodes: int, seed: int) -> None:
    print(f"\n## Pixel probe ({episodes} episodes, 30% held-out recordings, seed {seed})")
    config = SimulationConfig(episodes=episodes, seed=seed)
    recordings = simulate_corpus(config, domain)
    with tempfile.TemporaryDirectory() as scratch:
        corpus = Path(scratch) / "corpus"
        write_simulated_corpus(corpus, config, recordings, domain)
        start = time.perf_counter()
        report = run_probe(corpus, Path(scratch) / "probe", seed=seed, workers=2)
        seconds = time.perf_counter() - start
    print(
        f"{len(report.train_recordings)} train / {len(report.test_recordings)} test recordings, "
        f"{seconds:.0f} s"
    )
    print("attribute          train  test  probe    majority  target")
    for score in report.scores:
        mark = "ok" if score.accuracy >= TARGET else "UNDER"
        print(
            f"{score.attribute:18s} {score.train:5d} {score.test:5d}  {score.accuracy:6.1%}  "
            f"{score.majority:6.1%}    {mark}"
        )
    weighted = sum(s.accuracy * s.test for s in report.scores) / max(
        1, sum(s.test for s in report.scores)
    )
    print(f"sample-weighted probe accuracy: {weighted:.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--frames", type=int, default=120)
    parser.add_argument("--probe-episodes", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--skip", nargs="*", default=[], choices=["fps", "determinism", "probe", "worlds"]
    )
    args = parser.parse_args()
    domain = load_domain()
    if "fps" not in args.skip:
        frame_rates(domain, args.frames)
    if "determinism" not in args.skip:
        determinism(domain, args.seed)
    if "probe" not in args.skip:
        probe(domain, args.probe_episodes, args.seed)
    if "worlds" not in args.skip:  # the physics scenes and the EgoTV kitchen
        import bench_render_worlds

        bench_render_worlds.section(seed=args.seed)


if __name__ == "__main__":
    main()
