"""Text-conditional balancing on synthetic candidate files: brute force and properties."""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from taskqa.benchmark.balance import BalanceConfig, Balanced, balance, top_share
from taskqa.benchmark.candidates import Candidates, read_candidates
from taskqa.benchmark.diagnostics import by_template, text_classifier
from taskqa.benchmark.groups import TOLERANCE, group_level
from taskqa.benchmark.mix import MixConfig
from taskqa.benchmark.splits import indirect_split, normal_split
from taskqa.problems import InvalidInputError

# template -> (types, structural, reference, answers it can have)
TEMPLATES = {
    "verify/state": (["descriptive"], "verify", "direct", ["yes", "no"]),
    "verify/state/first": (["descriptive"], "verify", "indirect", ["yes", "no"]),
    "query/value": (["descriptive"], "query", "direct", [f"v{i}" for i in range(9)]),
    "query/value/last": (["descriptive"], "query", "indirect", [f"v{i}" for i in range(9)]),
    "query/action": (["predictive"], "query", "direct", [f"act {i}" for i in range(12)]),
}
OBJECTS = ["fridge", "cup", "something", "door"]
Row = tuple[str, int, int, int]  # template, object, paraphrase, answer index


def record(index: int, row: Row) -> dict[str, object]:
    template, obj, paraphrase, answer = row
    types, structural, reference, answers = TEMPLATES[template]
    phrasing = ("What about the {o}?", "And the {o}, what about it?")[paraphrase]
    return {
        "id": f"q{index:05d}",
        "recording": f"r{index % 7}",
        "clip": f"r{index % 7}|P1|0|{index % 13}",
        "template": template,
        "question": f"[{template}] " + phrasing.format(o=OBJECTS[obj]),
        "params": {"o": OBJECTS[obj]},
        "answer": answers[answer % len(answers)],
        "types": types,
        "scopes": ["world"],
        "semantic": "state",
        "structural": structural,
        "reference": reference,
    }


def write(path: Path, rows: Sequence[Row], order: Sequence[int] | None = None) -> Candidates:
    records = [record(i, row) for i, row in enumerate(rows)]
    lines = [json.dumps(records[i]) for i in (order if order is not None else range(len(rows)))]
    path.write_text("".join(line + "\n" for line in lines))
    return read_candidates(path)


def skewed_rows(seed: int, count: int) -> list[Row]:
    """Candidates whose answers lean hard on the template and object, like the simulated world's."""
    rng = random.Random(seed)
    rows = []
    for _ in range(count):
        template = rng.choice(sorted(TEMPLATES))
        obj = rng.randrange(len(OBJECTS))
        answer = obj if rng.random() < 0.6 else rng.randrange(12)  # the object predicts it
        rows.append((template, obj, rng.randrange(2), answer))
    return rows


def groups_of(
    candidates: Candidates, rows: Sequence[int], key: Callable[[int], object]
) -> dict[object, Counter[str]]:
    counts: dict[object, Counter[str]] = defaultdict(Counter)
    for row in rows:
        counts[key(row)][candidates.answers[row]] += 1
    return counts


def assert_text_balanced(
    candidates: Candidates, rows: Sequence[int], share: float, path: Path
) -> None:
    records = {str(r["id"]): r for r in map(json.loads, path.read_text().splitlines())}

    def text(row: int) -> object:
        return str(records[candidates.ids[row]]["question"]).lower()

    def shown(row: int) -> object:
        record = records[candidates.ids[row]]
        return (record["template"], json.dumps(record["params"], sort_keys=True))

    for key in (candidates.phrasings.__getitem__, text, shown):
        for counts in groups_of(candidates, rows, key).values():
            assert counts["yes"] == counts["no"]
            open_counts = {a: n for a, n in counts.items() if a not in ("yes", "no")}
            for n in open_counts.values():
                assert n <= share * sum(open_counts.values()) + TOLERANCE


