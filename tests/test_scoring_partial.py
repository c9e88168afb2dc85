"""What a new user trips on when scoring (issue 35, items 1, 3, 4, 10 and 11).

1. ``--allow-partial`` promised to score a file "on those" it answers, but counted the missing
   answers as wrong over the whole split (5 right of 37 scored 13.5%), with no note of coverage.
3. ``evaluate --mc`` took a file missing 295 of 300 answers with exit 0, and no ``all/test``.
4. The docs said missing ids only warn unless ``--strict``; the tool refused them.
10. A predictions file with a UTF-8 byte-order mark was refused.
11. The evaluation report printed p-values as "0", literal ``*asterisks*`` in HTML.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import test_evaluation_fixture
from taskqa.benchmark import diagnostics
from taskqa.benchmark.folder import Benchmark, families_in
from taskqa.cli import app
from taskqa.evaluation.report import p_value
from taskqa.jsonio import load_json, read_jsonl
from taskqa.reports import Paragraph, Report, to_html

benchmark_dir = test_evaluation_fixture.benchmark_dir  # the shared session fixture
runner = CliRunner()
DOCS = Path(__file__).resolve().parents[1] / "docs" / "evaluation.md"
BOM = "\ufeff"


def _lines(pairs: list[tuple[str, str]]) -> str:
    return "".join(json.dumps({"question_id": i, "prediction": p}) + "\n" for i, p in pairs)


def _five_right(bench: Path, path: Path) -> int:
    """A file with the right answers to the first five test questions; the split's size."""
    questions = Benchmark(bench).questions("normal", "test")
    path.write_text(_lines([(q.id, q.question.answer) for q in questions[:5]]))
    return len(questions)


def _evaluate(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["evaluate", "--resamples", "20", *args])
    return result.exit_code, result.output


def test_a_partial_file_is_scored_on_what_it_answers(benchmark_dir: Path, tmp_path: Path) -> None:
    five = tmp_path / "five.jsonl"
    size = _five_right(benchmark_dir, five)
    out = tmp_path / "r"
    code, output = _evaluate("-b", str(benchmark_dir), "-p", str(five), "-o", str(out))
    assert code == 1 and not out.exists()
    assert f"answers 5 of the {size:,} questions of normal/test" in output
    assert "pass --allow-partial to score it on the 5 it answers" in output
    code, output = _evaluate(
        "-b", str(benchmark_dir), "-p", str(five), "-o", str(out), "--allow-partial"
    )
    assert code == 0, output
    # the CLI summary: the score over the five, the coverage beside it
    assert "five: 100.00%" in output
    assert f"5 of {size:,} answered" in output
    results = json.loads((out / "results.json").read_text())
    model = {m["name"]: m for m in results["models"]}["five"]
    assert model["accuracy"] == 1.0 and model["partial"] and model["scored_on"] == "answered"
    assert model["questions_scored"] == 5
    assert model["coverage"]["answered"] == 5 and model["coverage"]["questions"] == size
    assert model["coverage"]["answered_share"] == pytest.approx(5 / size, abs=1e-6)
    assert "--allow-partial" in results["scoring"]["missing"]
    share = f"{100 * 5 / size:.1f}%"
    for report in ("report.md", "report.html"):
        text = (out / report).read_text()
        assert f"5 of {size:,} ({share})" in text, report  # the Models table's coverage
        assert "scored it on what it answers" in text
    # the most-likely column is over the whole split, and says so
    assert f"{size:,} of {size:,} (100.0%)" in (out / "report.md").read_text()


def test_a_file_that_answers_nothing_is_refused_even_with_allow_partial(
    benchmark_dir: Path, tmp_path: Path
) -> None:
    stray = tmp_path / "stray.jsonl"
    stray.write_text(_lines([("not-a-question", "yes")]))
    code, output = _evaluate(
        "-b", str(benchmark_dir), "-p", str(stray), "-o", str(tmp_path / "r"), "--allow-partial"
    )
    assert code == 1 and "nothing to score" in output
    assert not (tmp_path / "r").exists()


