"""Text-conditional balancing: answers balanced within groups a text-only model cannot tell apart.

Balancing within reasoning types (EgoTaskQA) removes the answer prior of a type, not the prior of
a question text: "what is the openness of the fridge after the person opens it" stays answerable
without the video. Like GQA's balancing by question groups and VQA v2's complementary pairs, this
pass balances answers within **groups**:

- ``template``: the questions of one template (within one reasoning type);
- ``text``: the questions of one template with the same shown parameters *and* the same text
  (lower-cased; after obfuscation). A group of texts, or of shown parameters, is a union of such
  groups, and both properties below survive unions, so they hold for every exact text, every
  (template, shown parameters) and every template at once.

Within a group, binary questions are kept as yes/no **pairs** (exactly 50/50), and the open
answers are cut to a common level ``m`` such that no answer answers more than ``group_share`` of
the group's kept open questions — or, where the question allows only k answers (an attribute's
values: "was the fridge open or closed ..."), more than 1/k of them, so that a two-valued
attribute is kept exactly 50/50 rather than dropped; a group with too few distinct answers for
its share (one answer, always) loses its questions. No text-only model can then beat 50% on a
group's binary questions, nor the group's share on its open ones, on the balanced set or on
any split that keeps whole pairs (see splits.py).

The reasoning type's global caps (yes = no, top ``alpha`` open answers at most ``beta``) are kept
on top: over-represented answers lose their highest-ranked questions, the touched groups are cut
to their share again, and the two steps repeat until neither removes anything (each round only
removes questions, so it ends). Bringing binary : open to ``1 : open_per_binary`` and down to
``target`` then cuts each type's open questions to its proportional quota — large groups in
proportion over their answers, small groups (which a cut would destroy) kept or dropped whole in
seeded order — settles the caps again, and chooses whole yes/no pairs. Every choice is a seeded
hash rank of a question id or group key, in one global pass, so the order of the candidates file
and the number of generation workers do not change the outcome.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from taskqa.benchmark.balance import BalanceConfig, Balanced, cap_counts, rank, share
from taskqa.benchmark.candidates import Candidates
from taskqa.benchmark.mix import mix_quotas, mix_summary
from taskqa.benchmark.mix_floors import Cell
from taskqa.questions.tags import BINARY_ANSWERS, TAG_SEPARATOR

Rows = dict[str, list[int]]  # answer -> rows, lowest rank first
SAMPLING_ROUNDS = 6
TOLERANCE = 1e-9  # share * size is a float; an exact tie (1 of 5 at 0.2) must count as within


def group_keys(candidates: Candidates, by: str) -> tuple[list[int], list[str]]:
    """The balancing group of every candidate, as a code per row and a name per code.

    A template's tags fix its reasoning type, so a template or phrasing key implies the type.
    """
    if by == "text":
        return list(candidates.phrasings), [f"{h:016x}" for h in sorted(set(candidates.phrasings))]
    keys = candidates.templates if by == "template" else candidates.types
    ordered = sorted(set(keys))
    code = {key: index for index, key in enumerate(ordered)}
    return [code[key] for key in keys], ordered


def group_level(counts: Iterable[int], most: float) -> int:
    """The largest common level ``m`` with ``m <= most * sum(min(n, m))``; 0 when none.

    ``most * sum(min(n, m)) - m`` is concave in ``m`` and 0 at ``m = 0``, so the levels that meet
    the bound form an interval starting at 1 (when 1 meets it at all) and a binary search finds
    its end.
    """
    values = sorted((n for n in counts if n), reverse=True)

    def fits(level: int) -> bool:
        return level <= most * sum(min(n, level) for n in values) + TOLERANCE

    if not values or not fits(1):
        return 0

    low, high = 1, values[0]
    if fits(high):
        return high
    while low < high - 1:
        middle = (low + high) // 2
        if fits(middle):
            low = middle
        else:
            high = middle
    return low


def balance_groups(candidates: Candidates, config: BalanceConfig) -> Balanced:
    """The kept candidates when balancing within templates or text groups (module docstring)."""
    ranks = [rank(config.seed, identifier) for identifier in candidates.ids]
    codes, names = group_keys(candidates, config.balance_by)
    cells, type_of = _cells(candidates, codes, names, ranks)
    lost: Counter[tuple[str, str]] = Counter()  # (reasoning type, reason) -> candidates

    pairs = _pairs(cells, type_of, config.min_binary, lost)
    shares = _shares(cells, candidates.choices, _group_shares(type_of, config))
    kept: dict[str, Rows] = {}
    for key in cells:
        open_rows = {a: rows for a, rows in cells[key].items() if a not in BINARY_ANSWERS}
        if open_rows:
            kept[key] = open_rows
    before = _type_sizes(kept, type_of)
    for key in list(kept):
        _recap(kept, key, shares[key])
    before = _count_lost(
        lost, before, kept, type_of, "open: group has too few answers for the share"
    )
    _settle(kept, type_of, ranks, shares, config)
    before = _count_lost(lost, before, kept, type_of, "open: reasoning-type cap")

    binary_available = 2 * sum(len(p) for p in pairs.values())
    open_available = _size(kept)
    binary_wanted = min(binary_available, open_available // config.open_per_binary)
    if config.target:
        binary_wanted = min(binary_wanted, config.target // (1 + config.open_per_binary))
    open_wanted = binary_wanted * config.open_per_binary
    sizes = _type_sizes(kept, type_of)
    planned = binary_wanted + open_wanted  # what balancing alone aims at
    supply = {(t, "open"): n for t, n in sizes.items()}
    supply.update({(t, "binary"): 2 * len(p) for t, p in pairs.items()})
    if config.mix.enabled:
        quotas = mix_quotas(supply, planned, config.mix)
        open_quotas = {t: quotas[t, "open"] for t in sizes}
        pair_quotas = {t: quotas[t, "binary"] // 2 for t in pairs}
        reason = "mix: composition target"
    else:
        open_quotas = share(dict(sizes), open_wanted) if open_available > open_wanted else {}
        reason = "binary : open ratio and target"
    if open_quotas and any(open_quotas[t] < n for t, n in sizes.items()):
        kept = _sample_to(kept, type_of, ranks, open_quotas, shares, config)
        _count_lost(lost, before, kept, type_of, f"open: {reason}")
    # binary : open never above 1 : open_per_binary, whatever sampling left of the open ones
    most_pairs = _size(kept) // config.open_per_binary // 2
    if not config.mix.enabled:
        pair_quotas = share({t: len(p) for t, p in pairs.items()}, most_pairs)
    elif sum(pair_quotas.values()) > most_pairs:
        pair_quotas = share(pair_quotas, most_pairs)
    partners: dict[int, int] = {}
    for kind, type_pairs in pairs.items():
        chosen = sorted(type_pairs, key=lambda pair: ranks[pair[0]])[: pair_quotas.get(kind, 0)]
        lost[kind, f"binary: {reason}"] += 2 * (len(type_pairs) - len(chosen))
        for yes, no in chosen:
            partners[yes], partners[no] = no, yes

    kept_rows = sorted(
        [*partners, *(r for answers in kept.values() for rows in answers.values() for r in rows)]
    )
    return Balanced(
        kept_rows,
        _distribution(candidates, range(len(candidates))),
        _distribution(candidates, kept_rows),
        partners,
        _by_reason(lost),
        len({codes[row] for row in kept_rows}),
        _by_type(lost),
        mix_summary(supply, _cell_counts(candidates, kept_rows), planned, config.mix)
        if config.mix.enabled
        else {"enabled": False},
    )


def _cells(
    candidates: Candidates, codes: Sequence[int], names: Sequence[str], ranks: Sequence[int]
) -> tuple[dict[str, Rows], dict[str, str]]:
    """Every group's rows by answer, lowest rank first, groups in code order (one sort)."""
    if not codes:
        return {}, {}
    answers = sorted(set(candidates.answers))
    answer_code = {answer: index for index, answer in enumerate(answers)}
    group = np.asarray(codes, dtype=np.uint64)
    answer = np.asarray([answer_code[a] for a in candidates.answers], dtype=np.int64)
    order = np.lexsort((np.asarray(ranks, dtype=np.uint64), answer, group))
    group, answer = group[order], answer[order]
    new_group = np.r_[True, group[1:] != group[:-1]]
    new_run = new_group | np.r_[True, answer[1:] != answer[:-1]]
    starts = np.flatnonzero(new_run).tolist()
    ends = [*starts[1:], len(order)]
    firsts = new_group[new_run].tolist()
    run_answers = answer[new_run].tolist()
    rows = order.tolist()
    cells: dict[str, Rows] = {}
    type_of: dict[str, str] = {}
    names_left = iter(names)
    current: Rows = {}
    for start, end, first, code in zip(starts, ends, firsts, run_answers, strict=True):
        if first:
            name = next(names_left)
            current = cells[name] = {}
            type_of[name] = candidates.types[rows[start]]
        current[answers[code]] = rows[start:end]
    return cells, type_of


