"""`taskqa build` on the simulated world: balance properties, split ratios, determinism."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from corpus_support import simulated_corpus
from taskqa.benchmark.balance import BalanceConfig, cap_counts, top_share
from taskqa.benchmark.build import BuildConfig, build_benchmark
from taskqa.benchmark.candidates import balancing_key
from taskqa.benchmark.folder import FAMILIES, families_in
from taskqa.benchmark.mix import MixConfig, mix_quotas, mix_summary, scale_to, water_fill
from taskqa.benchmark.mix_floors import cell_tags
from taskqa.cli import app
from taskqa.questions.config import GenerationConfig
from taskqa.questions.generate import generate_file
from taskqa.questions.records import read_questions
from taskqa.questions.template import load_templates
from taskqa.simulation.domain import Domain

TARGET = 1200  # below what text balancing keeps of this 60-episode corpus (about 1,500)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory, domain: Domain) -> Path:
    return simulated_corpus(tmp_path_factory, domain, "bench", episodes=60, seed=11)


@pytest.fixture(scope="module")
def candidates(corpus: Path, tmp_path_factory: pytest.TempPathFactory, domain: Domain) -> Path:
    from taskqa.convert import read_recordings

    recordings, verbs = read_recordings(corpus)
    out = tmp_path_factory.mktemp("candidates") / "questions.jsonl"
    generate_file(recordings, load_templates(), out, GenerationConfig(), verbs, workers=2)
    return out


@pytest.fixture(scope="module")
def bench(corpus: Path, candidates: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("built") / "bench"
    config = BuildConfig(balance=BalanceConfig(target=TARGET), grounding=False)
    build_benchmark(corpus, out, config, candidates_file=candidates)
    return out


def _records(bench: Path, family: str) -> dict[str, list[dict[str, Any]]]:
    return {
        split: [json.loads(line) for line in (bench / "splits" / family / f"{split}.jsonl").open()]
        for split in ("train", "val", "test")
    }


def _balanced(bench: Path) -> list[dict[str, Any]]:
    return [r for records in _records(bench, "normal").values() for r in records]


def test_binary_answers_are_exactly_half_yes_within_every_reasoning_type(bench: Path) -> None:
    answers: dict[str, Counter[str]] = defaultdict(Counter)
    for record in _balanced(bench):
        if record["answer"] in ("yes", "no"):
            answers[balancing_key(record)][record["answer"]] += 1
    assert len(answers) >= 3  # the existence questions now hold most yes/no pairs
    for counts in answers.values():
        assert counts["yes"] == counts["no"] > 0


def test_top_fifth_of_open_answers_answer_at_most_a_third(bench: Path) -> None:
    answers: dict[str, Counter[str]] = defaultdict(Counter)
    few: dict[str, bool] = {}
    for record in _balanced(bench):
        if record["answer"] not in ("yes", "no"):
            kind = balancing_key(record)
            answers[kind][record["answer"]] += 1
            allows = len(record.get("answer_choices") or [])
            few[kind] = few.get(kind, True) and 2 <= allows <= 4
    capped = [counts for kind, counts in answers.items() if len(counts) >= 5 and not few[kind]]
    assert len(capped) >= 5
    for counts in capped:
        assert top_share(counts, 0.2) <= 0.333
    # a type whose every text allows two to four answers takes no cap (groups.py `_settle`):
    # its texts are cut to 1/k each, so no answer answers more of it than a guess does
    for kind, counts in answers.items():
        if few[kind]:
            fewest = min(
                len(r.get("answer_choices") or [])
                for r in _balanced(bench)
                if r["answer"] not in ("yes", "no") and balancing_key(r) == kind
            )
            assert max(counts.values()) <= sum(counts.values()) / fewest + 1e-9, kind


def test_binary_to_open_is_one_to_two_and_the_target_is_respected(bench: Path) -> None:
    records = _balanced(bench)
    binary = sum(r["answer"] in ("yes", "no") for r in records)
    open_ = len(records) - binary
    assert abs(2 * binary - open_) <= 4
    # whole small groups and re-settled caps cost more of the target on a corpus this small
    # (about 0.1% on 400 episodes; benchmarks/bench_question_validity.py); the mix then keeps
    # at least its share of that
    mix = _mix(bench)
    assert 0.8 * TARGET <= mix["balanced"] <= TARGET
    # sampling keeps or drops small groups whole, so the mix falls a little below its aim here
    assert 0.9 * mix["keep"] * mix["balanced"] <= len(records) == mix["kept"] <= mix["balanced"]
    manifest = json.loads((bench / "manifest.json").read_text())
    assert manifest["counts"]["balanced"] == len(records)
    assert manifest["counts"]["candidates"] > 5 * TARGET


def _mix(bench: Path) -> dict[str, Any]:
    diagnostics = json.loads((bench / "diagnostics" / "diagnostics.json").read_text())
    mix: dict[str, Any] = diagnostics["balancing"]["mix"]
    return mix


def test_the_mix_moves_every_category_towards_its_target(bench: Path) -> None:
    """--mix cuts over-represented reasoning types: a category not reported short is within a
    point of its target or above it (where others fall short, or a type it shares questions
    with is kept whole), one reported short never lost share, and the achieved shares are the benchmark's own (multi-label, as EgoTaskQA counts)."""
    mix = _mix(bench)
    records = _balanced(bench)
    short, traded = set(mix["short"]), set(mix["traded"])
    # this small build may meet every target (the short path: the test below)
    assert short != {f"{a}/{c}" for a, t in mix["targets"].items() for c in t}
    moved = 0
    for axis, targets in mix["targets"].items():
        for category, target in targets.items():
            reached, supplied = mix["achieved"][axis][category], mix["supplied"][axis][category]
            if f"{axis}/{category}" in short:
                assert reached >= supplied - 0.005  # kept all it could
                assert supplied < target - 0.01
            elif f"{axis}/{category}" in traded:
                # enough supply, cut by another axis's target: never far below its own
                assert supplied >= target - 0.01 and reached >= target - 0.05
            else:
                assert reached >= target - 0.01
            moved += abs(reached - target) < abs(supplied - target) - 0.01
            if axis == "answer":
                count = sum(
                    (r["answer"] in ("yes", "no")) == (category == "binary") for r in records
                )
            else:
                field = {"type": "types", "scope": "scopes"}.get(axis)
                count = sum(
                    category in r[field] if field else r["semantic"] == category for r in records
                )
            assert count / len(records) == pytest.approx(reached, abs=1e-9)
    assert moved >= 3
    report = (bench / "diagnostics" / "report.md").read_text()
    said = "Short of target, because the world's balanced candidates cannot supply"
    assert (said in report) == bool(short)


