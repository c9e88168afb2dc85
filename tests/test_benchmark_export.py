"""Publishing a built benchmark: Hugging Face datasets + Croissant, and an lmms-eval task.

The exports are made from a benchmark built on a rendered corpus (every clip has a video), the
fixture of tests/test_clip_videos.py; ``bench`` is one built on an unrendered corpus (``sim://``
video addresses), which the exports refuse unless told to leave the videos out.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pyarrow.parquet as pq
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import test_clip_videos
from taskqa import answers
from taskqa.benchmark.balance import BalanceConfig
from taskqa.benchmark.build import BuildConfig, build_benchmark
from taskqa.benchmark.export_hf import export_hf
from taskqa.benchmark.export_lmms import NORMALIZER_FILE, export_lmms_eval
from taskqa.benchmark.folder import Benchmark, families_in
from taskqa.cli import app
from taskqa.evaluation.evaluate import evaluate
from taskqa.evaluation.metrics import BootstrapConfig
from taskqa.evaluation.predictions import CORRECT
from taskqa.jsonio import write_jsonl
from taskqa.problems import InvalidInputError
from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.corpus import simulate_corpus, write_simulated_corpus
from taskqa.simulation.domain import Domain

rendered_bench = test_clip_videos.rendered_bench  # the rendered corpus, built (module fixture)
FAMILIES = ("normal", "indirect")  # the two every build has; the generalisation ones may not


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory, domain: Domain) -> Path:
    """Built from an unrendered corpus: videos.csv names sim:// addresses, no video files."""
    root = tmp_path_factory.mktemp("export")
    config = SimulationConfig(episodes=6, seed=5)
    write_simulated_corpus(root / "corpus", config, simulate_corpus(config, domain), domain)
    balance = BalanceConfig(target=600, balance_by="type")  # six episodes: too few texts to pair
    build_benchmark(root / "corpus", root / "bench", BuildConfig(balance=balance))
    return root / "bench"


