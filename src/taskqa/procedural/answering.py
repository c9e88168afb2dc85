"""Answering prompts: the recipe as DOT, frames of the clip, and the question.

Frames are 1 fps images named ``1.png, 2.png, ...`` (the second they show). When a clip has
more than ``max_frames`` of them, every ``ceil(n / max_frames)``-th frame is kept, counting
back from the last, so the moment of the question is always in view.
"""

from __future__ import annotations

import base64
import math
import random
import re
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from taskqa.llm import ChatRequest, LLMClient, Message
from taskqa.procedural.dot import recipe_dot
from taskqa.procedural.generation import fill
from taskqa.procedural.recipes import RecipeGraph

MAX_FRAMES = 20
DEFAULT_MAX_TOKENS = 128
_NUMBER = re.compile(r"\d+")

Record = dict[str, Any]


def sample_frame_indices(count: int, max_frames: int = MAX_FRAMES) -> tuple[list[int], int]:
    """Kept positions (0-based, ascending) among ``count`` frames, and the stride used."""
    stride = 1 if count <= max_frames else math.ceil(count / max_frames)
    kept = [count - 1 - k for k in range(0, count, stride)]
    return sorted(kept), stride


def clip_seconds(end_time: str) -> int:
    hours, minutes, seconds = (int(part) for part in end_time.split(":"))
    return hours * 3600 + minutes * 60 + seconds


def clip_frames(
    frame_dir: Path, end_time: str, max_frames: int = MAX_FRAMES
) -> tuple[list[Path], int]:
    """A clip's frames from a whole-recording folder: those up to ``end_time``, then sampled."""
    limit = clip_seconds(end_time)
    frames = sorted(
        (p for p in frame_dir.glob("*.png") if _NUMBER.search(p.stem)),
        key=lambda p: int(_NUMBER.search(p.stem).group()),  # type: ignore[union-attr]
    )
    frames = [p for p in frames if int(_NUMBER.search(p.stem).group()) <= limit]  # type: ignore[union-attr]
    kept, stride = sample_frame_indices(len(frames), max_frames)
    return [frames[i] for i in kept], stride


@cache
def _answer_template() -> str:
    import yaml

    text = resources.files("taskqa.procedural").joinpath("templates/answer.yaml").read_text()
    return str(yaml.safe_load(text)["prompt"])


def answer_prompt(record: Mapping[str, Any], graph: RecipeGraph) -> str:
    fields = {
        "activity_name": record["activity_name"],
        "recipe": recipe_dot(graph),
        "question": record["question"],
    }
    return fill(_answer_template(), fields).strip()


def answer_messages(prompt: str, frames: Sequence[Path]) -> list[Message]:
    content: list[dict[str, Any]] = [{"type": "text", "text": prompt}]
    for frame in frames:
        data = base64.b64encode(frame.read_bytes()).decode("ascii")
        content.append({"type": "image_url", "image_url": {"url": f"data:image/png;base64,{data}"}})
    if not frames:
        return [{"role": "user", "content": prompt}]
    return [{"role": "user", "content": content}]


def predict(
    records: Sequence[Mapping[str, Any]],
    graphs_by_name: Mapping[str, RecipeGraph],
    client: LLMClient,
    model: str,
    frames_root: Path | None = None,
    max_frames: int = MAX_FRAMES,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    seed: int = 0,
) -> list[Record]:
    """Each record with a ``prediction`` block; without frames the prompt is text only."""
    requests = []
    frame_info = []
    for record in records:
        prompt = answer_prompt(record, graphs_by_name[record["activity_name"]])
        frames: list[Path] = []
        stride = 1
        if frames_root is not None and (frames_root / record["recording_id"]).is_dir():
            frames, stride = clip_frames(
                frames_root / record["recording_id"], record["end_time"], max_frames
            )
        requests.append(ChatRequest(model, answer_messages(prompt, frames), 0.0, seed, max_tokens))
        frame_info.append((prompt, [f.stem for f in frames], stride))
    completions = client.complete_many(requests)
    return [
        {
            **record,
            "prediction": {
                "prompt": prompt,
                "frame_ids": frame_ids,
                "rate_inverse": stride,
                "model_id": model,
                "response": completion.text,
            },
        }
        for record, (prompt, frame_ids, stride), completion in zip(
            records, frame_info, completions, strict=True
        )
    ]


def human_performance_sample(
    records: Sequence[Mapping[str, Any]],
    verified_by: Mapping[str, Sequence[str]],
    annotator: str,
    count: int,
    seed: int,
) -> list[Record]:
    """``count`` examples the annotator did not verify, drawn with a seed, in file order."""
    eligible = [
        index
        for index, record in enumerate(records)
        if annotator not in verified_by.get(str(record["question_id"]), ())
    ]
    chosen = sorted(random.Random(seed).sample(eligible, min(count, len(eligible))))
    return [dict(records[index]) for index in chosen]
