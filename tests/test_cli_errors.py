"""The command line's one error path, and what it says about missing inputs, a corpus that lost
its domain file, and output folders it would replace."""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

import taskqa
from problem_text import problem_lines, run
from taskqa.cli import app
from taskqa.outputs import (
    BENCHMARK,
    CORPUS,
    HF_EXPORT,
    PHYSICS_SCENES,
    VERIFY_BENCHMARK,
    claim_output,
)
from taskqa.problems import InvalidInputError
from taskqa.terminal import GuardedCommand, GuardedGroup, GuardedTyper

SOURCE = Path(taskqa.__file__).parent


# --- 1. one error path -----------------------------------------------------------------------


def _click_tree(command: object, path: tuple[str, ...] = ()) -> list[tuple[str, object]]:
    found = [(" ".join(path) or "taskqa", command)]
    for name, child in sorted(getattr(command, "commands", {}).items()):
        found += _click_tree(child, (*path, name))
    return found


def test_every_command_and_group_is_guarded() -> None:
    for name, command in _click_tree(typer.main.get_command(app)):
        kind = GuardedGroup if hasattr(command, "commands") else GuardedCommand
        assert isinstance(command, kind), f"{name} is a {type(command).__name__}"


def test_no_command_module_prints_problems_its_own_way() -> None:
    """No ``_fail`` helper and no ``except InvalidInputError`` that only re-raises it as an
    exit: InvalidInputError reaches the guard."""
    modules = [SOURCE / "cli.py", *sorted(SOURCE.glob("*/cli.py"))]
    for module in modules:
        tree = ast.parse(module.read_text(encoding="utf-8"))
        names = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        assert "_fail" not in names, module
        for handler in (n for n in ast.walk(tree) if isinstance(n, ast.ExceptHandler)):
            caught = ast.unparse(handler.type) if handler.type else ""
            if "InvalidInputError" in caught:  # kept only to add to the problems (a list of files)
                body = ast.unparse(handler)
                assert not any(word in body for word in ("Exit", "fail", "print")), (module, body)


def test_a_sub_app_on_its_own_is_guarded_too(tmp_path: Path) -> None:
    sub = GuardedTyper()

    @sub.command()
    def broken(path: Path) -> None:
        from taskqa.problems import Problem

        raise InvalidInputError([Problem(str(path), "[1].x", "expected [a] number")])

    @sub.command()
    def other() -> None:
        pass

    result = CliRunner().invoke(sub, ["broken", "data/x.json"])
    assert (result.exit_code, result.output) == (1, "✗ data/x.json[1].x: expected [a] number\n")


def test_procedural_problems_print_like_every_other_command(tmp_path: Path) -> None:
    broken = tmp_path / "candidates.json"
    broken.write_text('{"not": "a list"')
    code, output = run("procedural", "sample", "--candidates", str(broken), "--out", "x.json")
    assert code == 1
    assert problem_lines(output) == [
        f"✗ {broken}: invalid JSON: Expecting ',' delimiter at line 1, column 17 "
        "(the file looks truncated)"
    ]


def test_an_internal_error_still_exits_70(monkeypatch: pytest.MonkeyPatch) -> None:
    import taskqa.validate

    def broken(_path: Path) -> None:
        raise KeyError("bug")

    monkeypatch.setattr(taskqa.validate, "validate_path", broken)
    with pytest.raises(SystemExit) as exited:
        app(["validate", "."], prog_name="taskqa")
    assert exited.value.code == 70


# --- 2. inputs that do not exist ----------------------------------------------------------------

MISSING_ARGS = {
    "build": ["--out", "{tmp}/bench"],
    "generate": ["--out", "{tmp}/q.jsonl"],
    "render": [],
    "validate": [],
    "stats": ["--out", "{tmp}/stats"],
    "convert": ["--to", "taskqa", "--out", "{tmp}/c"],
    "causal": [],
    "export hf": ["--out", "{tmp}/hf"],
    "render probe": ["--out", "{tmp}/p"],
    "physics events": ["--out", "{tmp}/e"],
    "verify evaluate": ["--out", "{tmp}/e"],
    "lint-templates": [],
}


@pytest.mark.parametrize("missing", ["/no/such", "no/such/deeper"])
@pytest.mark.parametrize("command", sorted(MISSING_ARGS))
def test_a_missing_input_is_named_as_given(command: str, missing: str, tmp_path: Path) -> None:
    extra = [arg.format(tmp=tmp_path) for arg in MISSING_ARGS[command]]
    code, output = run(*command.split(), missing, *extra)
    assert code == 1
    assert problem_lines(output) == [f"✗ {missing}: not found"]
    assert list(tmp_path.iterdir()) == []


def test_missing_option_paths_are_named_too(tmp_path: Path) -> None:
    code, output = run("evaluate", "-b", str(tmp_path), "-p", "runs/none.jsonl", "-o", "x")
    assert (code, problem_lines(output)) == (1, ["✗ runs/none.jsonl: not found"])
    code, output = run("simulate", "--config", "conf/none.json", "--out", str(tmp_path / "c"))
    assert (code, problem_lines(output)) == (1, ["✗ conf/none.json: not found"])


# --- 4. a corpus whose domain.yaml is gone ----------------------------------------------------