@pytest.fixture(scope="module")
def lmms(rendered_bench: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The lmms-eval export of the rendered benchmark, written by the command line."""
    out = tmp_path_factory.mktemp("lmms") / "taskqa"
    result = CliRunner().invoke(app, ["export", "lmms-eval", str(rendered_bench), "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.open()]


def _load_utils(folder: Path) -> ModuleType:
    """``utils.py`` loaded the way lmms-eval's ``!function`` loader does: by its file path."""
    spec = importlib.util.spec_from_file_location("utils", folder / "utils.py")
    assert spec and spec.loader
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    return utils


class TaskLoader(yaml.SafeLoader):
    pass


TaskLoader.add_constructor(
    "!function", lambda loader, node: ("function", loader.construct_scalar(node))
)


def _task(folder: Path, family: str) -> dict[str, Any]:
    task: dict[str, Any] = yaml.load(
        (folder / f"taskqa_{family}.yaml").read_text(), Loader=TaskLoader
    )
    return task


FULL_WIDTH = str.maketrans({chr(c): chr(c + 0xFEE0) for c in range(0x21, 0x7F)})


def _full_width(text: str) -> str:
    """ASCII letters, digits and punctuation as their full-width forms (NFKC folds them back)."""
    return text.translate(FULL_WIDTH)


def _docs(folder: Path, family: str, split: str = "test") -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = pq.read_table(
        folder / "data" / family / f"{split}.parquet"
    ).to_pylist()
    return rows


def test_hf_export_loads_with_datasets(
    rendered_bench: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    datasets = pytest.importorskip("datasets")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    out = tmp_path / "hf"
    result = CliRunner().invoke(
        app, ["export", "hf", str(rendered_bench), "--out", str(out), "--name", "taskqa-sim"]
    )
    assert result.exit_code == 0, result.output
    for family in FAMILIES:
        loaded = datasets.load_dataset(str(out), family, cache_dir=str(tmp_path / "cache"))
        assert set(loaded) == {"train", "validation", "test"}
        expected = _lines(rendered_bench / "splits" / family / "test.jsonl")
        assert loaded["test"].num_rows == len(expected)
        first = loaded["test"][0]
        assert first["id"] == expected[0]["id"] and first["answer"] == expected[0]["answer"]
        assert first["types"] == expected[0]["types"]
        assert json.loads(first["program_graph"]) == expected[0]["program_graph"]
    card = (out / "README.md").read_text()
    front = yaml.safe_load(card.split("---")[1])
    # one config per split family the build could make, normal first (the default), then the
    # multiple-choice form of each
    made = list(families_in(rendered_bench))
    assert [c["config_name"] for c in front["configs"]] == [*made, *(f"{f}-mc" for f in made)]
    choice = datasets.load_dataset(str(out), "normal-mc", cache_dir=str(tmp_path / "cache"))
    first = choice["test"][0]
    assert first["id"].endswith("#0") and first["answer"] in "ABCD"
    assert first["options"][ord(first["answer"]) - ord("A")] == first["answer_text"]
    assert first["video"] and (out / first["video"]).is_file()
    assert families_in(rendered_bench)[:2] == FAMILIES
    assert "videos.csv" in card and (out / "videos.csv").is_file()


def test_croissant_export_validates_and_reads(rendered_bench: Path, tmp_path: Path) -> None:
    mlcroissant = pytest.importorskip("mlcroissant")
    out = tmp_path / "hf"
    export_hf(rendered_bench, out)
    metadata = json.loads((out / "croissant.json").read_text())
    assert metadata["conformsTo"] == "http://mlcommons.org/croissant/1.0"
    assert {"rai:dataCollection", "rai:dataBiases", "rai:dataLimitations"} <= set(metadata)
    dataset = mlcroissant.Dataset(jsonld=str(out / "croissant.json"))  # raises on invalid metadata
    records = list(dataset.records("normal_test"))
    expected = _lines(rendered_bench / "splits" / "normal" / "test.jsonl")
    assert len(records) == len(expected)
    assert records[0]["normal_test/question"].decode() == expected[0]["question"]


def test_every_exported_video_path_is_a_file_under_the_export_root(
    rendered_bench: Path, lmms: Path, tmp_path: Path
) -> None:
    hf = tmp_path / "hf"
    files = export_hf(rendered_bench, hf)
    assert files.missing_videos == 0 and files.clips > 0
    for root in (hf, lmms):
        for family in FAMILIES:
            for split in ("train", "validation", "test"):
                for doc in _docs(root, family, split):
                    assert doc["video"] and not Path(doc["video"]).is_absolute(), doc["video"]
                    assert (root / doc["video"]).is_file(), (root, doc["video"])
    utils = _load_utils(lmms)
    for doc in _docs(lmms, "normal"):
        (visual,) = utils.doc_to_visual(doc)
        assert Path(visual).is_file() and Path(visual).parent == lmms / "videos"


def test_lmms_eval_task_folder_has_what_the_loader_needs(lmms: Path) -> None:
    utils = _load_utils(lmms)
    for family in FAMILIES:
        task = _task(lmms, family)
        # the keys lmms-eval's ConfigurableTask reads for a generate_until task
        assert task["task"] == f"taskqa_{family}"
        assert task["output_type"] == "generate_until" and task["test_split"] == "test"
        for key in ("doc_to_visual", "doc_to_text", "process_results"):
            kind, target = task[key]
            assert kind == "function" and hasattr(utils, target.split(".")[1])
        for metric in task["metric_list"]:
            assert metric["aggregation"] == ("function", "utils.mean")
        # clustering as lmms-eval 0.6+ reads it: a top-level cluster_key naming a field of the
        # dicts process_results returns, score_key the 0/1 score in them
        assert task["cluster_key"] == "clip" and task["score_key"] == "score"
        assert task["metadata"]["normalization_version"] == answers.NORMALIZATION_VERSION
        test_file = Path(task["dataset_kwargs"]["data_files"]["test"])
        docs = pq.read_table(test_file).to_pylist()
        assert len(docs) == len(_docs(lmms, family))
        doc = docs[0]
        assert utils.doc_to_text(doc, task["lmms_eval_specific_kwargs"]["default"]).startswith(
            doc["question"]
        )
        right = utils.process_results(doc, [f" The {doc['answer'].upper()}. "])
        wrong = utils.process_results(doc, ["zebra"])
        assert right["accuracy"] == {"score": 1.0, "clip": doc["clip"]}
        assert wrong["accuracy"] == {"score": 0.0, "clip": doc["clip"]}
        binary = doc["answer"] in ("yes", "no")
        assert (right["accuracy_binary"] is None) != binary
        assert (right["accuracy_open"] is None) == binary


def test_lmms_eval_accuracies_are_fractions(lmms: Path) -> None:
    utils = _load_utils(lmms)
    items = [{"score": 1.0, "clip": "a"}, {"score": 0.0, "clip": "a"}, None]
    assert utils.mean(items) == 0.5
    assert utils.mean([{"score": 1.0, "clip": "a"}] * 3) == 1.0
    assert utils.mean([None, None]) == 0.0
    docs = _docs(lmms, "normal")
    scores = [utils.process_results(d, [d["answer"]])["accuracy"] for d in docs]
    assert utils.mean(scores) == 1.0
    assert utils.NORMALIZATION_VERSION == answers.NORMALIZATION_VERSION


def test_lmms_export_carries_the_normaliser_verbatim(lmms: Path) -> None:
    copied = (lmms / NORMALIZER_FILE).read_text(encoding="utf-8")
    original = Path(answers.__file__).read_text(encoding="utf-8")
    header, _, body = copied.partition('"""')
    assert '"""' + body == original
    assert all(line.startswith("#") for line in header.splitlines())
    assert f"normalization version {answers.NORMALIZATION_VERSION}" in header
    assert "taskqa" not in "".join(
        line for line in original.splitlines() if line.startswith(("import ", "from "))
    )


# Run by `python -I -S` with the export folder as the working directory: no site-packages (so no
# taskqa, installed or editable) and no current folder on sys.path; utils.py is loaded by its path
# as lmms-eval loads it, and must score the documents it is given.
STANDALONE = """
import importlib.util, json, sys
assert importlib.util.find_spec("taskqa") is None, "taskqa is importable"
spec = importlib.util.spec_from_file_location("utils", "utils.py")
utils = importlib.util.module_from_spec(spec)
spec.loader.exec_module(utils)
assert "taskqa" not in sys.modules
cases = json.load(sys.stdin)
print(json.dumps([utils.process_results(doc, [prediction]) for doc, prediction in cases]))
"""


def test_exported_utils_runs_without_taskqa(lmms: Path) -> None:
    utils = _load_utils(lmms)
    docs = _docs(lmms, "normal")[:20]
    predictions = [
        _full_width("Yes"),
        "Correct.",
        "the " + docs[0]["answer"],
        "n",
        "boiled",
        "zebra",
    ]
    cases = [
        (doc, prediction)
        for doc in docs
        for prediction in [*predictions, doc["answer"].replace("-", " ").upper()]
    ]
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-c", STANDALONE],
        cwd=lmms,
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    scored = json.loads(result.stdout)
    assert scored == [utils.process_results(doc, [prediction]) for doc, prediction in cases]
    assert all(s["accuracy"]["score"] == 1.0 for s in scored[len(predictions) :: 7])


# Mangled forms of an answer that taskqa's normaliser treats as the same answer (or, applied to
# another answer, as that other one): case, hyphens as spaces, punctuation, articles, full-width
# letters, yes/no synonyms and EgoTaskQA's value words.
SYNONYMS = {
    "yes": ["y", "Y", "yeah", "Yep", "true", "Correct.", "CORRECT"],
    "no": ["n", "N", "nope", "False", "incorrect", "Incorrect."],
    "hot": ["boiled", "Boiled."],
    "cut": ["part", "PART"],
    "liquid": ["fluid", "Fluid!"],
}
CHANGES: list[Callable[[str], str]] = [
    str.upper,
    str.title,
    str.swapcase,
    lambda s: s.replace("-", " "),
    lambda s: s.replace(" ", "-"),
    lambda s: s + ".",
    lambda s: s + "?!",
    lambda s: f'"{s}"',
    lambda s: "the " + s,
    lambda s: "A " + s,
    lambda s: f"  {s}\t",
    _full_width,
    lambda s: s.replace("-", "\u2010"),  # a Unicode hyphen
]


@st.composite
def mangled(draw: st.DrawFn, answer: str) -> str:
    text = draw(st.sampled_from([answer, *SYNONYMS.get(answer, [])]))
    for change in draw(st.lists(st.sampled_from(CHANGES), max_size=4)):
        text = change(text)
    return text


def _prediction(answer: str, vocabulary: list[str]) -> st.SearchStrategy[str]:
    # no line breaks: a prediction file keeps non-ASCII as is, and its reader splits lines on
    # every Unicode line boundary (str.splitlines), U+2028 and U+0085 included
    no_breaks = st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp"))
    junk = st.text(alphabet=no_breaks, max_size=12)
    other = st.sampled_from(vocabulary).flatmap(mangled)
    return st.one_of(mangled(answer), mangled(answer), other, junk)


@pytest.fixture(scope="module")
def scoring(rendered_bench: Path, lmms: Path) -> tuple[Benchmark, list[dict[str, Any]], Any]:
    bench = Benchmark(rendered_bench)
    docs = _docs(lmms, "normal")
    assert [d["id"] for d in docs] == [q.question.id for q in bench.questions("normal", "test")]
    return bench, docs, _load_utils(lmms).process_results


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_lmms_process_results_agrees_with_taskqa_evaluate(
    scoring: tuple[Benchmark, list[dict[str, Any]], Any], data: st.DataObject
) -> None:
    bench, docs, process_results = scoring
    vocabulary = sorted(bench.answers())
    # one prediction per question: evaluate refuses a file that leaves questions unanswered
    predictions = {
        i: data.draw(_prediction(doc["answer"], vocabulary)) for i, doc in enumerate(docs)
    }
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "model.jsonl"
        write_jsonl(
            path, [{"question_id": docs[i]["id"], "prediction": p} for i, p in predictions.items()]
        )
        evaluation = evaluate(
            bench,
            "normal/test",
            [path],
            config=BootstrapConfig(resamples=10),
            with_most_likely=False,
        )
    outcomes = evaluation.runs[0].outcomes
    for i, prediction in predictions.items():
        lmms_correct = process_results(docs[i], [prediction])["accuracy"]["score"] == 1.0
        assert lmms_correct == (outcomes[i] == CORRECT), (docs[i]["answer"], prediction)


def test_the_mangled_forms_are_right_answers(scoring: tuple[Benchmark, Any, Any]) -> None:
    """The strategy above does produce right answers the old lmms normaliser scored wrong."""
    _, docs, process_results = scoring
    # answers are said in plain words; the world's raw, hyphenated form stays a right answer
    hyphenated = next(d for d in docs if any("-" in a for a in d["answer_aliases"]))
    raw = next(a for a in hyphenated["answer_aliases"] if "-" in a)
    for prediction in (
        raw,
        raw.replace("-", " "),
        _full_width(hyphenated["answer"].upper()),
        "The " + hyphenated["answer"] + ".",
    ):
        assert process_results(hyphenated, [prediction])["accuracy"]["score"] == 1.0
    assert process_results(hyphenated, ["nothing like it"])["accuracy"]["score"] == 0.0
    binary = next(d for d in docs if d["answer"] == "yes")
    for prediction in ("y", "Correct.", _full_width("yes")):
        assert process_results(binary, [prediction])["accuracy"]["score"] == 1.0


def test_exports_refuse_a_benchmark_without_clip_videos(bench: Path, tmp_path: Path) -> None:
    clips = {r["clip"] for f in FAMILIES for s in ("train", "val", "test")
             for r in _lines(bench / "splits" / f / f"{s}.jsonl")}  # fmt: skip
    for export in (export_hf, export_lmms_eval):
        out = tmp_path / export.__name__
        with pytest.raises(InvalidInputError) as raised:
            export(bench, out)
        (problem,) = raised.value.problems
        assert problem.file == str(bench)
        assert f"{len(clips)} of {len(clips)} clips have no video file" in problem.message
        assert "taskqa render" in problem.message and "--allow-missing-videos" in problem.message
        assert not out.exists()
    result = CliRunner().invoke(app, ["export", "hf", str(bench), "--out", str(tmp_path / "x")])
    assert result.exit_code == 1 and "taskqa render" in result.output
    result = CliRunner().invoke(app, ["export", "lmms-eval", str(bench), "-o", str(tmp_path / "y")])
    assert result.exit_code == 1 and "taskqa render" in result.output


def test_exports_without_videos_when_allowed(
    bench: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hf = export_hf(bench, tmp_path / "hf", allow_missing_videos=True)
    out = tmp_path / "lmms"
    files = export_lmms_eval(bench, out, allow_missing_videos=True)
    assert files.missing_videos == files.clips == hf.missing_videos > 0
    assert out / "utils.py" in files and not (out / "videos").exists()
    utils = _load_utils(out)
    doc = _docs(out, "normal")[0]
    # no clip file: where to cut it from, and a clear error instead of a relative path that
    # does not exist
    assert doc["video"] == "" and doc["source_video"].startswith("sim://")
    assert doc["start_s"] < doc["end_s"]
    monkeypatch.delenv("TASKQA_VIDEO_ROOT", raising=False)
    with pytest.raises(FileNotFoundError, match="taskqa render"):
        utils.doc_to_visual(doc)
    monkeypatch.setenv("TASKQA_VIDEO_ROOT", str(tmp_path / "clips"))
    (visual,) = utils.doc_to_visual(doc)
    assert visual == str(tmp_path / "clips" / (doc["clip"].replace("|", "_") + ".mp4"))


def test_export_refuses_a_folder_that_is_not_a_benchmark(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["export", "hf", str(tmp_path), "--out", str(tmp_path / "x")])
    assert result.exit_code == 1
    assert "not a benchmark folder" in result.output


def test_lmms_eval_multiple_choice_scores_as_taskqa_evaluate_mc(
    rendered_bench: Path, lmms: Path, tmp_path: Path
) -> None:
    """The exported multiple-choice task's functions, run on its own documents with replies
    right, wrong and verbose, give the per-item and circular accuracy `taskqa evaluate --mc`
    gives on the same replies."""
    from taskqa.benchmark.multiple_choice import read_choice_export, score_choices

    utils = _load_utils(lmms)
    task = yaml.safe_load((lmms / "taskqa_normal_mc.yaml").read_text().replace("!function ", ""))
    assert task["process_results"] == "utils.mc_process_results"
    docs = _docs(lmms, "normal-mc")
    assert docs and all(d["id"] == f"{d['question_id']}#{d['rotation']}" for d in docs)
    replies = {}
    for index, doc in enumerate(docs):
        kind = index % 3
        if kind == 0:
            replies[doc["id"]] = doc["answer"]
        elif kind == 1:
            replies[doc["id"]] = f"I think the answer is ({doc['answer']})."
        else:
            wrong = next(o for o in doc["options"] if o != doc["answer_text"])
            replies[doc["id"]] = wrong
    results = [utils.mc_process_results(doc, [replies[doc["id"]]]) for doc in docs]
    item = utils.mean([r["accuracy_item"] for r in results])
    circular = utils.circular([r["accuracy_circular"] for r in results])
    out = tmp_path / "mc"
    CliRunner().invoke(app, ["export", "mc", str(rendered_bench), "--out", str(out)])
    items = read_choice_export(out, "normal", "test")
    scores = score_choices(items, replies)["all"]
    assert item == pytest.approx(scores["item_accuracy"], abs=1e-4)
    assert circular == pytest.approx(scores["circular_accuracy"], abs=1e-4)
    assert 0 < circular < item < 1


def test_the_dataset_card_says_how_the_benchmark_was_made(bench: Path, tmp_path: Path) -> None:
    """Issue 35, item 11: every split family described, the balancing the build really did,
    simulated videos said to be simulated, and the licence an option (default CC BY 4.0)."""
    from taskqa.benchmark.export_hf import _balancing_text

    runner = CliRunner()
    out = tmp_path / "hf"
    result = runner.invoke(
        app, ["export", "hf", str(bench), "--out", str(out), "--allow-missing-videos"]
    )
    assert result.exit_code == 0, result.output
    text = (out / "README.md").read_text()
    front = yaml.safe_load(text.split("---")[1])
    card = " ".join(text.split())
    assert front["license"] == "cc-by-4.0" and "synthetic" in front["tags"]
    metadata = json.loads((out / "croissant.json").read_text())
    assert metadata["license"] == "https://creativecommons.org/licenses/by/4.0/"
    for family in families_in(bench):
        assert f"- `{family}`: " in card, family
    assert "**simulated**" in card and "not filmed" in card
    # the bench fixture balances by reasoning type; a default build by text groups, with the mix
    assert "yes and no even within every reasoning type" in card
    assert "binary : open = 1 : 2, at most 600 questions" in card
    manifest = json.loads((bench / "manifest.json").read_text())
    by_text = {**manifest["config"]["balance"], "balance_by": "text"}
    said = _balancing_text({"config": {"balance": by_text}})
    assert "questions that read alike" in said and "EgoTaskQA's mix" in said
    licensed = runner.invoke(
        app,
        ["export", "hf", str(bench), "--out", str(out), "--allow-missing-videos",
         "--license", "mit"],
    )  # fmt: skip
    assert licensed.exit_code == 0, licensed.output
    assert yaml.safe_load((out / "README.md").read_text().split("---")[1])["license"] == "mit"
    assert json.loads((out / "croissant.json").read_text())["license"].endswith("MIT")