def test_group_level_is_the_largest_level_within_the_share() -> None:
    rng = random.Random(3)
    for _ in range(400):
        counts = [rng.randrange(1, 12) for _ in range(rng.randrange(1, 9))]
        share = rng.choice([0.2, 0.25, 1 / 3, 0.5, 0.9])
        fits = [m for m in range(1, max(counts) + 1) if m <= share * sum(min(n, m) for n in counts)]
        assert group_level(counts, share) == (max(fits) if fits else 0)
    assert group_level([3, 3, 3, 3, 3], 0.2) == 3  # exactly a fifth each: within
    assert group_level([7], 0.5) == 0  # one answer can never be within a share below 1
    assert group_level([], 0.5) == 0


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.integers(0, 10_000),
    count=st.integers(0, 400),
    share=st.sampled_from([0.2, 0.25, 0.5]),
    target=st.sampled_from([0, 90, 300]),
)
def test_every_text_group_is_exactly_balanced_and_capped(
    tmp_path: Path, seed: int, count: int, share: float, target: int
) -> None:
    path = tmp_path / f"c{seed}.jsonl"
    candidates = write(path, skewed_rows(seed, count))
    config = BalanceConfig(target=target, min_binary=0, group_share=share)
    balanced = balance(candidates, config)
    assert_text_balanced(candidates, balanced.rows, share, path)
    # groups with a single answer among their candidates keep nothing
    every = groups_of(candidates, range(len(candidates)), candidates.phrasings.__getitem__)
    kept = groups_of(candidates, balanced.rows, candidates.phrasings.__getitem__)
    for key, counts in every.items():
        if len(counts) == 1:
            assert key not in kept
    # the reasoning type's caps still hold
    for counts in groups_of(candidates, balanced.rows, candidates.types.__getitem__).values():
        assert counts["yes"] == counts["no"]
        assert top_share({a: n for a, n in counts.items() if a not in ("yes", "no")}, 0.2) <= 0.333
    binary = sum(candidates.is_binary(r) for r in balanced.rows)
    assert 2 * binary <= len(balanced.rows) - binary
    if target:
        assert len(balanced.rows) <= target
    assert set(balanced.partners) == {r for r in balanced.rows if candidates.is_binary(r)}
    for yes, no in balanced.partners.items():
        assert balanced.partners[no] == yes
        assert candidates.phrasings[yes] == candidates.phrasings[no]
    assert sum(balanced.dropped.values()) == len(candidates) - len(balanced.rows)


