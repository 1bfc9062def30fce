"""Luck-adjusted match results: each draw's luck taken out of a game's score, as
backgammon programs adjust for the dice (docs/strength.md, "Luck-adjusted results").

Every take refills the market from the draw pile.  The luck of that draw, for player 0,
is the value of the position after the cards actually drawn minus its expected value
over every set of cards the pile could have given (the pile's goods and camels, drawn
without replacement: a multivariate hypergeometric law).  Values are the learned
evaluation's win chance of the full state (both hands and the pile's order known, as an
umpire sees it), so the luck of each draw has mean zero whoever plays.  A game's
adjusted score is its score minus the luck of all its draws: the part of the result
the draws explain is gone, the part the moves explain is left.  The mirrored deals
already cancel the luck of the deal itself.

>>> from jaipur_ai.matches.luck import draw_outcomes
>>> [(dict(c), round(p, 3)) for c, p in draw_outcomes([0, 0, 3], 1)]
[({0: 1}, 0.667), ({3: 1}, 0.333)]
"""
from __future__ import annotations

import math
from collections import Counter
from itertools import combinations_with_replacement
from typing import Any, Iterable, Optional, Sequence

import numpy as np

from jaipur_ai.errors import JaipurError

__all__ = ["draw_outcomes", "round_luck", "game_luck", "luck_summary", "format_luck",
           "LuckError"]


class LuckError(JaipurError):
    """Games whose luck cannot be measured (field and reason)."""


def draw_outcomes(deck: Sequence[int], k: int) -> list[tuple[Counter[int], float]]:
    """The multisets of ``k`` cards drawn without replacement from ``deck`` (card codes)
    and their probabilities (they sum to 1)."""
    have = Counter(deck)
    types = sorted(have)
    n = len(deck)
    total = math.comb(n, k)
    out = []
    for combo in combinations_with_replacement(types, k):
        c = Counter(combo)
        ways = 1
        for t, m in c.items():
            ways *= math.comb(have[t], m)
        if ways:
            out.append((c, ways / total))
    return out


def _with_drawn(raw: dict[str, Any], drawn: Counter[int]) -> Optional[dict[str, Any]]:
    """``raw`` with its draw pile reordered so that its last cards (the next drawn) are
    ``drawn``; None when the pile does not hold them."""
    deck = list(raw["deck"])
    need = Counter(drawn)
    top: list[int] = []
    for i in range(len(deck) - 1, -1, -1):       # take them from nearest the top
        if need[deck[i]] > 0:
            need[deck[i]] -= 1
            top.append(deck.pop(i))
    if sum(need.values()):
        return None
    out = dict(raw)
    out["deck"] = deck + top[::-1]
    return out


def round_luck(deal_seed: int, starter: int, moves: Iterable[str],
               evaluation: Any = None) -> list[float]:
    """The luck of each draw of a round, for player 0 (win-chance units), in order."""
    from jaipur_ai.rules._bridge import CoreState
    from jaipur_ai.rules.move import Move
    from jaipur_ai.rules.position import GameState
    from jaipur_ai.search.evaluation import default_evaluation
    ev = evaluation if evaluation is not None else default_evaluation()
    state = GameState.new(deal_seed, starter=starter)
    core = state._core
    luck = []
    for text in moves:
        a = Move.parse(text).action_id
        before = core.raw()
        after = core.copy()
        after.apply_action(a)
        k = len(before["deck"]) - len(after.raw()["deck"])
        if k > 0:
            expected = 0.0
            for drawn, p in draw_outcomes(before["deck"], k):
                raw = _with_drawn(before, drawn)
                if raw is None:          # pragma: no cover - draw_outcomes only lists held cards
                    continue
                alt = CoreState.from_raw(raw)
                alt.apply_action(a)
                expected += p * ev.value(alt, 0)[0]
            luck.append(ev.value(after, 0)[0] - expected)
        core = after
    return luck


def game_luck(record: Any, evaluation: Any = None) -> float:
    """The luck of all the draws of a match game (a :class:`GameRecord` of one round)
    for engine A; a game of several rounds is a :class:`LuckError` (its later rounds'
    deals are not in the record)."""
    if record.rounds != 1:
        raise LuckError("unit", f"deal {record.deal}: a game of {record.rounds} rounds; "
                                "luck is adjusted for games of one round")
    moves = record.rounds_moves()[0]
    total = sum(round_luck(record.deal_seed, record.starter, moves, evaluation))
    return total if record.a_seat == 0 else -total


def luck_summary(records: Sequence[Any], evaluation: Any = None) -> dict[str, Any]:
    """A's raw and luck-adjusted mean score over the games, the standard deviation of a
    game's score each way, and the variance reduction (1 - adjusted/raw variance)."""
    raw = np.array([r.score for r in records], float)
    luck = np.array([game_luck(r, evaluation) for r in records], float)
    adj = raw - luck
    n = len(raw)

    def half(x: np.ndarray) -> float:
        return 1.96 * float(x.std(ddof=1)) / math.sqrt(n) if n > 1 else float("nan")
    out = {"games": n, "score": float(raw.mean()), "score_half": half(raw),
            "adjusted": float(adj.mean()), "adjusted_half": half(adj),
            "sd_raw": float(raw.std(ddof=1)) if n > 1 else float("nan"),
            "sd_adjusted": float(adj.std(ddof=1)) if n > 1 else float("nan"),
            "variance_reduction": (1.0 - float(adj.var(ddof=1)) / float(raw.var(ddof=1))
                                   if n > 1 and raw.var() > 0 else float("nan")),
            "mean_luck": float(luck.mean()) if n else float("nan")}
    # (JSON has no NaN: what one game cannot tell is None)
    return {k: (None if isinstance(v, float) and not math.isfinite(v) else v)
            for k, v in out.items()}


def format_luck(luck: dict[str, Any]) -> str:
    """One line of :func:`luck_summary` for a match's report."""
    if luck["sd_raw"] is None:
        return (f"luck-adjusted: A scores {100 * luck['adjusted']:.1f} % against "
                f"{100 * luck['score']:.1f} % raw (one game: no spread to compare)")
    text = (f"luck-adjusted: A scores {100 * luck['adjusted']:.1f} % "
            f"(+- {100 * luck['adjusted_half']:.1f}) against {100 * luck['score']:.1f} % "
            f"(+- {100 * luck['score_half']:.1f}) raw; a game's SD "
            f"{luck['sd_adjusted']:.3f} against {luck['sd_raw']:.3f}")
    if luck["variance_reduction"] is not None:
        text += f" (variance {100 * luck['variance_reduction']:.0f} % lower)"
    return text
