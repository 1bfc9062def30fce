"""Reading moves: the checks of a move's parts (a good, a count, a swap's two sides) and
the forgiving text parser of :meth:`jaipur_ai.Move.parse`.  Both describe a move as its
parts, ``(kind, good, count, take, give)``, which :class:`~jaipur_ai.Move` builds; a
failure is :class:`Reject` with the reason, which the public entry points turn into an
InvalidMoveError naming the text they were given."""
from __future__ import annotations

import numbers
import operator
import re
from collections.abc import Iterable, Mapping
from typing import Any, Optional, Sequence, Union

from jaipur_ai.errors import safe_repr
from jaipur_ai.rules._cards import (CAMEL, GOODS, HAND_LIMIT, LETTERS, MARKET_SIZE, NAMES,
                                    PRECIOUS, TYPES)

__all__ = ["Reject", "Parts", "parse", "check_hand", "as_int", "good_type", "counts", "check_sell",
           "check_swap", "SELL_MAX", "SWAP_MIN", "SWAP_MAX", "GIVE_LIMITS"]

#: A move as its parts: kind, good (or None), count, goods taken (6 counts, or None),
#: cards given (7 counts, or None).
Parts = tuple[str, Optional[int], int, Optional[tuple[int, ...]], Optional[tuple[int, ...]]]

SELL_MAX = 7                        # the most cards of one good a sale can hold
SWAP_MIN, SWAP_MAX = 2, MARKET_SIZE   # the cards a swap takes
GIVE_LIMITS = tuple(HAND_LIMIT if t < GOODS else 11 for t in range(TYPES))  # by type


# ---------------------------------------------------------------------------
# Validation: private helpers raise Reject(reason); public entry points turn it
# into InvalidMoveError(text, reason) with the text they were given.

