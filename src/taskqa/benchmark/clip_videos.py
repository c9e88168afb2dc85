"""Each question's clip as a video file of its own, cut from the recording's rendered video.

A clip shows the recording's frames ``i`` with ``start <= i / fps < end`` (the span
``videos.csv`` gives). They are decoded from the recording's file and encoded again with the
shared writer (``taskqa.render.video``), so the same recording always gives the same clip bytes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path

from taskqa.benchmark.folder import VideoClip, VideoIndex
from taskqa.model import View
from taskqa.render.video import read_frames, video_info, write_mp4

FIRST_PERSON_VIEWS = (View.FIRST_PERSON.value, "ego")


def videos_by_clip(index: VideoIndex) -> dict[str, VideoClip]:
    """One video per clip: its first-person view when ``videos.csv`` lists several (a rendered
    household corpus has each person's view and a room camera), since the questions are
    egocentric; otherwise the first row listed.
    """
    chosen: dict[str, VideoClip] = {}
    for row in index.rows:
        if not row.clip:
            continue
        held = chosen.get(row.clip)
        if held is None or (row.view in FIRST_PERSON_VIEWS and held.view not in FIRST_PERSON_VIEWS):
            chosen[row.clip] = row
    return chosen


def clip_filename(clip: str) -> str:
    """A clip id (``recording|agent|start|end``) as a file name."""
    return clip.replace("|", "_").replace("/", "_") + ".mp4"


def frame_span(start: float, end: float, fps: float, frames: int) -> range:
    """Indices of the frames shown in ``[start, end)`` at ``fps``, within the video's length."""
    first = max(0, math.ceil(start * fps - 1e-9))
    stop = min(frames, max(first + 1, math.ceil(end * fps - 1e-9)))
    return range(first, stop)


def cut_clip(row: VideoClip, target: Path) -> int:
    """Write ``row``'s span of its video to ``target``; return the number of frames."""
    frames, fps, _ = video_info(row.video)
    span = frame_span(row.start_s, row.end_s, fps, frames)
    return write_mp4(target, read_frames(row.video, list(span)), fps)


def cut_clip_videos(rows: Iterable[VideoClip], folder: Path) -> dict[str, str]:
    """Cut every row whose video file exists into ``folder`` (one per clip: pass the rows of
    ``videos_by_clip``); map clip id to the file name."""
    written: dict[str, str] = {}
    for row in rows:
        if row.clip in written or not row.video.is_file():
            continue
        name = clip_filename(row.clip)
        cut_clip(row, folder / name)
        written[row.clip] = name
    return written
