"""H.264 MP4 files from RGB frames, and RGB frames back from a video file (PyAV).

Encoding is single-threaded with a fixed preset and no timestamps taken from the clock, so the
same frames always give the same bytes. Files are written beside the target and renamed into
place, so a reader never sees half a video.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

Frame = npt.NDArray[np.uint8]  # (height, width, 3) RGB

CRF = 23  # libx264's default quality; states at 224 px stay legible (docs/rendering.md)
PRESET = "medium"


class VideoWriteError(RuntimeError):
    """Frames that cannot become a video (wrong shape, odd size, no frames)."""


def write_mp4(path: Path, frames: Iterable[Frame], fps: float, crf: int = CRF) -> int:
    """Encode ``frames`` as an H.264 (yuv420p) MP4 at ``fps``; return the number of frames."""
    import av

    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".mp4", dir=path.parent)
    os.close(handle)
    count = 0
    try:
        with av.open(temporary, mode="w", format="mp4") as container:
            # No creation time or encoder string that could differ between runs.
            container.metadata.clear()
            stream: Any = None
            for frame in frames:
                if stream is None:
                    stream = _stream(container, frame, fps, crf)
                _check_frame(frame, stream.height, stream.width, count)
                picture = av.VideoFrame.from_ndarray(rgb_to_yuv420p(frame), format="yuv420p")
                picture.pts = count
                container.mux(stream.encode(picture))
                count += 1
            if stream is None:
                raise VideoWriteError(f"{path}: no frames to write")
            container.mux(stream.encode(None))
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return count


def _stream(container: Any, frame: Frame, fps: float, crf: int) -> Any:
    import av

    assert isinstance(container, av.container.OutputContainer)
    height, width = frame.shape[:2]
    if frame.ndim != 3 or frame.shape[2] != 3 or height % 2 or width % 2:
        raise VideoWriteError(
            f"frame 0 has shape {frame.shape}; expected (height, width, 3) with even sides"
        )
    rate = Fraction(fps).limit_denominator(1001)
    stream = container.add_stream("libx264", rate=rate)
    stream.width, stream.height = width, height
    stream.pix_fmt = "yuv420p"
    stream.time_base = Fraction(1) / rate
    stream.codec_context.time_base = Fraction(1) / rate
    # One thread and no scene-cut randomness: x264 is then bit-exact from run to run.
    stream.codec_context.thread_count = 1
    # Macroblock-tree rate control made the second video a process encoded differ from the
    # first (same frames, 158738 vs 159093 bytes): off, output is the same every time.
    stream.options = {"crf": str(crf), "preset": PRESET, "threads": "1", "x264-params": "mbtree=0"}
    return stream


def rgb_to_yuv420p(frame: Frame) -> npt.NDArray[np.uint8]:
    """RGB to planar YUV 4:2:0 (BT.601, limited range) in integer arithmetic.

    Done here rather than by FFmpeg's swscale, so that the encoder's input is fixed by this
    code alone (swscale picks SIMD paths by CPU and buffer alignment). While the same frames
    gave different files within one process, this was one suspect; the cause found was the
    macroblock tree (see ``_stream``).
    """
    rgb = frame.astype(np.int32)
    r, g, b = rgb[:, :, 0], rgb[:, :, 1], rgb[:, :, 2]
    y = ((66 * r + 129 * g + 25 * b + 128) >> 8) + 16
    height, width = frame.shape[:2]
    # Chroma from the mean colour of each 2x2 block.
    block = rgb[0::2, 0::2] + rgb[0::2, 1::2] + rgb[1::2, 0::2] + rgb[1::2, 1::2]
    br, bg, bb = block[:, :, 0], block[:, :, 1], block[:, :, 2]
    u = ((-38 * br - 74 * bg + 112 * bb + 512) >> 10) + 128
    v = ((112 * br - 94 * bg - 18 * bb + 512) >> 10) + 128
    planes = [y.reshape(-1), u.reshape(-1), v.reshape(-1)]
    packed = np.concatenate(planes).clip(0, 255).astype(np.uint8)
    return packed.reshape(height * 3 // 2, width)


def _check_frame(frame: Frame, height: int, width: int, index: int) -> None:
    if frame.shape != (height, width, 3) or frame.dtype != np.uint8:
        raise VideoWriteError(
            f"frame {index} has shape {frame.shape} and type {frame.dtype}; "
            f"expected ({height}, {width}, 3) uint8 like frame 0"
        )


def video_info(path: Path) -> tuple[int, float, float]:
    """``(frames, fps, duration in seconds)`` of a video file, read from its stream header."""
    import av

    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        rate = float(stream.average_rate or stream.guessed_rate or 0)
        frames = stream.frames
        if frames == 0:  # some muxers leave the count out: decode to count
            frames = sum(1 for _ in container.decode(stream))
    duration = frames / rate if rate else 0.0
    return frames, rate, duration


def read_frames(path: Path, indices: Sequence[int] | None = None) -> list[Frame]:
    """RGB frames of a video by frame index (all of them when ``indices`` is None)."""
    import av

    wanted = None if indices is None else set(indices)
    frames: list[Frame] = []
    with av.open(str(path)) as container:
        for number, frame in enumerate(container.decode(video=0)):
            if wanted is None or number in wanted:
                frames.append(np.asarray(frame.to_ndarray(format="rgb24"), dtype=np.uint8))
            if wanted is not None and number >= max(wanted, default=-1):
                break
    if indices is not None:
        order = sorted(wanted or ())
        by_index = dict(zip(order, frames, strict=False))
        return [by_index[i] for i in indices if i in by_index]
    return frames
