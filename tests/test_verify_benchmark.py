"""Tasks, the kitchen planner, descriptions, negatives and splits of the built benchmark."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from taskqa.verify.benchmark import (
    CONTEXT_EXCLUSIONS,
    HELD_OUT_PAIRS,
    SPLITS,
    build_benchmark,
    sample_trial,
    split_tasks,
)
from taskqa.verify.descriptions import render, satisfied, task_blocks
from taskqa.verify.evaluation import load_benchmark
from taskqa.verify.graph import SubTask, parse_dsl
from taskqa.verify.kitchen import Kitchen, PreconditionError, Scene, act_out
from taskqa.verify.parser import parse_description
from taskqa.verify.tasks import NOVEL_TASKS, TASK_BY_NAME, TASKS, TRAIN_TASKS


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("verify") / "bench"
    build_benchmark(out, trials_per_split=60, seed=5)
    return out


def records(folder: Path, name: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in (folder / name).read_text().splitlines()]


def test_the_82_tasks_and_their_axes() -> None:
    assert len(TASKS) == 82 and len(TRAIN_TASKS) == 55 and len(NOVEL_TASKS) == 27
    cells = Counter((t.complexity, t.ordering) for t in TASKS)
    assert cells == {(1, 0): 6, (2, 0): 9, (2, 1): 14, (3, 0): 7, (3, 2): 46}
    assert TASK_BY_NAME["clean_and_heat_then_slice"].ordering == 2
    assert TASK_BY_NAME["cool_and_clean_and_place"].novel
    assert not TASK_BY_NAME["slice_and_heat"].novel
    assert [len(split_tasks(s)) for s in SPLITS] == [55, 27, 53, 55, 49]


def test_then_order_is_enforced_by_preconditions() -> None:
    kitchen = Kitchen(Scene.generate(1), TASK_BY_NAME["clean_then_heat"], "apple", random.Random(0))
    kitchen.goto(kitchen.target.location)
    kitchen.pickup("apple")
    kitchen.goto("microwave")
    with pytest.raises(PreconditionError, match="heat before clean"):
        kitchen.change_state(SubTask.HEAT, "microwave")


def test_episodes_vary_and_carry_out_their_task() -> None:
    task = TASK_BY_NAME["slice_and_heat_and_clean"]
    orders = set()
    for seed in range(20):
        episode = act_out("e", task, "apple", None, Scene.generate(3), f"s{seed}")
        orders.add(episode.order)
        final = episode.segments[-1].state_after
        assert {"clean", "hot", "sliced"} <= set(final["states"])  # type: ignore[arg-type]
        assert satisfied(
            render("apple", task_blocks(task, None), random.Random(seed)).graph, episode.segments
        )
    assert len(orders) >= 4  # several of the 6 possible orders occur


def test_every_split_is_balanced_and_labels_hold_against_ground_truth(built: Path) -> None:
    pairs = load_benchmark(built)
    counts = Counter((p.split, p.label) for p in pairs)
    assert all(counts[(s, 0)] == counts[(s, 1)] == 60 for s in SPLITS)
    for pair in pairs:
        graph = parse_description(pair.view.description)
        assert satisfied(graph, pair.view.segments) == bool(pair.label), pair.view.pair_id
    kinds = Counter(p.negative_kind for p in pairs if not p.label)
    assert set(kinds) == {
        "order_swap",
        "impossible_order",
        "substitution",
        "extra_subtask",
        "wrong_receptacle",
        "shuffled_video",
        "dropped_segment",
    }


def test_the_parser_recovers_every_generated_graph(built: Path) -> None:
    for record in records(built, "pairs.jsonl"):
        assert parse_description(str(record["description"])).to_dsl() == record["graph"]


def test_split_filters(built: Path) -> None:
    episodes = {str(e["episode_id"]): e for e in records(built, "episodes.jsonl")}
    novel = {t.name for t in NOVEL_TASKS}
    for episode in episodes.values():
        split = str(episode["episode_id"]).rsplit("-", 1)[0]
        task = TASK_BY_NAME[str(episode["task"])]
        used = {
            (s, episode["receptacle"] if s is SubTask.PLACE else episode["object"])
            for s in task.subtasks
        }
        assert (task.name in novel) == (split == "novel_tasks")
        assert bool(used & HELD_OUT_PAIRS) == (split == "novel_steps")
        assert (int(episode["scene"]) >= 26) == (split == "novel_scenes")  # type: ignore[call-overload]
        for scenes, subtask, names in CONTEXT_EXCLUSIONS:
            if episode["scene"] in scenes:
                assert not any((subtask, n) in used for n in names)
    abstract = [r for r in records(built, "pairs.jsonl") if r["split"] == "abstraction"]
    assert not any("SinkBasin" in str(r["description"]) for r in abstract)
    assert any(str(r["description"]).startswith("a ") for r in abstract)  # goal-oriented text


def test_build_is_deterministic(built: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    build_benchmark(again, trials_per_split=60, seed=5)
    for name in ("episodes.jsonl", "pairs.jsonl", "manifest.json", "tasks.json"):
        assert (again / name).read_bytes() == (built / name).read_bytes()
    other = tmp_path / "other"
    build_benchmark(other, trials_per_split=60, seed=6)
    assert (other / "pairs.jsonl").read_bytes() != (built / "pairs.jsonl").read_bytes()


def test_sampling_is_seeded() -> None:
    assert sample_trial("novel_steps", 3, 1) == sample_trial("novel_steps", 3, 1)
    graph = parse_dsl(
        render(
            "egg", task_blocks(TASK_BY_NAME["heat_simple"], None), random.Random(0)
        ).graph.to_dsl()
    )
    assert graph.queries[0].subtask is SubTask.HEAT
