"""The build report: answer distributions before and after balancing, counts per category, split
sizes and the shortcut baselines (EgoTaskQA Fig. 3c and supplementary Table 3)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib
from matplotlib.figure import Figure as MplFigure

from taskqa.benchmark.balance import top_share
from taskqa.benchmark.diagnostics import FLAG_POINTS, FLAG_QUESTIONS, TEXT_BASELINES, type_label
from taskqa.benchmark.folder import NORMAL
from taskqa.questions.tags import AXIS_OF_TAG, BINARY_ANSWERS, TAG_SEPARATOR, category_tags
from taskqa.reports import Figure, Heading, Paragraph, Report, Table
from taskqa.stats.plots import to_png

TOP_TYPES = 20
TOP_ANSWERS = 15
LABELLED_SHARE = 0.08
Distribution = Mapping[str, Mapping[str, int]]


def category_counts(records: Sequence[Mapping[str, Any]]) -> Counter[str]:
    """Questions per tag, counted in every tag a question carries (as EgoTaskQA's metric does)."""
    counts: Counter[str] = Counter()
    for record in records:
        counts.update(category_tags(record))
    return counts


INTRO = {
    "type": "Balancing keeps yes and no equal within every reasoning type, caps the most frequent "
    "open answers of each type (EgoTaskQA's balancing), and sets binary to open questions at "
    "1 : 2.",
    "template": "Balancing keeps yes and no equal within every template, lets no open answer "
    "answer more than {share:.0%} of a template's open questions, keeps the caps of every "
    "reasoning type on top, and sets binary to open questions at 1 : 2.",
    "text": "Balancing is text-conditional: within every group of questions a text-only model "
    "cannot tell apart (one template, the same shown parameters, the same text) yes and no are "
    "exactly equal and no open answer answers more than {share:.0%} of the group; groups that "
    "cannot meet that lose their questions. The caps of every reasoning type hold on top, and "
    "binary to open questions is 1 : 2.",
}
INDIRECT_NOTE = (
    "Indirect split: train holds the direct-reference questions, test the indirect ones. Where "
    "balancing pools a direct template with its indirect variants (--balance-by type: the "
    "reasoning type leaves the reference out), a type whose direct questions lean to one answer "
    "must have indirect questions that lean to the other to be 50/50 overall; a text model "
    "learns the direct lean and the split inverts it, which put the text classifier far below "
    "chance on yes/no (16.8% in the demo build before text balancing). With --balance-by "
    "template every template is 50/50 on its own, which removes the inversion; with "
    "--balance-by text every question text is, and a yes/no pair is never dealt apart, so a model "
    "that answers from the text alone scores exactly 50% on yes/no if it says yes or no, and "
    "less if it does not."
)


def build_report(
    before: Distribution,
    after: Distribution,
    categories_before: Counter[str],
    categories_after: Counter[str],
    splits: Mapping[str, Mapping[str, int]],
    diagnostics: Mapping[str, Any],
    alpha: float,
    balancing: Mapping[str, Any] | None = None,
    grounding: Mapping[str, Any] | None = None,
    evidence: Mapping[str, Any] | None = None,
    pairs: Mapping[str, Any] | None = None,
) -> Report:
    """``diagnostics`` per split family; ``balancing``: balance_by, group_share, groups, dropped;
    ``grounding``: what the grounding check did (``Grounding.summary``), None if it was not asked.
    """
    balancing = balancing or {"balance_by": "type"}
    intro = INTRO[balancing["balance_by"]].format(share=balancing.get("group_share", 0.0))
    report = Report("Benchmark build report")
    report.add(
        Paragraph(
            f"{intro} The figures show, for the largest reasoning types, how the answers were "
            "spread before and after."
        ),
        Heading("Questions per category"),
        Paragraph(
            "'Candidates': the questions the world supplied (after the grounding check); 'text "
            "fixes the answer': those balancing dropped because every question of their text "
            "had one answer (yes/no) or too few answers for the share (open): supply a text-only "
            "model could answer, which a world that varies where the words cannot see it turns "
            "into kept questions; 'balanced': what the benchmark keeps."
        ),
        _category_table(categories_before, categories_after, balancing.get("lost_by_type") or {}),
        Heading("Composition against EgoTaskQA's mix", level=3),
        Paragraph(
            "The share of the balanced questions in each type, scope and semantic category "
            "(multi-label: a question counts in every type and scope it carries), beside "
            "EgoTaskQA's own balanced mix (supplementary Table 3, 'After', as a share of its "
            "40K questions). A category far below its share is one this world's candidates "
            "cannot supply once every question text is balanced: the 'candidates' column says "
            "how many there were, and the reasoning types balancing more than halved (below) "
            "say which step dropped them."
        ),
        _composition_table(categories_before, categories_after),
        *_mix_section(balancing.get("mix") or {}),
        Heading("Answer distributions per reasoning type"),
        _distribution_table(before, after, alpha),
        *_distribution_figures(before, after),
    )
    if grounding is not None:
        report.add(Heading("Evidence on screen"), *_grounding_section(grounding))
    if evidence is not None:
        report.add(Heading("What each answer needs of its clip"), *_evidence_section(evidence))
        report.add(*_self_check_section(evidence))
    if pairs is not None:
        report.add(Heading("Minimal pairs"), *_pairs_section(pairs))
    if balancing.get("dropped"):
        report.add(
            Heading("Candidates not kept"),
            Paragraph(f"{balancing.get('groups', 0):,} balancing groups keep questions."),
            Table(["reason", "candidates"], [[r, n] for r, n in balancing["dropped"].items()]),
        )
    halved = _halved_types(before, balancing.get("lost_by_type") or {})
    if halved:
        report.add(
            Heading("Reasoning types balancing more than halved", level=3),
            Paragraph(
                "Every reasoning type that kept less than half of its candidates (after the "
                "grounding check), with the steps that dropped them, largest first. 'group has "
                "one answer': every question of a text answers alike, so no text-blind model "
                "could be kept from guessing it; 'too few answers for the share': a text has "
                "fewer distinct answers than its share allows (five for open vocabularies)."
            ),
            Table(["reasoning type", "candidates", "kept", "dropped by"], halved),
        )
    report.add(
        Heading("Splits"),
        _split_table(splits, diagnostics),
        Heading("Shortcut diagnostics (test splits)"),
        Paragraph(
            "Blind baselines that never see a video. Most likely: the most frequent train answer "
            "of the question's reasoning type. Chance: 1/k of the k answers each question allows "
            "(yes/no, an attribute's values; else the distinct answers of its template), "
            "averaged; a blind model is judged against the larger of most likely and chance. "
            "The three text baselines differ in what they "
            "learn from the words: "
            + "; ".join(f"{name}: {text}" for name, text in TEXT_BASELINES.items())
            + ". Accuracies in %."
        ),
        _baseline_table(diagnostics),
        *_choice_section(diagnostics),
        Paragraph(INDIRECT_NOTE),
        *_generalisation_section(diagnostics),
    )
    for family, result in diagnostics.items():
        if "baselines" not in result:
            continue  # a family this set could not make (its info says why)
        rows = result.get("templates", [])
        flagged = [r for r in rows if r["flagged"]]
        listed = rows if family == NORMAL else flagged
        report.add(
            Heading(f"Per template, {family} test split", level=3),
            Paragraph(
                f"{len(flagged)} of {len(rows)} templates have a text classifier more than "
                f"{FLAG_POINTS:.0f} points above the larger of most likely and chance on at least "
                f"{FLAG_QUESTIONS} test "
                "questions (flagged): there the text gives the answer away."
                + ("" if family == NORMAL else " Only flagged templates are listed.")
            ),
        )
        if listed:  # a table of no rows is left out: the sentence above says there are none
            report.add(_template_table(listed))
    return report


def _pairs_section(pairs: Mapping[str, Any]) -> list[Paragraph | Table]:
    """The minimal pairs (docs/minimal-pairs.md): how many of each intervention, and what the
    blind baselines get per question and per pair."""
    text = (
        f"{pairs['pairs']:,} pairs of questions (the `pairs` split family, `pairs.jsonl`): one "
        "text asked of the same stretch of two recordings that differ in one intervention, "
        f"with different answers, from {pairs['second_recordings']:,} second recordings. A "
        "model that reads only the text answers both alike and gets no pair right."
    )
    rows: list[list[Any]] = [[kind, n] for kind, n in pairs["by_intervention"].items()]
    parts: list[Paragraph | Table] = [Paragraph(text), Table(["intervention", "pairs"], rows)]
    blind = pairs.get("blind") or {}
    if blind:
        lines = [
            [name, f"{found['question_accuracy']:.1f}", f"{found['pair_accuracy']:.1f}"]
            for name, found in blind.items()
            if isinstance(found, dict)
        ]
        parts += [
            Paragraph(
                f"Blind baselines on the {blind['test_pairs']:,} test pairs (trained on the "
                f"train pairs); a guess gets a pair right {blind['chance_per_pair']:.2f}% of "
                "the time."
            ),
            Table(["baseline", "question accuracy", "pair accuracy"], lines),
        ]
    return parts


def _self_check_section(evidence: Mapping[str, Any]) -> list[Paragraph | Table]:
    """The self-check: kept questions whose references disagree with their clip's actions."""
    found = evidence.get("self_check")
    if not found:
        return []
    text = (
        f"Self-check: of the {found['checked']:,} kept questions, the "
        f"{found.get('referring', 0):,} that make a reference (the first/last thing the person "
        "opened, cut, ...; the first/last action; the action that changed a named thing) had "
        "it worked out again from the actions their clip shows; "
        f"{found['disagreeing']:,} disagree."
    )
    rows = [[t, f"{n:,}"] for t, n in found["by_template"].items()]
    return [Paragraph(text)] + ([Table(["template", "disagreeing"], rows)] if rows else [])


def _evidence_section(evidence: Mapping[str, Any]) -> list[Paragraph | Table]:
    """The vision-ablation audit (docs/evidence.md) of the kept questions, per template."""
    kept = evidence.get("kept") or {}
    overall = kept.get("all")
    if not overall:
        return [Paragraph("No question was audited.")]
    capped = evidence.get("dropped_by_cap")
    cap = (
        f" `--max-single-frame` dropped {capped:,} questions answerable from one frame."
        if capped is not None
        else " No cap was set (`--max-single-frame SHARE` sets one per template)."
    )
    one = overall["one-frame"] + overall["no-frame"]
    text = (
        "Each kept question's program run again on less of its clip: no action seen at all, "
        "one action seen (the person's first, last or any one, or the other person's), and "
        "the clip with its time reversed; a yes/no answer counts only where other evidence "
        "gives the opposite. "
        f"Of {overall['questions']:,} kept questions, {100 * one:.1f}% are answerable from "
        f"one frame ({100 * overall['no-frame']:.1f}% even with no frame: their answer comes "
        f"from outside the clip), {100 * overall['several-frames']:.1f}% need several, and "
        f"{100 * overall['order-dependent']:.1f}% depend on the order of events.{cap}"
    )
    header = ["template", "questions", "no frame", "one frame", "first", "last", "several",
              "order-dependent"]  # fmt: skip
    rows = [
        [
            template,
            found["questions"],
            *(
                f"{100 * found[tag]:.0f}%"
                for tag in (
                    "no-frame",
                    "one-frame",
                    "first-frame",
                    "last-frame",
                    "several-frames",
                    "order-dependent",
                )
            ),
        ]
        for template, found in kept.items()
    ]
    return [Paragraph(text), Table(header, rows)]


def _grounding_section(grounding: Mapping[str, Any]) -> list[Paragraph | Table]:
    """The grounding check's counts (docs/grounding.md): candidates checked, kept, and those
    dropped because what they ask about is off screen, per reason."""
    if not grounding.get("ran"):
        return [Paragraph(f"{grounding.get('note', 'The grounding check did not run')}.")]
    checked, kept = grounding["checked"], grounding["kept"]
    text = (
        f"Before balancing, every candidate's evidence was looked for in instance masks drawn at "
        f"{grounding['mask_size']}x{grounding['mask_size']} pixels: each object and person its "
        f"program reads must cover at least {grounding['first_person_share']:.1%} of the asked "
        f"person's first-person frame or {grounding['room_share']:.1%} of the room camera's at "
        f"the start, middle or end of the action read (docs/grounding.md). {kept:,} of "
        f"{checked:,} candidates kept."
    )
    dropped = grounding.get("dropped") or {}
    if not dropped:
        return [Paragraph(text)]
    rows: list[list[str | int | float | None]] = [[r, n] for r, n in dropped.items()]
    return [Paragraph(text), Table(["reason", "candidates dropped"], rows)]


def _halved_types(
    before: Distribution, lost: Mapping[str, Mapping[str, int]]
) -> list[list[str | int | float | None]]:
    rows: list[list[str | int | float | None]] = []
    for kind in sorted(before, key=lambda t: (-sum(before[t].values()), t)):
        total = sum(before[kind].values())
        reasons = lost.get(kind, {})
        dropped = sum(reasons.values())
        if not total or dropped * 2 <= total:
            continue
        steps = sorted(reasons.items(), key=lambda item: (-item[1], item[0]))
        said = "; ".join(f"{reason} ({count:,})" for reason, count in steps)
        rows.append([type_label(kind), total, total - dropped, said])
    return rows


def _template_table(rows: Sequence[Mapping[str, Any]]) -> Table:
    names = ["most likely", "chance", "question text", "text classifier"]
    return Table(
        ["template", "questions", *names, "lead", "flag"],
        [
            [
                r["template"],
                r["questions"],
                *(r.get(n) for n in names),
                r["lead"],
                f"> {FLAG_POINTS:.0f}" if r["flagged"] else "",
            ]
            for r in rows
        ],
    )


# EgoTaskQA's balanced set (supplementary Table 3, "After"), thousands of questions per category
# out of about 40K: the mix a benchmark of its kind is compared with.
EGOTASKQA_MIX = {
    "type/descriptive": 21, "type/predictive": 4, "type/counterfactual": 6,
    "type/explanatory": 9, "scope/world": 32, "scope/intent": 5, "scope/multi-agent": 6,
    "semantic/action": 17, "semantic/object": 4, "semantic/state": 9, "semantic/change": 10,
}  # fmt: skip
EGOTASKQA_TOTAL = 40


def _composition_table(before: Counter[str], after: Counter[str]) -> Table:
    total = after.get("answer/binary", 0) + after.get("answer/open", 0)
    rows: list[list[str | int | float | None]] = []
    for tag, thousands in EGOTASKQA_MIX.items():
        share = 100 * after.get(tag, 0) / total if total else 0.0
        target = 100 * thousands / EGOTASKQA_TOTAL
        rows.append([tag, before.get(tag, 0), after.get(tag, 0), share, target])
    headers = ["category", "candidates", "balanced", "share %", "EgoTaskQA share %"]
    return Table(headers, rows)


def _mix_section(mix: Mapping[str, Any]) -> list[Paragraph | Table]:
    """What ``--mix`` aimed at and reached (mix.py), and the categories the world cannot supply."""
    if not mix.get("enabled"):
        return [Paragraph("The mix step was off (--no-mix): no type was cut towards a target.")]
    text = (
        f"The mix step (--mix) cut over-represented reasoning types towards the target shares "
        f"below, aiming at no fewer than {mix['keep']:.0%} of the {mix['balanced']:,} questions "
        f"balancing alone aims at: {mix['kept']:,} kept. 'Supplied' is each category's share of "
        "everything balancing could keep, before any cut; the mix can only cut, never add. A "
        "question counts in every type and scope it carries, so keeping a short category's "
        "questions can lift another category above its target."
    )
    rows: list[list[str | int | float | None]] = []
    for axis, targets in mix["targets"].items():
        for category, target in targets.items():
            rows.append(
                [
                    f"{axis}/{category}",
                    100 * target,
                    100 * mix["supplied"][axis][category],
                    100 * mix["achieved"][axis][category],
                ]
            )
    table = Table(["category", "target %", "supplied %", "kept %"], rows)
    short, traded = mix.get("short") or [], mix.get("traded") or []
    said = "Every category is within a point of its target." if not short and not traded else ""
    if short:
        said += (
            "Short of target, because the world's balanced candidates cannot supply them at "
            "this size: " + ", ".join(short) + ". "
        )
    if traded:
        said += (
            "Supplied enough, but cut below target by the other axes' targets (its questions "
            "are mostly of a kind another axis holds down, such as yes/no): "
            + ", ".join(traded)
            + "."
        )
    return [Paragraph(text), table, Paragraph(said.strip())]


TEXT_FIXES_ANSWER = (
    "binary: group has one answer",
    "open: group has too few answers for the share",
)


def _category_table(
    before: Counter[str], after: Counter[str], lost: Mapping[str, Mapping[str, int]]
) -> Table:
    fixed = _text_fixed_by_category(lost)
    # balancing's reasoning types leave some axes out (the reference): no count for those
    counted = {tag.partition("/")[0] for tag in fixed} | {"answer"}
    rows: list[list[str | int | float | None]] = [
        [
            tag,
            before[tag],
            fixed.get(tag, 0) if tag.partition("/")[0] in counted else None,
            after.get(tag, 0),
        ]
        for tag in sorted(before)
    ]
    return Table(["category", "candidates", "text fixes the answer", "balanced"], rows)


def _text_fixed_by_category(lost: Mapping[str, Mapping[str, int]]) -> Counter[str]:
    """Per ``axis/tag`` category, the candidates dropped because their text fixed the answer;
    a reasoning type's tags name their axes (no tag is on two axes)."""
    counts: Counter[str] = Counter()
    for kind, reasons in lost.items():
        dropped = sum(reasons.get(reason, 0) for reason in TEXT_FIXES_ANSWER)
        if not dropped:
            continue
        for tag in kind.split(TAG_SEPARATOR):
            axis = AXIS_OF_TAG.get(tag)
            if axis is not None:
                counts[f"{axis}/{tag}"] += dropped
        for kind_of_answer, reason in zip(("binary", "open"), TEXT_FIXES_ANSWER, strict=True):
            if reasons.get(reason):
                counts[f"answer/{kind_of_answer}"] += reasons[reason]
    return counts


def _largest(distribution: Distribution) -> list[str]:
    return sorted(distribution, key=lambda t: (-sum(distribution[t].values()), t))[:TOP_TYPES]


def _distribution_table(before: Distribution, after: Distribution, alpha: float) -> Table:
    rows: list[list[str | int | float | None]] = []
    for kind in _largest(before):
        counts_before, counts_after = before[kind], after.get(kind, {})
        total_after = sum(counts_after.values())
        rows.append(
            [
                type_label(kind),
                sum(counts_before.values()),
                total_after,
                100 * top_share(_open(counts_before), alpha),
                100 * top_share(_open(counts_after), alpha) if total_after else None,
                _top_answers(counts_after, total_after),
            ]
        )
    headers = [
        "reasoning type",
        "before",
        "after",
        "open top-20% share before",
        "after",
        "top answers",
    ]
    return Table(headers, rows)


def _open(counts: Mapping[str, int]) -> dict[str, int]:
    return {answer: n for answer, n in counts.items() if answer not in BINARY_ANSWERS}


def _top_answers(counts: Mapping[str, int], total: int, shown: int = 3) -> str:
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:shown]
    return ", ".join(f"{answer} {100 * n / total:.0f}%" for answer, n in ranked) if total else ""


