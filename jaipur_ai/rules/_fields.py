"""Reading and writing the parts that states and views share.

Every reader takes the name of the field it reads, so that an error says where
the position is wrong (``players[1].hand: ...``), and raises
:class:`~jaipur_ai.errors.InvalidPositionError` for anything malformed: a wrong
type, an unknown letter, a count out of range.  Nothing here touches the core.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Sequence

from jaipur_ai.rules._cards import (BONUS_KINDS, BONUS_SETS, CAMEL, CARD_TOTALS, GOODS, HAND_LIMIT,
                     LETTERS, NAMES, TOKENS, TYPES)
from jaipur_ai.errors import InvalidPositionError, safe_repr

RESULT_TEXT = {None: "-", 0: "0", 1: "1", "draw": "="}
TEXT_RESULT = {v: k for k, v in RESULT_TEXT.items()}


def fail(field: str, reason: str) -> InvalidPositionError:
    return InvalidPositionError(field, reason)


def get(d: Any, key: str, field: str) -> Any:
    if not isinstance(d, dict):
        raise fail(field or "position", f"expected an object, got {type(d).__name__}")
    if key not in d:
        raise fail(f"{field}.{key}" if field else key, "missing")
    return d[key]


MAX_NESTING = 6   # a position's JSON nests 4 levels (players -> [0] -> tokens -> D)


def check_nesting(x: Any, field: str = "position", limit: int = MAX_NESTING) -> None:
    """Refuse containers nested deeper than a position can be (checked without
    recursion, before anything else reads them)."""
    stack = [(x, 0)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, dict):
            items: Any = v.values()
        elif isinstance(v, (list, tuple)):
            items = v
        else:
            continue
        if depth >= limit:
            raise fail(field, f"nested more than {limit} levels deep: a position nests "
                              f"at most 4")
        stack.extend((c, depth + 1) for c in items)


def as_int(x: Any, field: str, lo: int, hi: int) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        raise fail(field, f"expected an integer, got {safe_repr(x)}")
    if not lo <= x <= hi:
        raise fail(field, f"{x} is out of range {lo}..{hi}")
    return x


def cards(text: Any, field: str, allow_camels: bool = True) -> list[int]:
    """Letters (``"DDLM"``; ``""`` or ``"-"`` for none) -> counts by type."""
    if not isinstance(text, str):
        raise fail(field, f"expected a string of card letters, got {safe_repr(text)}")
    counts = [0] * TYPES
    for ch in text.strip():
        if ch == "-" and text.strip() == "-":
            break
        t = LETTERS.find(ch.upper()) if ch.isascii() else -1   # ("ſ".upper() is "S")
        if t < 0:
            raise fail(field, f"unknown card letter {safe_repr(ch)} (cards are {LETTERS})")
        if t == CAMEL and not allow_camels:
            raise fail(field, "camels never stay in a hand: they go to the herd")
        counts[t] += 1
    return counts


def card_list(text: Any, field: str) -> list[int]:
    """Letters in order (the deck) -> list of types."""
    cards(text, field)  # validates the letters
    s = text.strip()
    return [] if s in ("", "-") else [LETTERS.index(ch.upper()) for ch in s]


def check_sold(taken: Sequence[int], discard: Sequence[int], field: str = "tokens") -> None:
    """Every goods token taken is a card sold, and every card sold lies in the discard
    pile (nothing leaves it): so no more tokens of a good are gone than cards of it
    are discarded."""
    for g in range(GOODS):
        if taken[g] > discard[g]:
            raise fail(field, f"{taken[g]} {NAMES[g]} tokens are gone but the discard pile "
                              f"holds {discard[g]} {NAMES[g]} cards: each token taken is a "
                              "card sold, and sold cards are discarded")


def letters(counts: Sequence[int]) -> str:
    return "".join(LETTERS[t] * int(n) for t, n in enumerate(counts))


def dash(text: str) -> str:
    return text if text else "-"


def int_list(x: Any, field: str, hi: int) -> list[int]:
    if not isinstance(x, (list, tuple)):
        raise fail(field, f"expected a list of values, got {safe_repr(x)}")
    return [as_int(v, f"{field}[{i}]", 0, hi) for i, v in enumerate(x)]


def good_map(x: Any, field: str) -> dict[int, Any]:
    """``{"D": ..., "G": ..., ...}`` with every good present -> {type: value}."""
    if not isinstance(x, dict):
        raise fail(field, f"expected an object keyed by good letter, got {safe_repr(x)}")
    out = {}
    for key in x:
        if not isinstance(key, str) or key not in tuple(LETTERS[:GOODS]):
            raise fail(field, f"unknown good {safe_repr(key)} (goods are {LETTERS[:GOODS]})")
    for g in range(GOODS):
        letter = LETTERS[g]
        if letter not in x:
            raise fail(f"{field}.{letter}", "missing")
        out[g] = x[letter]
    return out


def kind_map(x: Any, field: str) -> dict[int, Any]:
    """``{"3": ..., "4": ..., "5": ...}`` -> {kind index: value}."""
    if not isinstance(x, dict):
        raise fail(field, f"expected an object keyed by \"3\", \"4\", \"5\", got {safe_repr(x)}")
    for key in x:
        if str(key) not in BONUS_KINDS:
            raise fail(field, f"unknown bonus kind {safe_repr(key)} (kinds are 3, 4, 5)")
    out = {}
    for k, name in enumerate(BONUS_KINDS):
        if name not in x:
            raise fail(f"{field}.{name}", "missing")
        out[k] = x[name]
    return out


def remaining_tokens(x: Any, field: str) -> list[int]:
    """Remaining goods-token stacks -> how many tokens were taken from each.

    Each stack must be a suffix of the real one (docs/rules.md, section 1, "Goods tokens")."""
    stacks = good_map(x, field)
    taken = []
    for g in range(GOODS):
        f = f"{field}.{LETTERS[g]}"
        rest = int_list(stacks[g], f, 9)
        full = TOKENS[g]
        if len(rest) > len(full) or tuple(rest) != full[len(full) - len(rest):]:
            raise fail(f, f"{rest} is not what is left of the {NAMES[g]} stack "
                          f"{list(full)}: it must be a suffix of it (top first)")
        taken.append(len(full) - len(rest))
    return taken


def token_owners(taken: list[int], held: Sequence[Sequence[list[int]]], field: str) -> list[int]:
    """Owner bit masks (bit i: token i went to player 1) from what each player holds.

    The taken tokens of a stack are its top ``taken[g]``; the values the two players
    hold must be exactly those.  Player 0's tokens are placed first where values tie,
    which makes the mask canonical."""
    masks = []
    for g in range(GOODS):
        top = TOKENS[g][:taken[g]]
        got = [Counter(held[p][g]) for p in range(2)]
        if got[0] + got[1] != Counter(top):
            raise fail(f"{field}.{LETTERS[g]}",
                       f"the players hold {sorted(held[0][g] + held[1][g], reverse=True)} "
                       f"but the tokens gone from the stack are {list(top)}")
        mask = 0
        for i, v in enumerate(top):
            if got[0][v]:
                got[0][v] -= 1
            else:
                got[1][v] -= 1
                mask |= 1 << i
        masks.append(mask)
    return masks


def held_tokens(x: Any, field: str) -> list[list[int]]:
    m = good_map(x, field)
    return [int_list(m[g], f"{field}.{LETTERS[g]}", 9) for g in range(GOODS)]


def owners_to_held(taken: list[int], masks: list[int]) -> list[dict[str, list[int]]]:
    held: list[dict[str, list[int]]] = [{L: [] for L in LETTERS[:GOODS]} for _ in range(2)]
    for g in range(GOODS):
        for i in range(taken[g]):
            held[(masks[g] >> i) & 1][LETTERS[g]].append(TOKENS[g][i])
    return held


def bonus_set_name(x: Any, field: str = "bonus_set") -> str:
    if not isinstance(x, str) or x not in BONUS_SETS:
        raise fail(field, f"unknown bonus set {safe_repr(x)} (known: {', '.join(BONUS_SETS)})")
    return x


def check_bonus_multiset(bonus_set: str, k: int, values: list[int], field: str, exact: bool) -> None:
    """The bonus values of a kind seen so far fit the set (exactly, if exact)."""
    full = Counter(BONUS_SETS[bonus_set][k])
    got = Counter(values)
    if got - full:
        raise fail(field, f"bonus values {sorted(values)} are not in the "
                          f"{BONUS_KINDS[k]}-card set {list(BONUS_SETS[bonus_set][k])}")
    if exact and got != full:
        raise fail(field, f"the {BONUS_KINDS[k]}-card bonus tokens {sorted(values)} "
                          f"must be the whole set {list(BONUS_SETS[bonus_set][k])}")


def check_card_totals(counts: list[int], field: str, exact: bool) -> None:
    for t in range(TYPES):
        if counts[t] > CARD_TOTALS[t]:
            raise fail(field, f"{counts[t]} {NAMES[t]} cards in play, the game has {CARD_TOTALS[t]}")
        if exact and counts[t] < CARD_TOTALS[t]:
            raise fail(field, f"only {counts[t]} of the {CARD_TOTALS[t]} {NAMES[t]} cards "
                              f"are accounted for")


def check_hand(hand: list[int], field: str) -> None:
    n = sum(hand[:GOODS])
    if n > HAND_LIMIT:
        raise fail(field, f"{n} goods in hand, the limit is {HAND_LIMIT}")


def check_known(known: list[int], hand: list[int], field: str) -> None:
    for g in range(GOODS):
        if known[g] > hand[g]:
            raise fail(field, f"{known[g]} {NAMES[g]} known to be in a hand that holds {hand[g]}")


def result_value(x: Any, field: str = "result") -> Any:
    if x is None or x == "draw" or (type(x) is int and x in (0, 1)):
        return x
    raise fail(field, f"expected null, 0, 1 or \"draw\", got {safe_repr(x)}")


def digits(values: list[int]) -> str:
    """Token values as one character each (10 is ``T``)."""
    return dash("".join("T" if v == 10 else str(v) for v in values))


def parse_digits(text: str, field: str) -> list[int]:
    if text == "-":
        return []
    out = []
    for ch in text:
        if ch in "Tt":
            out.append(10)
        elif is_digits(ch):
            out.append(int(ch))
        else:
            raise fail(field, f"unexpected {safe_repr(ch)} in token values {safe_repr(text)}")
    return out


def split(text: str, sep: str, n: int, field: str) -> list[str]:
    parts = text.split(sep)
    if len(parts) != n:
        raise fail(field, f"expected {n} parts separated by {safe_repr(sep)}, got {safe_repr(text)}")
    return parts


def parse_int(text: str, field: str, lo: int, hi: int) -> int:
    if not is_digits(text) or len(text) > 3:
        raise fail(field, f"expected a number, got {safe_repr(text)}")
    return as_int(int(text), field, lo, hi)


def is_digits(text: str) -> bool:
    """ASCII digits only (``str.isdigit`` also accepts "²" and other scripts)."""
    return bool(text) and text.isascii() and text.isdigit()


def check_seals(seals: list[int], round_no: int, result: Any, field: str = "seals") -> None:
    """Seals that a match can reach: before this round nobody had two seals and at
    most one seal was given per finished round; a won round adds one to its winner."""
    before = list(seals)
    if result in (0, 1):
        if seals[result] < 1:
            raise fail(field, f"player {result} won the round but holds no seal")
        before[result] -= 1
    if max(before) >= 2:
        raise fail(field, f"{seals} is not reachable: the match ended at two seals "
                          f"before this round")
    if sum(before) > round_no - 1:
        raise fail(field, f"{sum(before)} seals from {round_no - 1} finished rounds before "
                          f"round {round_no}")


def check_round_end(result: Any, market: list[int], deck_size: int, empty_stacks: int) -> None:
    """A round is over exactly when three stacks are empty or a refill failed."""
    size = sum(market)
    ended_by_deck = size < 5 and deck_size < 5 - size
    if result is None:
        if size != 5:
            raise fail("market", f"{size} cards, the market holds 5 while the round runs")
        if empty_stacks >= 3:
            raise fail("tokens", f"{empty_stacks} goods-token stacks are empty, so the round "
                                 f"is over, but result is null")
    elif empty_stacks < 3 and not ended_by_deck:
        raise fail("result", f"the round cannot be over: {empty_stacks} stacks are empty and "
                             f"the market ({size} cards) could still be refilled from a deck "
                             f"of {deck_size}")


def load_json(text: Any) -> Any:
    """json.loads with every failure (syntax, nesting too deep, wrong type) as
    InvalidPositionError."""
    import json
    try:
        return json.loads(text)
    except (TypeError, ValueError, RecursionError) as e:
        raise fail("json", f"not valid JSON: {e}") from None


def found(word: str) -> str:
    """What a position's text began with, said plainly: the other tag, or the text."""
    if word == "V":
        return "not with V (that is a view)"
    if word == "S":
        return "not with S (that is a state)"
    if not word:
        return "but the text is empty"
    return f"but this one starts with {safe_repr(word[:20])}"


def text_fields(text: Any, tag: str, n: int) -> tuple[list[str], str]:
    """Split a one-line form whose first field is ``tag`` into its ``n`` fields and
    the optional bonus-set field after them (``"standard"`` when absent)."""
    what = "state" if tag == "S" else "view"
    if not isinstance(text, str):
        raise fail("text", f"expected a string, got {type(text).__name__}")
    bad = next((i for i, c in enumerate(text) if not c.isprintable() and not c.isspace()), None)
    if bad is not None:         # (else a field would be blamed for a stray NUL or escape)
        raise fail("text", f"holds a control character, {text[bad]!r}, at column {bad + 1}")
    parts = text.split()
    if not parts or parts[0] != tag:
        raise fail("text", f"a {what}'s text form starts with {safe_repr(tag)}, "
                           f"{found(parts[0] if parts else '')}")
    if len(parts) not in (n, n + 1):
        raise fail("text", f"expected {n} or {n + 1} space-separated fields, got {len(parts)}")
    return parts[:n], parts[n] if len(parts) == n + 1 else "standard"