def test_a_category_the_supply_cannot_fill_is_reported_short_and_kept_whole() -> None:
    """Explanatory questions are 1% of the supply against a target of 22.5%: the mix cuts the
    rest to about ``keep`` of the set, which lifts the explanatory share well above what was
    supplied, keeps all 100 (raking alone traded some against the open share: the floors keep
    a category's whole supply where it is below its floor), and reports explanatory short
    (supplied below its target), not traded. Every floor and ceiling holds."""
    supply = {
        ("descriptive$world$action$query", "open"): 4000,
        ("descriptive$world$state$verify", "binary"): 2000,
        ("predictive$world$state$query", "open"): 900,
        ("counterfactual$world$state$query", "open"): 1200,
        ("explanatory$world$state$query", "open"): 100,
        ("descriptive$intent$action$query", "open"): 800,
        ("descriptive$multi-agent$action$query", "open"): 900,
        ("descriptive$world$change$verify", "binary"): 2000,
        ("descriptive$world$object$query", "open"): 900,
    }
    config = MixConfig(keep=0.5)
    quotas = mix_quotas(supply, 9000, config)
    assert all(quotas[c] <= n for c, n in supply.items())
    assert sum(quotas.values()) >= 0.5 * 9000 - len(supply)
    summary = mix_summary(supply, quotas, 9000, config)
    reached, supplied = (summary[k]["type"]["explanatory"] for k in ("achieved", "supplied"))
    assert reached > 1.5 * supplied and reached < 0.225 - 0.01
    assert "type/explanatory" in summary["short"]
    assert "type/explanatory" not in summary["traded"]
    assert quotas["explanatory$world$state$query", "open"] == 100
    kept = sum(quotas.values())

    def share_of(category: str) -> tuple[int, int]:
        cells = [c for c in supply if f"tag/{category}" in cell_tags(c)]
        return sum(quotas[c] for c in cells), sum(supply[c] for c in cells)

    for axis_floors in config.floors.values():
        for category, floor in axis_floors.items():
            got, had = share_of(category)
            assert got >= min(floor * kept, had) - len(supply), (category, got, had)
    for axis_ceilings in config.ceilings.values():
        for category, ceiling in axis_ceilings.items():
            assert share_of(category)[0] <= ceiling * kept + len(supply), category