class Reject(Exception):
    """A move text or part refused; ``by_rule``: it reads as a move, which no rule of
    Jaipur allows (a sale of 1 silver), rather than text that is no move at all."""

    def __init__(self, reason: str, by_rule: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.by_rule = by_rule


def as_int(value: Any, what: str) -> int:
    if isinstance(value, bool):
        raise Reject(f"{what} must be an int, got bool")
    try:
        return operator.index(value)
    except TypeError:
        raise Reject(f"{what} must be an int, got {type(value).__name__}") from None


_NAME_TYPES = {}
for _t, _name in enumerate(NAMES):
    _NAME_TYPES[_name] = _t
    _NAME_TYPES[_name + "s"] = _t
_NAME_TYPES.update({"clothes": 3, "pepper": 4, "peppers": 4})
del _t, _name
_LETTER_TYPES = {c.lower(): t for t, c in enumerate(LETTERS)}
_NUMBER_WORDS = {w: i for i, w in enumerate(
    ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"))}
_FILLERS = frozenset(("a", "an", "the", "and", "of", "card", "cards", "+", "&"))
_ALL = -1                # "all": every card of the good that follows, in the hand


def _card_type(good: Union[int, str]) -> int:
    """A card type from an int 0..6, a letter or a name (singular or plural)."""
    if isinstance(good, str):
        key = good.strip().lower()
        if key in _LETTER_TYPES:
            return _LETTER_TYPES[key]
        if key in _NAME_TYPES:
            return _NAME_TYPES[key]
        if len(key) == 1:
            raise Reject(f"unknown card letter {good.strip().upper()!r}")
        raise Reject(f"unknown card {safe_repr(good)} (cards are {' '.join(LETTERS)} or their names)")
    t = as_int(good, "a card type")
    if not 0 <= t < TYPES:
        raise Reject(f"card type {t} is out of range 0..{TYPES - 1}")
    return t


def good_type(good: Union[int, str], kind: str) -> int:
    t = _card_type(good)
    if t == CAMEL:
        raise Reject("camels cannot be sold" if kind == "sell"
                      else "take camels with 'camels' (all of them), not 'take'")
    return t


def counts(cards: Any, n: int, what: str) -> tuple[Any, ...]:
    """Card text (``"DG"``) or an iterable of 6 or 7 counts by type -> ``n`` counts."""
    if isinstance(cards, str):
        counts = _parse_cards(cards)[0]
    elif isinstance(cards, Iterable) and not isinstance(cards, (bytes, bytearray)):
        cards = list(cards)                     # a list, tuple, numpy array...
        if len(cards) not in (GOODS, TYPES):
            raise Reject(f"{what} needs {GOODS} or {TYPES} counts, got {len(cards)}")
        counts = [as_int(c, f"a count in {what}") for c in cards]
        if any(c < 0 for c in counts):
            raise Reject(f"negative count in {what}")
        counts += [0] * (TYPES - len(counts))
    else:
        raise Reject(f"{what} must be a str of cards or a sequence of counts, "
                      f"got {type(cards).__name__}")
    if n == GOODS and counts[CAMEL]:
        raise Reject("a swap cannot take camels")
    return tuple(counts[:n])


def check_sell(t: int, n: int) -> None:
    if n < 1:
        raise Reject("a sale needs at least 1 card", by_rule=True)
    if n > SELL_MAX:
        raise Reject(f"a sale is of at most {SELL_MAX} cards (the hand limit)", by_rule=True)
    if t in PRECIOUS and n < 2:
        raise Reject(f"{NAMES[t]} needs a sale of at least 2 cards", by_rule=True)


def check_swap(take: tuple[int, ...], give: tuple[int, ...]) -> None:
    for t, c in enumerate(give):
        if c > GIVE_LIMITS[t]:
            raise Reject(f"a swap cannot give {c} {NAMES[t]} (at most {GIVE_LIMITS[t]})",
                         by_rule=True)
    k, g = sum(take), sum(give)
    if k != g:
        raise Reject(f"a swap needs as many cards given as taken ({k} taken, {g} given)",
                     by_rule=True)
    if k < SWAP_MIN:
        raise Reject("a swap takes at least 2 goods (use 'take X' for one)", by_rule=True)
    if k > SWAP_MAX:
        raise Reject(f"a swap takes at most {SWAP_MAX} cards (the market holds {SWAP_MAX})",
                     by_rule=True)
    both = "".join(LETTERS[t] for t in range(GOODS) if take[t] and give[t])
    if both:
        raise Reject(f"a swap cannot give back a type it takes ({both})", by_rule=True)


# ---------------------------------------------------------------------------
# Parsing

_VERB = re.compile(r"(take|sell|swap|exchange|trade|camels?)(?![a-z])")
_SEPARATOR = re.compile(r"\s*(?:<->|->|=>|→|>|/|-)\s*|\s+for\s+")
_TIMES = re.compile(r"\s*[x×*]\s*([0-9]+)(?![0-9])")
_TOKEN = re.compile(r"[0-9]+|\*|[a-z]+|\S")


def _is_number(tok: str) -> bool:
    return tok.isascii() and tok.isdigit()      # not "²" or "٣"


def _number(tok: str) -> int:
    return int(tok) if len(tok) <= 6 else 10 ** 6


def _parse_cards(text: str, hand: Optional[Sequence[int]] = None) -> Any:
    """Card text -> (7 counts, set of types named).

    Accepts letters (``DDG``), names (``diamonds``), counts (``2D``, ``2 diamonds``,
    ``D x2``), ``all`` (every card of the good that follows in ``hand``, the 7 counts
    of the mover's hand with the herd as camels; without a hand "all" is an error) and
    fillers (``and``, ``a``, ``+``).
    """
    # (whitespace runs first collapsed: the patterns then never rescan a long run)
    s = _TIMES.sub(r" * \1", " ".join(text.lower().replace(",", " ").split()))
    counts = [0] * TYPES
    named = set()
    pending = None           # a count waiting for its card
    last = None              # (type, explicit) of the last single-type item, for "x3"
    toks = _TOKEN.findall(s)
    i = 0
    while i < len(toks):
        tok = toks[i]
        i += 1
        if _is_number(tok) or tok in _NUMBER_WORDS:
            if pending is not None:
                raise Reject(f"unexpected number {safe_repr(tok)}")
            pending = _number(tok) if _is_number(tok) else _NUMBER_WORDS[tok]
            continue
        if tok == "all":
            if pending is not None:
                raise Reject("unexpected 'all'")
            pending = _ALL
            continue
        if tok == "*":
            if i < len(toks) and _is_number(toks[i]) and last is not None and not last[1] \
                    and pending is None:
                counts[last[0]] += _number(toks[i]) - 1
                last = (last[0], True)
                i += 1
                continue
            raise Reject("a multiplier such as 'x3' must follow a single card")
        if tok in _FILLERS:
            continue
        if tok in _NAME_TYPES:
            item = [_NAME_TYPES[tok]]
        elif tok.isalpha() and tok.isascii():
            bad = [c for c in tok if c not in _LETTER_TYPES]
            if bad:
                if len(tok) >= 3 and any(c in "aeiou" for c in tok):
                    raise Reject(f"unknown card {safe_repr(tok)} (cards are {' '.join(LETTERS)}"
                                  " or their names)")
                where = f" in {tok.upper()!r}" if len(tok) > 1 else ""
                raise Reject(f"unknown card letter {bad[0].upper()!r}{where}")
            item = [_LETTER_TYPES[c] for c in tok]
        else:
            raise Reject(f"unexpected character {safe_repr(tok)}")
        if pending is not None:
            if len(item) != 1:
                raise Reject(f"a count applies to a single card letter, not {tok.upper()!r}")
            if pending == _ALL:
                if hand is None:
                    raise Reject("'all' counts the cards in the hand, which a move text "
                                  "alone does not know: give the number (e.g. 'sell 3L')")
                pending = int(hand[item[0]])
                if pending == 0:
                    raise Reject(f"'all' {NAMES[item[0]]}: the hand holds no "
                                 f"{NAMES[item[0]]}")
            counts[item[0]] += pending
            named.add(item[0])
            last = (item[0], True)
            pending = None
        else:
            for t in item:
                counts[t] += 1
                named.add(t)
            last = (item[0], False) if len(item) == 1 else None
    if pending == _ALL:
        raise Reject("'all' needs a card after it (e.g. 'sell all L')")
    if pending is not None:
        raise Reject("a count needs a card after it (e.g. '3L')")
    return counts, named


def _parse_take(rest: str) -> Parts:
    rest = re.sub(r"\ball\s+(?=camel)", "", rest)      # "take all camels": camels
    counts, named = _parse_cards(rest)
    if not named:
        raise Reject("take what? (e.g. 'take D', or 'camels')")
    if named == {CAMEL}:
        if counts[CAMEL] == 0:
            raise Reject("take at least one card")
        return ("camels", None, 0, None, None)
    if CAMEL in named:
        raise Reject("take one good, or all camels with 'camels'")
    if len(named) > 1 or sum(counts) > 1:
        raise Reject("'take' takes a single good; use 'swap' to take several")
    (t,) = named
    if counts[t] != 1:
        raise Reject("'take' takes exactly one good")
    return ("take", t, 1, None, None)


def _parse_sell(rest: str, hand: Optional[Sequence[int]] = None) -> Parts:
    if "the" in rest.split():
        raise Reject("'the' does not say how many cards are sold: give the number or "
                      "'all' (e.g. 'sell 3L', 'sell all L')")
    counts, named = _parse_cards(rest, hand)
    if not named:
        raise Reject("sell what? (e.g. 'sell 3L')")
    if CAMEL in named:
        raise Reject("camels cannot be sold")
    if len(named) > 1:
        raise Reject("a sale is of one good type")
    (t,) = named
    check_sell(t, counts[t])
    return ("sell", t, counts[t], None, None)


def _parse_swap(rest: str, hand: Optional[Sequence[int]] = None) -> Parts:
    parts = _SEPARATOR.split(rest.strip())
    if len(parts) == 1:
        parts = rest.split()
        if len(parts) != 2:
            raise Reject("a swap is written 'swap TAKEN for GIVEN' (e.g. 'swap DG for LM')")
    elif len(parts) != 2:
        raise Reject("a swap has one 'for' between the cards taken and the cards given")
    if not parts[0].strip() or not parts[1].strip():
        raise Reject("a swap is written 'swap TAKEN for GIVEN' (e.g. 'swap DG for LM')")
    take7, _ = _parse_cards(parts[0])
    give, _ = _parse_cards(parts[1], hand)
    if take7[CAMEL]:
        raise Reject("a swap cannot take camels")
    take = tuple(take7[:GOODS])
    give = tuple(give)
    check_swap(take, give)
    return ("swap", None, sum(take), take, give)


def check_hand(hand: Any) -> tuple[int, ...]:
    """The mover's hand as 7 counts (the six goods, then the herd as camels), each a whole
    number in range; Reject naming ``hand`` otherwise (a float, a dict, too few counts)."""
    if isinstance(hand, (str, bytes, Mapping)) or not hasattr(hand, "__len__") \
            or not hasattr(hand, "__getitem__"):
        raise Reject(f"hand: expected 7 counts (D G S C P L, then camels), got "
                     f"{type(hand).__name__}")
    if len(hand) != TYPES:
        raise Reject(f"hand: expected 7 counts (D G S C P L, then camels), got {len(hand)}")
    out = []
    for t, n in enumerate(hand):
        if isinstance(n, bool) or not isinstance(n, numbers.Integral):
            raise Reject(f"hand: count {t} must be a whole number, got {safe_repr(n)}")
        k = int(n)
        if not 0 <= k <= GIVE_LIMITS[t]:
            raise Reject(f"hand: count {t} must be 0..{GIVE_LIMITS[t]}, got {k}")
        out.append(k)
    return tuple(out)


def parse(text: str, hand: Optional[Sequence[int]] = None) -> Parts:
    bad = next((c for c in text if not c.isprintable() and not c.isspace()), None)
    if bad is not None:
        raise Reject(f"holds a control character, {bad!r}")
    s = " ".join(text.lower().split())
    if not s:
        raise Reject("empty move text")
    m = _VERB.match(s)
    if m is None:
        if _SEPARATOR.search(s):
            return _parse_swap(s, hand)
        word = s.split()[0]
        raise Reject(f"unknown move {safe_repr(word)} (expected take, camels, sell or swap)")
    verb, rest = m.group(1), s[m.end():]
    if verb.startswith("camel"):
        if rest.strip():
            raise Reject("'camels' takes no cards (it takes all camels in the market)")
        return ("camels", None, 0, None, None)
    if verb == "take":
        if _SEPARATOR.search(rest):
            return _parse_swap(rest, hand)
        return _parse_take(rest)
    if verb == "sell":
        return _parse_sell(rest, hand)
    return _parse_swap(rest, hand)
