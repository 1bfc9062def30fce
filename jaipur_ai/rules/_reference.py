"""A readable pure-Python implementation of the rules of one Jaipur round.

This module is the *test oracle*: the compiled core must agree with it move by
move.  It favours clarity over speed and imports nothing from the core.

It works on the JSON dict form of a full state (``docs/notation.md``, "JSON form
of a full state") and on moves in canonical text (``take D``, ``camels``,
``sell 3L``, ``swap DG for LM``).  Figures and rulings are those of
``docs/rules.md`` (R1 to R8 are its rulings, section "The rulings"); the points
that matter here are:

* Hand = goods only; camels live in the herd and never count for the hand limit
  of 7 goods.
* ``take X`` needs X in the market and fewer than 7 goods in hand; the gap is
  refilled with one card from the top of the deck.
* ``camels`` takes *all* camels in the market (needs at least one); the gaps are
  refilled.
* A refill of ``g`` gaps with fewer than ``g`` cards in the deck draws nothing and
  ends the round at once (R1).  A deck that runs empty while the market is
  full does not end the round.
* ``sell nX``: any ``n`` from 1 to the cards of X in hand, at least 2 for
  diamond, gold and silver (R5), even if fewer tokens are left.  The seller
  takes ``min(n, left)`` tokens from the top of the stack and, for ``n >= 3``,
  the top bonus token of the stack for 3, 4 or 5+ cards, if any is left
  (R2).
* ``swap T for G``: ``k >= 2`` goods taken from the market (never camels), ``k``
  cards given from hand goods and/or herd camels, no type both taken and given,
  at most 7 goods in hand afterwards (R3).  No refill.
* After every move the turn passes.  The round ends when a refill failed or when
  3 or more goods-token stacks are empty (R2).  The round's seal goes to the
  higher total (tokens + bonus + camel token), then more bonus tokens, then more
  goods tokens, else nobody (R6).  The camel token (5) goes to the player
  with strictly more camels.

Public functions never mutate their argument.  Nothing is validated beyond the
legality of moves: the public API validates positions.
"""
from __future__ import annotations

import copy
import random
from typing import Any, Iterator, Sequence, Union

from jaipur_ai.rules._cards import (
    BONUS_KINDS,
    BONUS_SETS,
    CAMEL,
    CAMEL_TOKEN,
    CARD_TOTALS,
    GOODS,
    HAND_LIMIT,
    LETTERS,
    MARKET_SIZE,
    PRECIOUS,
    TOKENS,
    TYPES,
)

__all__ = [
    "legal_moves",
    "apply",
    "round_totals",
    "round_winner",
    "random_game",
    "canonical",
    "deal",
]

GOOD_LETTERS = LETTERS[:GOODS]          # "DGSCPL"
CAMEL_LETTER = LETTERS[CAMEL]           # "M"

Winner = Union[int, str]                # 0, 1 or "draw"


# --------------------------------------------------------------------------
# Card multisets: strings of letters <-> counts by type
# --------------------------------------------------------------------------

def counts_of(cards: str) -> list[int]:
    """Letters -> list of 7 counts by type, e.g. ``'LDM' -> [1,0,0,0,0,1,1]``."""
    counts = [0] * TYPES
    for ch in cards:
        counts[LETTERS.index(ch)] += 1
    return counts


def letters_of(counts: Sequence[int]) -> str:
    """Counts by type (6 or 7 of them) -> canonical letters, e.g. ``'DLM'``."""
    return "".join(LETTERS[t] * int(n) for t, n in enumerate(counts))


def _sort_cards(cards: str) -> str:
    """A multiset string in canonical type order."""
    return letters_of(counts_of(cards))


# --------------------------------------------------------------------------
# Move texts
# --------------------------------------------------------------------------