def _pairs(
    cells: Mapping[str, Rows],
    type_of: Mapping[str, str],
    min_binary: int,
    lost: Counter[tuple[str, str]],
) -> dict[str, list[tuple[int, int]]]:
    """Each group's yes and no questions zipped in rank order: exactly 50/50 in every group."""
    binary_per_type: Counter[str] = Counter()
    for key, answers in cells.items():
        binary_per_type[type_of[key]] += len(answers.get("yes", ())) + len(answers.get("no", ()))
    pairs: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for key in cells:  # sorted when built
        yes, no = cells[key].get("yes", []), cells[key].get("no", [])
        if not yes and not no:
            continue
        if binary_per_type[type_of[key]] < min_binary:
            lost[type_of[key], "binary: reasoning type below min_binary"] += len(yes) + len(no)
            continue
        count = min(len(yes), len(no))
        reason = "binary: group has one answer" if count == 0 else "binary: majority cut"
        lost[type_of[key], reason] += len(yes) + len(no) - 2 * count
        pairs[type_of[key]] += zip(yes[:count], no[:count], strict=True)
    return dict(pairs)


def _cell_counts(candidates: Candidates, rows: Iterable[int]) -> Counter[Cell]:
    """Kept questions per (reasoning type, yes/no or open): the mix's cells."""
    counts: Counter[Cell] = Counter()
    for row in rows:
        counts[candidates.types[row], "binary" if candidates.is_binary(row) else "open"] += 1
    return counts