def test_the_report_says_how_much_supply_the_text_fixes(bench: Path) -> None:
    """Per category, the candidates balancing dropped because their text had one answer (or
    too few for the share): what the world would have to vary to keep."""
    report = (bench / "diagnostics" / "report.md").read_text()
    diagnostics = json.loads((bench / "diagnostics" / "diagnostics.json").read_text())
    dropped = diagnostics["balancing"]["dropped"]
    fixed_total = dropped.get("binary: group has one answer", 0) + dropped.get(
        "open: group has too few answers for the share", 0
    )
    rows = {}
    for line in report.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 4 and "/" in cells[0] and cells[1].isdigit():
            rows[cells[0]] = (int(cells[1]), cells[2], int(cells[3]))
    assert "| category | candidates | text fixes the answer | balanced |" in report
    # every dropped candidate is a binary or an open one, and has one semantic category
    answer_axis = sum(int(rows[c][1]) for c in ("answer/binary", "answer/open") if c in rows)
    semantic = sum(int(v[1]) for c, v in rows.items() if c.startswith("semantic/"))
    assert fixed_total > 0 and answer_axis == semantic == fixed_total
    for candidates, fixed, kept in rows.values():
        assert fixed in ("", "-", "—") or int(fixed) + kept <= candidates


def test_no_mix_keeps_what_balancing_keeps(corpus: Path, candidates: Path, tmp_path: Path) -> None:
    config = BuildConfig(
        balance=BalanceConfig(target=TARGET, mix=MixConfig(enabled=False)), grounding=False
    )
    manifest = build_benchmark(corpus, tmp_path / "plain", config, candidates_file=candidates)
    assert manifest["counts"]["balanced"] >= 0.8 * TARGET
    report = (tmp_path / "plain" / "diagnostics" / "report.md").read_text()
    assert "The mix step was off (--no-mix)" in report


def test_normal_split_is_three_one_one_and_stratified(bench: Path) -> None:
    parts = _records(bench, "normal")
    sizes = {split: len(records) for split, records in parts.items()}
    total = sum(sizes.values())
    # yes/no pairs are dealt whole, as one sequence, and single questions as another
    assert abs(sizes["train"] - 0.6 * total) <= 3
    assert abs(sizes["val"] - 0.2 * total) <= 3
    assert abs(sizes["test"] - 0.2 * total) <= 3
    strata: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for split, records in parts.items():
        for record in records:
            assert record["split"] == split
            strata[(balancing_key(record), record["answer"])][split] += 1
    for counts in strata.values():
        size = sum(counts.values())
        for split, share in (("train", 0.6), ("val", 0.2), ("test", 0.2)):
            assert abs(counts[split] - share * size) < 1.0 + 1e-9


def test_indirect_split_tests_only_questions_that_need_a_reference(bench: Path) -> None:
    parts = _records(bench, "indirect")
    for split in ("val", "test"):
        assert parts[split]
        for record in parts[split]:
            assert record["reference"] == "indirect"
            assert not record["template"].startswith("indirect/")
    assert abs(len(parts["val"]) - len(parts["test"])) <= 2  # within one yes/no pair
    assert len(parts["train"]) <= len(parts["val"]) + len(parts["test"])
    assert {r["reference"] for r in parts["train"]} == {"direct", "indirect"}


def _text_groups(records: list[dict[str, Any]]) -> dict[tuple[str, str], Counter[str]]:
    groups: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for record in records:
        shown = json.dumps(record["params"], sort_keys=True)
        groups[(record["template"], shown)][record["answer"]] += 1
        groups[("text", " ".join(record["question"].lower().split()))][record["answer"]] += 1
    return groups


def test_every_text_and_shown_parameters_are_balanced_in_every_split(bench: Path) -> None:
    balanced = _balanced(bench)
    choices = {
        key: len(r.get("answer_choices") or ())
        for r in balanced
        for key in _text_groups([r])
        if r["answer"] not in ("yes", "no")
    }
    for key, counts in _text_groups(balanced).items():
        open_counts = [n for a, n in counts.items() if a not in ("yes", "no")]
        # a question of k answers (an attribute's values) keeps each at most 1/k of its group
        share = max(0.2, 1 / choices[key]) if choices.get(key, 0) >= 2 else 0.2
        assert all(n <= share * sum(open_counts) + 1e-9 for n in open_counts)
        assert counts["yes"] == counts["no"]
    assert families_in(bench) == FAMILIES  # every family could be made of this set
    for family in FAMILIES:
        for split, records in _records(bench, family).items():
            # the indirect family's val and test hold object references, all open questions
            if family != "indirect":
                assert any(r["answer"] == "yes" for r in records), (family, split)
            for counts in _text_groups(records).values():
                assert counts["yes"] == counts["no"], (family, split)