@pytest.fixture
def domainless(small_corpus_dir: Path, tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    shutil.copytree(small_corpus_dir, corpus)
    (corpus / "domain.yaml").unlink()
    return corpus


@pytest.mark.parametrize("command", ["render", "validate", "generate", "build", "causal"])
def test_a_corpus_without_the_domain_it_names_is_refused(
    command: str, domainless: Path, tmp_path: Path
) -> None:
    extra = {
        "render": ["--limit", "1"],
        "validate": [],
        "generate": ["--out", str(tmp_path / "q.jsonl")],
        "build": ["--out", str(tmp_path / "bench")],
        "causal": ["--recording", "x"],
    }[command]
    code, output = run(command, str(domainless), *extra)
    assert code == 1
    assert problem_lines(output) == [
        f"✗ {domainless}/domain.yaml: not found (corpus.json names it as the corpus's domain)"
    ]
    assert not (domainless / "videos").exists() and not (tmp_path / "bench").exists()


def test_a_corpus_that_names_no_domain_uses_the_built_in_one(domainless: Path) -> None:
    manifest = json.loads((domainless / "corpus.json").read_text())
    manifest.pop("files")
    (domainless / "corpus.json").write_text(json.dumps(manifest))
    code, output = run("validate", str(domainless))
    assert code == 0, output


# --- 3. output folders -----------------------------------------------------------------------


def _corpus_with_videos(tmp_path: Path) -> Path:
    out = tmp_path / "corpus"
    assert run("simulate", "--episodes", "2", "--out", str(out))[0] == 0
    (out / "videos" / "first").mkdir(parents=True)
    for name in ("a.mp4", "first/b.mp4", "first/b.masks.npz"):
        (out / "videos" / name).write_bytes(b"video")
    return out


def test_simulate_replaces_its_own_corpus_and_says_so(tmp_path: Path) -> None:
    out = tmp_path / "corpus"
    assert run("simulate", "--episodes", "2", "--out", str(out))[0] == 0
    code, output = run("simulate", "--episodes", "3", "--out", str(out))
    assert code == 0
    assert f"replaced the earlier taskqa corpus in {out}" in output.splitlines()
    assert json.loads((out / "corpus.json").read_text())["recordings"] == 3


def test_simulate_keeps_rendered_videos_unless_told(tmp_path: Path) -> None:
    out = _corpus_with_videos(tmp_path)
    code, output = run("simulate", "--episodes", "3", "--out", str(out))
    assert code == 1
    assert problem_lines(output) == [
        f"✗ {out}: replacing this taskqa corpus would delete its 3 rendered video files "
        "(videos/); choose another --out or pass --overwrite"
    ]
    assert (out / "videos" / "a.mp4").is_file()
    code, output = run("simulate", "--episodes", "3", "--out", str(out), "--overwrite")
    assert code == 0
    assert (
        f"replaced the earlier taskqa corpus in {out}, deleting its 3 rendered video files"
        in output.splitlines()
    )
    assert not (out / "videos").exists()


def test_a_folder_of_something_else_is_never_replaced_silently(tmp_path: Path) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    for args in (
        ["simulate", "--episodes", "2", "--out", str(out)],
        ["build", str(tmp_path), "--out", str(out)],
        ["export", "hf", str(tmp_path), "--out", str(out)],
        ["physics", "simulate", "--scenes", "1", "--out", str(out)],
        ["verify", "build", "--trials", "1", "--out", str(out)],
    ):
        code, output = run(*args)
        assert code == 1, args
        (line,) = problem_lines(output)
        assert line.startswith(f"✗ {out}: folder is not empty and is not a "), line
        assert line.endswith("; choose another --out or pass --overwrite"), line
        assert (out / "notes.txt").read_text() == "keep me"
    code, output = run("simulate", "--episodes", "2", "--out", str(out), "--overwrite")
    assert code == 0
    assert f"replaced {out} and the 1 file it held (--overwrite)" in output.splitlines()
    assert not (out / "notes.txt").exists()


def test_a_file_where_the_output_folder_belongs(tmp_path: Path) -> None:
    out = tmp_path / "corpus.json"
    out.write_text("{}")
    code, output = run("simulate", "--episodes", "2", "--out", str(out), "--overwrite")
    assert (code, problem_lines(output)) == (
        1,
        [f"✗ {out}: is a file; expected a folder to write the taskqa corpus to"],
    )


def test_build_replaces_its_own_benchmark(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    assert run("simulate", "--episodes", "6", "--out", str(corpus))[0] == 0
    bench = tmp_path / "bench"
    (bench / "splits").mkdir(parents=True)
    (bench / "manifest.json").write_text("{}")
    code, output = run("build", str(corpus), "--out", str(bench), "--balance-by", "type")
    assert code == 0, output
    assert f"replaced the earlier taskqa benchmark in {bench}" in output.splitlines()
    assert json.loads((bench / "manifest.json").read_text())["counts"]


def test_claim_output_knows_each_kind(tmp_path: Path) -> None:
    assert claim_output(tmp_path / "new", CORPUS, overwrite=False) is None
    (tmp_path / "empty").mkdir()
    assert claim_output(tmp_path / "empty", BENCHMARK, overwrite=False) is None
    kinds = [
        (BENCHMARK, ["manifest.json", "splits/normal/test.jsonl"], None),
        (HF_EXPORT, ["croissant.json", "videos/clip.mp4"], None),  # its clips are cut again
        (VERIFY_BENCHMARK, ["manifest.json", "pairs.jsonl", "videos/e1.mp4"], "videos/"),
        (PHYSICS_SCENES, ["scenes.json", "video_00000.mp4"], "video_*"),
    ]
    for kind, files, videos in kinds:
        folder = tmp_path / kind.what.replace(" ", "-")
        for name in files:
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text("x")
        if videos is None:
            assert claim_output(folder, kind, overwrite=False) == (
                f"replaced the earlier {kind.what} in {folder}"
            )
            continue
        with pytest.raises(InvalidInputError) as refused:
            claim_output(folder, kind, overwrite=False)
        assert f"would delete its 1 rendered video file ({videos})" in str(refused.value)
        assert claim_output(folder, kind, overwrite=True) == (
            f"replaced the earlier {kind.what} in {folder}, deleting its 1 rendered video file"
        )