def canonical(move: str) -> str:
    """Normalise a move text to its canonical form.

    Accepts any case, extra spaces and cards of a swap in any order:
    ``'Swap  GD for ML' -> 'swap DG for LM'``, ``'SELL 3l' -> 'sell 3L'``.
    Raises ``ValueError`` for a text that is not a move at all.  (The forgiving
    full-name parser is ``jaipur_ai.Move.parse``; this one is deliberately small.)
    """
    words = move.split()
    if not words:
        raise ValueError(f"{move!r}: empty move")
    verb = words[0].lower()
    if verb == "camels" and len(words) == 1:
        return "camels"
    if verb == "take" and len(words) == 2 and len(words[1]) == 1:
        good = words[1].upper()
        if good in GOOD_LETTERS:
            return f"take {good}"
    if verb == "sell" and len(words) == 2 and len(words[1]) >= 2:
        n, good = words[1][:-1], words[1][-1].upper()
        if n.isdigit() and int(n) >= 1 and good in GOOD_LETTERS:
            return f"sell {int(n)}{good}"
    if verb == "swap" and len(words) == 4 and words[2].lower() == "for":
        taken, given = words[1].upper(), words[3].upper()
        if all(ch in LETTERS for ch in taken + given):
            return f"swap {_sort_cards(taken)} for {_sort_cards(given)}"
    raise ValueError(f"{move!r}: not a move")


def _sell_text(good: int, n: int) -> str:
    return f"sell {n}{LETTERS[good]}"


def _swap_text(taken: Sequence[int], given: Sequence[int]) -> str:
    return f"swap {letters_of(taken)} for {letters_of(given)}"


# --------------------------------------------------------------------------
# Reading a state
# --------------------------------------------------------------------------

def _hand(d: dict[str, Any], p: int) -> list[int]:
    """Goods in player p's hand: 6 counts."""
    return counts_of(d["players"][p]["hand"])[:GOODS]


def _market(d: dict[str, Any]) -> list[int]:
    """Market: 7 counts, camels last."""
    return counts_of(d["market"])


def _empty_stacks(d: dict[str, Any]) -> int:
    """Number of goods-token stacks with no token left."""
    return sum(1 for g in GOOD_LETTERS if len(d["tokens"][g]) == 0)


def _vectors(bounds: Sequence[int], total: int) -> Iterator[tuple[int, ...]]:
    """Every vector ``v`` with ``0 <= v[i] <= bounds[i]`` and ``sum(v) == total``."""
    if not bounds:
        if total == 0:
            yield ()
        return
    first, rest = bounds[0], bounds[1:]
    for n in range(min(first, total) + 1):
        for tail in _vectors(rest, total - n):
            yield (n,) + tail


# --------------------------------------------------------------------------
# Legal moves
# --------------------------------------------------------------------------

def legal_moves(d: dict[str, Any]) -> list[str]:
    """All legal moves of the player to move, canonical texts, sorted, distinct.

    Empty when the round is over (``d["result"] is not None``).
    """
    if d["result"] is not None:
        return []
    p = d["to_move"]
    hand = _hand(d, p)
    herd = d["players"][p]["herd"]
    market = _market(d)
    hand_size = sum(hand)
    moves: set[str] = set()

    # Take one good (R4: not with 7 goods in hand).
    if hand_size < HAND_LIMIT:
        for g in range(GOODS):
            if market[g] > 0:
                moves.add(f"take {LETTERS[g]}")

    # Take all camels (R4: only if there is one).
    if market[CAMEL] > 0:
        moves.add("camels")

    # Sell n cards of one good (R5: at least 2 of a precious good).
    for g in range(GOODS):
        least = 2 if g in PRECIOUS else 1
        for n in range(least, hand[g] + 1):
            moves.add(_sell_text(g, n))

    # Exchange (R3).
    market_goods = market[:GOODS]
    for k in range(2, sum(market_goods) + 1):
        for taken in _vectors(market_goods, k):
            # Cards that may be given: hand goods of a type not taken, and camels.
            give_bounds = [0 if taken[g] else hand[g] for g in range(GOODS)] + [herd]
            for given in _vectors(give_bounds, k):
                # Goods in hand afterwards: hand - given goods + taken.
                after = hand_size - (k - given[CAMEL]) + k
                if after <= HAND_LIMIT:
                    moves.add(_swap_text(taken, given))

    return sorted(moves)