def distribution_figures(before: Distribution, after: Distribution) -> tuple[MplFigure, MplFigure]:
    """The before and after figures, with the same rows in the same order: the largest reasoning
    types before balancing, as the table lists them (a type balancing dropped keeps its row)."""
    kinds = _largest(before)
    return (
        _distribution_figure(before, kinds, "before balancing"),
        _distribution_figure(after, kinds, "after balancing"),
    )


def _distribution_figures(before: Distribution, after: Distribution) -> list[Figure]:
    first, second = distribution_figures(before, after)
    types = min(len(before), TOP_TYPES)
    return [
        Figure(
            "answers_before",
            to_png(first),
            f"Answers per reasoning type before balancing, for the {types} largest types: each "
            "bar splits a type's questions by answer, the most frequent first",
        ),
        Figure(
            "answers_after",
            to_png(second),
            f"Answers per reasoning type after balancing, for the same {types} types in the same "
            "order (a type balancing dropped says so)",
        ),
    ]


def _distribution_figure(distribution: Distribution, kinds: Sequence[str], title: str) -> MplFigure:
    figure = MplFigure(figsize=(10, 0.35 * max(len(kinds), 4) + 1.2), layout="constrained")
    axes = figure.subplots()
    palette = matplotlib.colormaps["tab20"]
    colors = [palette(index) for index in range(20)]
    for row, kind in enumerate(kinds):
        ranked = sorted(distribution.get(kind, {}).items(), key=lambda item: (-item[1], item[0]))
        total = sum(count for _, count in ranked)
        if not total:  # a type balancing dropped: its row stays, saying so
            axes.text(0.01, row, "no questions kept", ha="left", va="center", fontsize=7)
            continue
        left = 0.0
        for rank, (answer, count) in enumerate(ranked[:TOP_ANSWERS]):
            share = count / total
            axes.barh(row, share, left=left, color=colors[rank % 20], edgecolor="white")
            if share >= LABELLED_SHARE:  # colours stand for ranks; wide segments say the answer
                ink = "white" if rank % 2 == 0 else "black"  # tab20 alternates dark and light
                axes.text(
                    left + share / 2,
                    row,
                    answer[:24],
                    ha="center",
                    va="center",
                    fontsize=6,
                    color=ink,
                )
            left += share
        axes.barh(row, 1 - left, left=left, color="#dddddd")
    axes.set_yticks(range(len(kinds)), [type_label(k) for k in kinds], fontsize=7)
    axes.set_ylim(len(kinds) - 0.5, -0.5)  # first row on top, also when the last rows are empty
    axes.set_xlim(0, 1)
    axes.set_xlabel(
        f"share of questions; a colour is an answer's rank in its row (first: dark blue),\n"
        f"the top {TOP_ANSWERS} answers drawn, grey: the rest; answers of "
        f"{LABELLED_SHARE:.0%} or more named"
    )
    axes.set_title(f"Answers per reasoning type, {title}")
    return figure


