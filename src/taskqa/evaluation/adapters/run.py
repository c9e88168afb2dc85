"""Asking a model behind an OpenAI-compatible server every question of a split.

Requests carry the clip's sampled frames (base64 JPEG) and the question in a prompt template
read from a data file. ``taskqa.llm`` supplies the client: bounded concurrency, retries with
backoff and a SQLite cache keyed by the whole request, so a rerun costs nothing. Answers are
appended to ``OUT.partial`` as they arrive (flushed and fsynced); an interrupted run resumes
from it, and the final file is written once, atomically, in split order, one line per question:
nothing lost, nothing duplicated.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any

from taskqa.answers import NORMALIZATION_VERSION
from taskqa.benchmark.clip_videos import videos_by_clip
from taskqa.benchmark.folder import Benchmark, SplitQuestion, VideoClip
from taskqa.checks.videos import PLACEHOLDER_SCHEME
from taskqa.evaluation.adapters.frames import VideoError, data_url, read_frames, sample_times
from taskqa.evaluation.adapters.mapping import AnswerMapper
from taskqa.execution import Execution
from taskqa.jsonio import record_line, write_json, write_jsonl
from taskqa.llm import ChatRequest, LLMClient, ResponseCache
from taskqa.outputs import prediction_meta_path
from taskqa.problems import InvalidInputError, Problem
from taskqa.programs.clips import Clip

CHUNK_PER_WORKER = 8  # requests prepared at a time per concurrent slot (bounds frame memory)


@dataclass(frozen=True)
class ChatSettings:
    base_url: str
    model: str
    frames: int = 8
    fps: float | None = None
    prompt: str = "default"
    concurrency: int = 4
    max_tokens: int = 32
    seed: int = 0
    extract: bool = False
    cache: Path | None = None
    videos: Path | None = None
    max_side: int = 384
    temperature: float = 0.0


def load_prompt(name: str) -> tuple[str, str]:
    """A prompt template by built-in name (``default``, ``blind``, ``extract``) or file path."""
    path = Path(name)
    if path.suffix == ".txt" or path.is_file():
        if not path.is_file():
            raise InvalidInputError([Problem(str(path), "", "prompt template not found")])
        text = path.read_text(encoding="utf-8")
    else:
        folder = resources.files("taskqa.evaluation.adapters").joinpath("prompts")
        entry = folder.joinpath(f"{name}.txt")
        if not entry.is_file():
            built_in = sorted(p.name.removesuffix(".txt") for p in folder.iterdir())
            raise InvalidInputError(
                [Problem(name, "", f"no such prompt template; built in: {', '.join(built_in)}")]
            )
        text = entry.read_text(encoding="utf-8")
    return text, hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_partial(path: Path) -> dict[str, dict[str, Any]]:
    """Answers an interrupted run already wrote; a torn last line is ignored (it is cached)."""
    done: dict[str, dict[str, Any]] = {}
    if not path.is_file():
        return done
    for line in path.read_text(encoding="utf-8").split("\n"):
        try:
            # not jsonio.read_jsonl: a line torn by an interrupted run is skipped, not refused
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and isinstance(record.get("question_id"), str):
            done.setdefault(record["question_id"], record)
    return done


class ChatRun:
    def __init__(
        self,
        benchmark: Benchmark,
        settings: ChatSettings,
        questions: Sequence[SplitQuestion] = (),
    ) -> None:
        """Ready to ask ``questions`` (whose clips' videos are checked here, before the cache
        file is made or a request sent)."""
        if not settings.base_url:
            raise ValueError("the chat baseline needs --base-url (an OpenAI-compatible server)")
        self.settings = settings
        self.template, self.template_sha256 = load_prompt(settings.prompt)
        self.extract_template, _ = load_prompt("extract")
        self.mapper = AnswerMapper(benchmark.answers())
        self.videos = benchmark.videos()
        self.by_clip = videos_by_clip(self.videos)
        self.video_root = settings.videos
        self.clips = _clips(benchmark) if settings.frames > 0 else {}
        self._frames: dict[str, list[str]] = {}
        self.check_videos(benchmark, questions)
        cache = ResponseCache(settings.cache) if settings.cache else None
        self.client = LLMClient(
            settings.base_url, cache=cache, max_concurrency=settings.concurrency
        )

    def frames_for(self, question: SplitQuestion) -> list[str]:
        if self.settings.frames <= 0:
            return []
        key = question.question.clip
        if key not in self._frames:
            self._frames = {key: self._load_frames(question)}  # questions come clip by clip
        return self._frames[key]

    def _load_frames(self, item: SplitQuestion) -> list[str]:
        row, video = self._video(item)
        if row is None or video is None:
            raise VideoError(f"videos.csv has no row for clip {item.question.clip!r}")
        times = sample_times(row.start_s, row.end_s, self.settings.frames, self.settings.fps)
        return [data_url(j) for j in read_frames(video, times, self.settings.max_side)]

    def _video(self, item: SplitQuestion) -> tuple[VideoClip | None, Path | None]:
        """The ``videos.csv`` row of the question's clip and the file its frames come from
        (found by name under ``--videos`` when the path listed is not there); None, None
        without a row."""
        q = item.question
        clip = self.clips.get(q.clip)
        start = clip.start if clip else 0.0
        row = self.by_clip.get(q.clip) or self.videos.find(q.clip, q.recording, q.agent, start)
        if row is None:
            return None, None
        video = row.video
        if self.video_root is not None and not video.is_file():
            video = self.video_root / video.name
        return row, video

    def check_videos(self, benchmark: Benchmark, questions: Sequence[SplitQuestion]) -> None:
        """Refuse, before the first request, to ask with frames about clips that have no video
        file: a benchmark built from an unrendered corpus lists ``sim://`` addresses, which
        would otherwise fail on the first clip after the server was set up and paid."""
        if self.settings.frames <= 0:
            return
        asked: dict[str, SplitQuestion] = {}
        for item in questions:
            asked.setdefault(item.question.clip, item)
        missing = []
        for clip, item in asked.items():
            row, video = self._video(item)
            if video is None or not video.is_file():
                missing.append(_listed(row.video, benchmark.root) if row else f"no row for {clip}")
        if missing:
            raise InvalidInputError([_missing_videos_problem(benchmark, missing, len(asked))])

    def request(self, item: SplitQuestion) -> ChatRequest:
        images = self.frames_for(item)
        text = Template(self.template).safe_substitute(
            question=item.question.question, frames=len(images)
        )
        content: Any = text
        if images:
            content = [{"type": "text", "text": text}] + [
                {"type": "image_url", "image_url": {"url": url}} for url in images
            ]
        return self._chat(content)

    def _chat(self, content: Any) -> ChatRequest:
        s = self.settings
        return ChatRequest(
            s.model, ({"role": "user", "content": content},), s.temperature, s.seed, s.max_tokens
        )

    def answer(self, item: SplitQuestion, reply: str, cached: bool) -> dict[str, Any]:
        prediction, rule = self.mapper.map(reply)
        if prediction is None and self.settings.extract:
            prediction, rule = self._extract(item, reply)
        return {
            "question_id": item.id,
            "prediction": prediction,
            "raw": reply,
            "mapped_by": rule,
            "cached": cached,
        }

    def _extract(self, item: SplitQuestion, reply: str) -> tuple[str | None, str | None]:
        candidates = self.mapper.candidates(reply)
        if not candidates:
            return None, None
        prompt = Template(self.extract_template).safe_substitute(
            question=item.question.question, reply=reply, candidates="; ".join(candidates)
        )
        extracted = self.client.complete(self._chat(prompt)).text
        found, _ = self.mapper.map(extracted)
        return (found, "llm-extraction") if found in candidates else (None, None)

    def meta(self, split: str, benchmark: Benchmark) -> dict[str, Any]:
        s = self.settings
        return {
            "baseline": "chat",
            "model": s.model,
            "base_url": s.base_url,
            "prompt": s.prompt,
            "prompt_sha256": self.template_sha256,
            "frames": {
                "rule": "fps" if s.fps else "uniform",
                "count": s.frames,
                "fps": s.fps,
                "max_side": s.max_side,
            },
            "temperature": s.temperature,
            "seed": s.seed,
            "max_tokens": s.max_tokens,
            "llm_extraction": s.extract,
            "normalization_version": NORMALIZATION_VERSION,
            "split": split,
            "benchmark_manifest_sha256": benchmark.manifest_sha256,
        }


PLACEHOLDER_PATH = PLACEHOLDER_SCHEME.removesuffix("/")  # "sim://x" as a Path: "sim:/x"


def _listed(video: Path, root: Path) -> str:
    """A video as ``videos.csv`` names it: a ``sim://`` address of an unrendered recording
    reads as one again (as a path, it lost a slash and gained the benchmark folder)."""
    relative = video.relative_to(root).as_posix() if video.is_relative_to(root) else ""
    if relative.startswith(PLACEHOLDER_PATH):
        return PLACEHOLDER_SCHEME + relative.removeprefix(PLACEHOLDER_PATH)
    return str(video)


def _missing_videos_problem(benchmark: Benchmark, missing: list[str], clips: int) -> Problem:
    unrendered = any(name.startswith(PLACEHOLDER_SCHEME) for name in missing)
    why = "its corpus was not rendered" if unrendered else "the files are not there"
    # `taskqa render BENCH` renders the recordings its clips use and lists them in videos.csv
    message = (
        f"{len(missing):,} of {clips:,} clips asked about have no video file ({why}; such as "
        f"{missing[0]}), so no frames can be sent; render them with "
        f"`taskqa render {benchmark.root}` (or point --videos at the folder that holds them), "
        "or ask without frames: --frames 0"
    )
    return Problem(str(benchmark.root), "", message)


@contextmanager
def _dropped_if_empty(partial: Path, fresh: bool) -> Iterator[None]:
    """A run that fails before its first answer (no server, a refused model) leaves no empty
    ``OUT.partial`` behind: there is nothing in it to resume from."""
    try:
        yield
    except BaseException:
        if fresh and partial.is_file() and partial.stat().st_size == 0:
            partial.unlink()
        raise


@contextmanager
def _cache_dropped_if_empty(run: ChatRun) -> Iterator[None]:
    """Nor an empty response cache that the failed run made (``OUT.cache.sqlite``, with
    SQLite's ``-wal`` and ``-shm`` files): a cache that holds answers is kept, it was paid for."""
    try:
        yield
    except BaseException:
        cache = run.client.cache
        if isinstance(cache, ResponseCache) and len(cache) == 0:
            cache.close()
            for suffix in ("", "-wal", "-shm"):
                cache.path.with_name(cache.path.name + suffix).unlink(missing_ok=True)
        raise


def _clips(benchmark: Benchmark) -> dict[str, Clip]:
    return {clip: record.clip for clip, record in benchmark.clips().items()}


def run_chat(
    benchmark: Benchmark,
    split: str,
    questions: Sequence[SplitQuestion],
    settings: ChatSettings,
    out: Path,
    on_progress: Callable[[int], None] | None = None,
    execution: Execution | None = None,
) -> dict[str, int]:
    """Answer every question (resuming from ``OUT.partial``); return counts by mapping rule.

    With ``execution``, request batches run on its executor (the cache stays on the driver).
    """
    with ExitStack() as stack:
        fresh_cache = settings.cache is not None and not settings.cache.exists()
        run = ChatRun(benchmark, settings, questions)
        if fresh_cache:
            stack.enter_context(_cache_dropped_if_empty(run))
        if execution is not None:
            run.client.executor = stack.enter_context(execution.open())
        return _answer_all(run, benchmark, split, questions, out, on_progress)


def _answer_all(
    run: ChatRun,
    benchmark: Benchmark,
    split: str,
    questions: Sequence[SplitQuestion],
    out: Path,
    on_progress: Callable[[int], None] | None,
) -> dict[str, int]:
    settings = run.settings
    partial = out.with_name(out.name + ".partial")
    done = read_partial(partial)
    todo = [q for q in questions if q.id not in done]
    if on_progress:
        on_progress(len(questions) - len(todo))
    out.parent.mkdir(parents=True, exist_ok=True)
    chunk = CHUNK_PER_WORKER * settings.concurrency
    fresh = not partial.exists()
    with partial.open("a", encoding="utf-8") as stream, _dropped_if_empty(partial, fresh):
        for begin in range(0, len(todo), chunk):
            items = todo[begin : begin + chunk]
            requests = [run.request(item) for item in items]

            def record(index: int, completion: Any, items: Sequence[SplitQuestion] = items) -> None:
                answered = run.answer(items[index], completion.text, completion.cached)
                done[items[index].id] = answered
                stream.write(record_line(answered))
                stream.flush()
                os.fsync(stream.fileno())
                if on_progress:
                    on_progress(1)

            run.client.complete_many(requests, record)
    write_jsonl(out, (done[q.id] for q in questions))
    counts: dict[str, int] = {}
    for q in questions:
        rule = done[q.id].get("mapped_by") or "invalid"
        counts[rule] = counts.get(rule, 0) + 1
    write_json(
        prediction_meta_path(out), {**run.meta(split, benchmark), "mapping": counts}, sort_keys=True
    )
    partial.unlink(missing_ok=True)
    return counts
