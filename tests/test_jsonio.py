"""taskqa.jsonio: the layout it writes, atomic writes, problems that name file and record, and a
guard that keeps hand-written ``json.dumps``/``json.loads`` out of the rest of the package."""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

import taskqa
from taskqa.jsonio import (
    dumps,
    dumps_compact,
    dumps_indented,
    jsonl_lines,
    jsonl_text,
    load_json,
    parse_json,
    read_jsonl,
    read_jsonl_objects,
    record_line,
    write_json,
    write_jsonl,
    write_records,
)
from taskqa.problems import InvalidInputError
from taskqa.questions.records import read_questions

NESTED = {
    "name": "Grüße, 東京 ☕",
    "steps": [{"verb": "öffnen", "objects": ["Kühlschrank"], "done": True}, None, 1.5, -3],
    "empty": {"list": [], "dict": {}},
    "quote": 'say "hi"\\n',
    "separators": "line\u2028paragraph\u2029tab\tend\nnext",
}


def only_problem(error: pytest.ExceptionInfo[InvalidInputError]) -> str:
    assert len(error.value.problems) == 1, error.value.problems
    return str(error.value.problems[0])


# --- writing ---------------------------------------------------------------------------------


def test_json_document_round_trip_keeps_non_ascii_and_the_layout(tmp_path: Path) -> None:
    path = tmp_path / "out" / "doc.json"  # the folder is made
    write_json(path, NESTED)
    text = path.read_text(encoding="utf-8")
    assert text == json.dumps(NESTED, indent=2, ensure_ascii=False) + "\n"
    assert "Grüße, 東京 ☕" in text and text.endswith("}\n")
    assert load_json(path) == NESTED


def test_the_layouts_call_sites_choose() -> None:
    data = {"b": ["x", "ü"], "a": 1}
    assert dumps(data, sort_keys=True) == '{\n  "a": 1,\n  "b": [\n    "x",\n    "ü"\n  ]\n}\n'
    assert dumps(["a", "b"], indent=0) == '[\n"a",\n"b"\n]\n'  # EgoTaskQA's id lists
    assert dumps_compact(data) == '{"b":["x","ü"],"a":1}\n'
    assert record_line(data) == '{"b": ["x", "ü"], "a": 1}\n'
    assert record_line(data, sort_keys=True) == '{"a": 1, "b": ["x", "ü"]}\n'


def test_json_lines_round_trip_one_record_per_line(tmp_path: Path) -> None:
    records = [NESTED, {"id": 2, "text": "zwei\nZeilen"}, [1, 2], "plain", None]
    path = tmp_path / "records.jsonl"
    write_jsonl(path, iter(records))  # a generator is fine
    raw = path.read_bytes()
    # U+2028 and U+2029 stay raw (UTF-8), but only "\n" ends a record: readers split bytes.
    assert raw.count(b"\n") == len(records)
    assert "\u2028".encode() in raw
    assert path.read_text(encoding="utf-8") == jsonl_text(records)
    assert [value for _, value in read_jsonl(path)] == records
    assert [index for index, _ in read_jsonl(path)] == list(range(len(records)))


def test_blank_lines_are_skipped_and_indices_count_records(tmp_path: Path) -> None:
    path = tmp_path / "gaps.jsonl"
    path.write_bytes(b'{"a": 1}\n\n   \n{"a": 2}\r\n{"a": 3}')  # no final newline either
    assert list(read_jsonl_objects(path)) == [(0, {"a": 1}), (1, {"a": 2}), (2, {"a": 3})]
    assert [(index, number) for index, number, _ in jsonl_lines(path)] == [(0, 1), (1, 4), (2, 5)]


