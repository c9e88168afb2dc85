"""One rule for every command that writes: what is at its output path and was not written by it
(a folder of other files, a file of notes) is refused in one line that names the path and
``--overwrite``, and left as it was, byte for byte; ``--overwrite`` writes; the command's own
earlier output is written again without it (taskqa.outputs)."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import typer.main

from problem_text import run, run_ok
from taskqa.cli import app
from taskqa.llm.testing import StubChatServer

NOTES = b"my precious notes\n"
STUDIO = all(importlib.util.find_spec(m) for m in ("fastapi", "uvicorn", "jinja2", "krippendorff"))


@dataclass(frozen=True)
class Writer:
    """A command line that writes to ``{out}`` (given as ``option``), a folder or a file;
    ``{name}`` stands for an input of the ``inputs`` fixture."""

    args: tuple[str, ...]
    option: str = "--out"
    folder: bool = True


def folder(*args: str, option: str = "--out") -> Writer:
    return Writer(args, option, folder=True)


def file(*args: str, option: str = "--out") -> Writer:
    return Writer(args, option, folder=False)


# Every command that writes, by the option that names its output. A command with several outputs,
# or another way of writing (the chat baseline), has a row for each.
# fmt: off
WRITERS: dict[str, Writer] = {
    "simulate": folder("simulate", "--episodes", "1", "--out", "{out}"),
    "stats": folder("stats", "{corpus}", "--out", "{out}"),
    "causal": folder("causal", "{corpus}", "--recording", "{recording}", "--out", "{out}"),
    "generate": file("generate", "{corpus}", "--out", "{out}"),
    "build": folder("build", "{corpus}", "--out", "{out}", "--no-grounding", "--no-mix"),
    "export-egotaskqa": folder("export-egotaskqa", "{questions}", "--out", "{out}"),
    "schema": file("schema", "corpus", "--out", "{out}"),
    "convert": folder("convert", "{corpus}", "--to", "egotaskqa", "--out", "{out}"),
    "export hf": folder("export", "hf", "{bench}", "--out", "{out}", "--allow-missing-videos"),
    "export lmms-eval": folder("export", "lmms-eval", "{bench}", "--out", "{out}",
                               "--allow-missing-videos"),
    "export vlmevalkit": folder("export", "vlmevalkit", "{bench}", "--out", "{out}",
                                "--allow-missing-videos"),
    "export mc": folder("export", "mc", "{bench}", "--out", "{out}"),
    "baseline": file("baseline", "most-likely", "-b", "{bench}", "-o", "{out}"),
    "baseline (chat)": file("baseline", "chat", "-b", "{bench}", "-o", "{out}",
                            "--base-url", "{server}", "--frames", "0", "--limit", "3"),
    "evaluate": folder("evaluate", "-b", "{bench}", "-p", "{predictions}", "-o", "{out}",
                       "--resamples", "10"),
    "physics simulate": folder("physics", "simulate", "--scenes", "1", "--out", "{out}"),
    "physics events": folder("physics", "events", "{scenes}", "--out", "{out}"),
    "physics ceg": folder("physics", "ceg", "{scenes}", "--out", "{out}"),
    "physics real-ceg": folder("physics", "real-ceg", "{physics_questions}", "--out", "{out}"),
    "physics score": folder("physics", "score", "--questions", "{physics_questions}",
                            "--baseline", "prior", "--out", "{out}"),
    "physics render": folder("physics", "render", "{scenes}", "--out", "{out}", "--format", "gif"),
    "procedural candidates": file("procedural", "candidates", "--annotations", "{corpus}",
                                  "--out", "{out}"),
    "procedural sample": file("procedural", "sample", "--candidates", "{candidates}",
                              "--out", "{out}"),
    "procedural sample --remainder": file("procedural", "sample", "--candidates", "{candidates}",
                                          "--out", "{scratch}/s.json", "--remainder", "{out}",
                                          option="--remainder"),
    "procedural graph": folder("procedural", "graph", "--graphs", "{graphs}",
                               "--activity", "Toast", "--out", "{out}"),
    "procedural generate": file("procedural", "generate", "--samples", "{samples}",
                                "--graphs", "{graphs}", "--out", "{out}",
                                "--base-url", "{server}", "--model", "m"),
    "procedural import-released --generated-out": file(
        "procedural", "import-released", "--released", "{released}",
        "--generated-out", "{out}", "--judgments-out", "{scratch}/j.json",
        option="--generated-out"),
    "procedural import-released --judgments-out": file(
        "procedural", "import-released", "--released", "{released}",
        "--generated-out", "{scratch}/g.json", "--judgments-out", "{out}",
        option="--judgments-out"),
    "procedural verify": file("procedural", "verify", "--generated", "{generated}",
                              "--judgments", "{judgments}", "--out", "{out}"),
    "procedural predict": file("procedural", "predict", "--records", "{verified}",
                               "--graphs", "{graphs}", "--out", "{out}",
                               "--base-url", "{server}", "--model", "m"),
    "procedural judge": file("procedural", "judge", "--predictions", "{predicted}",
                             "--graphs", "{graphs}", "--out", "{out}",
                             "--base-url", "{server}", "--model", "m"),
    "procedural report": folder("procedural", "report", "--judged", "a={judged}", "--out", "{out}"),
    "render videos": folder("render", "videos", "{corpus}", "--out", "{out}", "--limit", "1",
                            "--fps", "1", "--size", "32", "--views", "first", "--backend", "tiny"),
    "render sheet": file("render", "sheet", "--out", "{out}", "--size", "64", "--backend", "tiny"),
    "render probe": folder("render", "probe", "{corpus}", "--out", "{out}", "--size", "64",
                           "--backend", "tiny"),
    "verify build": folder("verify", "build", "--trials", "1", "--out", "{out}"),
    "verify evaluate": folder("verify", "evaluate", "{verify_bench}", "--out", "{out}",
                              "--no-text2text"),
    "verify parse": file("verify", "parse", "{descriptions}", "--out", "{out}"),
    "verify parse-score": file("verify", "parse-score", "{gold}", "--out", "{out}"),
    "studio export": folder("studio", "export", "{study}", "--out", "{out}"),
}
# fmt: on
# Commands that write, left out of the rule on purpose.
EXEMPT = {
    "studio create": "a study file holds people's ratings: it is never overwritten, not even "
    "with --overwrite",
}
# Options that name where a command writes.
OUTPUT_OPTIONS = {"out", "remainder", "generated_out", "judgments_out", "open_items"}

RECIPE = {
    "name": "Toast",
    "steps": {"0": "START", "1": "Slice-Slice bread", "2": "Toast-Toast it", "3": "END"},
    "edges": [[0, 1], [1, 2], [2, 3]],
}
CANDIDATE = {
    "recording_id": "3_1", "example_id": "3_1_2", "end_time": "00:00:07",
    "activity_name": "Toast", "question_id": "3_1_2_next", "type": "next", "is_noisy": False,
    "previous_steps": [{"step_id": 1, "description": "Slice-Slice bread"}],
    "current_step": {"step_id": 2, "description": "Toast-Toast it"},
    "next_steps": [{"step_id": 3, "description": "END"}],
}  # fmt: skip
VERIFIED = CANDIDATE | {
    "question": "What next?",
    "answers": ["Nothing, you are done."],
    "generation": {"model_id": "gen-a"},
}
PREDICTED = VERIFIED | {"prediction": {"model_id": "pred-a", "response": "You are done."}}
REPLY = "[Rationale] fine\n[Judge] 1"  # a verdict for `judge`; any text does for the others


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """Tiny inputs of every command, made once by the commands themselves."""
    root = tmp_path_factory.mktemp("inputs")
    paths = {name: root / name for name in ("corpus", "bench", "scenes", "ceg", "verify_bench")}
    run_ok("simulate", "--episodes", "2", "--out", str(paths["corpus"]))
    recording = json.loads((paths["corpus"] / "recordings.jsonl").read_text().splitlines()[0])
    questions = root / "questions.jsonl"
    run_ok("generate", str(paths["corpus"]), "--out", str(questions))
    run_ok("build", str(paths["corpus"]), "--out", str(paths["bench"]), "--no-grounding",
           "--no-mix")  # fmt: skip
    predictions = root / "predictions.jsonl"
    run_ok("baseline", "most-likely", "-b", str(paths["bench"]), "-o", str(predictions))
    run_ok("physics", "simulate", "--scenes", "1", "--out", str(paths["scenes"]))
    run_ok("physics", "ceg", str(paths["scenes"]), "--out", str(paths["ceg"]))
    run_ok("verify", "build", "--trials", "1", "--out", str(paths["verify_bench"]))
    candidates = root / "candidates.json"
    run_ok("procedural", "candidates", "--annotations", str(paths["corpus"]), "--out",
           str(candidates))  # fmt: skip
    released = Path(__file__).parent / "fixtures" / "studio" / "promqa_released_sample.json"
    generated, judgments = root / "generated.json", root / "judgments.json"
    run_ok("procedural", "import-released", "--released", str(released), "--generated-out",
           str(generated), "--judgments-out", str(judgments))  # fmt: skip
    records = {"graphs": {"3": RECIPE}, "samples": [CANDIDATE], "verified": [VERIFIED],
               "predicted": [PREDICTED], "judged": [PREDICTED | {"evaluation": {
                   "model_id": "judge-a", "template_type": "ternary-step", "judge": 1,
                   "status": "judged"}}]}  # fmt: skip
    for name, data in records.items():
        (root / f"{name}.json").write_text(json.dumps(data))
    (root / "descriptions.txt").write_text("apple is sliced, then heated\n")
    (root / "gold.tsv").write_text('apple is heated\tx\t"Step 1 StateQuery(apple,heat)";\n')
    study = root / "study.sqlite"
    if STUDIO:
        run_ok("studio", "create", "answer", str(paths["bench"]), "--out", str(study),
               "--per-category", "1", "--raters", "1", "--catch", "0",
               "--whole-videos")  # fmt: skip
    with StubChatServer(lambda _body: REPLY) as server:
        yield {
            **{name: str(path) for name, path in paths.items()},
            **{name: str(root / f"{name}.json") for name in records},
            "recording": recording["id"],
            "questions": str(questions),
            "predictions": str(predictions),
            "physics_questions": str(paths["ceg"] / "questions.json"),
            "candidates": str(candidates),
            "released": str(released),
            "generated": str(generated),
            "judgments": str(judgments),
            "descriptions": str(root / "descriptions.txt"),
            "gold": str(root / "gold.tsv"),
            "study": str(study),
            "server": server.base_url,
        }


def _foreign(place: Path, as_folder: bool) -> Path:
    """Something the user made at the output path: a folder of notes, or a file of them."""
    if as_folder:
        place.mkdir()
        (place / "notes.txt").write_bytes(NOTES)
        return place / "notes.txt"
    place.write_bytes(NOTES)
    return place


def _snapshot(out: Path) -> dict[str, bytes]:
    if out.is_file():
        return {"": out.read_bytes()}
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_what_is_in_the_way_is_refused_kept_and_overwritten_only_when_asked(
    name: str, inputs: dict[str, str], tmp_path: Path
) -> None:
    if name.startswith("studio") and not STUDIO:
        pytest.skip("needs the studio extra")
    writer = WRITERS[name]
    out = tmp_path / ("mine" if writer.folder else "notes.txt")
    notes = _foreign(out, writer.folder)
    before = _snapshot(out)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    args = [a.format(out=out, scratch=scratch, **inputs) for a in writer.args]

    code, output = run(*args)
    assert code == 1, output
    kind = "folder is not empty" if writer.folder else "file exists"
    assert output.splitlines() == [output.strip()], output  # one line, and nothing else
    line = output.strip()
    assert line.startswith(f"✗ {out}: {kind} and is not a "), line
    assert line.endswith(f"; choose another {writer.option} or pass --overwrite"), line
    assert _snapshot(out) == before and notes.read_bytes() == NOTES  # untouched, byte for byte

    code, output = run(*args, "--overwrite")
    assert code == 0, output
    written = _snapshot(out)
    assert written != before, "--overwrite wrote nothing"
    if writer.folder:
        assert written.get("notes.txt", NOTES) == NOTES  # a command never rewrites a foreign file
    else:
        assert f"replaced {out} (--overwrite)" in output.splitlines()

    code, output = run(*args)  # its own output now: written again without --overwrite
    assert code == 0, output


def _writing_commands() -> dict[str, list[str]]:
    """Each command of the CLI (``physics events``) with the options that name its outputs."""
    found: dict[str, list[str]] = {}

    def walk(command: Any, path: tuple[str, ...]) -> None:
        if hasattr(command, "commands"):  # a group (typer's own click, not `click.Group`)
            for name, child in command.commands.items():
                walk(child, (*path, name))
            return
        outputs = [p.name for p in command.params if p.name in OUTPUT_OPTIONS]
        if outputs:
            found[" ".join(path)] = outputs

    walk(typer.main.get_command(app), ())
    return found


def test_every_writing_command_is_in_the_table_and_takes_overwrite() -> None:
    commands = _writing_commands()
    tested = {_command_of(name) for name in WRITERS}
    assert sorted(set(commands) - tested - set(EXEMPT)) == []
    assert sorted(tested - set(commands)) == []
    for command in set(commands) - set(EXEMPT):
        params = _params(command)
        assert "overwrite" in params, f"taskqa {command} has no --overwrite"


def _command_of(row: str) -> str:
    """``procedural sample --remainder`` and ``baseline (chat)`` are rows of one command."""
    return row.split(" --")[0].split(" (")[0]


def _params(command: str) -> set[str]:
    node: Any = typer.main.get_command(app)
    for name in command.split():
        node = node.commands[name]
    return {p.name for p in node.params if p.name}


def test_a_file_where_a_folder_belongs_and_a_folder_where_a_file_belongs(
    inputs: dict[str, str], tmp_path: Path
) -> None:
    (tmp_path / "stats").write_bytes(NOTES)
    code, output = run("stats", inputs["corpus"], "--out", str(tmp_path / "stats"), "--overwrite")
    assert (code, output.strip()) == (
        1,
        f"✗ {tmp_path / 'stats'}: is a file; expected a folder to write the corpus statistics "
        "folder to",
    )
    (tmp_path / "q.jsonl").mkdir()
    code, output = run("generate", inputs["corpus"], "--out", str(tmp_path / "q.jsonl"))
    assert (code, output.strip()) == (
        1,
        f"✗ {tmp_path / 'q.jsonl'}: is a folder; expected a file to write the questions file to",
    )


def test_a_hand_written_predictions_file_is_refused_but_its_own_is_replaced(
    inputs: dict[str, str], tmp_path: Path
) -> None:
    """What makes a file a command's own: its first record has the fields the command writes,
    and the sidecar it always writes beside it is there. A hand-made predictions file in the
    very same format (a model's answers, perhaps paid for) has no sidecar and is refused."""
    hand = tmp_path / "mine.jsonl"
    hand.write_text('{"id": "q1", "answer": "yes"}\n')
    args = ["baseline", "most-likely", "-b", inputs["bench"], "-o", str(hand)]
    assert run(*args)[0] == 1
    answered = tmp_path / "model.jsonl"
    answered.write_text('{"question_id": "q1", "prediction": "yes"}\n')
    assert run(*args[:-1], str(answered))[0] == 1
    assert answered.read_text() == '{"question_id": "q1", "prediction": "yes"}\n'
    own = tmp_path / "own.jsonl"
    run_ok(*args[:-1], str(own))
    output = run_ok(*args[:-1], str(own))
    assert f"replaced the earlier predictions file written by taskqa baseline {own}" in " ".join(
        output.split()
    )
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert "replaced" not in run_ok(*args[:-1], str(empty))
