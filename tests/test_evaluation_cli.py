"""``taskqa baseline`` and ``taskqa evaluate`` end to end on the fixture benchmark."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import test_evaluation_fixture
from taskqa.benchmark.folder import Benchmark
from taskqa.evaluation.cli import baseline_command, evaluate_command
from taskqa.terminal import GuardedTyper

benchmark_dir = test_evaluation_fixture.benchmark_dir  # the shared session fixture

runner = CliRunner()


def _app() -> typer.Typer:
    app = GuardedTyper()  # the main CLI's guard prints bad input as problem lines
    app.command("evaluate")(evaluate_command)
    app.command("baseline")(baseline_command)
    return app


def _baseline(bench: Path, name: str, out: Path, *extra: str) -> Path:
    result = runner.invoke(
        _app(), ["baseline", name, "--benchmark", str(bench), "--out", str(out), *extra]
    )
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def evaluated(benchmark_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("evaluated")
    files = [
        _baseline(benchmark_dir, "oracle", work / "oracle.jsonl"),
        _baseline(
            benchmark_dir, "noisy-oracle", work / "noisy-0.2.jsonl", "--flip", "0.2", "--seed", "3"
        ),
        _baseline(
            benchmark_dir, "noisy-oracle", work / "noisy-0.6.jsonl", "--flip", "0.6", "--seed", "3"
        ),
        _baseline(benchmark_dir, "text-only", work / "text-only.jsonl"),
    ]
    args = ["evaluate", "--benchmark", str(benchmark_dir), "--out", str(work / "report"),
            "--resamples", "200"]  # fmt: skip
    for path in files:
        args += ["--predictions", str(path)]
    result = runner.invoke(_app(), args)
    assert result.exit_code == 0, result.output
    assert "oracle: 100.00%" in result.output
    return work


def test_oracle_scores_one_hundred_percent(evaluated: Path) -> None:
    results = json.loads((evaluated / "report" / "results.json").read_text())
    models = {m["name"]: m for m in results["models"]}
    assert list(models) == ["most-likely", "oracle", "noisy-0.2", "noisy-0.6", "text-only"]
    oracle = models["oracle"]
    assert oracle["accuracy"] == 1.0
    for breakdown in oracle["breakdowns"].values():
        assert all(cell["accuracy"] == 1.0 for cell in breakdown.values())
    assert oracle["coverage"]["missing_ids"] == 0 and oracle["meta"]["baseline"] == "oracle"


def test_noise_lowers_accuracy_and_text_beats_nothing(evaluated: Path) -> None:
    results = json.loads((evaluated / "report" / "results.json").read_text())
    accuracy = {m["name"]: m["accuracy"] for m in results["models"]}
    # facts misread; dependencies of a simulated corpus come from replaying the schemas, which
    # perception noise does not reach, so a small flip may leave a small split untouched, and
    # on a split of 77 mostly action questions two flip rates may cost the same question
    assert 1.0 >= accuracy["noisy-0.2"] >= accuracy["noisy-0.6"] > 0.5
    assert accuracy["noisy-0.6"] < 1.0
    assert 0.2 < accuracy["text-only"] < 1.0 and 0.2 < accuracy["most-likely"] < 1.0
    models = {m["name"]: m for m in results["models"]}
    assert models["noisy-0.2"]["meta"]["flip"] == 0.2
    assert len(results["comparisons"]) == 10  # every pair of the five columns


def test_results_record_what_determines_the_score(evaluated: Path, benchmark_dir: Path) -> None:
    results = json.loads((evaluated / "report" / "results.json").read_text())
    assert results["benchmark"]["manifest_sha256"] == Benchmark(benchmark_dir).manifest_sha256
    assert results["benchmark"]["split"] == "normal/test"
    assert results["normalization"]["version"] == "4" and results["taskqa_version"]
    assert results["bootstrap"] == {"unit": "clip", "resamples": 200, "seed": 0,
                                    "confidence": 0.95, "interval": "percentile"}  # fmt: skip
    model = results["models"][1]
    assert model["sha256"] and len(model["sha256"]) == 64
    for name in ("official_tags", "type", "scope", "semantic", "structural", "reference",
                 "template", "obfuscation", "open_binary_structural", "open_binary_answer"):  # fmt: skip
        assert model["breakdowns"][name], name
    # the chance reference: yes/no questions are at one half, and every category between 0 and 1
    chance = results["chance"]
    assert chance["open_binary_answer"]["binary"] == 0.5
    assert all(0 < v <= 1 for groups in chance.values() for v in groups.values() if v is not None)


def test_report_has_the_table_and_charts(evaluated: Path) -> None:
    report = evaluated / "report"
    markdown = (report / "report.md").read_text()
    assert (
        "| category | questions | chance | most-likely | oracle | noisy-0.2 | noisy-0.6 | "
        "text-only |" in markdown
    )
    assert "| by structure: open |" in markdown and "| by answer: binary |" in markdown
    assert "| type: counterfactual |" in markdown
    for chart in ("accuracy_type", "accuracy_scope", "accuracy_semantic", "noisy_oracle"):
        assert (report / "figures" / f"{chart}.png").is_file()
    assert "data:image/png;base64," in (report / "report.html").read_text()


def test_evaluation_is_deterministic(evaluated: Path, benchmark_dir: Path, tmp_path: Path) -> None:
    args = ["evaluate", "--benchmark", str(benchmark_dir), "--out", str(tmp_path),
            "--resamples", "200", "--predictions", str(evaluated / "oracle.jsonl"),
            "--predictions", str(evaluated / "noisy-0.2.jsonl"), "--predictions",
            str(evaluated / "noisy-0.6.jsonl"), "--predictions", str(evaluated / "text-only.jsonl")]  # fmt: skip
    assert runner.invoke(_app(), args).exit_code == 0
    first = json.loads((evaluated / "report" / "results.json").read_text())
    second = json.loads((tmp_path / "results.json").read_text())
    assert first["models"] == second["models"] and first["comparisons"] == second["comparisons"]
    assert (tmp_path / "report.md").read_text() == (evaluated / "report" / "report.md").read_text()


def test_bad_prediction_file_fails_clearly(benchmark_dir: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"question_id": "a", "prediction": "yes"}\n{"question_id": "b", "prediction": 3}\n'
    )
    result = runner.invoke(
        _app(), ["evaluate", "-b", str(benchmark_dir), "-p", str(bad), "-o", str(tmp_path / "r")]
    )
    assert result.exit_code == 1
    assert "bad.jsonl[1].prediction: expected a string or null (line 2), got 3" in result.output
    assert not (tmp_path / "r" / "results.json").exists()


def test_strict_fails_on_incomplete_files(benchmark_dir: Path, tmp_path: Path) -> None:
    partial = tmp_path / "partial.jsonl"
    first = Benchmark(benchmark_dir).questions("normal", "test")[0]
    partial.write_text(
        json.dumps({"question_id": first.id, "prediction": first.question.answer}) + "\n"
    )
    args = ["evaluate", "-b", str(benchmark_dir), "-p", str(partial), "-o", str(tmp_path / "r"),
            "--resamples", "50", "--allow-partial"]  # fmt: skip
    lenient = runner.invoke(_app(), args)
    assert lenient.exit_code == 0 and "missing" in lenient.output
    strict = runner.invoke(_app(), [*args, "--strict"])
    assert strict.exit_code == 1
    results = json.loads((tmp_path / "r" / "results.json").read_text())
    assert results["models"][1]["coverage"]["missing_ids"] == results["benchmark"]["questions"] - 1


def test_unknown_baseline_and_split_are_refused(benchmark_dir: Path, tmp_path: Path) -> None:
    result = runner.invoke(
        _app(), ["baseline", "magic", "-b", str(benchmark_dir), "-o", str(tmp_path / "x.jsonl")]
    )
    assert result.exit_code == 1 and "unknown baseline 'magic'" in result.output
    result = runner.invoke(
        _app(),
        [
            "baseline",
            "oracle",
            "-b",
            str(benchmark_dir),
            "-o",
            str(tmp_path / "x.jsonl"),
            "--split",
            "normal/dev",
        ],
    )
    assert result.exit_code == 1 and "unknown split" in result.output


def test_indirect_split_and_limit(benchmark_dir: Path, tmp_path: Path) -> None:
    total = len((benchmark_dir / "splits" / "indirect" / "test.jsonl").read_text().splitlines())
    limit = max(1, total // 2)  # the indirect test split of this small build is small
    out = _baseline(
        benchmark_dir,
        "oracle",
        tmp_path / "o.jsonl",
        "--split",
        "indirect/test",
        "--limit",
        str(limit),
    )
    lines = out.read_text().splitlines()
    assert total > 1 and len(lines) == limit
    meta = json.loads((tmp_path / "o.meta.json").read_text())
    assert meta["split"] == "indirect/test" and meta["baseline"] == "oracle"


def test_sentence_embedding_classifier(benchmark_dir: Path) -> None:
    from taskqa.evaluation.baselines.text_only import classify, embedding_features

    bench = Benchmark(benchmark_dir)
    train = bench.questions("normal", "train")[:400]  # embedding runs on one thread: keep it small
    test = bench.questions("normal", "test")[:60]
    predicted = classify(train, test, embedding_features)
    right = sum(p == q.question.answer for p, q in zip(predicted, test, strict=True))
    assert right / len(test) > 0.3  # far above chance over ~100 answers
    assert set(predicted) <= {q.question.answer for q in train}


def _sample_of(evaluated: Path, out: Path, meta: dict[str, object] | None) -> tuple[int, int]:
    """Every 7th oracle line, the yes/no ones of the first 10 made wrong: (lines, right)."""
    lines = [json.loads(line) for line in (evaluated / "oracle.jsonl").read_text().splitlines()]
    chosen = lines[::7]
    right = len(chosen)
    for line in chosen[:10]:
        if line["prediction"] in ("yes", "no"):
            line["prediction"] = "no" if line["prediction"] == "yes" else "yes"
            right -= 1
    out.write_text("".join(json.dumps(line) + "\n" for line in chosen))
    if meta is not None:
        out.with_name(out.name.removesuffix(".jsonl") + ".meta.json").write_text(json.dumps(meta))
    return len(chosen), right


def test_a_sampled_file_is_scored_on_the_questions_it_answers(
    evaluated: Path, benchmark_dir: Path, tmp_path: Path
) -> None:
    """A human study asks a sample: with "scored_on": "answered" the questions nobody was asked
    are left out of its score (and said to be), instead of counting as wrong."""
    sample = tmp_path / "people.jsonl"
    asked, right = _sample_of(evaluated, sample, {"report_name": "People",
                                                  "scored_on": "answered"})  # fmt: skip
    plain = tmp_path / "plain.jsonl"
    _sample_of(evaluated, plain, None)
    assert right < asked  # some answers really are wrong
    args = ["evaluate", "-b", str(benchmark_dir), "-o", str(tmp_path / "r"), "--resamples", "50",
            "-p", str(evaluated / "oracle.jsonl"), "-p", str(sample), "-p", str(plain),
            "--strict", "--allow-partial"]  # fmt: skip
    result = runner.invoke(_app(), args)
    # --strict still fails, for the plain file's missing questions only
    assert result.exit_code == 1
    assert "warning: plain:" in result.output and "warning: People" not in result.output
    assert f"scored on the {asked} questions its file answers" in result.output
    results = json.loads((tmp_path / "r" / "results.json").read_text())
    split_size = results["benchmark"]["questions"]
    models = {m["name"]: m for m in results["models"]}
    people, plain_run = models["People"], models["plain"]
    assert people["scored_on"] == "answered" and people["questions_scored"] == asked
    assert people["accuracy"] == pytest.approx(right / asked, abs=1e-6)  # rounded to 6 places
    # the plain file answers the same sample without saying so: --allow-partial scores it on
    # what it answers too (a missing answer is not a wrong one), and says it is partial
    assert plain_run["scored_on"] == "answered" and plain_run["partial"]
    assert not people["partial"]
    assert plain_run["questions_scored"] == asked
    assert plain_run["coverage"]["answered"] == asked
    assert plain_run["coverage"]["questions"] == split_size
    assert plain_run["accuracy"] == pytest.approx(right / asked, abs=1e-6)
    overall = people["breakdowns"]["overall"]["all"]
    assert overall["questions"] == asked and overall["missing"] == 0
    low, high = overall["ci95"]
    assert low <= right / asked <= high
    # every per-category cell is over the sampled questions; a category without any is empty
    types = people["breakdowns"]["template"]
    assert sum(cell["questions"] for cell in types.values()) == asked
    assert any(cell["accuracy"] is None for cell in types.values())
    pairs = {(c["first"], c["second"]): c for c in results["comparisons"]}
    oracle_vs_people = pairs[("oracle", "People")]
    assert oracle_vs_people["questions"] == asked  # only the questions both were scored on
    assert oracle_vs_people["only_first_correct"] == asked - right
    assert oracle_vs_people["accuracy_first"] == 1.0
    assert pairs[("oracle", "plain")]["questions"] == asked
    markdown = (tmp_path / "r" / "report.md").read_text()
    assert f"**People was scored on {asked} of the split's {split_size:,} questions**" in markdown
    assert "not comparable question-for-question" in markdown
    assert f"| {asked} of {split_size:,}: the questions its file answers |" in markdown
    assert f"| {split_size:,}: the whole split |" in markdown


def test_a_bad_scored_on_is_refused(evaluated: Path, benchmark_dir: Path, tmp_path: Path) -> None:
    sample = tmp_path / "people.jsonl"
    _sample_of(evaluated, sample, {"scored_on": "asked"})
    args = ["evaluate", "-b", str(benchmark_dir), "-o", str(tmp_path / "r"), "-p", str(sample)]
    result = runner.invoke(_app(), args)
    assert result.exit_code == 1
    assert 'people.meta.json.scored_on: expected "split" or "answered", got "asked"' in (
        result.output
    )
    assert not (tmp_path / "r").exists()
    unknown = tmp_path / "unknown.jsonl"
    unknown.write_text('{"question_id": "not-in-the-split", "prediction": "yes"}\n')
    (tmp_path / "unknown.meta.json").write_text('{"scored_on": "answered"}')
    result = runner.invoke(_app(), [*args[:-1], str(unknown)])
    assert result.exit_code == 1
    assert 'scored_on is "answered" but no line answers a question of the split' in result.output


def test_all_families_are_scored_side_by_side(benchmark_dir: Path, tmp_path: Path) -> None:
    """``--split all/test``: every family the folder has, scored on the files that answer all
    of its test split, into a folder each, with one table across them."""
    from taskqa.benchmark.folder import families_in

    bench = Benchmark(benchmark_dir)
    families = families_in(benchmark_dir)
    assert len(families) >= 2  # this small fixture has no generalisation family
    answers = {
        q.question.id: q.question.answer
        for family in families
        for q in bench.questions(family, "test")
    }
    everything = tmp_path / "zero-shot.jsonl"
    everything.write_text(
        "".join(json.dumps({"question_id": i, "prediction": a}) + "\n" for i, a in answers.items())
    )
    normal_only = _baseline(benchmark_dir, "oracle", tmp_path / "normal-only.jsonl")
    out = tmp_path / "families"
    args = ["evaluate", "--benchmark", str(benchmark_dir), "--out", str(out), "--split",
            "all/test", "--resamples", "20", "-p", str(everything), "-p", str(normal_only)]  # fmt: skip
    result = runner.invoke(_app(), args)
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "families.json").read_text())
    assert list(summary["families"]) == list(families)
    for family, entry in summary["families"].items():
        assert entry["models"]["zero-shot"] == 1.0
        assert entry["questions"] == len(bench.questions(family, "test"))
        assert 0 < entry["chance"] < 1
        assert (out / family / "results.json").is_file()
    # the normal-only file is scored on normal and said to be left out where it is partial
    assert summary["families"]["normal"]["models"]["normal-only"] == 1.0
    partial = [f for f, e in summary["families"].items() if "normal-only" in e["skipped"]]
    assert partial and "normal" not in partial
    assert all("normal-only" not in summary["families"][f]["models"] for f in partial)
    assert "normal-only left out (answers" in (out / "families.md").read_text()
    # a file that answers no family's test split in full is refused before anything is written
    stray = tmp_path / "stray.jsonl"
    stray.write_text(json.dumps({"question_id": next(iter(answers)), "prediction": "x"}) + "\n")
    refused = tmp_path / "refused"
    args = ["evaluate", "--benchmark", str(benchmark_dir), "--out", str(refused), "--split",
            "all/test", "-p", str(stray)]  # fmt: skip
    result = runner.invoke(_app(), args)
    assert result.exit_code == 1
    assert "answers no test split of any family in full" in result.output
    assert not refused.exists()
