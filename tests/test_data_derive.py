"""Derived files: the 4K-video list and ProMQA's cleaned annotations, made from the originals."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import data_support
from data_support import FIXTURES, DataServer, real_data
from taskqa.cli import app
from taskqa.data.derive import recordings_with_4k_video
from taskqa.data.promqa_cleaning import apply_corrections, clean_release
from taskqa.problems import InvalidInputError

data_server = data_support.data_server  # the loopback server fixture

runner = CliRunner()
LINKS = "captaincook4d-downloader/metadata/download_links.json"
FOUR_K = "captaincook4d/recordings_with_4k_video.json"
CLEANED = "promqa/cleaned_error_annotations.json"
FOUR_K_SHA256 = "335f46bc59ef359e3b292aa8bc2b0b9ecd218bc4fffc21f0b2435dc652d8ab43"
# the cleaning's inputs and its reference output: ../shared/data, else the data cache
REAL = real_data("captaincook4d/annotation_json", "captaincook4d/task_graphs", CLEANED)
CC4D = REAL.root / "captaincook4d"


def _invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_download_makes_the_4k_list_from_the_downloaded_links(
    data_server: DataServer, tmp_path: Path
) -> None:
    data_server.serve_copies(FIXTURES)
    code, out, _ = _invoke("data", "download", FOUR_K)
    assert code == 0
    links_sha256 = hashlib.sha256((FIXTURES / LINKS).read_bytes()).hexdigest()
    assert f"downloaded {LINKS} (45,820 bytes, no pinned sha256; got {links_sha256})" in out
    assert f"made {FOUR_K} (3,089 bytes, equal to the reference sha256)" in out
    assert "licence: no licence file in the repository" in out
    made = (tmp_path / "cache" / FOUR_K).read_bytes()
    assert hashlib.sha256(made).hexdigest() == FOUR_K_SHA256
    if (CC4D / "recordings_with_4k_video.json").is_file():  # byte for byte, where the copy is here
        assert made == (CC4D / "recordings_with_4k_video.json").read_bytes()

    (tmp_path / "cache" / FOUR_K).unlink()
    code, out, _ = _invoke("data", "derive", FOUR_K, "--offline")  # from the cached links alone
    assert code == 0 and f"made {FOUR_K}" in out and "downloaded" not in out.split("\n")[0]
    assert (tmp_path / "cache" / FOUR_K).read_bytes() == made


def test_a_4k_list_that_differs_from_the_reference_is_not_kept(
    data_server: DataServer, tmp_path: Path
) -> None:
    links = json.loads((FIXTURES / LINKS).read_text())
    links["10_18"]["gopro_4k"] = None  # as in the downloader's older copy (17c3bbd)
    data_server.serve(LINKS, json.dumps(links).encode())
    code, _, err = _invoke("data", "download", FOUR_K)
    assert code == 1
    assert err.strip().startswith(f"✗ {FOUR_K}: made from download_links.json, but its sha256 ")
    assert f"is not the reference {FOUR_K_SHA256}; it was not kept" in err
    assert not (tmp_path / "cache" / FOUR_K).exists()


def test_the_4k_rule_on_real_records(tmp_path: Path) -> None:
    """The 18 fixture records with upstream's real Box links, plus a missing and an empty link;
    the ids come out by activity and number, not in the file's (string) order."""
    links = json.loads((FIXTURES / LINKS).read_text())
    real = {rid: record for rid, record in links.items() if "box.com" in record["gopro_360p"]}
    assert len(real) == 18
    real["9_2"] = {"gopro_360p": real["9_2"]["gopro_360p"]}  # no gopro_4k key at all
    real["9_4"]["gopro_4k"] = ""
    path = tmp_path / "download_links.json"
    path.write_text(json.dumps(real))
    ids = json.loads(recordings_with_4k_video([path]))
    assert ids == [
        "9_8", "9_22", "9_24", "9_25", "9_36", "9_45", "9_47",
        "10_16", "10_18", "10_24", "10_26", "10_31", "10_42", "10_46", "10_47", "10_48",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ([], "download_links.json: expected a JSON object keyed by recording id"),
        ({"1-7": {}}, 'download_links.json["1-7"]: expected an id <activity>_<number>'),
        ({"1_7": []}, 'download_links.json["1_7"]: expected an object of links'),
        (
            {"1_7": {"gopro_4k": 4}},
            'download_links.json["1_7"].gopro_4k: expected a URL (text) or null',
        ),
    ],
)
def test_bad_download_links(tmp_path: Path, content: object, problem: str) -> None:
    path = tmp_path / "download_links.json"
    path.write_text(json.dumps(content))
    with pytest.raises(InvalidInputError) as caught:
        recordings_with_4k_video([path])
    assert [str(p) for p in caught.value.problems] == [problem]


@REAL.mark
def test_cleaning_reproduces_promqas_file_byte_for_byte() -> None:
    text = clean_release(
        CC4D / "annotation_json/error_annotations.json",
        CC4D / "annotation_json/complete_step_annotations.json",
        CC4D / "task_graphs",
    )
    assert text == (REAL.root / CLEANED).read_text(encoding="utf-8")


@REAL.mark
def test_download_makes_the_cleaned_annotations(data_server: DataServer, tmp_path: Path) -> None:
    data_server.serve_copies(REAL.root)  # the real copies stand in for GitHub
    code, out, _ = _invoke("data", "download", CLEANED)
    assert code == 0
    assert out.count("downloaded captaincook4d/") == 26  # two annotation files and 24 graphs
    assert f"made {CLEANED} (2,112,249 bytes, equal to the reference sha256)" in out
    assert (tmp_path / "cache" / CLEANED).read_bytes() == (REAL.root / CLEANED).read_bytes()


def test_corrections_address_records_by_position() -> None:
    records = [{"recording_id": "1_7", "step_annotations": []}]
    with pytest.raises(InvalidInputError) as caught:
        apply_corrections(records, "error_annotations.json")
    assert [str(p) for p in caught.value.problems] == [
        "error_annotations.json[26].recording_id: ProMQA's corrections expect recording '2_26' "
        "here, found None; they address records by position, as in CaptainCook4D/annotations "
        "at a8a920a"
    ]


@REAL.mark
def test_a_changed_original_is_reported_at_its_record_path() -> None:
    records = json.loads((CC4D / "annotation_json/error_annotations.json").read_text())
    records[13]["step_annotations"][4]["errors"][1]["description"] = "changed upstream"
    with pytest.raises(InvalidInputError) as caught:
        apply_corrections(records, "error_annotations.json")
    assert [str(p) for p in caught.value.problems] == [
        "error_annotations.json[13].step_annotations[4].errors[1].description: expected "
        '"Step performed after correct order" here before ProMQA\'s correction'
    ]
