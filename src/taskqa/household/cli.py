"""``taskqa render``: household recordings to video, the contact sheet and the pixel probe."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Annotated, Any

import typer

from taskqa.data.resolve import input_paths
from taskqa.execution import Execution, ExecutorKind
from taskqa.execution.options import (
    ExecutorOption,
    RayAddressOption,
    ResumeOption,
    WorkersOption,
    execution,
    reported,
)
from taskqa.outputs import (
    CONTACT_SHEET,
    PROBE,
    RENDERED_VIDEOS,
    OverwriteOption,
    claim_output,
    say_replaced,
)
from taskqa.problems import InvalidInputError, Problem
from taskqa.render.options import BackendOption, announce_backend
from taskqa.terminal import GuardedGroup, GuardedTyper, console, progress


class _DefaultToVideos(GuardedGroup):
    """``taskqa render CORPUS ...`` means ``taskqa render videos CORPUS ...``: the group's
    commands keep their own names, anything else is a corpus folder."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["videos", *args]
        return super().parse_args(ctx, args)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        """The group's help, then that of ``videos``: ``taskqa render CORPUS`` takes its options
        (--fps, --limit, --masks, ...), which the group's own help would not show."""
        super().format_help(ctx, formatter)
        videos = self.commands["videos"]
        videos.format_help(type(ctx)(videos, info_name="videos", parent=ctx), formatter)


app = GuardedTyper(
    cls=_DefaultToVideos,
    name="render",
    help=(
        "Render household recordings to MP4 (a first-person view per person, a fixed "
        "third-person camera per room), with optional instance masks.\n\n"
        "`taskqa render CORPUS` renders and points the corpus's video references at the files; "
        "`taskqa render sheet` draws every visible state; `taskqa render probe` checks that a "
        "pixel classifier can read the states."
    ),
    no_args_is_help=True,
    rich_markup_mode="rich",
)


