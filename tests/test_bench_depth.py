"""benchmarks/bench_depth.py: issue 33's targets read off a small built benchmark."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from corpus_support import simulated_corpus
from taskqa.benchmark.balance import BalanceConfig
from taskqa.benchmark.build import BuildConfig, build_benchmark
from taskqa.simulation.domain import Domain

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_depth.py"
# a 12-episode world has nearly as many answers as training questions; sklearn says so
pytestmark = pytest.mark.filterwarnings("ignore:The number of unique classes:UserWarning")


@pytest.fixture(scope="module")
def depth() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_depth", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_depth"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory, domain: Domain) -> Path:
    corpus = simulated_corpus(tmp_path_factory, domain, "depth", episodes=12, seed=3)
    out = tmp_path_factory.mktemp("depth-built") / "bench"
    config = BuildConfig(balance=BalanceConfig(target=600), grounding=False)
    build_benchmark(corpus, out, config)
    return out


@pytest.fixture(scope="module")
def result(depth: ModuleType, bench: Path) -> dict[str, Any]:
    measured: dict[str, Any] = depth.measure(bench)
    return measured


def _rows(result: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["name"]: row for row in result["targets"]}


def _split(bench: Path, family: str, split: str) -> list[dict[str, Any]]:
    path = bench / "splits" / family / f"{split}.jsonl"
    return [json.loads(line) for line in path.open()] if path.is_file() else []


def test_sizes_and_shares_are_counted_from_the_split_files(
    result: dict[str, Any], bench: Path
) -> None:
    rows = _rows(result)
    normal = sum(len(_split(bench, "normal", s)) for s in ("train", "val", "test"))
    balanced = rows["balanced normal questions (train+val+test)"]
    assert balanced["measured"] == normal > 0
    assert balanced["passed"] is False  # a 12-episode world is far below 25,000
    test = _split(bench, "normal", "test")
    action = 100 * sum(r["semantic"] == "action" for r in test) / len(test)
    predictive = 100 * sum("predictive" in r["types"] for r in test) / len(test)
    action_row = rows["normal test share (%): semantic/action"]
    predictive_row = rows["normal test share (%): type/predictive"]
    assert action_row["measured"] == pytest.approx(action, abs=0.01)
    assert action_row["passed"] is (action <= 45)
    assert predictive_row["measured"] == pytest.approx(predictive, abs=0.01)
    assert predictive_row["passed"] is (predictive >= 10)
    # multi-label: the type shares add up to at least 100%, more for questions with two types
    types = [v for k, v in result["normal_test_shares"].items() if k.startswith("type/")]
    assert sum(types) >= 100 - 0.05
    held = rows["held-out-objects: test questions"]
    assert held["measured"] == len(_split(bench, "held-out-objects", "test"))


def test_one_answer_share_divides_by_what_balancing_received(
    result: dict[str, Any], bench: Path
) -> None:
    diagnostics = json.loads((bench / "diagnostics" / "diagnostics.json").read_text())
    manifest = json.loads((bench / "manifest.json").read_text())
    dropped = diagnostics["balancing"]["dropped"].get("binary: group has one answer", 0)
    candidates = manifest["counts"]["candidates"]  # no grounding check in this build
    name = f"'group has one answer' drops, % of {candidates:,} grounded candidates"
    row = _rows(result)[name]
    assert dropped > 0
    assert row["measured"] == pytest.approx(100 * dropped / candidates, abs=0.01)


def test_trust_rows_pass_and_hand_studies_are_marked(
    depth: ModuleType, result: dict[str, Any]
) -> None:
    rows = _rows(result)
    assert rows["normal: oracle accuracy (%)"]["measured"] == 100.0
    assert rows["taskqa check: normal answers that differ"] == {
        "name": "taskqa check: normal answers that differ",
        "measured": 0.0,
        "limit": "<= 0",
        "passed": True,
    }
    assert rows["minimal pairs (not built with --pairs)"]["passed"] is None
    overall = rows["normal: text-only - max(most likely, chance)"]
    assert overall["passed"] is (overall["measured"] <= 3)
    table = depth.markdown(result)
    assert table.count("not measured here") == 1 + len(depth.BY_HAND)
    assert "| normal: oracle accuracy (%) | 100.00 | >= 100 | PASS |" in table


def test_one_answer_share_uses_the_grounding_checks_survivors(depth: ModuleType) -> None:
    manifest = {"counts": {"candidates": 999}}  # ignored when the grounding check ran
    for dropped, share, passed in ((100, 25.0, True), (121, 30.25, False)):
        diagnostics = {
            "grounding": {"ran": True, "kept": 400},
            "balancing": {"dropped": {"binary: group has one answer": dropped}},
        }
        row = depth.one_answer_target(diagnostics, manifest)
        assert (row.measured, row.limit, row.passed) == (share, "<= 30", passed)