def test_release_layout_is_byte_identical_to_indent_4(tmp_path: Path) -> None:
    shared = {"step": "Öl", "at": [1, 2.5, None, True]}
    value = [
        {"history": [shared, shared], "current": shared, 3: False, "n": None},
        {"history": [shared], "current": {}, "targets": [[], ["ü"]]},
    ]
    assert dumps_indented(value) == json.dumps(value, indent=4)
    write_records(tmp_path / "records.json", value)
    assert (tmp_path / "records.json").read_text() == json.dumps(value, indent=4) + "\n"


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_a_failed_write_leaves_the_old_file_and_no_partial_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "doc.json"
    write_json(path, {"version": 1})

    def records() -> Iterator[dict[str, int]]:
        yield {"ok": 1}
        raise RuntimeError("the producer broke half way")

    with pytest.raises(RuntimeError, match="half way"):
        write_jsonl(tmp_path / "never.jsonl", records())
    assert not (tmp_path / "never.jsonl").exists()

    with pytest.raises(TypeError):
        write_json(path, {"version": 2, "bad": object()})
    assert load_json(path) == {"version": 1}

    def refuse(source: object, target: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("taskqa.atomic.os.replace", refuse)  # fail after the bytes were written
    with pytest.raises(OSError, match="disk full"):
        write_json(path, {"version": 3})
    monkeypatch.undo()
    assert load_json(path) == {"version": 1}
    assert _leftovers(tmp_path) == []


# --- reading: one problem that names the file and the record ----------------------------------


def test_a_bad_line_names_the_file_and_the_record(tmp_path: Path) -> None:
    path = tmp_path / "questions.jsonl"
    path.write_text('{"id": "q0"}\n\n{"id": "q1"}\n{"id": "q2", \n', encoding="utf-8")
    with pytest.raises(InvalidInputError) as error:
        list(read_jsonl(path, "questions.jsonl"))
    assert only_problem(error).startswith("questions.jsonl[2]: invalid JSON: ")
    assert "line 4" in only_problem(error)  # the line number counts blank lines too
    with pytest.raises(InvalidInputError) as error:
        list(read_jsonl(path))  # by default the path as given
    assert only_problem(error).startswith(f"{path}[2]: invalid JSON: ")


def test_records_that_parse_but_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"a": 1}\n[1, 2]\n', encoding="utf-8")
    with pytest.raises(InvalidInputError) as error:
        list(read_jsonl_objects(path, "r.jsonl"))
    assert only_problem(error) == "r.jsonl[1]: expected a JSON object"

    path.write_text('{"a": 1}\n{"text": "\\ud800"}\n', encoding="utf-8")
    with pytest.raises(InvalidInputError) as error:
        list(read_jsonl(path, "r.jsonl"))
    assert only_problem(error) == "r.jsonl[1].text: holds an unpaired UTF-16 surrogate escape"

    path.write_bytes(b'{"a": 1}\n{"a": "\xff"}\n')
    with pytest.raises(InvalidInputError) as error:
        list(read_jsonl(path, "r.jsonl"))
    assert only_problem(error).startswith("r.jsonl[1]: not UTF-8 text (invalid start byte")


def test_a_typed_reader_reports_bad_json_in_the_same_words(tmp_path: Path) -> None:
    """read_questions lets pydantic parse each line (faster) and hands a line that is not JSON
    to parse_json, so its problem reads like every other reader's."""
    path = tmp_path / "q.jsonl"
    path.write_text('{"id": "q0"\n', encoding="utf-8")
    with pytest.raises(InvalidInputError) as error:
        list(read_questions(path, "q.jsonl"))
    assert (
        only_problem(error)
        == "q.jsonl[0]: invalid JSON: Expecting ',' delimiter at line 1, column 12"
    )
    path.write_text('{"id": "\\udc00"}\n', encoding="utf-8")
    with pytest.raises(InvalidInputError) as error:
        list(read_questions(path, "q.jsonl"))
    assert only_problem(error) == "q.jsonl[0].id: holds an unpaired UTF-16 surrogate escape"
    path.write_text('\n{"id": "q0"}\n', encoding="utf-8")
    with pytest.raises(InvalidInputError) as error:
        list(read_questions(path, "q.jsonl"))
    assert str(error.value.problems[0]) == "q.jsonl[0].recording: field required"


@pytest.mark.parametrize("reader", [read_jsonl, read_jsonl_objects, jsonl_lines])
def test_a_folder_or_a_missing_file_is_one_clear_problem(tmp_path: Path, reader: object) -> None:
    assert callable(reader)
    with pytest.raises(InvalidInputError) as error:
        list(reader(tmp_path, "data.jsonl"))
    assert only_problem(error) == "data.jsonl: is a folder; expected a JSON Lines file"
    with pytest.raises(InvalidInputError) as error:
        list(reader(tmp_path / "absent.jsonl", "absent.jsonl"))
    assert only_problem(error) == "absent.jsonl: file not found"


def test_json_documents_fail_the_same_way(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError) as error:
        load_json(tmp_path)
    assert only_problem(error) == f"{tmp_path}: is a folder; expected a JSON file"
    with pytest.raises(InvalidInputError) as error:
        load_json(tmp_path / "absent.json")
    assert only_problem(error) == f"{tmp_path / 'absent.json'}: file not found"
    (tmp_path / "cut.json").write_text('{"a": [1, 2', encoding="utf-8")
    with pytest.raises(InvalidInputError) as error:
        load_json(tmp_path / "cut.json")
    assert only_problem(error).endswith("(the file looks truncated)")
    with pytest.raises(InvalidInputError) as error:
        parse_json("[" * 100_000, "deep.json", [3, "x"])
    assert only_problem(error).startswith("deep.json[3].x: invalid JSON: nested too deeply")