# --------------------------------------------------------------------------
# Applying a move
# --------------------------------------------------------------------------

def _refill(d: dict[str, Any], gaps: int) -> bool:
    """Fill ``gaps`` market gaps from the top of the deck.

    Returns False (and draws nothing) when the deck holds fewer than ``gaps``
    cards: the round then ends (R1).
    """
    deck = d["deck"]
    if len(deck) < gaps:
        return False
    d["market"] = _sort_cards(d["market"] + deck[:gaps])
    d["deck"] = deck[gaps:]
    return True


def _set_hand(d: dict[str, Any], p: int, hand: Sequence[int]) -> None:
    d["players"][p]["hand"] = letters_of(hand)


def apply(d: dict[str, Any], move: str) -> dict[str, Any]:
    """Play ``move`` (canonical text; see :func:`canonical`) and return the new state.

    The input dict is not modified.  Raises ``ValueError`` if the move is not
    legal in ``d`` (including any move once the round is over).
    """
    text = canonical(move)
    if text not in legal_moves(d):
        raise ValueError(f"{move!r}: not a legal move in this position")

    d = copy.deepcopy(d)
    p = d["to_move"]
    me = d["players"][p]
    hand = _hand(d, p)
    known = counts_of(me["known"])[:GOODS]
    market = _market(d)
    refill_ok = True
    words = text.split()

    if words[0] == "take":
        g = LETTERS.index(words[1])
        hand[g] += 1
        known[g] += 1
        market[g] -= 1
        d["market"] = letters_of(market)
        refill_ok = _refill(d, 1)

    elif words[0] == "camels":
        n = market[CAMEL]
        me["herd"] += n
        market[CAMEL] = 0
        d["market"] = letters_of(market)
        refill_ok = _refill(d, n)

    elif words[0] == "sell":
        n, g = int(words[1][:-1]), LETTERS.index(words[1][-1])
        letter = LETTERS[g]
        hand[g] -= n
        known[g] = max(0, known[g] - n)
        d["discard"] = _sort_cards(d["discard"] + letter * n)
        stack = d["tokens"][letter]
        got = min(n, len(stack))
        me["tokens"][letter].extend(stack[:got])
        d["tokens"][letter] = stack[got:]
        if n >= 3:
            kind = BONUS_KINDS[min(n, 5) - 3]
            if d["bonus"][kind]:
                me["bonus"][kind].append(d["bonus"][kind][0])
                d["bonus"][kind] = d["bonus"][kind][1:]

    else:  # swap
        taken = counts_of(words[1])
        given = counts_of(words[3])
        for t in range(TYPES):
            market[t] += given[t] - taken[t]
        for g in range(GOODS):
            hand[g] += taken[g] - given[g]
            known[g] += taken[g]
            known[g] = max(0, known[g] - given[g])
        me["herd"] -= given[CAMEL]
        d["market"] = letters_of(market)

    _set_hand(d, p, hand)
    me["known"] = letters_of(known)
    d["to_move"] = 1 - p

    if not refill_ok or _empty_stacks(d) >= 3:
        winner = round_winner(d)
        d["result"] = winner
        if winner != "draw":
            d["seals"][winner] += 1
    return d


# --------------------------------------------------------------------------
# Scoring
# --------------------------------------------------------------------------

def _goods_tokens(player: dict[str, Any]) -> list[int]:
    return [v for g in GOOD_LETTERS for v in player["tokens"][g]]


