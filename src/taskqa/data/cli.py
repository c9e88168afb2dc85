"""``taskqa data``: list, inspect, download and derive the public annotation files."""

from __future__ import annotations

from contextlib import suppress
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import TaskID

from taskqa import terminal
from taskqa.data import registry as registry_module
from taskqa.data.cache import State, cache_dir, cached_path, quick_state, verified_state
from taskqa.data.fetch import Fetcher, Outcome
from taskqa.data.registry import DerivedFile, Entry, PinnedFile, Registry, Source
from taskqa.problems import InvalidInputError, Problem
from taskqa.terminal import GuardedTyper, console

app = GuardedTyper(
    name="data",
    help=(
        "The public annotation files taskqa reads (CaptainCook4D, ProMQA, EgoTV, CLEVRER-Humans): "
        "list them, download them into a user cache (checked by sha256), derive the files made "
        "from them; other commands read a cached file as data:NAME."
    ),
    no_args_is_help=True,
)

_ACTIONS = ("downloaded", "made", "cached")
Dir = Annotated[
    Path | None,
    typer.Option("--dir", help="Cache folder (default: $TASKQA_DATA, else the user cache folder)."),
]
Offline = Annotated[
    bool, typer.Option("--offline", help="Use only the cache; fail where a file is missing.")
]
Names = Annotated[
    list[str] | None,
    typer.Argument(help="Entries or groups (folders of names), e.g. promqa or promqa/graphs.json."),
]


def _selected(registry: Registry, name: str) -> list[Entry]:
    entries = registry.select(name)
    if not entries:
        message = "no such data file or group; `taskqa data list` shows the names"
        raise InvalidInputError([Problem(name, "", message)])
    return entries


def _origin(registry: Registry, entry: Entry) -> str:
    if isinstance(entry, DerivedFile):
        return f"derived ({entry.recipe})"
    source = registry.sources[entry.source]
    return f"{source.repository}@{source.commit[:7]}"


def _size(size: int | None) -> str:
    return "?" if size is None else f"{size:,}"


@app.command("list")
def list_entries(directory: Dir = None) -> None:
    """Every registry entry: whether it is cached, its size and where it comes from."""
    registry = registry_module.load_registry()
    root = cache_dir(directory)
    console.print(f"cache: {root}", highlight=False, soft_wrap=True, markup=False)
    for entry in registry.entries():
        state = quick_state(root, entry)
        line = f"{state.value:<8} {entry.name:<60} {_size(entry.size):>10}  "
        console.print(
            line + _origin(registry, entry), highlight=False, soft_wrap=True, markup=False
        )


@app.command()
def info(
    name: Annotated[str, typer.Argument(help="An entry or a group.")], directory: Dir = None
) -> None:
    """Source, pinned commit, path, URL, size, sha256, licence and cache state of an entry."""
    registry = registry_module.load_registry()
    root = cache_dir(directory)
    for entry in _selected(registry, name):
        fetcher = Fetcher(registry, root)
        lines = [("name", entry.name)]
        if isinstance(entry, PinnedFile):
            source = registry.sources[entry.source]
            lines += [
                ("source", f"{source.repository} @ {source.commit}"),
                ("path", entry.path),
                ("url", fetcher.url(entry)),
            ]
        else:
            lines += [
                ("derived", entry.description),
                ("made by", f"taskqa data derive {entry.name} (recipe {entry.recipe})"),
                ("from", ", ".join(entry.inputs)),
            ]
        lines += [
            ("size", f"{_size(entry.size)} bytes"),
            ("sha256", entry.sha256 or "not pinned (see docs/data.md)"),
            *(("licence", _licence(source)) for source in registry.sources_of(entry)),
            ("cache", f"{cached_path(root, entry)} ({_described(verified_state(root, entry))})"),
        ]
        for key, value in lines:
            console.print(f"{key + ':':<8} {value}", highlight=False, soft_wrap=True, markup=False)
        console.print()


def _licence(source: Source) -> str:
    return f"{source.licence} ({source.repository}; {source.licence_url})"


def _described(state: State) -> str:
    return {
        State.CACHED: "cached; sha256 verified where pinned",
        State.MISSING: "not downloaded",
        State.CORRUPT: "present but not the pinned file; download it again",
    }[state]


@app.command()
def path(
    name: Annotated[
        str | None, typer.Argument(help="An entry or a group; none: the cache.")
    ] = None,
    directory: Dir = None,
) -> None:
    """Print where an entry (or group folder) is cached; fails if it is not downloaded."""
    from taskqa.data.resolve import cached_input

    if name is None:
        console.print(str(cache_dir(directory)), highlight=False, soft_wrap=True, markup=False)
        return
    found = cached_input(name, directory)
    console.print(str(found), highlight=False, soft_wrap=True, markup=False)


@app.command()
def download(
    names: Names = None,
    every: Annotated[bool, typer.Option("--all", help="Every entry of the registry.")] = False,
    directory: Dir = None,
    offline: Offline = False,
) -> None:
    """Download entries into the cache, checking sha256 (derived files are made locally)."""
    registry = registry_module.load_registry()
    if every:
        names = [entry.name for entry in registry.entries()]
    if not names:
        raise InvalidInputError([Problem("taskqa data download", "", "give NAME... or --all")])
    entries = [entry for name in names for entry in _selected(registry, name)]
    _run(registry, entries, directory, offline, remake=False)