def test_families_show_the_coverage_beside_a_partial_score(
    benchmark_dir: Path, tmp_path: Path
) -> None:
    five = tmp_path / "five.jsonl"
    size = _five_right(benchmark_dir, five)
    out = tmp_path / "families"
    code, output = _evaluate(
        "-b", str(benchmark_dir), "-p", str(five), "-o", str(out), "--split", "all/test",
        "--allow-partial",
    )  # fmt: skip
    assert code == 0, output
    summary = json.loads((out / "families.json").read_text())
    normal = summary["families"]["normal"]
    assert normal["models"]["five"] == 1.0 and normal["answered"]["five"] == 5
    markdown = (out / "families.md").read_text()
    assert f"| 100.00 (5 of {size:,} answered) |" in markdown
    assert "accuracy on the N questions its file answers" in markdown
    assert markdown in output  # the table the command prints


def _mc_export(bench: Path, tmp_path: Path) -> Path:
    out = tmp_path / "mc"
    result = runner.invoke(app, ["export", "mc", str(bench), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def _asks(export: Path, family: str) -> list[dict[str, str]]:
    text = (export / family / "test.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_mc_applies_the_missing_answer_rule(benchmark_dir: Path, tmp_path: Path) -> None:
    export = _mc_export(benchmark_dir, tmp_path)
    asks = _asks(export, "normal")
    first = {ask["question_id"] for ask in asks[:1]}  # one item, answered in every rotation
    chosen = [ask for ask in asks if ask["question_id"] in first]
    replies = tmp_path / "few.jsonl"
    replies.write_text(_lines([(ask["id"], ask["answer"]) for ask in chosen]))
    args = ["-b", str(benchmark_dir), "--mc", str(export), "-p", str(replies)]
    code, output = _evaluate(*args, "-o", str(tmp_path / "refused"))
    assert code == 1, output
    assert (
        f"answers {len(chosen)} of the {len(asks):,} multiple-choice asks of normal/test" in output
    )
    assert "pass --allow-partial to score it on the 1 items it answers in every rotation" in output
    assert not (tmp_path / "refused").exists()
    code, output = _evaluate(*args, "-o", str(tmp_path / "r"), "--allow-partial")
    assert code == 0, output
    model = json.loads((tmp_path / "r" / "mc-results.json").read_text())["models"]["few"]
    assert model["partial"] and model["items_scored"] == 1
    assert model["answered_asks"] == len(chosen) and model["asks"] == len(asks)
    assert model["scores"]["all"]["circular_accuracy"] == 1.0  # scored on what it answers
    assert f"{len(chosen)} of {len(asks):,}" in output


def test_mc_takes_split_all(benchmark_dir: Path, tmp_path: Path) -> None:
    export = _mc_export(benchmark_dir, tmp_path)
    families = [f for f in families_in(benchmark_dir) if (export / f / "test.jsonl").is_file()]
    assert len(families) >= 2
    # a question in two families has its distractors drawn from each family's split, so one
    # ask id can have other options (and letter) in each: a model answers each family apart
    asked = {f: {ask["id"]: ask for ask in _asks(export, f)} for f in families}
    shown = {
        f: {i: (a["answer"], a.get("options")) for i, a in asks.items()}
        for f, asks in asked.items()
    }
    differ = [i for i in shown[families[0]].keys() & shown[families[1]].keys()
              if shown[families[0]][i] != shown[families[1]][i]]  # fmt: skip
    assert differ  # the fixture has such asks, so the refusal below is exercised
    merged = {i: a["answer"] for f in reversed(families) for i, a in asked[f].items()}
    shared = tmp_path / "shared.jsonl"
    shared.write_text(_lines(sorted(merged.items())))
    code, output = _evaluate(
        "-b", str(benchmark_dir), "--mc", str(export), "-p", str(shared), "--split", "all/test",
        "-o", str(tmp_path / "refused"),
    )  # fmt: skip
    assert code != 0 and "give one predictions file per family" in " ".join(output.split())
    replies = []
    for family in families:
        replies += ["-p", str(tmp_path / f"zero-shot-{family}.jsonl")]
        Path(replies[-1]).write_text(
            _lines(sorted((i, a["answer"]) for i, a in asked[family].items()))
        )
    out = tmp_path / "r"
    code, output = _evaluate(
        "-b", str(benchmark_dir), "--mc", str(export), *replies, "--split", "all/test",
        "-o", str(out),
    )  # fmt: skip
    assert code == 0, output
    summary = json.loads((out / "mc-families.json").read_text())
    assert list(summary["families"]) == families
    scored = 0
    for family in families:
        results = json.loads((out / family / "mc-results.json").read_text())
        assert results["split"] == f"{family}/test"
        if not results["items"]:
            # a split whose texts each have one answer has no item: said, not a crash
            assert f"{family}/test: no multiple-choice items" in output
            continue
        scored += 1
        model = results["models"][f"zero-shot-{family}"]  # only the file made for it
        mine = [m for m in results["models"] if m.startswith("zero-shot")]
        assert mine == [f"zero-shot-{family}"]
        assert model["scores"]["all"]["circular_accuracy"] == 1.0
        assert f"{family}/test:" in output
    assert scored


def test_the_docs_and_the_help_state_one_rule() -> None:
    """Missing ids are refused unless --allow-partial, which scores on what is answered."""
    docs = DOCS.read_text(encoding="utf-8")
    assert "`--strict` turns any of them into exit code 1" not in docs
    assert "refused unless `--allow-partial`" in docs
    assert "scored on the questions it answers" in docs
    help_text = runner.invoke(app, ["evaluate", "--help"], env={"COLUMNS": "200"}).output
    flat = re.sub(r"[\s│]+", " ", help_text)
    assert "on the questions it answers" in flat
    assert "answers none is refused even so" in flat


def test_a_byte_order_mark_is_read_past(benchmark_dir: Path, tmp_path: Path) -> None:
    questions = Benchmark(benchmark_dir).questions("normal", "test")
    marked = tmp_path / "marked.jsonl"
    lines = _lines([(q.id, q.question.answer) for q in questions])
    marked.write_text(BOM + lines, encoding="utf-8")
    code, output = _evaluate("-b", str(benchmark_dir), "-p", str(marked), "-o", str(tmp_path / "r"))
    assert code == 0, output
    assert "marked: 100.00%" in output
    # every reader of JSON and JSON Lines files: a document, a streamed file, a meta file
    document = tmp_path / "doc.json"
    document.write_text(BOM + '{"a": 1}', encoding="utf-8")
    assert load_json(document) == {"a": 1}
    assert next(value for _, value in read_jsonl(marked))["question_id"] == questions[0].id
    (tmp_path / "marked.meta.json").write_text(BOM + '{"report_name": "Marked"}', "utf-8")
    code, output = _evaluate("-b", str(benchmark_dir), "-p", str(marked), "-o", str(tmp_path / "s"))
    assert code == 0 and "Marked: 100.00%" in output, output


def test_p_values_below_a_thousandth_are_a_bound() -> None:
    assert p_value(0.0) == "< 0.001" and p_value(1e-12) == "< 0.001"
    assert p_value(0.0625) == "0.0625" and p_value(1.0) == "1"


def test_report_html_renders_emphasis(benchmark_dir: Path, tmp_path: Path) -> None:
    page = to_html(Report("t", [Paragraph("*by structure* and **bold**, `code`; 2 * 3")]))
    assert "<em>by structure</em>" in page and "<strong>bold</strong>" in page
    assert "<code>code</code>" in page and "2 * 3" in page
    right = tmp_path / "right.jsonl"
    questions = Benchmark(benchmark_dir).questions("normal", "test")
    right.write_text(_lines([(q.id, q.question.answer) for q in questions]))
    code, output = _evaluate("-b", str(benchmark_dir), "-p", str(right), "-o", str(tmp_path / "r"))
    assert code == 0, output
    html = (tmp_path / "r" / "report.html").read_text()
    assert "*by structure*" not in html and "<em>by structure</em>" in html
    assert "McNemar" in html and "<td>0</td></tr>" not in html  # no p-value said as 0


def test_a_split_without_yes_no_questions_has_no_yes_no_accuracy() -> None:
    """The build report's blind baselines said 0.0 on yes/no for a split without any."""
    test = [{"answer": "the cup"}, {"answer": "open the fridge"}]
    scores = diagnostics.accuracy(test, ["the cup", "the cup"])
    assert scores["binary"] is None and scores["open"] == 50.0 and scores["all"] == 50.0
