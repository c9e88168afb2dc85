"""Publishing a built benchmark: Hugging Face datasets + Croissant, and an lmms-eval task."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from taskqa.benchmark.balance import BalanceConfig
from taskqa.benchmark.build import BuildConfig, build_benchmark
from taskqa.cli import app
from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.corpus import simulate_corpus, write_simulated_corpus
from taskqa.simulation.domain import Domain


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory, domain: Domain) -> Path:
    root = tmp_path_factory.mktemp("export")
    config = SimulationConfig(episodes=6, seed=5)
    write_simulated_corpus(root / "corpus", config, simulate_corpus(config, domain), domain)
    build_benchmark(root / "corpus", root / "bench", BuildConfig(balance=BalanceConfig(target=600)))
    return root / "bench"


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.open()]


def test_hf_export_loads_with_datasets(
    bench: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    datasets = pytest.importorskip("datasets")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    out = tmp_path / "hf"
    result = CliRunner().invoke(
        app, ["export", "hf", str(bench), "--out", str(out), "--name", "taskqa-sim"]
    )
    assert result.exit_code == 0, result.output
    for family in ("normal", "indirect"):
        loaded = datasets.load_dataset(str(out), family, cache_dir=str(tmp_path / "cache"))
        assert set(loaded) == {"train", "validation", "test"}
        expected = _lines(bench / "splits" / family / "test.jsonl")
        assert loaded["test"].num_rows == len(expected)
        first = loaded["test"][0]
        assert first["id"] == expected[0]["id"] and first["answer"] == expected[0]["answer"]
        assert first["types"] == expected[0]["types"]
        assert json.loads(first["program_graph"]) == expected[0]["program_graph"]
    card = (out / "README.md").read_text()
    front = yaml.safe_load(card.split("---")[1])
    assert [c["config_name"] for c in front["configs"]] == ["normal", "indirect"]
    assert "videos.csv" in card and (out / "videos.csv").is_file()


def test_croissant_export_validates_and_reads(bench: Path, tmp_path: Path) -> None:
    mlcroissant = pytest.importorskip("mlcroissant")
    out = tmp_path / "hf"
    CliRunner().invoke(app, ["export", "hf", str(bench), "--out", str(out)])
    metadata = json.loads((out / "croissant.json").read_text())
    assert metadata["conformsTo"] == "http://mlcommons.org/croissant/1.0"
    assert {"rai:dataCollection", "rai:dataBiases", "rai:dataLimitations"} <= set(metadata)
    dataset = mlcroissant.Dataset(jsonld=str(out / "croissant.json"))  # raises on invalid metadata
    records = list(dataset.records("normal_test"))
    expected = _lines(bench / "splits" / "normal" / "test.jsonl")
    assert len(records) == len(expected)
    assert records[0]["normal_test/question"].decode() == expected[0]["question"]


def test_lmms_eval_task_folder_has_what_the_loader_needs(bench: Path, tmp_path: Path) -> None:
    out = tmp_path / "lmms"
    result = CliRunner().invoke(app, ["export", "lmms-eval", str(bench), "--out", str(out)])
    assert result.exit_code == 0, result.output

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor(
        "!function", lambda loader, node: ("function", loader.construct_scalar(node))
    )
    spec = importlib.util.spec_from_file_location("taskqa_lmms_utils", out / "utils.py")
    assert spec and spec.loader
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    pq = pytest.importorskip("pyarrow.parquet")
    for family in ("normal", "indirect"):
        task = yaml.load((out / f"taskqa_{family}.yaml").read_text(), Loader=Loader)
        # the keys lmms-eval's ConfigurableTask reads for a generate_until task
        assert task["task"] == f"taskqa_{family}"
        assert task["output_type"] == "generate_until" and task["test_split"] == "test"
        for key in ("doc_to_visual", "doc_to_text", "process_results"):
            kind, target = task[key]
            assert kind == "function" and hasattr(utils, target.split(".")[1])
        test_file = Path(task["dataset_kwargs"]["data_files"]["test"])
        docs = pq.read_table(test_file).to_pylist()
        assert len(docs) == len(_lines(bench / "splits" / family / "test.jsonl"))
        doc = docs[0]
        assert utils.doc_to_text(doc, task["lmms_eval_specific_kwargs"]["default"]).startswith(
            doc["question"]
        )
        # an unrendered corpus: no clip file, only where the clip is (tests/test_clip_videos.py
        # covers the rendered case)
        assert doc["video"] == "" and doc["source_video"].startswith("sim://")
        assert doc["start_s"] < doc["end_s"]
        assert utils.doc_to_visual(doc)[0].endswith(doc["clip"].replace("|", "_") + ".mp4")
        right = utils.process_results(doc, [f" The {doc['answer'].upper()}. "])
        wrong = utils.process_results(doc, ["zebra"])
        assert right["accuracy"] == 1.0 and wrong["accuracy"] == 0.0
        assert utils.mean([right["accuracy"], wrong["accuracy"], None]) == 50.0


def test_export_refuses_a_folder_that_is_not_a_benchmark(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["export", "hf", str(tmp_path), "--out", str(tmp_path / "x")])
    assert result.exit_code == 1
    assert "not a benchmark folder" in result.output