@app.command()
def derive(names: Names = None, directory: Dir = None, offline: Offline = False) -> None:
    """Make derived files from their cached inputs (downloading those unless --offline)."""
    registry = registry_module.load_registry()
    derived_names = ", ".join(entry.name for entry in registry.derived)
    entries: list[Entry] = []
    pinned: list[str] = []
    for name in names or []:
        selected = _selected(registry, name)
        if not registry.is_group(name):  # a file named on its own must be a derived one
            pinned += [entry.name for entry in selected if isinstance(entry, PinnedFile)]
        entries += [entry for entry in selected if isinstance(entry, DerivedFile)]
    if not entries or pinned:
        what = f"{', '.join(pinned)} are downloaded, not derived" if pinned else "give NAME..."
        raise InvalidInputError(
            [Problem("taskqa data derive", "", f"{what}; derived: {derived_names}")]
        )
    _run(registry, entries, directory, offline, remake=True)


def _run(
    registry: Registry, entries: list[Entry], directory: Path | None, offline: bool, remake: bool
) -> None:
    root = cache_dir(directory)
    with terminal.progress(transient=True, unit="bytes") as progress:
        tasks: dict[str, TaskID] = {}

        def advance(entry: Entry, done: int, total: int | None) -> None:
            if entry.name not in tasks:
                tasks[entry.name] = progress.add_task(entry.name, total=total)
            progress.update(tasks[entry.name], completed=done, total=total)

        fetcher = Fetcher(registry, root, offline, root_given=directory is not None)
        fetcher.on_progress = advance
        for entry in entries:
            # every failure is kept in fetcher.failures and reported below, once
            with suppress(InvalidInputError):
                fetcher.obtain(entry, remake=remake)
    outcomes = _strongest(fetcher.outcomes)
    _report(registry, outcomes, root)
    if not fetcher.failures:
        _summary(outcomes, root)
        return
    # one line per failed file, in the order they failed (a derived file's inputs first)
    terminal.print_problems([p for error in fetcher.failures.values() for p in error.problems])
    console.print(
        _failure_summary(fetcher, outcomes), highlight=False, soft_wrap=True, markup=False
    )
    raise typer.Exit(code=1)


def _strongest(outcomes: list[Outcome]) -> list[Outcome]:
    """One outcome per entry: a download or a derivation outranks a later cache hit."""
    kept: dict[str, Outcome] = {}
    for outcome in outcomes:
        earlier = kept.get(outcome.entry.name)
        if earlier is None or earlier.action == "cached":
            kept[outcome.entry.name] = outcome
    return list(kept.values())


def _report(registry: Registry, outcomes: list[Outcome], root: Path) -> None:
    licensed: set[str] = set()
    for outcome in outcomes:
        entry = outcome.entry
        if outcome.replaced_corrupt:
            terminal.errors.print(
                f"{entry.name}: the cached copy was not the pinned file; deleted and downloaded "
                "again",
                highlight=False,
                soft_wrap=True,
                markup=False,
            )
        if outcome.action == "downloaded" and isinstance(entry, PinnedFile):
            check = "sha256 verified" if entry.sha256 else f"no pinned sha256; got {outcome.sha256}"
            console.print(
                f"downloaded {entry.name} ({_size(outcome.path.stat().st_size)} bytes, {check})",
                highlight=False,
                soft_wrap=True,
                markup=False,
            )
            source = registry.sources[entry.source]
            if source.repository not in licensed:  # first download from this source in this run
                licensed.add(source.repository)
                console.print(
                    f"licence: {_licence(source)}", highlight=False, soft_wrap=True, markup=False
                )
        elif outcome.action == "made":
            console.print(
                f"made {entry.name} ({_size(entry.size)} bytes, equal to the reference sha256)",
                highlight=False,
                soft_wrap=True,
                markup=False,
            )


def _counts(outcomes: list[Outcome]) -> dict[str, int]:
    return {action: sum(o.action == action for o in outcomes) for action in _ACTIONS}


def _summary(outcomes: list[Outcome], root: Path) -> None:
    if not outcomes:
        return
    summary = ", ".join(f"{count} {action}" for action, count in _counts(outcomes).items())
    files = "file" if len(outcomes) == 1 else "files"
    console.print(
        f"{len(outcomes)} {files} in {root}: {summary}",
        highlight=False,
        soft_wrap=True,
        markup=False,
    )


def _failure_summary(fetcher: Fetcher, outcomes: list[Outcome]) -> str:
    """``3 of 50 files downloaded, 47 failed; rerun when online or see docs/data.md``."""
    failed = len(fetcher.failures)
    total = len({o.entry.name for o in outcomes} | set(fetcher.failures))
    counts = _counts(outcomes)
    if counts["made"] or counts["cached"]:
        done = ", ".join(f"{n} {action}" for action, n in counts.items() if n)
        got = f"{len(outcomes)} of {total} files ready ({done})"
    else:
        got = f"{len(outcomes)} of {total} files downloaded"
    if fetcher.offline:
        advice = "run without --offline where the network is reachable, or see docs/data.md"
    elif fetcher.unreachable:
        advice = "rerun when online or see docs/data.md"
    else:
        advice = "see docs/data.md"
    return f"{got}, {failed} failed; {advice}"