def _typed(ctx: typer.Context, name: str) -> bool:
    """Whether the option was given on the command line (not left at its default)."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name == "COMMANDLINE"


def parse_views(text: str) -> tuple[str, ...]:
    from taskqa.household.options import VIEWS

    views = tuple(v.strip() for v in text.split(",") if v.strip())
    unknown = [v for v in views if v not in VIEWS]
    if unknown or not views:
        raise typer.BadParameter(f"{text!r}: expected a comma-separated list of {', '.join(VIEWS)}")
    return views


def render_target(out: Path | None) -> Path | str | None:
    """``--out`` as a folder (a path, or a ``file://`` URL: what a shared mount is called in a
    cluster's configuration) or as an object-storage URL (``s3://bucket/videos``, any scheme
    fsspec knows), which workers upload to."""
    if out is None:
        return None
    from taskqa.execution.storage import split_url

    split = split_url(out.as_posix())
    if split is None:
        return out
    scheme, rest = split
    if scheme == "file":
        return Path("/" + rest.lstrip("/"))
    return f"{scheme}://{rest.lstrip('/')}"  # a Path keeps one of the two slashes


def journal_for(corpus: Path, out: Path | str | None) -> Path:
    """The resume journal: beside a local ``--out``; for a URL, on the driver's disk in the
    corpus folder, named after the URL (only the driver writes it)."""
    from taskqa.execution import journal_beside

    if isinstance(out, str):
        return journal_beside(corpus / f"videos-{hashlib.sha256(out.encode()).hexdigest()[:12]}")
    return journal_beside(out if out is not None else corpus / "videos")


def check_size(size: str) -> tuple[int, int]:
    """``224`` (square) or ``320x240``; both sides even, as H.264 in yuv420p needs."""
    parts = size.lower().split("x")
    try:
        numbers = [int(p) for p in parts]
    except ValueError:
        raise typer.BadParameter(
            f"{size!r}: expected a number of pixels like 224 or 320x240"
        ) from None
    if len(numbers) == 1:
        numbers = numbers * 2
    if len(numbers) != 2 or any(n < 16 or n > 2048 or n % 2 for n in numbers):
        raise typer.BadParameter(
            f"{size!r}: expected even sides between 16 and 2048, like 224 or 320x240"
        )
    return numbers[0], numbers[1]


def render_into_corpus(
    corpus: Path,
    out: Path | None,
    fps: float,
    size: str,
    views: str,
    masks: bool,
    workers: int,
    recordings: list[str] | None = None,
    clips_from: Path | None = None,
    limit: int | None = None,
    execution: Execution | None = None,
    backend: str = "auto",
    depth: bool = False,
    look: str = "textured",
    appearance_set: str = "seen",
) -> None:
    """Shared by ``taskqa render`` and ``taskqa simulate --render``."""
    from taskqa.household.look_spec import APPEARANCE_SETS
    from taskqa.render.gl import LOOKS

    if look not in LOOKS:
        message = f"unknown look {look!r}; expected one of {', '.join(LOOKS)}"
        raise InvalidInputError([Problem("--look", "", message)])
    if appearance_set not in APPEARANCE_SETS:
        message = f"unknown appearance set {appearance_set!r}; expected seen or held-out"
        raise InvalidInputError([Problem("--appearance-set", "", message)])
    target = render_target(out)
    if isinstance(target, str):
        from taskqa.execution.storage import check_store

        with reported():
            check_store(target)  # before the progress bar: the extra is there, the store answers
    from taskqa.household.corpus_videos import render_corpus
    from taskqa.household.options import RenderOptions
    from taskqa.household.selection import select_recordings

    width, height = check_size(size)
    from taskqa.corpus import read_corpus
    from taskqa.simulation.corpus import corpus_domain_file

    corpus_domain_file(corpus)  # a domain.yaml corpus.json names but lacks: refused up front
    total = len(select_recordings(read_corpus(corpus), recordings, clips_from, limit))
    chosen = announce_backend(backend)  # once the inputs are known good
    if chosen == "tiny" and look != "textured":
        said = f"--look {look} is the GL back-end's; tiny draws its one look"
        console.print(said, highlight=False)
    options = RenderOptions(
        fps=fps,
        width=width,
        height=height,
        views=parse_views(views),
        masks=masks,
        backend=chosen,
        depth=depth,
        appearance=look,
        appearance_set=appearance_set,
    )
    with reported(), progress(unit="recordings") as bars:
        task = bars.add_task("rendering", total=total)
        rendered = render_corpus(
            corpus,
            target,
            options,
            ids=recordings,
            clips_from=clips_from,
            limit=limit,
            workers=workers,
            on_progress=lambda n: bars.advance(task, n),
            execution=execution,
            journal=journal_for(corpus, target),
        )
    files = sum(len(r.files) for r in rendered)
    frames = sum(r.frames for r in rendered)
    console.print(
        f"rendered {len(rendered)} recordings ({frames} frames per view in all, {files} files); "
        f"video references in {corpus / 'recordings.jsonl'}",
        highlight=False,
    )


@app.command("videos")
def videos(
    ctx: typer.Context,
    corpus: Annotated[
        Path,
        typer.Argument(
            help="A simulated taskqa corpus folder, or a built benchmark (`taskqa build`): "
            "the recordings its clips use that have no video are rendered and its videos.csv "
            "written again.",
            callback=input_paths,
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Folder for the videos (default CORPUS/videos), or an object-storage URL "
            "such as s3://bucket/videos (pip install 'taskqa\\[cloud]').",
        ),
    ] = None,
    fps: Annotated[float, typer.Option(min=0.5, max=30, help="Frames per second.")] = 2.0,
    size: Annotated[
        str, typer.Option(help="Frame size: 224 or WIDTHxHEIGHT (even sides).")
    ] = "224",
    views: Annotated[
        str, typer.Option(help="Comma-separated views: first, third.")
    ] = "first,third",
    recordings: Annotated[
        list[str] | None,
        typer.Option(
            "--recordings",
            help="Only this recording; repeat the option for several (--recordings A "
            "--recordings B).",
        ),
    ] = None,
    clips_from: Annotated[
        Path | None,
        typer.Option(
            help="Only the recordings a benchmark folder's clips use.", callback=input_paths
        ),
    ] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="At most this many recordings.")] = None,
    masks: Annotated[
        bool, typer.Option("--masks", help="Also write per-frame instance masks (.masks.npz).")
    ] = False,
    depth: Annotated[
        bool,
        typer.Option(
            "--depth", help="Also write per-frame depth in millimetres (.depth.npz, depth_mm)."
        ),
    ] = False,
    look: Annotated[
        str,
        typer.Option(
            help="The GL back-end's appearance: flat (unlit colours), shaded (lit, shadows) or "
            "textured (also wood grain, floor planks, plaster, brushed steel)."
        ),
    ] = "textured",
    appearance_set: Annotated[
        str,
        typer.Option(
            help="seen, or held-out: furniture, appliance and room colours (and, textured, "
            "surface patterns) that no seen render uses, for clips a model is tested on only "
            "(with --recordings or --clips-from); colour words keep their colours."
        ),
    ] = "seen",
    backend: BackendOption = "auto",
    workers: WorkersOption = 1,
    executor: ExecutorOption = ExecutorKind.LOCAL,
    ray_address: RayAddressOption = None,
    resume: ResumeOption = False,
    overwrite: OverwriteOption = False,
) -> None:
    """Render a corpus's household recordings to MP4 and point its video references at them.

    `taskqa render CORPUS ...` is short for `taskqa render videos CORPUS ...`.
    Example: taskqa render out/corpus --limit 3 --fps 2 --size 224 --masks

    `taskqa render BENCH` renders a built benchmark's missing videos (docs/minimal-pairs.md).
    """
    from taskqa.corpus import is_corpus
    from taskqa.household.benchmark_videos import benchmark_named, render_benchmark

    named = benchmark_named(corpus)
    if named is not None:
        given = {
            **{"out": out, "recordings": recordings, "clips_from": clips_from, "limit": limit},
            **{"fps": fps, "size": size, "views": views, "masks": masks, "depth": depth},
            **{"look": look, "appearance_set": appearance_set, "backend": backend},
        }
        typed = {name for name in given if _typed(ctx, name)}
        run = execution(executor, workers, ray_address, resume)
        render_benchmark(*named, given, typed, workers, run)
        return
    if not is_corpus(corpus):
        message = "not a taskqa corpus; expected a folder with corpus.json"
        raise InvalidInputError([Problem(str(corpus), "", message)])
    # a folder on this machine: its own videos are drawn again, anything else is refused
    # (object storage is the user's bucket to manage)
    target = render_target(out)
    replaced = None
    if isinstance(target, Path):
        replaced = claim_output(target, RENDERED_VIDEOS, overwrite)
    run = execution(executor, workers, ray_address, resume)
    render_into_corpus(
        corpus,
        out,
        fps,
        size,
        views,
        masks,
        workers,
        recordings,
        clips_from,
        limit,
        run,
        backend,
        depth,
        look,
        appearance_set,
    )
    say_replaced(replaced)


@app.command()
def sheet(
    out: Annotated[Path, typer.Option("--out", "-o", help="PNG file to write.")] = Path(
        "docs/images/contact-sheet.png"
    ),
    size: Annotated[int, typer.Option(min=64, max=512, help="Pixels per picture side.")] = 224,
    backend: BackendOption = "auto",
    overwrite: OverwriteOption = False,
) -> None:
    """A contact sheet: before/after pictures of every visible attribute value, labelled."""
    from taskqa.household.sheet import write_sheet

    replaced = claim_output(out, CONTACT_SHEET, overwrite)
    count = write_sheet(out, size, backend=announce_backend(backend))
    say_replaced(replaced)
    console.print(f"wrote {out} ({count} before/after pairs)", highlight=False)


@app.command()
def probe(
    corpus: Annotated[
        Path, typer.Argument(help="A simulated taskqa corpus folder.", callback=input_paths)
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for probe.json and probe.md.")],
    seed: Annotated[int, typer.Option(help="Seed of the train/test split by recording.")] = 0,
    limit: Annotated[
        int | None, typer.Option(min=2, help="Use at most this many recordings.")
    ] = None,
    test_share: Annotated[
        float, typer.Option(min=0.1, max=0.9, help="Share of test recordings.")
    ] = 0.3,
    size: Annotated[int, typer.Option(min=64, max=512, help="Frame side in pixels.")] = 224,
    backend: BackendOption = "auto",
    workers: WorkersOption = 1,
    executor: ExecutorOption = ExecutorKind.LOCAL,
    ray_address: RayAddressOption = None,
    overwrite: OverwriteOption = False,
) -> None:
    """Pixel probe: can the visible states be read from the rendered pixels?

    Learns each visible attribute from object crops on train recordings and reports accuracy
    on held-out recordings against the majority class."""
    from taskqa.corpus import read_corpus
    from taskqa.household.probe import run_probe
    from taskqa.simulation.corpus import corpus_domain_file

    corpus_domain_file(corpus)  # before the progress bar, as `render videos` does
    total = len(read_corpus(corpus)[:limit])
    replaced = claim_output(out, PROBE, overwrite)
    chosen = announce_backend(backend)
    with reported(), progress(unit="recordings") as bars:
        task = bars.add_task("rendering crops", total=total)
        report = run_probe(
            corpus,
            out,
            seed=seed,
            limit=limit,
            test_share=test_share,
            size=size,
            workers=workers,
            on_progress=lambda n: bars.advance(task, n),
            execution=execution(executor, workers, ray_address),
            backend=chosen,
        )
    console.print(report.table())
    say_replaced(replaced)
    console.print(f"wrote {out / 'probe.json'} and {out / 'probe.md'}", highlight=False)