def _bonus_tokens(player: dict[str, Any]) -> list[int]:
    return [v for k in BONUS_KINDS for v in player["bonus"][k]]


def round_totals(d: dict[str, Any]) -> tuple[int, int]:
    """Each player's rupees: goods tokens + bonus tokens + camel token.

    The camel token (5) goes to the player with strictly more camels in the
    herd; with equal herds nobody gets it (R6).
    """
    totals = [sum(_goods_tokens(pl)) + sum(_bonus_tokens(pl)) for pl in d["players"]]
    herds = [pl["herd"] for pl in d["players"]]
    if herds[0] != herds[1]:
        totals[0 if herds[0] > herds[1] else 1] += CAMEL_TOKEN
    return totals[0], totals[1]


def round_winner(d: dict[str, Any]) -> Winner:
    """Who gets the round's seal: 0, 1 or ``"draw"`` (R6).

    Higher total wins; tie: more bonus tokens; tie: more goods tokens; still
    tied: a draw.
    """
    totals = round_totals(d)
    keys = [
        (totals[p], len(_bonus_tokens(pl)), len(_goods_tokens(pl)))
        for p, pl in enumerate(d["players"])
    ]
    if keys[0] == keys[1]:
        return "draw"
    return 0 if keys[0] > keys[1] else 1


# --------------------------------------------------------------------------
# Helpers for tests
# --------------------------------------------------------------------------

def random_game(d: dict[str, Any], rng: random.Random, max_plies: int = 10_000) -> list[str]:
    """Play uniformly random legal moves until the round is over.

    Returns the moves played.  Stops early (round still running) after
    ``max_plies`` moves, so a caller can detect a round that does not end.
    """
    moves: list[str] = []
    while d["result"] is None and len(moves) < max_plies:
        move = rng.choice(legal_moves(d))
        d = apply(d, move)
        moves.append(move)
    return moves


def deal(
    rng: random.Random,
    *,
    starter: int = 0,
    bonus_set: str = "standard",
    round_no: int = 1,
    seals: tuple[int, int] = (0, 0),
) -> dict[str, Any]:
    """A fresh round dealt as docs/rules.md says (section 2, "Set-up of a round"), shuffled with ``rng``.

    3 camels go to the market, the other 52 cards are shuffled, 5 go to each
    player (camels to the herd), 2 complete the market and the rest is the deck.
    Bonus stacks are shuffled separately.
    """
    cards = [LETTERS[t] for t in range(TYPES) for _ in range(CARD_TOTALS[t])]
    for _ in range(3):
        cards.remove(CAMEL_LETTER)
    rng.shuffle(cards)
    hands, cards = [cards[:5], cards[5:10]], cards[10:]
    market, deck = [CAMEL_LETTER] * 3 + cards[:MARKET_SIZE - 3], cards[MARKET_SIZE - 3:]

    bonus = {}
    for kind, values in zip(BONUS_KINDS, BONUS_SETS[bonus_set]):
        stack = list(values)
        rng.shuffle(stack)
        bonus[kind] = stack

    def player(cards_in_hand: list[str]) -> dict[str, Any]:
        return {
            "hand": _sort_cards("".join(c for c in cards_in_hand if c != CAMEL_LETTER)),
            "herd": cards_in_hand.count(CAMEL_LETTER),
            "known": "",
            "tokens": {g: [] for g in GOOD_LETTERS},
            "bonus": {k: [] for k in BONUS_KINDS},
        }

    return {
        "format": "jaipur-state/1",
        "bonus_set": bonus_set,
        "round": round_no,
        "starter": starter,
        "to_move": starter,
        "seals": list(seals),
        "result": None,
        "market": _sort_cards("".join(market)),
        "deck": "".join(deck),
        "discard": "",
        "tokens": {g: list(TOKENS[i]) for i, g in enumerate(GOOD_LETTERS)},
        "bonus": bonus,
        "players": [player(hands[0]), player(hands[1])],
    }
