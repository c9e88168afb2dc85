"""Multiple choice that the question text cannot solve (docs/multiple-choice.md).

A naive conversion to multiple choice hands a model the answer: distractors that do not fit the
question ("open the fridge" for a question about the shelf) are ruled out by reading. Here the
distractors of a question are other answers *the same question text* has on other clips of the
same split, drawn uniformly. Every option is then an answer this very text really has, so the
text alone tells only how often each is right (the group's answer prior, which balancing has
flattened): for an option set O drawn this way, P(O | the answer is a) is the same for every a in
O, so reading the options adds nothing to the prior. Yes/no questions keep their two options.

Each item is asked once per rotation of its options (circular evaluation, as MMBench): right
only if right in every rotation, so a model that favours a letter gains nothing. The option
order is drawn from ``seed`` and the question id alone, so an item does not change when others
are added. Every item has an open-ended twin: the question of the same id in the split files.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from taskqa.answers import LETTERS, normalize_answer, parse_choice
from taskqa.atomic import staged_directory, write_text
from taskqa.benchmark.folder import Benchmark, SplitQuestion, families_in
from taskqa.benchmark.splits import SPLITS
from taskqa.jsonio import dumps, jsonl_text, load_json, read_jsonl_objects
from taskqa.problems import InvalidInputError, Problem

DEFAULT_OPTIONS = 4
FORMAT = "taskqa-multiple-choice"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
INSTRUCTION = "Answer with the option's letter."
ROTATION_MARK = "#"  # an asked item's id: <question id>#<rotation>


@dataclass(frozen=True)
class ChoiceItem:
    """One question as multiple choice: its options in the seeded base order."""

    question_id: str
    split: str
    clip: str
    recording: str
    question: str
    options: tuple[str, ...]
    answer: int  # index into options
    template: str
    answer_kind: str
    types: tuple[str, ...]
    scopes: tuple[str, ...]
    semantic: str
    reference: str

    @property
    def rotations(self) -> int:
        return len(self.options)

    def asked(self, rotation: int) -> tuple[str, ...]:
        """The options as the ``rotation``-th ask shows them (the base order turned)."""
        turn = rotation % len(self.options)
        return self.options[turn:] + self.options[:turn]

    def letter(self, rotation: int) -> str:
        return LETTERS[(self.answer - rotation) % len(self.options)]

    def prompt(self, rotation: int) -> str:
        lines = [f"{LETTERS[i]}. {text}" for i, text in enumerate(self.asked(rotation))]
        return "\n".join([self.question, *lines, INSTRUCTION])

    def ask_id(self, rotation: int) -> str:
        return f"{self.question_id}{ROTATION_MARK}{rotation}"


def choice_items(
    bench: Benchmark, family: str, options: int = DEFAULT_OPTIONS, seed: int = 0
) -> list[ChoiceItem]:
    """Every question of ``family`` (all splits, split-file order) as a choice item with up to
    ``options`` options; the distractors come from the answers its text has on other clips of
    the same split. A question whose text has one answer on every such clip has no fair
    distractor and no item."""
    return items_of({split: bench.questions(family, split) for split in SPLITS}, options, seed)


def items_of(
    splits: Mapping[str, Sequence[SplitQuestion]], options: int = DEFAULT_OPTIONS, seed: int = 0
) -> list[ChoiceItem]:
    """``choice_items`` of questions given by split (in ``SPLITS`` order)."""
    if not 2 <= options <= len(LETTERS):
        raise ValueError(f"options must be between 2 and {len(LETTERS)}, not {options}")
    items = []
    for split in SPLITS:
        questions = splits.get(split, [])
        # distractors from the same split only: a test answer is often one the text never has in
        # train, so distractors drawn from train answers would give it away to a text reader
        answers_of_text = text_answers(questions)
        chosen = (_item(q, answers_of_text[q.question.question], options, seed) for q in questions)
        items += [item for item in chosen if item.rotations >= 2]
    return items


def text_answers(questions: Iterable[SplitQuestion]) -> dict[str, dict[str, str]]:
    """Per question text, its distinct answers (normalised form -> the form first seen)."""
    found: dict[str, dict[str, str]] = defaultdict(dict)
    for q in questions:
        found[q.question.question].setdefault(
            normalize_answer(q.question.answer), q.question.answer
        )
    return found


def _item(q: SplitQuestion, group: Mapping[str, str], options: int, seed: int) -> ChoiceItem:
    question = q.question
    rng = random.Random(f"{seed}:{question.id}")
    if question.answer_kind == "binary":
        choices = ["yes", "no"]
    else:
        own = {normalize_answer(question.answer), *map(normalize_answer, question.answer_aliases)}
        others = sorted(text for key, text in group.items() if key not in own)
        choices = [question.answer, *rng.sample(others, min(options - 1, len(others)))]
    order = list(range(len(choices)))
    rng.shuffle(order)
    shuffled = tuple(choices[i] for i in order)
    right = normalize_answer(question.answer)
    return ChoiceItem(
        question_id=question.id,
        split=q.split,
        clip=question.clip,
        recording=question.recording,
        question=question.question,
        options=shuffled,
        answer=next(i for i, text in enumerate(shuffled) if normalize_answer(text) == right),
        template=question.template,
        answer_kind=question.answer_kind,
        types=tuple(question.types),
        scopes=tuple(question.scopes),
        semantic=question.semantic,
        reference=question.reference,
    )


# --- the export folder -----------------------------------------------------------------------


def write_choice_export(
    bench: Benchmark, out: Path, options: int = DEFAULT_OPTIONS, seed: int = 0
) -> dict[str, Any]:
    """``OUT/<family>/<split>.jsonl`` (one line per asked rotation) and ``OUT/manifest.json``;
    written whole or not at all. Returns the manifest."""
    summary: dict[str, Any] = {}
    with staged_directory(out) as stage:
        for family in families_in(bench.root):
            items = choice_items(bench, family, options, seed)
            summary[family] = {}
            for split in SPLITS:
                chosen = [i for i in items if i.split == split]
                questions = len(bench.questions(family, split))
                lines = list(ask_records(chosen))
                write_text(stage / family / f"{split}.jsonl", jsonl_text(lines))
                summary[family][split] = {
                    "items": len(chosen),
                    "asks": len(lines),
                    "chance": round(chance(chosen), 4),
                    # open questions whose text has one answer on every clip: no fair option
                    "without_distractors": questions - len(chosen),
                }
        manifest = {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "options": options,
            "seed": seed,
            "benchmark_manifest_sha256": bench.manifest_sha256,
            "instruction": INSTRUCTION,
            "splits": summary,
        }
        write_text(stage / MANIFEST, dumps(manifest) + "\n")
    return manifest


def ask_records(items: Iterable[ChoiceItem]) -> Iterator[dict[str, Any]]:
    """Every ask of ``items``: each item once per rotation, rotation 0 first."""
    for item in items:
        for rotation in range(item.rotations):
            yield _ask_record(item, rotation)


def _ask_record(item: ChoiceItem, rotation: int) -> dict[str, Any]:
    return {
        "id": item.ask_id(rotation),
        "question_id": item.question_id,  # the open-ended twin in the benchmark's split files
        "rotation": rotation,
        "rotations": item.rotations,
        "split": item.split,
        "clip": item.clip,
        "recording": item.recording,
        "question": item.question,
        "options": list(item.asked(rotation)),
        "answer": item.letter(rotation),
        "answer_text": item.options[item.answer],
        "prompt": item.prompt(rotation),
        "template": item.template,
        "answer_kind": item.answer_kind,
        "types": list(item.types),
        "scopes": list(item.scopes),
        "semantic": item.semantic,
        "reference": item.reference,
    }


def read_choice_export(root: Path, family: str, split: str) -> list[ChoiceItem]:
    """The items of one split of an export, rebuilt from their rotation-0 lines; a file that is
    not such an export is refused with the file and record."""
    manifest = root / MANIFEST
    raw = load_json(manifest) if manifest.is_file() else None
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        message = f"not a multiple-choice export (no {MANIFEST} of format {FORMAT})"
        raise InvalidInputError([Problem(str(root), "", message)])
    path = root / family / f"{split}.jsonl"
    if not path.is_file():
        raise InvalidInputError([Problem(str(path), "", "not found; expected `taskqa export mc`")])
    items = []
    for index, record in read_jsonl_objects(path, path.name):
        if record.get("rotation") != 0:
            continue
        try:
            options = tuple(str(o) for o in record["options"])
            items.append(
                ChoiceItem(
                    question_id=str(record["question_id"]),
                    split=str(record["split"]),
                    clip=str(record["clip"]),
                    recording=str(record["recording"]),
                    question=str(record["question"]),
                    options=options,
                    answer=LETTERS.index(str(record["answer"])),
                    template=str(record["template"]),
                    answer_kind=str(record["answer_kind"]),
                    types=tuple(record["types"]),
                    scopes=tuple(record["scopes"]),
                    semantic=str(record["semantic"]),
                    reference=str(record["reference"]),
                )
            )
        except (KeyError, TypeError, ValueError) as error:
            raise InvalidInputError(
                [Problem.at(path.name, [index], f"expected an asked item; {error!r}")]
            ) from None
    return items


# --- answers and scores ----------------------------------------------------------------------


def chance(items: Sequence[ChoiceItem]) -> float:
    """Expected accuracy of a guess uniform over each item's options (per item, and circular
    for a guesser that picks the same option text in every rotation)."""
    return sum(1 / item.rotations for item in items) / len(items) if items else 0.0


@dataclass
class ChoiceScore:
    items: int = 0
    asks: int = 0
    right_first: int = 0  # rotation 0 only: per-item accuracy
    right_asks: int = 0
    right_every_time: int = 0  # circular
    invalid: int = 0
    missing: int = 0
    chance: float = 0.0

    def to_json(self) -> dict[str, Any]:
        items = max(self.items, 1)
        return {
            "items": self.items,
            "item_accuracy": round(self.right_first / items, 4),
            "ask_accuracy": round(self.right_asks / max(self.asks, 1), 4),
            "circular_accuracy": round(self.right_every_time / items, 4),
            "chance": round(self.chance, 4),
            "invalid_asks": self.invalid,
            "missing_asks": self.missing,
        }


def score_choices(
    items: Sequence[ChoiceItem], predictions: Mapping[str, str | None]
) -> dict[str, Any]:
    """Per-item and circular accuracy over ``items`` (overall and per category) from replies by
    asked id (``<question id>#<rotation>``); unanswered asks count as wrong and are counted."""
    groups: dict[str, list[ChoiceItem]] = defaultdict(list)
    for item in items:
        groups["all"].append(item)
        for key in (*(f"type:{t}" for t in item.types), *(f"scope:{s}" for s in item.scopes)):
            groups[key].append(item)
        groups[f"semantic:{item.semantic}"].append(item)
        groups[f"answer:{item.answer_kind}"].append(item)
    outcome = {item.question_id: _outcome(item, predictions) for item in items}
    scores = {}
    for key in sorted(groups, key=lambda k: (k != "all", k)):
        score = ChoiceScore(chance=chance(groups[key]))
        for item in groups[key]:
            rights, invalid, missing = outcome[item.question_id]
            score.items += 1
            score.asks += len(rights)
            score.right_first += rights[0]
            score.right_asks += sum(rights)
            score.right_every_time += all(rights)
            score.invalid += invalid
            score.missing += missing
        scores[key] = score.to_json()
    return scores


def _outcome(
    item: ChoiceItem, predictions: Mapping[str, str | None]
) -> tuple[list[bool], int, int]:
    rights, invalid, missing = [], 0, 0
    for rotation in range(item.rotations):
        key = item.ask_id(rotation)
        if key not in predictions:
            missing += 1
            rights.append(False)
            continue
        picked = parse_choice(predictions[key], item.asked(rotation))
        invalid += picked is None
        rights.append(picked is not None and LETTERS[picked] == item.letter(rotation))
    return rights, invalid, missing


def text_prior_replies(
    train: Sequence[SplitQuestion], items: Sequence[ChoiceItem]
) -> dict[str, str]:
    """The text-only baseline on the multiple-choice form: in every rotation, the option this
    question text had most often as its answer in ``train`` (else its template's most frequent
    answer; ties by the option's text), so it reads nothing but the text and the options."""
    by_text: dict[str, Counter[str]] = defaultdict(Counter)
    by_template: dict[str, Counter[str]] = defaultdict(Counter)
    for q in train:
        by_text[q.question.question][normalize_answer(q.question.answer)] += 1
        by_template[q.question.template][normalize_answer(q.question.answer)] += 1
    replies = {}
    for item in items:
        text_counts, template_counts = by_text[item.question], by_template[item.template]
        best = min(
            item.options,
            key=lambda o: (
                -text_counts[normalize_answer(o)],
                -template_counts[normalize_answer(o)],
                normalize_answer(o),
            ),
        )
        for rotation in range(item.rotations):
            replies[item.ask_id(rotation)] = LETTERS[item.asked(rotation).index(best)]
    return replies


def text_only_on_choices(splits: Mapping[str, Sequence[SplitQuestion]]) -> dict[str, Any]:
    """The build report's check: the text-only baseline on the multiple-choice form of the test
    split (trained on train), per item and circular, beside chance; the target is chance."""
    items = [i for i in items_of(splits) if i.split == "test"]
    if not items:
        return {}
    scores = score_choices(items, text_prior_replies(splits.get("train", []), items))["all"]
    return {
        "test_items": len(items),
        "chance": round(100 * chance(items), 2),
        "text_only_item": round(100 * scores["item_accuracy"], 2),
        "text_only_circular": round(100 * scores["circular_accuracy"], 2),
    }
