"""Each video a recording references must exist and last as long as the recording.

References are paths relative to the corpus folder; addresses with a scheme (``sim://``,
``https://``, ``s3://`` from ``render --out s3://...``) point outside it and are not checked here,
neither passed nor failed: ``taskqa validate`` says how many URL references it left unchecked.
A simulated recording's videos are rendered into the corpus, so a missing one is a problem; a
released data set's recording (CaptainCook4D, EgoTaskQA) names its video as the data set lays it
out, so only a file that is there is checked.
A file's duration must match the recording's within one frame at the file's own frame rate.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from taskqa.model import Recording, Source
from taskqa.problems import Location, Problem

PLACEHOLDER_SCHEME = "sim://"  # a simulated recording's video before it is rendered


def is_remote(uri: str) -> bool:
    """Whether a reference is an address with a scheme, which these checks do not open."""
    return "://" in uri


def unchecked_uris(recording: Recording) -> list[str]:
    """The recording's rendered videos at URLs (object storage, ``https://``): not checked
    here, neither passed nor failed; not-yet-rendered ``sim://`` placeholders are left out."""
    return [
        v.uri
        for v in recording.videos
        if is_remote(v.uri) and not v.uri.startswith(PLACEHOLDER_SCHEME)
    ]


def check_videos(
    recording: Recording, corpus: Path, file: str, prefix: Location
) -> Iterator[Problem]:
    from taskqa.render.video import video_info

    for index, video in enumerate(recording.videos):
        if is_remote(video.uri):
            continue
        where = [*prefix, "videos", index, "uri"]
        path = corpus / video.uri
        if not path.is_file() and recording.source != Source.SIMULATED:
            continue  # a released data set's video lives with the data set, not the corpus
        if not path.is_file():
            yield Problem.at(
                file,
                where,
                f"video file {video.uri} not found; expected a file relative to the corpus folder",
            )
            continue
        try:
            frames, fps, duration = video_info(path)
        except Exception as error:  # PyAV raises many kinds for a file that is not a video
            yield Problem.at(
                file, where, f"{video.uri} is not a readable video ({error}); expected an MP4"
            )
            continue
        if fps <= 0 or abs(duration - recording.duration) > 1 / fps + 1e-6:
            yield Problem.at(
                file,
                where,
                f"{video.uri} lasts {duration:.3f} s ({frames} frames at {fps:g} fps); "
                f"expected the recording's {recording.duration:g} s within one frame",
            )