def test_generalisation_families_hold_out_what_they_say(bench: Path, corpus: Path) -> None:
    from taskqa.benchmark.generalisation import _objects, concepts
    from taskqa.convert import read_recordings

    recordings = {r.id: r for r in read_recordings(corpus)[0]}
    info = {
        family: result.get("info", {})
        for family, result in json.loads(
            (bench / "diagnostics" / "diagnostics.json").read_text()
        ).items()
        if family in FAMILIES
    }
    everything = {r["id"] for r in _balanced(bench)}

    # more-steps: train and val ask at most k steps, test more, and each side keeps a quarter
    steps = _records(bench, "more-steps")
    k = info["more-steps"]["k"]
    assert max(r["steps"] for r in steps["train"] + steps["val"]) <= k
    assert min(r["steps"] for r in steps["test"]) > k
    assert min(len(steps["test"]), len(steps["train"]) + len(steps["val"])) >= len(everything) / 4

    # novel-composition: every val/test question combines two concepts train never combines,
    # though train has each of them on its own
    def pairs(record: dict[str, Any]) -> set[str]:
        return concepts(record)

    novel = _records(bench, "novel-composition")
    seen = set().union(*(pairs(r) for r in novel["train"]))
    parts = {part for pair in seen for part in pair.split(" * ")}
    for record in novel["val"] + novel["test"]:
        new = pairs(record) - seen
        assert new, record["question"]
        assert any(set(pair.split(" * ")) <= parts for pair in new), record["question"]
    assert {r["id"] for split in novel.values() for r in split} == everything

    # held-out-objects: no train recording uses a held-out object; every val/test one does
    held = set(info["held-out-objects"]["held_out_objects"])
    objects = _records(bench, "held-out-objects")
    assert held
    assert not any(held & _objects(recordings[r["recording"]]) for r in objects["train"])
    assert all(
        held & _objects(recordings[r["recording"]]) for r in objects["val"] + objects["test"]
    )
    # whole recordings, dealt 1 : 1 by questions: the halves differ by less than one
    # recording's questions (and the pairs parted between them, dropped)
    per_recording = Counter(r["recording"] for r in objects["val"] + objects["test"])
    parted = info["held-out-objects"]["pairs_parted"]
    assert (
        abs(len(objects["val"]) - len(objects["test"])) <= max(per_recording.values()) + 2 * parted
    )


def test_indirect_questions_point_to_their_direct_form(bench: Path) -> None:
    by_id = {r["id"]: r for r in _balanced(bench)}
    linked = [r for r in by_id.values() if r.get("direct_equiv")]
    assert linked
    for record in linked:
        direct = by_id[record["direct_equiv"]]
        assert record["reference"] == "indirect" and direct["reference"] == "direct"
        assert direct["clip"] == record["clip"] and direct["answer"] == record["answer"]


def test_split_files_read_back_as_questions(bench: Path) -> None:
    loaded = list(read_questions(bench / "splits" / "normal" / "test.jsonl"))
    assert loaded and all(q.split == "test" for _, q in loaded)


def test_the_build_report_and_evaluate_have_one_most_likely(bench: Path) -> None:
    """The build's most-likely diagnostic and `taskqa baseline most-likely` (evaluate's column)
    answer every test question alike, from the raw split records and from the read questions,
    and the report's accuracy is theirs; the indirect family's test types are all unseen in
    train, so the fallback is compared too."""
    from taskqa.benchmark import diagnostics
    from taskqa.benchmark.folder import INDIRECT, Benchmark
    from taskqa.evaluation.baselines.run import BaselineName, offline_predictions
    from taskqa.questions.tags import reasoning_type

    reported = json.loads((bench / "diagnostics" / "diagnostics.json").read_text())
    benchmark = Benchmark(bench)
    for family in families_in(bench):
        records = _records(bench, family)
        built = diagnostics.most_likely(records["train"], records["test"])
        questions = benchmark.questions(family, "test")
        evaluated, _ = offline_predictions(
            BaselineName.most_likely, benchmark, f"{family}/test", questions
        )
        assert evaluated == built, family
        right = sum(p == r["answer"] for p, r in zip(built, records["test"], strict=True))
        accuracy = round(100 * right / len(built), 2)
        assert reported[family]["baselines"]["most likely"]["all"] == accuracy, family
    indirect = _records(bench, INDIRECT)
    seen = {reasoning_type(r) for r in indirect["train"]}
    assert indirect["test"] and all(reasoning_type(r) not in seen for r in indirect["test"])