def _generalisation_section(diagnostics: Mapping[str, Any]) -> list[Paragraph]:
    """What each generalisation family held out (docs/balancing.md, "Generalisation splits")."""
    said = []
    for family, result in diagnostics.items():
        info = result.get("info")
        if not info:
            continue
        if "skipped" in info:
            said.append(f"{family}: not made ({info['skipped']}).")
        elif "k" in info:
            said.append(
                f"{family}: train and val ask programs of at most {info['k']} steps, "
                "test longer ones."
            )
        elif "held_out_pairs" in info:
            examples = ", ".join(info.get("examples", [])[:6])
            said.append(
                f"{family}: {info['held_out_pairs']} concept pairs held out of train "
                f"(for example {examples})."
            )
        elif "held_out_objects" in info:
            said.append(
                f"{family}: recordings with {', '.join(info['held_out_objects'])} are in val and "
                f"test only; {info.get('pairs_parted', 0)} yes/no pairs whose halves fell apart "
                "were left out."
            )
    if not said:
        return []
    return [Paragraph("Generalisation split families. " + " ".join(said))]


def _split_table(splits: Mapping[str, Mapping[str, int]], diagnostics: Mapping[str, Any]) -> Table:
    rows: list[list[str | int | float | None]] = []
    for family, sizes in splits.items():
        # the pairs family has no diagnostics of its own (its section says what blind gets)
        oov = diagnostics.get(family, {}).get("out_of_vocabulary")
        rows.append(
            [
                family,
                sizes.get("train", 0),
                sizes.get("val", 0),
                sizes.get("test", 0),
                100 * oov["val"] if oov else None,
                100 * oov["test"] if oov else None,
            ]
        )
    headers = ["split family", "train", "val", "test", "val answers not in train %", "test %"]
    return Table(headers, rows)