def test_template_grouping_balances_each_template(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    candidates = write(path, skewed_rows(5, 3000))
    balanced = balance(candidates, BalanceConfig(target=0, balance_by="template"))
    by_template = groups_of(candidates, balanced.rows, candidates.templates.__getitem__)
    assert len(by_template) == len(TEMPLATES)
    for counts in by_template.values():
        assert counts["yes"] == counts["no"]
        open_counts = [n for a, n in counts.items() if a not in ("yes", "no")]
        assert all(n <= 0.2 * sum(open_counts) + TOLERANCE for n in open_counts)
    text = balance(candidates, BalanceConfig(target=0))
    # the finer groups cost questions: a text group must hold both answers of a pair itself
    assert 0 < len(text.rows) < len(balanced.rows)


def test_the_result_depends_on_ids_and_seed_not_on_file_order(tmp_path: Path) -> None:
    rows = skewed_rows(11, 2500)
    order = list(range(len(rows)))
    random.Random(0).shuffle(order)
    first = write(tmp_path / "a.jsonl", rows)
    second = write(tmp_path / "b.jsonl", rows, order)
    config = BalanceConfig(target=600)

    def kept(candidates: Candidates, result: Balanced) -> set[str]:
        return {candidates.ids[r] for r in result.rows}

    one, other = balance(first, config), balance(second, config)
    # about half the target: the mix keeps at least MIX_KEEP of what balancing aims at
    assert kept(first, one) == kept(second, other) and len(one.rows) > 250
    assert one.dropped == other.dropped
    reseeded = balance(first, config.model_copy(update={"seed": 1}))
    assert kept(first, reseeded) != kept(first, one)


def test_splits_keep_every_pair_together(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    candidates = write(path, skewed_rows(2, 6000))
    balanced = balance(candidates, BalanceConfig(target=0, min_binary=0))
    assert len(balanced.partners) > 200
    assignments = {
        "normal": normal_split(candidates, balanced.rows, 0, partners=balanced.partners),
        "indirect": indirect_split(candidates, balanced.rows, 0, balanced.partners),
    }
    for family, assignment in assignments.items():
        for yes, no in balanced.partners.items():
            assert assignment.get(yes) == assignment.get(no), family
        for split in ("train", "val", "test"):
            rows = [r for r in balanced.rows if assignment.get(r) == split]
            assert rows, (family, split)
            for counts in groups_of(candidates, rows, candidates.phrasings.__getitem__).values():
                assert counts["yes"] == counts["no"]
    normal = Counter(assignments["normal"].values())
    for split, part in (("train", 0.6), ("val", 0.2), ("test", 0.2)):
        assert abs(normal[split] - part * len(balanced.rows)) <= 3  # one pair plus one question
    indirect = Counter(assignments["indirect"].values())
    assert abs(indirect["val"] - indirect["test"]) <= 2
    assert indirect["train"] <= indirect["val"] + indirect["test"]


def test_type_balancing_is_kept_as_an_option(tmp_path: Path) -> None:
    candidates = write(tmp_path / "c.jsonl", skewed_rows(4, 3000))
    typed = balance(candidates, BalanceConfig(target=0, balance_by="type"))
    by_type = groups_of(candidates, typed.rows, candidates.types.__getitem__)
    for counts in by_type.values():
        assert counts["yes"] == counts["no"]
    by_text = groups_of(candidates, typed.rows, candidates.phrasings.__getitem__)
    assert any(c["yes"] != c["no"] for c in by_text.values())  # what text balancing removes


def test_diagnostics_survive_an_empty_test_split() -> None:
    train = [{"question": "Is it open?", "answer": a, "template": "t"} for a in ("yes", "no")]
    assert text_classifier(train, []) == []
    assert by_template([], {"most likely": [], "text classifier": []}) == []


def test_a_candidate_without_shown_parameters_is_named(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    broken = record(0, ("query/value", 0, 0, 1))
    broken["params"] = ["fridge"]
    path.write_text(json.dumps(record(1, ("query/value", 1, 0, 1))) + "\n" + json.dumps(broken))
    with pytest.raises(InvalidInputError, match=r"c\.jsonl\[1\]\.params: expected an object"):
        read_candidates(path)


def _attribute_group(
    path: Path, counts: dict[str, int], choices: list[str], start: int = 0
) -> list[dict[str, object]]:
    """One text ("was the fridge open or closed?") asked on many clips, with these answers."""
    records = []
    for answer, count in counts.items():
        for _ in range(count):
            index = start + len(records)
            item = record(index, ("query/value", 0, 0, 0))
            item.update(answer=answer, answer_choices=choices)
            records.append(item)
    return records


def _write_with_pairs(path: Path, records: list[dict[str, object]]) -> Candidates:
    """``records`` and 30 yes/no pairs of one other text, so the binary : open ratio leaves
    every open question in (balancing keeps open questions in proportion to binary ones)."""
    pairs = [record(1000 + i, ("verify/state", 1, 0, i % 2)) for i in range(60)]
    path.write_text("".join(json.dumps(r) + "\n" for r in [*records, *pairs]))
    return read_candidates(path)


def _kept_answers(path: Path, records: list[dict[str, object]]) -> Counter[str]:
    table = _write_with_pairs(path, records)
    # the mix would cut this one-template set towards other categories' shares
    config = BalanceConfig(target=0, min_binary=0, mix=MixConfig(enabled=False))
    kept = balance(table, config).rows
    return Counter(table.answers[r] for r in kept if not table.is_binary(r))


def test_a_text_whose_question_allows_k_answers_keeps_each_at_one_kth(tmp_path: Path) -> None:
    """An attribute with two values cannot reach five answers per group: it is kept exactly
    50/50 rather than dropped; four values must all be there, each at most a quarter."""
    path = tmp_path / "c.jsonl"
    two = _attribute_group(path, {"open": 30, "closed": 11}, ["closed", "open"])
    assert _kept_answers(path, two) == {"open": 11, "closed": 11}
    # without the choices the same group is an open vocabulary of two answers: dropped
    plain = [{k: v for k, v in r.items() if k != "answer_choices"} for r in two]
    assert _kept_answers(path, plain) == {}
    # four values, three seen: no answer can be within a quarter, so the group goes
    shapes = ["cut", "diced", "liquid", "whole"]
    three = _attribute_group(path, {"whole": 9, "cut": 5, "diced": 4}, shapes)
    assert _kept_answers(path, three) == {}
    four = _attribute_group(path, {"whole": 9, "cut": 5, "diced": 4, "liquid": 6}, shapes)
    assert _kept_answers(path, four) == dict.fromkeys(shapes, 4)


def test_a_type_whose_texts_allow_two_answers_each_takes_no_cap(tmp_path: Path) -> None:
    """Five texts of one reasoning type, each a closed pair of its own (why-state's "the person
    had opened it" or "it was already open", then on, unwrapped...): ten answers in the type,
    so the type cap would hold its top two to a third; each text is already half and half, so
    no answer can answer more of the type than a guess, and every question stays."""
    path = tmp_path / "c.jsonl"
    records = []
    for text, (obj, paraphrase) in enumerate([(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)]):
        pair = [f"made {text}", f"already {text}"]
        for answer in pair * (20 if text == 0 else 3):
            item = record(len(records), ("query/value", obj, paraphrase, 0))
            item.update(answer=answer, answer_choices=sorted(pair))
            records.append(item)
    kept = _kept_answers(path, records)
    assert sum(kept.values()) == len(records) == 64
    assert top_share(kept, 0.2) > 0.333  # what the cap would have cut
    # the same answers as an open vocabulary are capped (and cut to a fifth per text: dropped)
    plain = [{k: v for k, v in r.items() if k != "answer_choices"} for r in records]
    assert _kept_answers(path, plain) == {}


def test_chance_reference_is_one_over_the_answers_each_question_allows() -> None:
    from taskqa.benchmark.diagnostics import chance

    train = [
        {"template": "what-next", "answer": a, "question": "?"} for a in ("get cup", "open fridge")
    ] * 2 + [{"template": "what-next", "answer": "wash cup", "question": "?"}]
    test = [
        {"template": "state", "answer": "open", "answer_choices": ["closed", "open"]},
        {
            "template": "shape",
            "answer": "whole",
            "answer_choices": ["cut", "diced", "liquid", "whole"],
        },
        {"template": "did", "answer": "yes", "answer_choices": ["no", "yes"]},
        {"template": "what-next", "answer": "get cup"},  # open vocabulary: 3 answers
    ]
    result = chance(train, test)
    assert result["binary"] == 50.0
    assert result["open"] == pytest.approx(100 * (1 / 2 + 1 / 4 + 1 / 3) / 3, abs=0.01)
    assert result["all"] == pytest.approx(100 * (1 / 2 + 1 / 4 + 1 / 2 + 1 / 3) / 4, abs=0.01)


def test_object_questions_keep_a_lower_share_per_text(tmp_path: Path) -> None:
    """One text with five answers (ten questions each) keeps all fifty as a state question (each
    answer a fifth), but an object question's text needs seven answers to keep each at most
    0.15 of it: with five it is dropped, with eight every answer stays at most 0.15."""
    path = tmp_path / "c.jsonl"

    def one_text(semantic: str, answers: int) -> list[dict[str, object]]:
        records = []
        for index in range(10 * answers):
            item = record(index, ("query/value", 0, 0, index % answers))
            item["semantic"] = semantic
            records.append(item)
        return records

    assert sum(_kept_answers(path, one_text("state", 5)).values()) == 50
    assert _kept_answers(path, one_text("object", 5)) == {}
    kept = _kept_answers(path, one_text("object", 8))
    assert kept and max(kept.values()) <= 0.15 * sum(kept.values()) + TOLERANCE
    # the config says so, and a lower group_share still wins
    lower = BalanceConfig(target=0, min_binary=0, group_share=0.1, mix=MixConfig(enabled=False))
    table = _write_with_pairs(path, one_text("object", 8))
    assert balance(table, lower).rows == []
