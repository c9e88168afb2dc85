"""``taskqa render BENCH``: render the missing videos of a built benchmark and list them.

A benchmark built from a partly rendered corpus (``render --limit``) has clips whose recordings
have no video, and the exports refuse it. Given the benchmark folder (or its ``corpus/`` copy),
``taskqa render`` draws only the recordings of ``BENCH/corpus`` that its clips use and that have
no video, into ``BENCH/corpus/videos`` and with the options its other videos were rendered with,
then writes ``videos.csv`` again, so that every clip, both of every minimal pair, has its video.

The benchmark package owns the benchmark folder (benchmark/folder.py) and imports this one, so
this one cannot import it: the top-level command line hands in what is needed
(``benchmark_videos``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from taskqa.execution import Execution
from taskqa.problems import InvalidInputError, Problem
from taskqa.terminal import console


@dataclass(frozen=True)
class BenchmarkVideos:
    """What `taskqa render BENCH` needs of a built benchmark folder."""

    # the benchmark a path names (BENCH, or the BENCH/corpus copy inside it), or None
    benchmark_of: Callable[[Path], Path | None]
    # the recordings of BENCH/corpus that its clips use and that have no video file
    recordings_without_video: Callable[[Path], list[str]]
    # videos.csv written again from BENCH/corpus, the manifest's digests updated; a line to print
    rewrite_video_list: Callable[[Path], str]
    # the benchmark's corpus copy (BENCH/corpus)
    corpus_of: Callable[[Path], Path]


# set by taskqa.cli: a loader, so that the benchmark package is imported only when rendering
benchmark_videos: Callable[[], BenchmarkVideos] | None = None

# The options `taskqa render BENCH` takes from how BENCH/corpus was rendered, by parameter name.
RECORDED_OPTIONS = ("fps", "size", "views", "masks", "depth", "look", "appearance_set", "backend")
# The options that choose recordings or a place: a benchmark's missing videos are all drawn,
# into its own corpus/videos.
SELECTING_OPTIONS = (
    ("out", "--out"),
    ("recordings", "--recordings"),
    ("clips_from", "--clips-from"),
    ("limit", "--limit"),
)


def benchmark_named(path: Path) -> tuple[Path, BenchmarkVideos] | None:
    """The benchmark folder ``path`` names, with its handling; None for anything else."""
    if benchmark_videos is None:
        return None
    folders = benchmark_videos()
    bench = folders.benchmark_of(path)
    return None if bench is None else (bench, folders)


def render_benchmark(
    bench: Path,
    folders: BenchmarkVideos,
    given: dict[str, Any],
    typed: set[str],
    workers: int,
    run: Execution,
) -> None:
    """Render the recordings of ``bench/corpus`` that its clips use and that have no video,
    into ``bench/corpus/videos``, as the corpus's other videos were rendered where it has any,
    then write ``videos.csv`` again (and the manifest's digests). ``given`` holds the command's
    options by parameter name, ``typed`` the names of those given on the command line."""
    from taskqa.household.cli import render_into_corpus
    from taskqa.household.manifest import rendered_options

    refused = [option for name, option in SELECTING_OPTIONS if given[name]]
    if refused:
        message = (
            f"{', '.join(refused)}: a benchmark's missing videos are rendered all at once, into "
            "its corpus/videos, so that both clips of every minimal pair have video; leave "
            f"{'them' if len(refused) > 1 else 'it'} out"
        )
        raise InvalidInputError([Problem(str(bench), "", message)])
    corpus = folders.corpus_of(bench)
    chosen = dict(given)
    recorded = rendered_options(corpus)
    if recorded is not None:
        # one benchmark, one look: the clips already rendered set the options
        chosen.update(
            {
                "fps": recorded.fps,
                "size": f"{recorded.width}x{recorded.height}",
                "views": ",".join(recorded.views),
                "masks": recorded.masks,
                "depth": recorded.depth,
                "look": recorded.appearance,
                "appearance_set": recorded.appearance_set,
                "backend": recorded.backend,
            }
        )
        differ = [
            f"--{name.replace('_', '-')} {given[name]}"
            for name in RECORDED_OPTIONS
            if name in typed and not _same_option(name, given[name], chosen[name])
        ]
        if differ:
            message = (
                f"{', '.join(differ)}: its corpus/videos were rendered with --fps "
                f"{chosen['fps']:g} --size {chosen['size']} --views {chosen['views']} --look "
                f"{chosen['look']} --backend {chosen['backend']}, and its missing videos are "
                "rendered the same way; leave the option out"
            )
            raise InvalidInputError([Problem(str(bench), "", message)])
    missing = folders.recordings_without_video(bench)
    if missing:
        console.print(
            f"{bench} is a benchmark: rendering the {len(missing):,} recordings of its corpus/ "
            "that its clips use and that have no video"
            + (", as its other videos were rendered" if recorded is not None else ""),
            highlight=False,
        )
        render_into_corpus(
            corpus,
            None,
            float(chosen["fps"]),
            str(chosen["size"]),
            str(chosen["views"]),
            bool(chosen["masks"]),
            workers,
            missing,
            None,
            None,
            run,
            str(chosen["backend"]),
            bool(chosen["depth"]),
            str(chosen["look"]),
            str(chosen["appearance_set"]),
        )
    else:
        console.print(f"{bench} is a benchmark whose clips all have video", highlight=False)
    console.print(folders.rewrite_video_list(bench), highlight=False)


def _same_option(name: str, typed: Any, recorded: Any) -> bool:
    from taskqa.household.cli import check_size, parse_views

    if name == "size":
        return check_size(str(typed)) == check_size(str(recorded))
    if name == "views":
        return set(parse_views(str(typed))) == set(parse_views(str(recorded)))
    if name == "backend":
        return typed in ("auto", recorded)
    if name == "fps":
        return float(typed) == float(recorded)
    return bool(typed == recorded)