def _choice_section(diagnostics: Mapping[str, Any]) -> list[Paragraph | Table]:
    """The text-only baseline on the multiple-choice form (docs/multiple-choice.md)."""
    rows: list[list[str | int | float | None]] = [
        [
            family,
            found["test_items"],
            found["chance"],
            found["text_only_item"],
            found["text_only_circular"],
        ]
        for family, result in diagnostics.items()
        if (found := result.get("multiple_choice"))
    ]
    if not rows:
        return []
    text = (
        "The same test questions as multiple choice (`taskqa export mc`: the distractors are "
        "answers the question text has on other clips of the split). The text-only baseline "
        "picks the option its text had most often in train, the same in every rotation; the "
        "target is chance, per item and circular. Accuracies in %."
    )
    header = ["split family", "items", "chance", "text only, per item", "text only, circular"]
    return [Paragraph(text), Table(header, rows)]


def _baseline_table(diagnostics: Mapping[str, Any]) -> Table:
    rows: list[list[str | int | float | None]] = []
    for family, result in diagnostics.items():
        for name, scores in result.get("baselines", {}).items():
            rows.append([f"{family}: {name}", scores["all"], scores["binary"], scores["open"]])
        if "chance" in result:  # builds before the chance reference have none
            scores = result["chance"]
            rows.append([f"{family}: chance", scores["all"], scores["binary"], scores["open"]])
    return Table(["baseline", "all", "binary", "open"], rows)