# --- the guard: JSON files are written and read through taskqa.jsonio only --------------------

ROOT = Path(taskqa.__file__).parent
CALLS = frozenset({"dumps", "dump", "loads", "load"})

# (file below src/taskqa, function or method; "*" for the whole file) -> why json is used there.
# Only JSON that is not one of taskqa's files belongs here; a file goes through taskqa.jsonio.
ALLOWED: dict[tuple[str, str], str] = {
    # the build's own candidates, written by generation moments before and read again per pair
    # shard (about 130,000 lines on the default corpus): plain json.loads, for speed
    ("benchmark/pairs.py", "asked_by_recording"): "re-reads the build's own candidate lines",
    ("benchmark/pairs.py", "_keyed_lines"): "re-reads the build's own candidate lines",
    # values quoted in messages
    ("problems.py", "format_location"): "quotes a key in a record path",
    ("problems.py", "_describe"): "quotes an offending value in a message",
    ("physics/clevrer_format.py", "_object_problems"): "quotes an offending value in a message",
    ("sources/egotaskqa/checks.py", "got"): "quotes an offending value in a message",
    ("evaluation/evaluate.py", "scored_on"): "quotes an offending value in a message",
    ("evaluation/predictions.py", "_parse_line"): "quotes an offending value in a message",
    ("data/promqa_cleaning.py", "_apply"): "quotes the value a correction expects in a message",
    ("llm/client.py", "completion_text"): "quotes an unexpected reply in an error message",
    ("causal/render.py", "_quote"): "escapes a Graphviz DOT label",
    # keys and digests
    ("llm/client.py", "canonical_json"): "the text of a request's cache key",
    ("questions/generate.py", "question_id"): "the text hashed into a question's id",
    ("questions/generate.py", "generate_file"): "the text of a run's fingerprint (resume key)",
    ("household/corpus_videos.py", "render_corpus"): "the text of a run's fingerprint (resume key)",
    # HTTP
    ("llm/client.py", "LLMClient._post_with_retries"): "an HTTP request body",
    ("llm/client.py", "LLMClient._post"): "an HTTP reply",
    ("llm/client.py", "error_detail"): "an HTTP error reply's body",
    ("llm/client.py", "shorten_reply"): "quotes the start of an unexpected reply in a message",
    ("llm/testing.py", "*"): "the stub chat server's HTTP bodies",
    # messages between the driver and its workers
    ("execution/base.py", "encode_json"): "a shard's result sent back from a worker",
    ("execution/base.py", "decode_json"): "a shard's result sent back from a worker",
    ("physics/simulate_shards.py", "_decode"): "a shard's result sent back from a worker",
    ("questions/generate.py", "_encode"): "a shard's result sent back from a worker",
    ("questions/generate.py", "_decode"): "a shard's result sent back from a worker",
    ("household/corpus_videos.py", "_render_one"): "a shard's video references sent from a worker",
    ("household/corpus_videos.py", "_render_and_upload"): "a shard's video references sent from a "
    "worker",
    ("household/corpus_videos.py", "_decode_render"): "a shard's result sent back from a worker",
    ("household/corpus_videos.py", "_collect"): "a shard's video references sent from a worker",
    # values inside other formats
    ("benchmark/export_hf.py", "_write_parquet"): "Parquet column values (program_graph, params)",
    ("studio/create.py", "_insert_item"): "SQLite column values (an item's expected, payload)",
    ("studio/db.py", "connect"): "an SQLite column value (the schema version)",
    ("studio/db.py", "set_meta"): "an SQLite column value (a study setting)",
    ("studio/db.py", "meta"): "SQLite column values (the study settings)",
    ("studio/db.py", "item_from_row"): "SQLite column values (an item's expected, payload)",
    ("studio/db.py", "responses"): "an SQLite column value (a rater's response)",
    ("studio/queue.py", "own_response"): "an SQLite column value (a rater's response)",
    ("studio/queue.py", "submit"): "an SQLite column value (a rater's response)",
    ("studio/kinds/verify.py", "VerifyKind.plan"): "a generated record kept as text, its key "
    "order intact, in an item's payload (an SQLite column value)",
    ("studio/kinds/verify.py", "_record"): "a generated record kept as text in an item's payload "
    "(an SQLite column value)",
    ("studio/kinds/verify.py", "_reviews"): "an SQLite column value (a rater's response)",
    ("studio/kinds/verify.py", "adjudication_status"): "an SQLite column value (an item's "
    "payload)",
    ("studio/kinds/verify.py", "_responses_by_item"): "an SQLite column value (a rater's "
    "response)",
    # a deliberately tolerant reader
    ("evaluation/adapters/run.py", "read_partial"): "reads the answers an interrupted run "
    "appended to OUT.partial: a line torn by the interruption is skipped, not refused",
    # the grounding check: shards sent to workers, cache keys and its compact mask cache
    ("benchmark/grounding.py", "judge_recording"): "a shard payload sent to a worker",
    ("benchmark/grounding.py", "ground_candidates"): "the text of a run's fingerprint",
    ("benchmark/grounding.py", "_questions_by_recording"): "candidate lines already parsed "
    "and validated by generation, grouped per recording for the workers",
    ("benchmark/grounding.py", "_item"): "a shard payload sent to a worker",
    ("household/mask_statistics.py", "MaskStatistics.to_json"): "a compact cache entry (not a user "
    "file), read back only by MaskStatistics.from_json",
    ("household/mask_statistics.py", "MaskStatistics.from_json"): "reads MaskStatistics.to_json's "
    "cache entry; a damaged entry is recomputed",
    ("household/mask_statistics.py", "statistics_key"): "text hashed into a cache key",
}