def test_manifest_hashes_every_file_and_diagnostics_are_written(bench: Path) -> None:
    import hashlib

    manifest = json.loads((bench / "manifest.json").read_text())
    files = {p.relative_to(bench).as_posix() for p in bench.rglob("*") if p.is_file()}
    assert set(manifest["files"]) == files - {"manifest.json"}
    for name, digest in manifest["files"].items():
        assert hashlib.sha256((bench / name).read_bytes()).hexdigest() == digest
    diagnostics = json.loads((bench / "diagnostics" / "diagnostics.json").read_text())
    most_likely = diagnostics["normal"]["baselines"]["most likely"]
    assert 40 <= most_likely["binary"] <= 60  # balanced yes/no leave no prior to exploit
    assert diagnostics["normal"]["disjoint_variants"]["clip"]["test_questions_on_train_clips"] == 0
    # the released clip-sharing split: many test questions are asked on clips train also has
    assert diagnostics["normal"]["disjoint_variants"]["none"]["test_questions_on_train_clips"] > 0.3
    report = (bench / "diagnostics" / "report.md").read_text()
    assert "| normal: most likely |" in report and "| normal: chance |" in report
    # the mix beside EgoTaskQA's, and which reasoning types balancing more than halved and why
    assert "### Composition against EgoTaskQA's mix" in report
    assert "| semantic/change |" in report and "| type/explanatory |" in report
    lost = diagnostics["balancing"]["lost_by_type"]
    assert sum(sum(r.values()) for r in lost.values()) == sum(
        diagnostics["balancing"]["dropped"].values()
    )
    assert "### Reasoning types balancing more than halved" in report
    assert 0 < diagnostics["normal"]["chance"]["all"] < 100
    # every text is 50/50 in every split, so memorising texts gets exactly half the yes/no right;
    # a generalisation family may hold a whole text out of train, and then the memoriser's
    # fallback answer (no yes/no at all) gets that pair wrong: never more than half
    for family in FAMILIES:
        if diagnostics[family]["baselines"]["most likely"]["binary"]:  # has yes/no questions
            memorised = diagnostics[family]["baselines"]["question text"]["binary"]
            if family in ("normal", "indirect"):
                assert memorised == 50.0, family
            else:
                assert 45.0 <= memorised <= 50.0, family
    templates = diagnostics["normal"]["templates"]
    assert sum(row["questions"] for row in templates) == most_likely["questions"]
    for row in templates:
        # the lead is over the larger of most likely and chance (a two-valued question is at 50%
        # by guessing, whatever most likely gets)
        reference = max(row["most likely"], row.get("chance", 0.0))
        assert row["lead"] == pytest.approx(row["text classifier"] - reference, abs=0.02)
        assert row["flagged"] == (row["lead"] > 15 and row["questions"] >= 20)
    assert "### Per template, normal test split" in report
    assert "question text: memorises" in report and "text-only: taskqa baseline" in report
    assert diagnostics["balancing"]["balance_by"] == "text"
    assert sum(diagnostics["balancing"]["dropped"].values()) == (
        manifest["counts"]["candidates"] - manifest["counts"]["balanced"]
    )
    assert (bench / "diagnostics" / "figures" / "answers_after.png").stat().st_size > 1000
    videos = (bench / "videos.csv").read_text().splitlines()
    assert videos[0] == "clip,recording,agent,view,video,start_s,end_s" and len(videos) > 10


def test_the_same_inputs_and_seed_give_identical_files(
    corpus: Path, candidates: Path, bench: Path, tmp_path: Path
) -> None:
    again = tmp_path / "again"
    config = BuildConfig(balance=BalanceConfig(target=TARGET), grounding=False)
    build_benchmark(corpus, again, config, workers=2)  # generates itself, with two workers
    first = json.loads((bench / "manifest.json").read_text())
    second = json.loads((again / "manifest.json").read_text())
    assert first["files"] == second["files"]
    other_seed = build_benchmark(
        corpus,
        tmp_path / "seeded",
        BuildConfig(seed=1, balance=BalanceConfig(target=TARGET), grounding=False),
        candidates_file=candidates,
    )
    assert (
        other_seed["files"]["splits/normal/test.jsonl"]
        != first["files"]["splits/normal/test.jsonl"]
    )


