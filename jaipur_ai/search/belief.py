"""A belief over the opponent's hand, weighed by the moves it has played this round.

Every card that enters a hand after the deal is taken from the market in view of both
players, so what a player does not know of its opponent's hand is the goods of the
opponent's opening hand that it still holds. A :class:`~jaipur_ai.View` does not keep
the round's moves, so a search given only the view deals those goods uniformly from
the unseen cards. A :class:`HandBelief` that is shown the moves weighs them instead:

    P(unknown goods U | the round so far)
        ∝ P(U | what the view shows)               (the uniform deal: hypergeometric)
        × Π over the opponent's moves  P(move | its hand then)

where its hand at each earlier move follows from U and the public moves since (cards
taken, sold and given are all public), and P(move | hand) is a model of a player built
from the search's own judgement (compiled: ``jaipur_ai.search._belief.hand_likelihoods``): a
softmax at a temperature over the values of its moves, mixed with a floor that every
legal move gets, so that no move the model finds unlikely rules a hand out. The
opponent is modelled as one of two kinds of player, at even odds before its first move:
a player like the search (every legal move valued by the learned evaluation of the
position it leads to) or a greedy one (every legal move by its hand-set move score), so
P(moves | U) = ½ P_search-like + ½ P_greedy and the moves decide which. Either model
alone knows as much only against its own kind (against greedy, the search-like model
knows less than the uniform deal; docs/strength.md, "Which kind of player?", where the
single models and the policy's-candidates models were measured and retired).

It reads only what its player saw: the player's own views and the moves played.
:class:`~jaipur_ai.Engine` keeps one (``belief=True``, the default) and is shown the
moves with :meth:`~jaipur_ai.Engine.see_move`.

>>> import jaipur_ai as jp
>>> from jaipur_ai.search.belief import HandBelief
>>> state = jp.GameState.new(seed=3, starter=1)
>>> belief = HandBelief()
>>> move = jp.Engine("greedy").best_move(state, seed=1)     # player 1 moves
>>> belief.see(state.view(0), move)                          # player 0 watches
>>> state = state.apply(move)
>>> hands, weights = belief.prior(state.view(0))
>>> hands.shape[1], len(hands) == len(weights), bool(weights.max() == 1.0)
(6, True, True)
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, Optional, cast

import numpy as np

from jaipur_ai.search._belief import SCORER_GREEDY, SCORER_LEARNED, hand_likelihoods
from jaipur_ai.rules._cards import CAMEL, CARD_TOTALS, GOODS
from jaipur_ai.errors import InvalidPositionError
from jaipur_ai.search.evaluation import default_evaluation
from jaipur_ai.search.handprior import log_tilt
from jaipur_ai.rules.move import Move
from jaipur_ai.rules.position import GameState
from jaipur_ai.rules.position import View

__all__ = ["HandBelief", "Kind", "KINDS", "SEARCH_LIKE", "GREEDY", "unknown_hands",
           "opponent_unknown", "hand_change", "check_seen",
           "read_history", "MAX_HISTORY"]


@dataclass(frozen=True)
class Kind:
    """One kind of opponent the belief considers (docs/strength.md, "Which kind of
    player?", measured by the information on the hand each model gives)."""

    name: str               #: "search-like" or "greedy"
    scorer: int             #: how the compiled likelihood scores its moves (_belief.SCORER_*)
    temperature: float      #: softmax temperature, points (learned values: 8 points a logit)
    floor: float            #: the share of every move's probability spread over all moves
    log_prior: float        #: log of its probability before the opponent's first move


# A player like the search: every legal move by the learned value of where it leads.
# The greedy engine plays its best move score, so a cold softmax; its floor covers the
# moves it makes for reasons score_move does not see (ending the round).  Even odds.
SEARCH_LIKE = Kind("search-like", SCORER_LEARNED, 2.0, 0.15, math.log(0.5))
GREEDY = Kind("greedy", SCORER_GREEDY, 1.0, 0.05, math.log(0.5))
KINDS: tuple[Kind, ...] = (SEARCH_LIKE, GREEDY)


def _multisets(n: int) -> np.ndarray:
    """Every way to hold n goods, as rows of GOODS counts."""
    rows = []
    for combo in itertools.combinations_with_replacement(range(GOODS), n):
        row = [0] * GOODS
        for g in combo:
            row[g] += 1
        rows.append(row)
    return np.array(rows, dtype=np.int16).reshape(-1, GOODS)


_MULTISETS = {n: _multisets(n) for n in range(8)}     # a hand holds at most 7 cards
_LOG_COMB = np.array([[math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
                       if k <= n else -np.inf for k in range(8)] for n in range(16)])


def _sides(view: View) -> tuple[np.ndarray, np.ndarray]:
    """(unseen goods by kind, the opponent's known goods) of ``view``."""
    raw = view._core.raw()
    me, opp = view.observer, view.opponent
    known = np.array(raw["hand"][opp], dtype=np.int16)       # a view holds only the known ones
    unseen = (np.array(CARD_TOTALS[:GOODS], dtype=np.int16)
              - np.array(raw["market"][:GOODS], dtype=np.int16)
              - np.array(raw["hand"][me], dtype=np.int16) - known
              - np.array(raw["discard"], dtype=np.int16))
    return unseen, known


def unknown_hands(view: View) -> tuple[np.ndarray, np.ndarray]:
    """The goods the opponent's unknown cards may be in ``view`` (rows of six counts:
    diamonds, gold, silver, cloth, spice, leather), and the log of each one's weight
    under the uniform deal (multivariate hypergeometric)."""
    unseen, known = _sides(view)
    rows = _MULTISETS[view.opponent_hand_size - int(known.sum())]
    rows = rows[np.all(rows <= unseen, axis=1)]
    logp = _LOG_COMB[unseen[None, :], rows].sum(axis=1)
    return rows, logp


def opponent_unknown(state: GameState, view: View) -> np.ndarray:
    """The goods of the opponent's hand in ``state`` that ``view`` (its observer's) does
    not know: the row of :func:`unknown_hands` that is true (for fitting and tests)."""
    _unseen, known = _sides(view)
    hand = state.players[view.opponent].hand
    held = np.array([hand.count(g) for g in "DGSCPL"], dtype=np.int16)
    return cast(np.ndarray, held - known)


def hand_change(move: Move) -> np.ndarray:
    """What ``move`` does to its player's goods (public: every card that moves is seen)."""
    d = np.zeros(GOODS, dtype=np.int16)
    if move.kind == "take":
        d[move.good] += 1
    elif move.kind == "sell":
        d[move.good] -= move.count
    elif move.kind == "swap":
        d += np.array(move.take[:GOODS], dtype=np.int16)
        d -= np.array(move.give[:GOODS], dtype=np.int16)
    return d


def _check_view(view: Any) -> None:
    if not isinstance(view, View):
        raise InvalidPositionError("view", "a belief reads a player's View, got "
                                           f"{type(view).__name__}")


def check_seen(view: Any, move: Any) -> None:
    """A typed error unless ``view`` is a View and ``move`` a Move (what a player is
    shown: its own view of the position, and the move played there)."""
    _check_view(view)
    if not isinstance(move, Move):
        raise InvalidPositionError("move", f"expected a Move, got {type(move).__name__}")


MAX_HISTORY = 1000     # moves a history may hold (a round is far shorter)


def _public(view: View) -> tuple[Any, ...]:
    """What both players see of ``view`` that every move changes in a known way: who is
    to move, the two hand sizes and herds, the draw pile and the discard pile."""
    raw = view._core.raw()
    me = view.observer
    sizes = [0, 0]
    sizes[me], sizes[1 - me] = sum(raw["hand"][me]), view.opponent_hand_size
    return (view.to_move, tuple(sizes), tuple(raw["herd"]), view.deck_size,
            tuple(raw["discard"]))


def _public_after(now: tuple[Any, ...], view: View, move: Move) -> tuple[Any, ...]:
    """:func:`_public` of the position after ``move`` is played in ``view`` (whose
    :func:`_public` is ``now``)."""
    to_move, sizes, herds, deck, discard = now
    p = to_move
    sizes, herds, discard = list(sizes), list(herds), list(discard)
    sizes[p] += int(hand_change(move).sum())
    if move.kind == "take":
        deck -= 1                                   # the market is refilled
    elif move.kind == "camels":
        k = view._core.raw()["market"][CAMEL]
        herds[p] += k
        deck -= k
    elif move.kind == "sell":
        discard[cast(int, move.good)] += move.count
    else:
        herds[p] -= move.give[CAMEL]
    return (1 - p, tuple(sizes), tuple(herds), deck, tuple(discard))


def _possible(view: View, move: Move) -> bool:
    """Whether the opponent, to move in ``view``, could play ``move`` with some hand it
    may hold there (the compiled likelihood is 0 exactly where the move is illegal)."""
    rows, _logp = unknown_hands(view)
    p = hand_likelihoods(view._core, move.action_id, rows, None, GREEDY.temperature,
                         GREEDY.floor, 0, GREEDY.scorer)
    return bool((p > 0).any())


def read_history(history: Any, view: View) -> list[tuple[View, Move]]:
    """``history``, the moves of the round before ``view`` (oldest first), as the
    (view, move) pairs a belief is shown, checked.

    Each entry is a pair: the position before the move (a :class:`~jaipur_ai.GameState`,
    read as ``view``'s player sees it, or that player's :class:`~jaipur_ai.View`) and the
    move played there (a :class:`~jaipur_ai.Move`, its text or its action id).  The
    entries must be the round's moves one after the other up to ``view``: each of
    ``view``'s round, each move legal where it was played (the opponent's, with some
    hand it may hold), each position the one the move before leads to (who is to move,
    the hand sizes, herds, draw and discard piles), ``view`` the one the last leads to,
    and some hand of the opponent must allow all its moves together.  A bad entry is an
    :class:`~jaipur_ai.InvalidPositionError` naming it (``history[3].position``,
    ``history[3].move``; ``history`` for the whole).  Only what ``view``'s player saw
    is read: a state's view."""
    _check_view(view)
    if isinstance(history, (str, bytes, dict)) or not hasattr(history, "__iter__"):
        raise InvalidPositionError("history", "expected a list of (position, move) pairs, "
                                              f"got {type(history).__name__}")
    if hasattr(history, "__len__") and len(history) > MAX_HISTORY:
        raise InvalidPositionError("history", f"more than {MAX_HISTORY} moves")
    pairs: list[tuple[View, Move]] = []
    expect: Optional[tuple[Any, ...]] = None           # what the last move leads to
    for i, entry in enumerate(history):
        where = f"history[{i}]"
        if i >= MAX_HISTORY:                 # (an iterator, of no length)
            raise InvalidPositionError("history", f"more than {MAX_HISTORY} moves")
        if isinstance(entry, (str, bytes, dict)) or not hasattr(entry, "__len__") \
                or len(entry) != 2:
            raise InvalidPositionError(where, "expected a (position, move) pair, got "
                                              f"{type(entry).__name__}")
        pos, move = entry
        if isinstance(pos, GameState):
            seen = pos.view(view.observer)
        elif isinstance(pos, View):
            seen = pos
            if pos.observer != view.observer:
                raise InvalidPositionError(
                    f"{where}.position", f"the view of player {pos.observer}; the position "
                                         f"searched is player {view.observer}'s")
        else:
            raise InvalidPositionError(f"{where}.position", "expected a GameState or a View, "
                                                            f"got {type(pos).__name__}")
        if seen.round != view.round:
            raise InvalidPositionError(f"{where}.position",
                                       f"a position of round {seen.round}; the position "
                                       f"searched is of round {view.round}")
        if seen.is_round_over:
            raise InvalidPositionError(f"{where}.position", "the round is over there")
        now = _public(seen)
        if expect is not None and now != expect:
            raise InvalidPositionError(f"{where}.position", f"not the position that "
                                                            f"history[{i - 1}]'s move leads to")
        own = seen.to_move == seen.observer
        hand: Optional[tuple[int, ...]]          # the mover's cards, to read "sell all X"
        if isinstance(pos, GameState):
            hand = pos.mover_hand()
        else:
            raw = seen._core.raw()
            hand = (*raw["hand"][seen.observer], raw["herd"][seen.observer]) if own else None
        try:
            m = Move.coerce(move, hand)
        except ValueError as e:                      # (InvalidMoveError and the like)
            raise InvalidPositionError(f"{where}.move", getattr(e, "reason", str(e))) from None
        if isinstance(pos, GameState):
            legal = pos.is_legal(m)
        else:
            legal = m in seen.legal_moves() if own else _possible(seen, m)
        if not legal:
            raise InvalidPositionError(f"{where}.move", f"{m} is not legal there")
        pairs.append((seen, m))
        expect = _public_after(now, seen, m)
    if expect is not None and _public(view) != expect:
        raise InvalidPositionError("history", "the position searched is not the one the "
                                              "last entry's move leads to")
    check = HandBelief(kinds=(GREEDY,))      # every opponent's move, with one hand
    for seen, m in pairs:
        check.see(seen, m)
    check.prior(view, strict=True)
    return pairs


@dataclass
class _Seen:
    """One move of the opponent, as the observer saw it played."""
    view: View                  # the observer's view just before it
    action: int                 # the move's action id
    change: np.ndarray          # what it did to the opponent's goods
    known: np.ndarray           # the opponent's goods the observer knew of then
    cache: dict[tuple[str, tuple[int, ...]], float]   # (kind, unknown goods then) -> likelihood


class HandBelief:
    """One player's belief over its opponent's unknown goods in the current round.

    Show it every move of the round with :meth:`see` (the view is the watching
    player's, before the move); :meth:`prior` is then the belief for a view of the
    same round, in the form :meth:`jaipur_ai.Engine.analyse` reads as ``hand_prior``.
    A view of another round, or one with more cards in the draw pile than the last view
    seen (the pile only shrinks within a round: another game), starts the belief afresh
    in :meth:`see` and gets the uniform deal from :meth:`prior`.
    """

    def __init__(self, evaluation: Any = None, kinds: tuple[Kind, ...] = KINDS,
                 kept: bool = False) -> None:
        # the kinds of opponent weighed (a greedy one alone is 0 exactly where a move is
        # illegal: read_history's check that some hand allows the moves)
        self.kinds = kinds
        # the learned values the search-like kind reads: the shipped weights, or those given
        self.evaluation = None if all(k.scorer != SCORER_LEARNED for k in kinds) else (
            evaluation if evaluation is not None else default_evaluation())
        # the opponent's unknown goods dealt as players keep hands (handprior.py), not
        # uniformly, before the moves weigh them
        self.kept = kept
        self.round: Optional[int] = None
        self.deck_size = 0                  # the draw pile in the last view seen
        self.seen: list[_Seen] = []

    def __repr__(self) -> str:
        return f"HandBelief(round={self.round}, opponent_moves={len(self.seen)})"

    def follows(self, view: View) -> bool:
        """Whether ``view`` can come after the moves seen, in the same round."""
        return view.round == self.round and view.deck_size <= self.deck_size

    def see(self, view: View, move: Move) -> None:
        """Record ``move``, played in the position the watching player saw as ``view``."""
        check_seen(view, move)
        if not self.follows(view):
            self.round, self.seen = view.round, []
        self.deck_size = view.deck_size
        if view.to_move == view.observer:
            return                          # its own moves say nothing of the other hand
        _unseen, known = _sides(view)
        self.seen.append(_Seen(view, move.action_id, hand_change(move), known, {}))

    def prior(self, view: View, strict: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """(rows of the opponent's possible unknown goods, their weights, the largest
        1) for the watching player's ``view`` now.  When no hand explains the
        opponent's moves seen, the uniform deal; with ``strict``, an
        :class:`~jaipur_ai.InvalidPositionError` naming ``history`` instead."""
        _check_view(view)
        rows, logw = self._deal(view)
        if not self.follows(view) or not self.seen or (len(rows) <= 1 and not strict):
            return rows, np.exp(logw - logw.max())
        _unseen, known_now = _sides(view)
        # each kind of opponent k: log prior_k + log P_k(moves seen | U); a mixture of
        # kinds sums them, P(moves | U) = sum_k prior_k P_k(moves | U)
        lp = np.array([kind.log_prior + self._log_likelihoods(rows, known_now, kind)
                       for kind in self.kinds])
        logw = logw + np.logaddexp.reduce(lp, axis=0)
        keep = np.isfinite(logw)
        if not keep.any():                 # no hand explains the moves: stay uniform
            if strict:
                raise InvalidPositionError("history", "no hand the opponent may hold "
                                                      "allows the moves it played")
            rows, logw = self._deal(view)
            return rows, np.exp(logw - logw.max())
        rows, logw = rows[keep], logw[keep]
        return rows, np.exp(logw - logw.max())

    def _deal(self, view: View) -> tuple[np.ndarray, np.ndarray]:
        """The possible unknown goods and their log weights before the moves: the
        uniform deal, tilted toward the hands players keep when ``kept``."""
        rows, logw = unknown_hands(view)
        if self.kept:
            logw = logw + log_tilt(rows)
        return rows, logw

    def _log_likelihoods(self, rows: np.ndarray, known_now: np.ndarray,
                         kind: Kind) -> np.ndarray:
        """log P(the opponent's moves seen | its unknown goods now are each row), for one
        kind of opponent (-inf where a row cannot explain them)."""
        logl = np.zeros(len(rows))
        after = np.zeros(GOODS, dtype=np.int16)      # the opponent's goods changes since
        for ev in reversed(self.seen):
            after += ev.change
            then = rows + (known_now - after - ev.known)   # its unknown goods then
            ok = np.all(then >= 0, axis=1)
            keys = [(kind.name, tuple(r)) for r in then]
            todo = [i for i in range(len(rows)) if ok[i] and keys[i] not in ev.cache]
            if todo:
                got = hand_likelihoods(ev.view._core, ev.action, then[todo], self.evaluation,
                                       kind.temperature, kind.floor, 0, kind.scorer)
                for i, p in zip(todo, got):
                    ev.cache[keys[i]] = float(p)
            lik = np.array([ev.cache[keys[i]] if ok[i] else 0.0 for i in range(len(rows))])
            with np.errstate(divide="ignore"):
                logl += np.log(lik)
        return logl