def json_calls(root: Path = ROOT) -> list[tuple[str, str, int]]:
    """``(file, enclosing function, line)`` of every call of json's dump(s)/load(s) below
    ``root`` but in jsonio.py, whether through ``json.``, ``import json as j`` or
    ``from json import dumps``."""
    found: list[tuple[str, str, int]] = []
    for path in sorted(root.rglob("*.py")):
        file = path.relative_to(root).as_posix()
        if file != "jsonio.py":
            tree = ast.parse(path.read_text(encoding="utf-8"))
            found += [(file, scope, line) for scope, line in _calls_in(tree)]
    return found


def _calls_in(tree: ast.Module) -> list[tuple[str, int]]:
    modules: set[str] = set()
    functions: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {a.asname or a.name for a in node.names if a.name == "json"}
        elif isinstance(node, ast.ImportFrom) and node.module == "json":
            functions |= {a.asname or a.name for a in node.names if a.name in CALLS}
    calls: list[tuple[str, int]] = []

    def visit(node: ast.AST, scope: list[str]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                visit(child, [*scope, child.name])
                continue
            if isinstance(child, ast.Call) and (
                (
                    isinstance(child.func, ast.Attribute)
                    and isinstance(child.func.value, ast.Name)
                    and child.func.value.id in modules
                    and child.func.attr in CALLS
                )
                or (isinstance(child.func, ast.Name) and child.func.id in functions)
            ):
                calls.append((".".join(scope) or "<module>", child.lineno))
            visit(child, scope)

    visit(tree, [])
    return calls


def _allowed(file: str, function: str) -> bool:
    return (file, function) in ALLOWED or (file, "*") in ALLOWED


def test_json_files_go_through_jsonio() -> None:
    calls = json_calls()
    offenders = [
        f"  {file}:{line} in {scope}" for file, scope, line in calls if not _allowed(file, scope)
    ]
    assert not offenders, (
        "json.dumps/json.loads outside taskqa/jsonio.py; write and read files with taskqa.jsonio "
        "(write_json, write_jsonl, dumps, read_jsonl, load_json, parse_json), or, for JSON that "
        "is not a file, add (file, function) and the reason to ALLOWED in tests/test_jsonio.py:\n"
        + "\n".join(offenders)
    )
    used = {(file, scope) for file, scope, _ in calls} | {(file, "*") for file, _, _ in calls}
    stale = [f"  {key}: {reason}" for key, reason in ALLOWED.items() if key not in used]
    assert not stale, "ALLOWED entries with no json call left; remove them:\n" + "\n".join(stale)


def test_the_guard_finds_every_spelling(tmp_path: Path) -> None:
    (tmp_path / "jsonio.py").write_text("import json\njson.dumps(1)\n")  # the one exempt file
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text(
        "import json\nimport json as j\nfrom json import loads as parse\n\n"
        "def write(p):\n    p.write_text(json.dumps({}))\n\n"
        "class Reader:\n    def read(self, p):\n        return j.load(p.open()), parse('1')\n\n"
        "TOP = json.loads('2')\njson.JSONDecodeError\n"
    )
    assert json_calls(tmp_path) == [
        ("pkg/a.py", "write", 6),
        ("pkg/a.py", "Reader.read", 10),
        ("pkg/a.py", "Reader.read", 10),
        ("pkg/a.py", "<module>", 12),
    ]