def _type_sizes(kept: Mapping[str, Rows], type_of: Mapping[str, str]) -> Counter[str]:
    sizes: Counter[str] = Counter()
    for key, answers in kept.items():
        sizes[type_of[key]] += sum(map(len, answers.values()))
    return sizes


def _count_lost(
    lost: Counter[tuple[str, str]],
    before: Counter[str],
    kept: Mapping[str, Rows],
    type_of: Mapping[str, str],
    reason: str,
) -> Counter[str]:
    """Charge each type's open questions lost since ``before`` to ``reason``; the sizes now."""
    now = _type_sizes(kept, type_of)
    for kind, size in before.items():
        lost[kind, reason] += size - now[kind]
    return now


def _by_reason(lost: Counter[tuple[str, str]]) -> dict[str, int]:
    totals: Counter[str] = Counter()
    for (_, reason), count in lost.items():
        totals[reason] += count
    return {reason: n for reason, n in sorted(totals.items()) if n}


def _by_type(lost: Counter[tuple[str, str]]) -> dict[str, dict[str, int]]:
    per_type: dict[str, dict[str, int]] = defaultdict(dict)
    for (kind, reason), count in sorted(lost.items()):
        if count:
            per_type[kind][reason] = count
    return dict(per_type)


def _size(kept: Mapping[str, Rows]) -> int:
    return sum(len(rows) for answers in kept.values() for rows in answers.values())


def _group_shares(type_of: Mapping[str, str], config: BalanceConfig) -> dict[str, float]:
    """Each group's share before its answers are counted: ``group_share``, or lower where the
    group's semantic category has one in ``semantic_shares`` (a reasoning type names its
    category as one of its tags)."""
    shares = {}
    for key, kind in type_of.items():
        tags = kind.split(TAG_SEPARATOR)
        lower = [s for category, s in config.semantic_shares.items() if category in tags]
        shares[key] = min([config.group_share, *lower])
    return shares


def _shares(
    cells: Mapping[str, Rows], choices: Sequence[int], group_shares: Mapping[str, float]
) -> dict[str, float]:
    """The most one answer may answer of each group's open questions: its ``group_shares``, or
    1/k where the group's questions allow only k answers (one template and text: one
    attribute)."""
    shares = {}
    for key, answers in cells.items():
        allowed = max((choices[rows[0]] for rows in answers.values()), default=0)
        share = group_shares[key]
        shares[key] = max(share, 1 / allowed) if allowed >= 2 else share
    return shares


def _recap(kept: dict[str, Rows], key: str, group_share: float) -> None:
    """Cut a group's open answers to the highest common level within its share, or drop it."""
    answers = kept[key]
    level = group_level((len(rows) for rows in answers.values()), group_share)
    if level == 0:
        del kept[key]
        return
    for answer in list(answers):
        del answers[answer][level:]


def _settle(
    kept: dict[str, Rows],
    type_of: Mapping[str, str],
    ranks: Sequence[int],
    shares: Mapping[str, float],
    config: BalanceConfig,
) -> int:
    """Apply the type caps and group shares until both hold; return how many questions left.

    A type all of whose groups allow only a few answers (``_shares``: more than
    ``group_share`` each, so two to four) takes no cap: each of its texts is already cut to
    1/k per answer, so no answer can answer more of the type than a guess does, and the cap
    on its top fifth of answers would only cut it further as its texts ask more values (a
    fifth value of why-state's, clean, gave the type ten answers and cut it from 1,720
    questions to 152)."""
    start = _size(kept)
    few_answers = {
        kind
        for kind in set(type_of.values())
        if all(shares[key] > config.group_share for key in kept if type_of[key] == kind)
    }
    while True:
        per_type: dict[str, dict[str, list[tuple[int, str]]]] = defaultdict(
            lambda: defaultdict(list)
        )
        for key, answers in kept.items():
            for answer, rows in answers.items():
                per_type[type_of[key]][answer] += ((ranks[r], key) for r in rows)
        touched: set[str] = set()
        for kind, answers_of_type in per_type.items():
            if kind in few_answers:
                continue
            counts = {a: len(members) for a, members in answers_of_type.items()}
            quota = cap_counts(counts, config.alpha, config.beta)
            for answer, members in answers_of_type.items():
                if quota[answer] < len(members):
                    members.sort()
                    for _, key in members[quota[answer] :]:
                        kept[key][answer].pop()  # its highest-ranked question
                        touched.add(key)
        if not touched:
            return start - _size(kept)
        for key in sorted(touched):
            for answer in [a for a, rows in kept[key].items() if not rows]:
                del kept[key][answer]
            _recap(kept, key, shares[key])