def test_recording_disjoint_split_keeps_recordings_apart(
    corpus: Path, candidates: Path, tmp_path: Path
) -> None:
    config = BuildConfig(
        balance=BalanceConfig(target=TARGET), disjoint="recording", grounding=False
    )
    build_benchmark(corpus, tmp_path / "b", config, candidates_file=candidates)
    parts = _records(tmp_path / "b", "normal")
    seen = {split: {r["recording"] for r in records} for split, records in parts.items()}
    assert not seen["train"] & seen["test"] and not seen["train"] & seen["val"]


def test_water_fill_gives_a_full_category_its_limit_and_the_rest_in_proportion() -> None:
    wanted = water_fill({"a": 0.5, "b": 0.25, "c": 0.25}, {"a": 100, "b": 10, "c": 100}, 100)
    assert wanted == pytest.approx({"a": 60, "b": 10, "c": 30})
    assert water_fill({"a": 1.0}, {"a": 5}, 100) == {"a": 5}


def test_scale_to_gives_what_a_full_cell_cannot_take_to_the_others() -> None:
    """A short category's yes/no cell, cut by the answer axis, gets back what its open cells,
    at their supply, cannot take: scaling all by wanted / current and capping would stop at
    10 + 20 = 30 of the 60 wanted."""
    open_, binary = ("explanatory", "open"), ("explanatory", "binary")
    quota = {open_: 10.0, binary: 10.0}
    scale_to(quota, [open_, binary], {open_: 10, binary: 100}, 60)
    assert quota == pytest.approx({open_: 10, binary: 50})
    scale_to(quota, [open_, binary], {open_: 10, binary: 100}, 500)
    assert quota == {open_: 10, binary: 100}
    scale_to(quota, [open_, binary], {open_: 10, binary: 100}, 11)
    assert quota == pytest.approx({open_: 1, binary: 10})


def test_cap_is_exact_with_ties() -> None:
    # Ten answers, two tied at the top: the released slice-based code removes the wrong rows here.
    counts = {f"a{i}": n for i, n in enumerate([40, 40, 10, 10, 10, 5, 5, 5, 5, 5])}
    capped = cap_counts(counts, 0.2, 0.333)
    assert top_share(capped, 0.2) <= 0.333
    level = max(capped.values())
    assert capped["a0"] == capped["a1"] == level
    # one more question on each top answer would break the bound: the cap is the largest that holds
    looser = {a: min(n, level + 1) for a, n in counts.items()}
    assert top_share(looser, 0.2) > 0.333
    assert cap_counts({"a": 9, "b": 1}, 0.2, 0.333) == {"a": 9, "b": 1}  # fewer than five answers


def test_build_command(corpus: Path, candidates: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        [
            "build",
            str(corpus),
            "--out",
            str(tmp_path / "b"),
            "--target",
            "900",
            "--candidates",
            str(candidates),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "balanced questions" in result.output
    bad = CliRunner().invoke(
        app, ["build", str(corpus), "--out", str(tmp_path / "c"), "--disjoint", "video"]
    )
    assert bad.exit_code != 0
    options = ["--candidates", str(candidates), "--target", "900"]
    typed = CliRunner().invoke(
        app, ["build", str(corpus), "--out", str(tmp_path / "t"), *options, "--balance-by", "type"]
    )
    assert typed.exit_code == 0, typed.output
    diagnostics = json.loads((tmp_path / "t" / "diagnostics" / "diagnostics.json").read_text())
    assert diagnostics["balancing"]["balance_by"] == "type"
    manifest = json.loads((tmp_path / "t" / "manifest.json").read_text())
    text_kept = json.loads((tmp_path / "b" / "manifest.json").read_text())["counts"]["balanced"]
    # type balancing, the looser key, keeps about what text balancing keeps, near the target:
    # what yes/no pairs the fixture's few recordings supply bounds it (891 of 900). Text
    # balancing kept 477 here until issue 33's route counterfactuals, whose texts have both
    # answers, and 860 since; since its sixth part, whose mix meets each category's share
    # exactly, the two differ by the mix's rounding (876 by type, 877 by text)
    assert manifest["counts"]["balanced"] >= max(text_kept - 5, 0.95 * 900)
    wrong = CliRunner().invoke(
        app, ["build", str(corpus), "--out", str(tmp_path / "w"), *options, "--balance-by", "word"]
    )
    assert wrong.exit_code != 0 and "expected type, template or text" in wrong.output
