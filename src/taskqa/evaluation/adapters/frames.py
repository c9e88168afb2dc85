"""Sampling frames from a clip's video with PyAV, and inlining them as base64 JPEG.

The sampling rule (recorded in every prediction file's meta):

- **uniform N** (the default): the clip ``[start, end)`` is cut into N equal parts and the frame
  shown at the middle of each part is taken, at times ``start + (i + 0.5) * (end - start) / N``;
- **fixed fps**: times ``start + (k + 0.5) / fps`` for every such time before ``end``; when that
  gives more than N frames, N of them are kept at evenly spaced positions (``round`` of a
  ``linspace``), so the cap never shifts the sampling towards one end.

"The frame shown at time t" is the last decoded frame whose presentation time is at or before t
(the first frame when t precedes it). Frames are scaled so the longer side is at most
``max_side`` pixels and encoded as JPEG at quality 85; the bytes depend only on the video.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from pathlib import Path

import numpy as np

JPEG_QUALITY = 85


class VideoError(RuntimeError):
    """A clip's video cannot be read."""


def sample_times(start: float, end: float, frames: int, fps: float | None = None) -> list[float]:
    """The times (seconds) at which frames are taken, by the rule in the module docstring."""
    duration = max(0.0, end - start)
    if frames <= 0 or duration == 0.0:
        return []
    if fps is None:
        return [start + (i + 0.5) * duration / frames for i in range(frames)]
    count = int(np.floor(duration * fps - 0.5)) + 1 if duration * fps > 0.5 else 0
    times = [start + (k + 0.5) / fps for k in range(max(count, 1))]
    times = [t for t in times if t < end] or [start + duration / 2]
    if len(times) > frames:
        keep = np.round(np.linspace(0, len(times) - 1, frames)).astype(int)
        times = [times[i] for i in keep]
    return times


def read_frames(video: Path, times: Sequence[float], max_side: int = 384) -> list[bytes]:
    """JPEG bytes of the frames shown at ``times`` (sorted ascending)."""
    import av

    if not times:
        return []
    if not video.is_file():
        raise VideoError(f"{video}: video file not found")
    try:
        with av.open(str(video)) as container:
            stream = container.streams.video[0]
            images = _frames_at(container, stream, list(times))
    except av.FFmpegError as error:
        raise VideoError(f"{video}: cannot decode ({error})") from None
    return [_jpeg(image, max_side) for image in images]


def _frames_at(container: object, stream: object, times: list[float]) -> list[object]:
    import av

    assert isinstance(container, av.container.InputContainer)
    assert isinstance(stream, av.VideoStream)
    time_base = float(stream.time_base) if stream.time_base else 1.0
    if times[0] > 1.0:  # seek near the clip: decoding a long recording from its start is slow
        container.seek(int((times[0] - 1.0) / time_base), stream=stream, backward=True)
    chosen: list[object] = []
    previous = None
    wanted = 0
    for frame in container.decode(stream):
        shown = float(frame.pts * time_base) if frame.pts is not None else 0.0
        while wanted < len(times) and shown > times[wanted] + 1e-9:
            chosen.append((previous or frame).to_image())  # type: ignore[no-untyped-call]
            wanted += 1
        if wanted == len(times):
            break
        previous = frame
    while wanted < len(times) and previous is not None:  # times past the last frame
        chosen.append(previous.to_image())  # type: ignore[no-untyped-call]
        wanted += 1
    if len(chosen) < len(times):
        raise VideoError("the video has no frames")
    return chosen


def _jpeg(image: object, max_side: int) -> bytes:
    from PIL import Image

    assert isinstance(image, Image.Image)
    picture = image.convert("RGB")
    scale = max_side / max(picture.size)
    if scale < 1.0:
        size = (max(1, round(picture.width * scale)), max(1, round(picture.height * scale)))
        picture = picture.resize(size, Image.Resampling.BICUBIC)
    buffer = io.BytesIO()
    picture.save(buffer, format="JPEG", quality=JPEG_QUALITY)
    return buffer.getvalue()


def data_url(jpeg: bytes) -> str:
    return "data:image/jpeg;base64," + base64.b64encode(jpeg).decode("ascii")