def _sample_to(
    kept: dict[str, Rows],
    type_of: Mapping[str, str],
    ranks: Sequence[int],
    quotas: Mapping[str, int],
    shares: Mapping[str, float],
    config: BalanceConfig,
) -> dict[str, Rows]:
    """The open questions cut to at most ``quotas`` per type, with every cap settled.

    Settling after a cut loses a few more questions, so a type that falls short asks for more,
    by bisection between its quota (whose cut never exceeds it) and all it has, and keeps its
    largest result within the quota. Types never share a group or a cap, so each type's rounds
    are independent of the others'.
    """
    keys_of: dict[str, list[str]] = defaultdict(list)
    for key in kept:
        keys_of[type_of[key]].append(key)
    low = dict(quotas)
    high = {kind: sum(len(r) for k in keys_of[kind] for r in kept[k].values()) for kind in quotas}
    best: dict[str, tuple[int, dict[str, Rows]]] = {}
    asked = dict(quotas)
    pending = sorted(quotas)
    for _ in range(SAMPLING_ROUNDS):
        trial = {
            key: {a: list(rows) for a, rows in kept[key].items()}
            for kind in pending
            for key in keys_of[kind]
        }
        _sample(trial, type_of, {kind: asked[kind] for kind in pending}, shares, config)
        _settle(trial, type_of, ranks, shares, config)
        result: dict[str, dict[str, Rows]] = defaultdict(dict)
        for key, answers in trial.items():
            result[type_of[key]][key] = answers
        still = []
        for kind in pending:
            size = _size(result[kind])
            if size <= quotas[kind]:
                low[kind] = asked[kind]
                if size > best.get(kind, (-1, {}))[0]:
                    best[kind] = (size, result[kind])
            else:
                high[kind] = asked[kind]
            if best[kind][0] < quotas[kind] and high[kind] - low[kind] > 1:
                asked[kind] = (low[kind] + high[kind]) // 2
                still.append(kind)
        if not still:
            break
        pending = still
    return {key: rows for kind in sorted(best) for key, rows in best[kind][1].items()}


def _sample(
    kept: dict[str, Rows],
    type_of: Mapping[str, str],
    quotas: Mapping[str, int],
    shares: Mapping[str, float],
    config: BalanceConfig,
) -> None:
    """Cut each type's open questions to its quota, keeping every group's share.

    A group that would keep at least ``2 / share`` questions (its share) is cut in proportion (its
    answers in proportion to their counts, by largest remainders) and re-capped; smaller groups
    could not survive a cut, so they are kept whole or dropped whole, first fit in seeded order,
    into what the large groups leave of the quota.
    """
    by_type: dict[str, list[str]] = defaultdict(list)
    for key in kept:
        by_type[type_of[key]].append(key)
    for kind, keys in by_type.items():
        sizes = {key: sum(map(len, kept[key].values())) for key in keys}
        fraction = quotas.get(kind, 0) / sum(sizes.values())
        left = quotas.get(kind, 0)
        small = []
        for key in keys:
            wanted = int(sizes[key] * fraction)
            if wanted < 2 / shares[key]:
                small.append(key)
                continue
            counts = share({a: len(rows) for a, rows in kept[key].items()}, wanted)
            for answer, count in counts.items():
                del kept[key][answer][count:]
            for answer in [a for a, rows in kept[key].items() if not rows]:
                del kept[key][answer]
            _recap(kept, key, shares[key])
            left -= sum(map(len, kept[key].values())) if key in kept else 0
        for key in sorted(small, key=lambda k: (rank(config.seed, k), k)):
            if sizes[key] <= left:
                left -= sizes[key]
            else:
                del kept[key]


def _distribution(candidates: Candidates, rows: Iterable[int]) -> dict[str, dict[str, int]]:
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for row in rows:
        counts[candidates.types[row]][candidates.answers[row]] += 1
    return {
        kind: dict(sorted(c.items(), key=lambda item: (-item[1], item[0])))
        for kind, c in sorted(counts.items())
    }
