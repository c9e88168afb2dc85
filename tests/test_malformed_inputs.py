"""Malformed data: nothing crashes, nothing hangs, nothing invalid passes.

The invariant: whatever `taskqa validate` accepts, every command processes without a traceback
or a hang; whatever it refuses, it refuses in one line per problem naming the record path. The
cases first reproduce what an outside fuzz campaign found; the property test then mutates
corpora at random and holds every outcome to the invariant.
"""

from __future__ import annotations

import json
import math
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from taskqa.cli import app
from taskqa.corpus import MANIFEST, RECORDINGS
from taskqa.validate import validate_path
from test_evaluation_fixture import benchmark_dir  # noqa: F401 (a pytest fixture)

Json = Any
COMMAND_SECONDS = 60  # far above the half second a one-recording corpus takes: only a hang hits it


@pytest.fixture(scope="module")
def one_recording(small_corpus_dir: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The manifest and the first recording of the shared simulated corpus."""
    manifest = json.loads((small_corpus_dir / MANIFEST).read_text())
    # the corpora written below carry no domain.yaml, so their manifest must not name one
    # (a corpus that names a missing domain file is refused before its records are read)
    manifest.pop("files", None)
    line = (small_corpus_dir / RECORDINGS).read_text().splitlines()[0]
    return manifest, json.loads(line)


def write_corpus(
    folder: Path,
    manifest: dict[str, Any],
    records: list[Json],
    raw_lines: list[bytes] | None = None,
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    manifest = {**manifest, "recordings": len(records)}
    manifest["actions"] = sum(len(r["actions"]) for r in records if isinstance(r, dict))
    (folder / MANIFEST).write_text(json.dumps(manifest))
    lines = raw_lines or [json.dumps(r).encode() for r in records]
    (folder / RECORDINGS).write_bytes(b"\n".join(lines) + b"\n")
    return folder


@contextmanager
def deadline(seconds: int) -> Iterator[None]:
    def hang(_signum: int, _frame: object) -> None:
        raise TimeoutError(f"still running after {seconds} s: a hang")

    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def run(*args: str) -> tuple[int, str]:
    """A command in-process; a traceback (any exception but a clean exit) fails the test."""
    with deadline(COMMAND_SECONDS):
        result = CliRunner().invoke(app, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"taskqa {' '.join(args)} raised {result.exception!r}")
    return result.exit_code, result.output


def assert_one_line_problems(problems: list[str], file: Path) -> None:
    assert problems, "refused without a problem"
    for problem in problems:
        assert "\n" not in problem and "Traceback" not in problem, problem
        assert problem.startswith(str(file.parent)), problem  # the path as given
        assert len(problem) < 1200, problem[:200]


def refusal(folder: Path) -> list[str]:
    kind, problems, _ = validate_path(folder)
    return [str(p) for p in problems]


# --- what the fuzz campaign found ------------------------------------------------------------


def _set(record: dict[str, Any], path: list[str | int], value: Json) -> dict[str, Any]:
    record = json.loads(json.dumps(record))
    node: Any = record
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return record


FOUND: dict[str, tuple[list[str | int], Json, str]] = {
    "huge duration (was a hang)": (["duration"], 1e308, "duration"),
    "huge fps (was an OverflowError)": (["fps"], 1e308, "fps"),
    "NaN action time": (["actions", 0, "start"], math.nan, "actions[0].start"),
    "infinite action time": (["actions", 0, "end"], math.inf, "actions[0].end"),
    "negative step time": (
        ["procedures", 0, "steps", 0, "start"],
        -3.0,
        "procedures[0].steps[0].start",
    ),
    "NaN step time (was a ValidationError in generate)": (
        ["procedures", 0, "steps", 0, "end"],
        math.nan,
        "procedures[0].steps[0].end",
    ),
    "step time past the end": (
        ["procedures", 0, "steps", 0, "end"],
        1e5,
        "procedures[0].steps[0].end",
    ),
    "unknown instrument": (["actions", 0, "slots", "instrument"], ["ghost"], "slots.instrument[0]"),
    "unknown destination": (
        ["actions", 0, "slots", "destination"],
        ["ghost"],
        "slots.destination[0]",
    ),
    "unknown step": (["actions", 0, "step"], "not-a-step", "actions[0].step"),
}


@pytest.mark.parametrize("case", FOUND, ids=list(FOUND))
def test_found_invalid_values_are_refused_with_their_record_path(
    case: str, one_recording: tuple[dict[str, Any], dict[str, Any]], tmp_path: Path
) -> None:
    manifest, record = one_recording
    path, value, where = FOUND[case]
    folder = write_corpus(tmp_path / "corpus", manifest, [_set(record, path, value)])
    problems = refusal(folder)
    assert_one_line_problems(problems, folder / RECORDINGS)
    assert any(f"{RECORDINGS}[0]" in p and where in p for p in problems), problems
    code, output = run("generate", str(folder), "--out", str(tmp_path / "q.jsonl"))
    if code:  # a command that reads the corpus refuses it in the same words, or runs
        assert "✗" in output and "Traceback" not in output


def test_unknown_relation_object_is_refused(
    one_recording: tuple[dict[str, Any], dict[str, Any]], tmp_path: Path
) -> None:
    manifest, record = one_recording
    record = json.loads(json.dumps(record))
    name, snapshot = next((n, s) for n, s in record["initial_state"].items() if s["relations"])
    snapshot["relations"][0]["object"] = "ghost"
    folder = write_corpus(tmp_path / "corpus", manifest, [record])
    problems = refusal(folder)
    assert any(f'initial_state["{name}"].relations[0].object' in p for p in problems) or any(
        f"initial_state.{name}.relations[0].object" in p for p in problems
    ), problems


def test_duplicate_recording_ids_are_refused_where_the_corpus_is_read(
    one_recording: tuple[dict[str, Any], dict[str, Any]], tmp_path: Path
) -> None:
    manifest, record = one_recording
    folder = write_corpus(tmp_path / "corpus", manifest, [record, record])
    (problem,) = refusal(folder)
    assert problem.endswith("repeats the id of line 1; expected unique recording ids")
    assert f"{RECORDINGS}[1].id" in problem
    code, output = run("build", str(folder), "--out", str(tmp_path / "bench"))
    assert code == 1 and "repeats the id of line 1" in output and ".candidates" not in output


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"[" * 100_000, "nested too deeply"),
        (b'{"id": "\xff\xfe"}', "not UTF-8 text"),
        (b'{"id": "a\\ud800"}', "unpaired UTF-16 surrogate"),
        (b'{"id": "abc', "Unterminated string starting at line 1, column 8"),
        (b'{"duration": 1' + b"0" * 5000 + b"}", "invalid JSON"),
    ],
    ids=["deep nesting", "invalid UTF-8", "lone surrogate", "truncated", "huge integer"],
)
def test_unreadable_lines_are_refused_in_one_line(
    raw: bytes, expected: str, one_recording: tuple[dict[str, Any], dict[str, Any]], tmp_path: Path
) -> None:
    manifest, _ = one_recording
    folder = write_corpus(tmp_path / "corpus", manifest, [{"actions": []}], [raw])
    (problem,) = refusal(folder)
    assert problem.startswith(f"{folder / RECORDINGS}[0]") and expected in problem
    code, output = run("stats", str(folder), "--out", str(tmp_path / "stats"))
    assert code == 1 and expected in output


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("format", "some-other-format", "expected 'taskqa-corpus'"),
        ("format_version", 99, "this taskqa reads versions 1 to 1"),
        ("recordings", 5, "5; recordings.jsonl holds 1"),
    ],
)
def test_the_manifest_is_checked(
    field: str,
    value: Json,
    expected: str,
    one_recording: tuple[dict[str, Any], dict[str, Any]],
    tmp_path: Path,
) -> None:
    manifest, record = one_recording
    folder = write_corpus(tmp_path / "corpus", manifest, [record])
    written = json.loads((folder / MANIFEST).read_text())
    written[field] = value
    (folder / MANIFEST).write_text(json.dumps(written))
    (problem,) = refusal(folder)
    assert problem.startswith(f"{folder / MANIFEST}.{field}: ") and expected in problem


def test_a_huge_value_is_cut_in_the_message(
    one_recording: tuple[dict[str, Any], dict[str, Any]], tmp_path: Path
) -> None:
    manifest, record = one_recording
    folder = write_corpus(tmp_path / "corpus", manifest, [_set(record, ["fps"], "x" * 10_000_000)])
    (problem,) = refusal(folder)
    assert len(problem) < 600 and "more characters)" in problem


def test_captaincook4d_times_past_any_recording_are_refused(tmp_path: Path) -> None:
    from data_support import real_data
    from taskqa.sources.captaincook4d.validate import validate_captaincook4d_file

    needed = "captaincook4d/annotation_json/error_annotations.json"
    real = real_data(needed)  # ../shared/data, else the cache `taskqa data download` fills
    if real.found is None:
        pytest.skip(real.reason)
    source = real.root / needed
    data = json.loads(source.read_text())
    data[12]["step_annotations"][3]["end_time"] = 1e308
    path = tmp_path / "error_annotations.json"
    path.write_text(json.dumps(data))
    (problem,) = validate_captaincook4d_file(path)
    assert str(problem).startswith(f"{path}[12].step_annotations[3].end_time: end_time 1e+308")


# --- the property ----------------------------------------------------------------------------

STRANGE_VALUES: list[Json] = [
    math.nan,
    math.inf,
    -math.inf,
    -1,
    -1e308,
    1e308,
    0,
    "",
    "ghost",
    None,
    True,
    [],
    {},
    [[[[[[[[["deep"]]]]]]]]],
    "x" * 5000,
]


def _paths(value: Json, prefix: list[str | int]) -> Iterator[list[str | int]]:
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, [*prefix, key])
    elif isinstance(value, list):
        for index, child in enumerate(value[:3]):  # the first few: the shape repeats
            yield from _paths(child, [*prefix, index])


def _leaves(record: dict[str, Any]) -> list[Json]:
    """Values found in the record itself: swapping them in makes mutants that often still
    validate (an object named in the wrong place, a time of another action), the hard cases."""
    found: list[Json] = []
    for path in _paths(record, []):
        node: Any = record
        for key in path:
            node = node[key]
        if isinstance(node, str | int | float) and node not in found:
            found.append(node)
    return found


def _mutations(record: dict[str, Any]) -> st.SearchStrategy[tuple[str, list[str | int], Json]]:
    paths = [p for p in _paths(record, []) if p]
    values = st.sampled_from(STRANGE_VALUES) | st.sampled_from(_leaves(record))
    return st.tuples(st.sampled_from(["set", "delete", "repeat"]), st.sampled_from(paths), values)


def _mutate(record: dict[str, Any], how: str, path: list[str | int], value: Json) -> Json:
    if how == "set":
        return _set(record, path, value)
    record = json.loads(json.dumps(record))
    node: Any = record
    for key in path[:-1]:
        node = node[key]
    last = path[-1]
    if how == "delete":
        del node[last]
    elif isinstance(node, list):  # repeat a list item
        node.insert(int(last), json.loads(json.dumps(node[int(last)])))
    else:
        node[last] = value
    return record


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,  # the same examples every run: CI must not be flaky
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_validate_decides_and_commands_follow(
    data: st.DataObject,
    one_recording: tuple[dict[str, Any], dict[str, Any]],
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    manifest, record = one_recording
    how, path, value = data.draw(_mutations(record))
    mutated = _mutate(record, how, path, value)
    work = tmp_path_factory.mktemp("mutant")
    folder = write_corpus(work / "corpus", manifest, [mutated])
    problems = refusal(folder)
    event("refused" if problems else "accepted")
    if problems:
        assert_one_line_problems(problems, folder / RECORDINGS)
        return
    for args in (
        ["generate", str(folder), "--out", str(work / "q.jsonl")],
        ["stats", str(folder), "--out", str(work / "stats")],
        ["causal", str(folder), "--out", str(work / "causal")],
    ):
        code, output = run(*args)
        assert code == 0, f"validate accepted {how} {path} {value!r}; {args[0]} said: {output}"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (b"[" * 100_000, "nested too deeply"),
        (b'{"question_id": "q\\udc80", "prediction": "yes"}', "unpaired UTF-16 surrogate"),
        (b'{"question_id": "q", "prediction": "ye', "Unterminated string starting at line 1"),
    ],
    ids=["deep nesting", "lone surrogate", "truncated"],
)
def test_unreadable_prediction_lines_are_refused_in_one_line(
    line: bytes,
    expected: str,
    benchmark_dir: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    bench = benchmark_dir
    predictions = tmp_path / "p.jsonl"
    predictions.write_bytes(line + b"\n")
    code, output = run(
        "evaluate", "-b", str(bench), "-p", str(predictions), "-o", str(tmp_path / "e")
    )
    assert code == 1 and "Traceback" not in output
    (problem,) = [row for row in output.splitlines() if row.startswith("✗")]
    assert problem.startswith(f"✗ {predictions}[0]") and expected in problem
