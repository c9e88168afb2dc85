"""``taskqa studio``: create a human study, invite raters, serve it, export the results."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from taskqa.data.resolve import input_paths
from taskqa.outputs import STUDY_EXPORT, OverwriteOption, claim_output, say_replaced
from taskqa.problems import InvalidInputError, Problem
from taskqa.terminal import GuardedTyper, console

app = GuardedTyper(
    name="studio",
    help=(
        "Human studies in the browser: answer questions (the Human row), judge causal "
        "responsibility (CLEVRER-Humans), "
        "check task descriptions against videos (EgoTV) and review generated questions and "
        "answers with two reviewers and an adjudicator (ProMQA)."
    ),
    no_args_is_help=True,
)


class StudyKind(StrEnum):
    ANSWER = "answer"
    JUDGE = "judge"
    VERIFY_TASK = "verify-task"
    VERIFY = "verify"


@app.command()
def create(
    kind: Annotated[StudyKind, typer.Argument(help="What people do in the study.")],
    source: Annotated[
        Path,
        typer.Argument(
            help="answer: a benchmark folder; judge: cegs.json of `taskqa physics ceg`; "
            "verify-task: a `taskqa verify build --render` folder; verify: generated records "
            "of `taskqa procedural generate`.",
            callback=input_paths,
        ),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="The study file to write (SQLite).")],
    per_category: Annotated[
        int, typer.Option(min=1, help="Items per category (reasoning type, question type, ...).")
    ] = 50,
    raters: Annotated[int, typer.Option(min=1, help="Rater queues to make.")] = 3,
    per_item: Annotated[
        int | None,
        typer.Option(
            min=1, help="Raters per item (default: answer 1, judge 3, verify-task 1, verify 2)."
        ),
    ] = None,
    catch: Annotated[
        int, typer.Option(min=0, help="Catch trials per rater (verify has none).")
    ] = 5,
    min_catch: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="Flag raters below this catch accuracy.")
    ] = 0.8,
    seed: Annotated[int, typer.Option(help="Seed of the sample, the queues and catch places.")] = 0,
    split: Annotated[str, typer.Option(help="answer: the split asked, FAMILY/SPLIT.")] = (
        "normal/test"
    ),
    require_video: Annotated[
        bool, typer.Option(help="Keep only items whose video file exists.")
    ] = False,
    media: Annotated[
        Path | None,
        typer.Option(
            help="Media root (default: the source's folder; verify: none, else "
            "<recording_id>.mp4 or <recording_id>_360p.mp4 in it).",
            callback=input_paths,
        ),
    ] = None,
    adjudicators: Annotated[
        int,
        typer.Option(min=1, help="verify: raters who only adjudicate (the last of --raters)."),
    ] = 1,
    whole_videos: Annotated[
        bool,
        typer.Option(
            "--whole-videos",
            help="answer: serve each recording's whole video, seeking to the clip, instead of "
            "cutting each clip into OUT's folder (raters could then watch past the clip).",
        ),
    ] = False,
) -> None:
    """Create a study file: a seeded sample of items, each rater's queue, catch trials."""
    from taskqa.studio.create import create_study
    from taskqa.studio.kinds.base import CreateOptions

    options = CreateOptions(
        per_category=per_category,
        raters=raters,
        per_item=per_item,
        catch=catch,
        min_catch=min_catch,
        seed=seed,
        split=split,
        require_video=require_video,
        media=media,
        adjudicators=adjudicators,
        clip_folder=None
        if whole_videos or kind is not StudyKind.ANSWER
        else out.with_name(f"{out.stem}-clips"),
    )
    created = create_study(kind.value, source, out, options)
    categories = ", ".join(f"{n} {c}" for c, n in sorted(created.categories.items()))
    console.print(
        f"{created.items} items ({categories}), {created.catches} catch trials, "
        f"{created.raters} raters x {created.per_item} per item -> {out}",
        highlight=False,
    )


@app.command()
def invite(
    study: Annotated[Path, typer.Argument(help="A study file.", callback=input_paths)],
    raters: Annotated[
        int | None, typer.Option(min=1, help="Links for the first N raters (default: all).")
    ] = None,
    base_url: Annotated[str, typer.Option(help="Where the study is served.")] = (
        "http://127.0.0.1:8000"
    ),
    days: Annotated[float, typer.Option(min=0.0, help="Days until the links expire.")] = 30.0,
) -> None:
    """Print one invitation link per rater and the admin's progress link (new tokens each time:
    earlier links stop working)."""
    from taskqa.studio import db
    from taskqa.studio.queue import invite as issue
    from taskqa.studio.security import FormError

    connection = db.connect(study)
    try:
        issued, admin = issue(connection, raters, days)
    except FormError as error:
        raise InvalidInputError([Problem(str(study), "", str(error))]) from None
    finally:
        connection.close()
    base = base_url.rstrip("/")
    for name, token in issued:
        typer.echo(f"{name}\t{base}/r/{token}")
    typer.echo(f"admin\t{base}/admin/{admin}")


@app.command()
def serve(
    study: Annotated[Path, typer.Argument(help="A study file.", callback=input_paths)],
    media: Annotated[
        Path | None,
        typer.Option(
            help="A further folder to look for media files in, after the study's own (its clip "
            "folder, or the --media given at creation).",
            callback=input_paths,
        ),
    ] = None,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port.")] = 8000,
) -> None:
    """Serve the study's pages with uvicorn."""
    _require_extra()
    from taskqa.studio.app import serve as serve_study

    serve_study(study, media, host, port)


@app.command("export")
def export_command(
    study: Annotated[Path, typer.Argument(help="A study file.", callback=input_paths)],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the export files.")],
    overwrite: OverwriteOption = False,
) -> None:
    """Write every export of the study (the files the progress page offers)."""
    _require_extra()
    from taskqa.studio import db
    from taskqa.studio.exports import write_exports
    from taskqa.studio.kinds import get_kind

    replaced = claim_output(out, STUDY_EXPORT, overwrite)
    connection = db.connect(study)
    try:
        written = write_exports(connection, get_kind(str(db.meta(connection)["kind"])), out)
    finally:
        connection.close()
    say_replaced(replaced)
    console.print(f"wrote {len(written)} files to {out}", highlight=False)


def _require_extra() -> None:
    """The web app's libraries are an optional extra; without them, say how to get them."""
    import importlib.util

    missing = [
        m
        for m in ("fastapi", "uvicorn", "jinja2", "krippendorff")
        if not importlib.util.find_spec(m)
    ]
    if missing:
        message = (
            f"needs {', '.join(missing)}, part of the studio extra: pip install 'taskqa[studio]'"
        )
        raise InvalidInputError([Problem("taskqa studio", "", message)])
