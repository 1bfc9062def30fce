"""One test (or a few) per figure and ruling of docs/rules.md (its figures in
section 1 and its rulings R1 to R8, section "The rulings").

Every test runs against both rules engines through the ``impl`` fixture
(tests/conftest.py): the pure-Python oracle and the compiled core.  Positions
are built by hand as JSON dicts (docs/notation.md) with :func:`make_state`,
which accounts for all 55 cards.  R7 (who starts) and R8
(information set) are tested elsewhere.
"""
from __future__ import annotations

import random

import pytest

from jaipur_ai.rules import _reference
from jaipur_ai.rules._cards import (
    BONUS_KINDS,
    BONUS_SETS,
    CAMEL_TOKEN,
    CARD_TOTALS,
    HAND_LIMIT,
    LETTERS,
    SEALS_TO_WIN,
    TOKENS,
)

GOOD_LETTERS = LETTERS[:6]
STANDARD_BONUS = {k: list(v) for k, v in zip(BONUS_KINDS, BONUS_SETS["standard"])}


# --------------------------------------------------------------------------
# Building positions
# --------------------------------------------------------------------------

def counts(cards: str) -> list[int]:
    return [cards.count(ch) for ch in LETTERS]


def cards(s: str) -> str:
    """A card multiset in canonical order, to compare multisets."""
    return "".join(sorted(s, key=LETTERS.index))


def make_state(
    *,
    market: str = "DGSCP",
    hands: tuple[str, str] = ("", ""),
    herds: tuple[int, int] = (0, 0),
    known: tuple[str, str] = ("", ""),
    deck: str | None = None,
    deck_top: str = "",
    discard: str | None = None,
    taken: dict[str, str] | None = None,
    bonus: dict[str, list[int]] | None = None,
    bonus_taken: dict[str, str] | None = None,
    to_move: int = 0,
    seals: tuple[int, int] = (0, 0),
) -> dict:
    """A valid full state (JSON dict) from a few overrides.

    * ``taken``: by good letter, who took each goods token from the top of the
      stack, e.g. ``{"D": "01"}``: player 0 took the 7, player 1 the next 7.
    * ``bonus``: bonus stacks in drawing order (default: the standard figures in
      table order); ``bonus_taken`` like ``taken`` for the bonus stacks.
    * ``deck``: the whole draw pile, top first; the goods not placed elsewhere go
      to the discard pile (camels must all be placed).  Without ``deck`` the deck
      is ``deck_top`` followed by every card not placed elsewhere.
    * ``discard`` defaults to one card per goods token taken.
    """
    taken = taken or {}
    bonus = {k: list(v) for k, v in (bonus or STANDARD_BONUS).items()}
    bonus_taken = bonus_taken or {}

    if discard is None:
        discard = "".join(g * len(taken.get(g, "")) for g in GOOD_LETTERS)
    placed = counts(market + hands[0] + hands[1] + "M" * (herds[0] + herds[1]) + discard)
    if deck is None:
        placed = [a + b for a, b in zip(placed, counts(deck_top))]
        rest = [total - n for total, n in zip(CARD_TOTALS, placed)]
        assert min(rest) >= 0, f"too many cards placed: {placed}"
        deck = deck_top + "".join(LETTERS[t] * n for t, n in enumerate(rest))
    else:
        assert not deck_top
        placed = [a + b for a, b in zip(placed, counts(deck))]
        rest = [total - n for total, n in zip(CARD_TOTALS, placed)]
        assert min(rest) >= 0, f"too many cards placed: {placed}"
        assert rest[6] == 0, f"{rest[6]} camels not placed"
        discard += "".join(LETTERS[t] * n for t, n in enumerate(rest))

    players = [
        {
            "hand": cards(hands[p]),
            "herd": herds[p],
            "known": cards(known[p]),
            "tokens": {g: [] for g in GOOD_LETTERS},
            "bonus": {k: [] for k in BONUS_KINDS},
        }
        for p in (0, 1)
    ]
    tokens = {}
    for i, g in enumerate(GOOD_LETTERS):
        owners = taken.get(g, "")
        for j, owner in enumerate(owners):
            players[int(owner)]["tokens"][g].append(TOKENS[i][j])
        tokens[g] = list(TOKENS[i][len(owners):])
        assert discard.count(g) >= len(owners), f"fewer {g} sold than tokens taken"
    for k in BONUS_KINDS:
        owners = bonus_taken.get(k, "")
        for j, owner in enumerate(owners):
            players[int(owner)]["bonus"][k].append(bonus[k][j])
        bonus[k] = bonus[k][len(owners):]

    d = {
        "format": "jaipur-state/1",
        "bonus_set": "standard",
        "round": 1,
        "starter": 0,
        "to_move": to_move,
        "seals": list(seals),
        "result": None,
        "market": cards(market),
        "deck": deck,
        "discard": cards(discard),
        "tokens": tokens,
        "bonus": bonus,
        "players": players,
    }
    # Sanity of the hand-made position (the engines validate more).
    assert len(d["market"]) == 5
    assert "M" not in hands[0] + hands[1] + discard
    for p in (0, 1):
        assert len(hands[p]) <= HAND_LIMIT
        assert all(known[p].count(c) <= hands[p].count(c) for c in known[p])
    assert sum(all_cards(d)) == 55
    return d


def all_cards(d: dict) -> list[int]:
    """Every card of the state counted by type."""
    text = d["market"] + d["deck"] + d["discard"]
    text += "".join(pl["hand"] + "M" * pl["herd"] for pl in d["players"])
    return counts(text)


def all_tokens(d: dict) -> int:
    n = sum(len(v) for v in d["tokens"].values())
    return n + sum(len(v) for pl in d["players"] for v in pl["tokens"].values())


def end_position(**kw) -> dict:
    """A position whose move ``take D`` (player 0) ends the round: empty deck.

    Market DGSCM, herds 5/5 unless overridden (11 camels: 1 + 5 + 5).
    """
    kw.setdefault("market", "DGSCM")
    kw.setdefault("herds", (5, 5))
    return make_state(deck="", **kw)


def assert_illegal(impl, d: dict, move: str) -> None:
    assert move not in impl.legal_moves(d)
    with pytest.raises(ValueError):
        impl.apply(d, move)


# --------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------

def test_figure_55_cards(impl):
    assert CARD_TOTALS == (6, 6, 6, 8, 8, 10, 11)
    assert sum(CARD_TOTALS) == 55
    d = _reference.deal(random.Random(7))
    assert all_cards(d) == list(CARD_TOTALS)
    for move in impl.legal_moves(d):
        assert all_cards(impl.apply(d, move)) == list(CARD_TOTALS), move


def test_figure_38_goods_tokens():
    assert TOKENS == (
        (7, 7, 5, 5, 5),
        (6, 6, 5, 5, 5),
        (5, 5, 5, 5, 5),
        (5, 3, 3, 2, 2, 1, 1),
        (5, 3, 3, 2, 2, 1, 1),
        (4, 3, 2, 1, 1, 1, 1, 1, 1),
    )
    assert sum(len(t) for t in TOKENS) == 38


@pytest.mark.parametrize("good", range(6))
def test_figure_goods_tokens_taken_from_the_top(impl, good):
    g = LETTERS[good]
    n = min(CARD_TOTALS[good], HAND_LIMIT)          # sell as many as a hand holds
    d = make_state(hands=(g * n, ""), market="MMMMM")
    after = impl.apply(d, f"sell {n}{g}")
    stack = list(TOKENS[good])
    assert after["players"][0]["tokens"][g] == stack[:n]
    assert after["tokens"][g] == stack[n:]
    assert after["discard"].count(g) == n
    assert all_tokens(after) == 38


def test_figure_bonus_sets():
    assert {k: sorted(v) for k, v in STANDARD_BONUS.items()} == {
        "3": [1, 1, 2, 2, 2, 3, 3],
        "4": [4, 4, 5, 5, 6, 6],
        "5": [8, 8, 9, 10, 10],
    }
    assert [sorted(v) for v in BONUS_SETS["pairs"]] == [
        [1, 1, 2, 2, 3, 3], [4, 4, 5, 5, 6, 6], [8, 8, 9, 9, 10, 10]]


@pytest.mark.parametrize("n, kind", [(3, "3"), (4, "4"), (5, "5"), (6, "5"), (7, "5")])
def test_figure_bonus_by_cards_sold(impl, n, kind):
    bonus = {"3": [3, 1, 1, 2, 2, 2, 3], "4": [6, 4, 4, 5, 5, 6], "5": [9, 8, 8, 10, 10]}
    d = make_state(hands=("L" * n, ""), market="DGSCP", bonus=bonus)
    after = impl.apply(d, f"sell {n}L")
    expected = {k: ([bonus[k][0]] if k == kind else []) for k in BONUS_KINDS}
    assert after["players"][0]["bonus"] == expected
    assert after["bonus"][kind] == bonus[kind][1:]
    for other in BONUS_KINDS:
        if other != kind:
            assert after["bonus"][other] == bonus[other]


def test_figure_no_bonus_below_3(impl):
    d = make_state(hands=("LL", ""))
    after = impl.apply(d, "sell 2L")
    assert after["players"][0]["bonus"] == {"3": [], "4": [], "5": []}
    assert after["bonus"] == d["bonus"]


def test_figure_camel_token_is_5(impl):
    assert CAMEL_TOKEN == 5
    d = make_state(herds=(3, 2), taken={"L": "01"})         # 4 to player 0, 3 to player 1
    assert tuple(impl.round_totals(d)) == (4 + 5, 3)
    d = make_state(herds=(2, 3), taken={"L": "01"})
    assert tuple(impl.round_totals(d)) == (4, 3 + 5)


def test_figure_hand_limit_7_goods_camels_do_not_count(impl):
    d = make_state(hands=("CCCPPL", ""), herds=(9, 0), market="DGSLM")
    assert "take D" in impl.legal_moves(d)
    after = impl.apply(d, "take D")
    assert len(after["players"][0]["hand"]) == 7
    assert after["result"] is None
    after = impl.apply(after, "take G")                      # player 1
    assert not [m for m in impl.legal_moves(after) if m.startswith("take")]


def test_figure_seals_to_win():
    assert SEALS_TO_WIN == 2


# --------------------------------------------------------------------------
# R1: end of a round by the deck
# --------------------------------------------------------------------------

def test_r1_deck_empty_market_full_play_goes_on(impl):
    d = make_state(deck="", hands=("LLL", "CC"), herds=(4, 5), market="DGSMM", discard="")
    moves = impl.legal_moves(d)
    assert "sell 3L" in moves and "swap DG for LL" in moves
    after = impl.apply(d, "sell 3L")
    assert after["result"] is None and after["to_move"] == 1
    after = impl.apply(after, "swap DG for CC")
    assert after["result"] is None and cards(after["market"]) == "SCCMM"
    assert after["deck"] == ""


def test_r1_last_card_drawn_keeps_round_going(impl):
    d = make_state(deck="P", herds=(4, 5), market="DGSMM")
    after = impl.apply(d, "take D")
    assert after["result"] is None
    assert after["deck"] == ""
    assert cards(after["market"]) == "GSPMM"
    assert impl.legal_moves(after)


def test_r1_take_with_empty_deck_ends_round(impl):
    d = make_state(deck="", hands=("L", ""), herds=(4, 5), market="DGSMM", taken={"L": "1"})
    after = impl.apply(d, "take D")
    assert after["result"] == 1
    assert after["seals"] == [0, 1]
    assert after["to_move"] == 1
    assert cards(after["players"][0]["hand"]) == "DL"
    assert cards(after["market"]) == "GSMM"                 # the gap stays
    assert impl.legal_moves(after) == []
    with pytest.raises(ValueError):
        impl.apply(after, "take G")


def test_r1_camels_with_too_few_cards_ends_round_drawing_nothing(impl):
    d = make_state(deck="CP", herds=(3, 5), market="DGMMM", taken={"L": "0"})
    after = impl.apply(d, "camels")
    assert after["players"][0]["herd"] == 6
    assert after["deck"] == "CP"                            # no card drawn at all
    assert cards(after["market"]) == "DG"
    assert after["result"] == 0
    assert after["seals"] == [1, 0]


def test_r1_camels_with_exactly_enough_cards_keeps_round_going(impl):
    d = make_state(deck="CPM", herds=(2, 5), market="DGMMM")
    after = impl.apply(d, "camels")
    assert after["result"] is None
    assert after["deck"] == ""
    assert cards(after["market"]) == "DGCPM"
    assert after["players"][0]["herd"] == 5


# --------------------------------------------------------------------------
# R2: end of a round by tokens; short sales; empty bonus stack
# --------------------------------------------------------------------------

def test_r2_third_empty_stack_ends_round_at_once(impl):
    d = make_state(hands=("", "SS"), taken={"D": "01010", "G": "10101", "S": "000"},
                   to_move=1, herds=(1, 0))
    assert d["tokens"]["S"] == [5, 5]
    after = impl.apply(d, "sell 2S")
    assert after["tokens"]["S"] == []
    assert after["result"] is not None
    assert after["to_move"] == 0
    # player 0: 7+5+5 + 6+5 + 5+5+5 = 43 + camel 5; player 1: 7+5 + 6+5+5 + 5+5 = 38
    assert tuple(impl.round_totals(after)) == (48, 38)
    assert after["result"] == 0 and after["seals"] == [1, 0]
    assert impl.legal_moves(after) == []


def test_r2_two_empty_stacks_do_not_end_round(impl):
    d = make_state(hands=("SS", ""), taken={"D": "01010", "S": "000"})
    after = impl.apply(d, "sell 2S")
    assert after["tokens"]["S"] == [] and after["tokens"]["D"] == []
    assert after["result"] is None
    assert impl.legal_moves(after)


def test_r2_sale_gets_fewer_tokens_bonus_by_cards_sold(impl):
    bonus = {"3": [3, 1, 1, 2, 2, 2, 3], "4": [4, 4, 5, 5, 6, 6], "5": [8, 8, 9, 10, 10]}
    d = make_state(market="PLLMM", hands=("CCC", ""), taken={"C": "01010"}, bonus=bonus)
    assert d["tokens"]["C"] == [1, 1]
    after = impl.apply(d, "sell 3C")
    assert after["players"][0]["tokens"]["C"] == [5, 3, 2, 1, 1]   # 3 earlier + 2 now
    assert after["tokens"]["C"] == []
    assert after["players"][0]["bonus"] == {"3": [3], "4": [], "5": []}
    assert after["bonus"]["3"] == [1, 1, 2, 2, 2, 3]
    assert cards(after["discard"]).count("C") == 8
    assert after["result"] is None                           # only one empty stack


def test_r2_short_sale_emptying_third_stack_ends_round(impl):
    d = make_state(market="PLLMM", hands=("", "GG"), to_move=1,
                   taken={"D": "00000", "S": "11111", "G": "0000"})
    assert d["tokens"]["G"] == [5]
    after = impl.apply(d, "sell 2G")
    assert after["players"][1]["tokens"]["G"] == [5]
    assert after["tokens"]["G"] == []
    assert after["players"][1]["bonus"] == {"3": [], "4": [], "5": []}
    # player 0: 7+7+5+5+5 + 6+6+5+5 = 51; player 1: 5*5 + 5 = 30
    assert tuple(impl.round_totals(after)) == (51, 30)
    assert after["result"] == 0 and after["seals"] == [1, 0]


def test_r2_short_sale_with_bonus_emptying_third_stack_ends_round(impl):
    bonus = {"3": [2, 1, 1, 2, 2, 3, 3], "4": [4, 4, 5, 5, 6, 6], "5": [8, 8, 9, 10, 10]}
    d = make_state(market="PLLMM", hands=("", "CCC"), bonus=bonus, to_move=1,
                   taken={"D": "00000", "S": "00000", "C": "00000"})
    after = impl.apply(d, "sell 3C")
    assert after["players"][1]["tokens"]["C"] == [1, 1]
    assert after["players"][1]["bonus"]["3"] == [2]
    assert tuple(impl.round_totals(after)) == (29 + 25 + 15, 4)
    assert after["result"] == 0
    assert impl.legal_moves(after) == []


def test_r2_empty_bonus_stack_gives_no_bonus(impl):
    d = make_state(hands=("PPP", ""), bonus_taken={"3": "0101011"})
    assert d["bonus"]["3"] == []
    after = impl.apply(d, "sell 3P")
    assert after["players"][0]["tokens"]["P"] == [5, 3, 3]
    assert after["players"][0]["bonus"] == d["players"][0]["bonus"]
    assert after["bonus"] == d["bonus"]


def test_r2_sale_with_empty_token_stack_is_legal(impl):
    # An empty stack leaves at most one card of its good in play (8 C, 7 tokens).
    d = make_state(market="PLLMM", hands=("C", ""), taken={"C": "0101010"})
    assert d["tokens"]["C"] == []
    assert "sell 1C" in impl.legal_moves(d)
    after = impl.apply(d, "sell 1C")
    assert after["players"][0]["tokens"]["C"] == [5, 3, 2, 1]   # nothing new
    assert after["players"][0]["bonus"] == {"3": [], "4": [], "5": []}
    assert cards(after["discard"]).count("C") == 8
    assert after["result"] is None


# --------------------------------------------------------------------------
# R3: exchange
# --------------------------------------------------------------------------

def swaps(moves: list[str]) -> list[tuple[str, str]]:
    return [(m.split()[1], m.split()[3]) for m in moves if m.startswith("swap")]


def test_r3_exchange_takes_at_least_two(impl):
    d = make_state(hands=("LLCC", ""), herds=(3, 0), market="DGSMM")
    found = swaps(impl.legal_moves(d))
    assert found and all(len(t) >= 2 for t, _ in found)
    assert ("DG", "LL") in found
    with pytest.raises(ValueError):
        impl.apply(d, "swap D for L")
    with pytest.raises(ValueError):
        impl.apply(d, "swap D for M")


def test_r3_exchange_never_takes_camels(impl):
    d = make_state(hands=("LLCC", ""), herds=(3, 0), market="DGMMM")
    found = swaps(impl.legal_moves(d))
    assert found == [("DG", g) for g in ("CC", "CL", "CM", "LL", "LM", "MM")]
    assert all("M" not in t for t, _ in found)
    with pytest.raises(ValueError):
        impl.apply(d, "swap DM for LL")
    with pytest.raises(ValueError):
        impl.apply(d, "swap MM for LL")


def test_r3_exchange_gives_exactly_as_many(impl):
    d = make_state(hands=("LLPC", ""), herds=(3, 0), market="DGSMM")
    assert "swap DG for LL" in impl.legal_moves(d)
    assert all(len(t) == len(g) for t, g in swaps(impl.legal_moves(d)))
    for move in ("swap DG for L", "swap DG for LLP", "swap DGS for LL", "swap DG for MMM"):
        assert_illegal(impl, d, move)


def test_r3_exchange_may_not_give_back_a_taken_type(impl):
    d = make_state(hands=("DLL", ""), herds=(0, 0), market="DDGSM")
    moves = impl.legal_moves(d)
    assert "swap DG for LL" in moves
    assert "swap GS for DL" in moves                        # D given, not taken
    assert_illegal(impl, d, "swap DG for DL")
    assert_illegal(impl, d, "swap DD for DL")
    assert all(not set(t) & set(g) for t, g in swaps(moves))


def test_r3_exchange_may_give_camels(impl):
    d = make_state(hands=("L", ""), herds=(2, 0), market="DGSCM")
    moves = impl.legal_moves(d)
    assert "swap DG for MM" in moves and "swap DG for LM" in moves
    after = impl.apply(d, "swap DG for MM")
    assert after["players"][0]["herd"] == 0
    assert cards(after["players"][0]["hand"]) == "DGL"
    assert cards(after["market"]) == "SCMMM"
    assert after["deck"] == d["deck"]                      # no refill
    assert after["result"] is None and after["to_move"] == 1
    # with one camel only, two camels cannot be given
    d1 = make_state(hands=("L", ""), herds=(1, 0), market="DGSCM")
    assert "swap DG for LM" in impl.legal_moves(d1)
    assert_illegal(impl, d1, "swap DG for MM")


def test_r3_hand_limit_holds_after_exchange(impl):
    d = make_state(hands=("CCCPPL", ""), herds=(3, 0), market="DGSLM")
    moves = impl.legal_moves(d)
    assert "swap DG for CC" in moves                        # 6 goods after
    assert "swap DG for CM" in moves                        # 7 goods after
    assert_illegal(impl, d, "swap DG for MM")               # 8 goods after
    d7 = make_state(hands=("CCCPPLL", ""), herds=(3, 0), market="DGSLM")
    moves = impl.legal_moves(d7)
    assert "swap DG for CP" in moves                        # stays at 7
    assert_illegal(impl, d7, "swap DG for CM")
    assert_illegal(impl, d7, "swap DGS for CMM")
    after = impl.apply(d7, "swap DGS for CCP")
    assert cards(after["players"][0]["hand"]) == "DGSCPLL"


# --------------------------------------------------------------------------
# R4: take camels / take one good
# --------------------------------------------------------------------------

def test_r4_take_camels_takes_all(impl):
    d = make_state(hands=("L", ""), herds=(1, 2), market="DGMMM", deck_top="SMC")
    after = impl.apply(d, "camels")
    assert after["players"][0]["herd"] == 4
    assert cards(after["market"]) == "DGSCM"                # refilled with S M C
    assert after["deck"] == d["deck"][3:]
    assert cards(after["players"][0]["hand"]) == "L"
    assert after["result"] is None


def test_r4_take_camels_needs_a_camel(impl):
    d = make_state(hands=("L", ""), herds=(1, 2), market="DGSCP")
    assert_illegal(impl, d, "camels")


def test_r4_take_one_good_refills_from_the_top(impl):
    d = make_state(hands=("L", ""), market="DGSMM", deck_top="PC")
    after = impl.apply(d, "take D")
    assert cards(after["players"][0]["hand"]) == "DL"
    assert cards(after["market"]) == "GSPMM"
    assert after["deck"] == d["deck"][1:]


def test_r4_take_one_good_not_with_7_goods(impl):
    d = make_state(hands=("CCCPPLL", ""), herds=(2, 0), market="DGSMM")
    moves = impl.legal_moves(d)
    assert not [m for m in moves if m.startswith("take")]
    assert "camels" in moves                                # camels do not count
    assert_illegal(impl, d, "take D")
    d6 = make_state(hands=("CCCPPL", ""), herds=(2, 0), market="DGSMM")
    assert {"take D", "take G", "take S"} <= set(impl.legal_moves(d6))


# --------------------------------------------------------------------------
# R5: sale
# --------------------------------------------------------------------------

def test_r5_sale_of_one_type_any_number(impl):
    d = make_state(hands=("CCLLL", ""), market="DGSMM")
    sells = [m for m in impl.legal_moves(d) if m.startswith("sell")]
    assert sorted(sells) == ["sell 1C", "sell 1L", "sell 2C", "sell 2L", "sell 3L"]
    assert_illegal(impl, d, "sell 4L")


def test_r5_precious_goods_need_two(impl):
    d = make_state(hands=("DGGSSS", ""), market="CPLMM")
    sells = {m for m in impl.legal_moves(d) if m.startswith("sell")}
    assert sells == {"sell 2G", "sell 2S", "sell 3S"}
    for move in ("sell 1D", "sell 1G", "sell 1S"):
        assert_illegal(impl, d, move)


def test_r5_precious_goods_need_two_even_with_one_token_left(impl):
    d = make_state(market="PLLMM", hands=("DD", "L"), taken={"D": "0101"})
    assert d["tokens"]["D"] == [5]
    assert_illegal(impl, d, "sell 1D")
    after = impl.apply(d, "sell 2D")
    assert after["players"][0]["tokens"]["D"] == [7, 5, 5]
    assert after["tokens"]["D"] == []
    assert after["players"][0]["bonus"] == {"3": [], "4": [], "5": []}


# --------------------------------------------------------------------------
# R6: seal of the round, camel token
# --------------------------------------------------------------------------

def finish(impl, d: dict) -> dict:
    """Play ``take D`` for player 0 with an empty deck: the round ends."""
    after = impl.apply(d, "take D")
    assert after["result"] is not None
    return after


def test_r6_higher_total_wins(impl):
    # player 0: 7+7 = 14 with 2 tokens; player 1: 4+3+2+1 + bonus 1 = 11 with 5 tokens
    d = end_position(taken={"D": "00", "L": "1111"}, bonus_taken={"3": "1"})
    assert tuple(impl.round_totals(d)) == (14, 11)
    after = finish(impl, d)
    assert after["result"] == 0 and after["seals"] == [1, 0]


def test_r6_camel_token_goes_to_larger_herd(impl):
    # tokens: player 0 has 5, player 1 has 4+3 = 7; 1 camel in the market
    d = end_position(taken={"S": "0", "L": "11"}, herds=(6, 4))
    assert tuple(impl.round_totals(d)) == (10, 7)
    assert finish(impl, d)["result"] == 0
    d = end_position(taken={"S": "0", "L": "11"}, herds=(4, 6))
    assert tuple(impl.round_totals(d)) == (5, 12)
    assert finish(impl, d)["result"] == 1


def test_r6_camel_token_tie_nobody(impl):
    d = end_position(taken={"S": "0", "L": "11"}, herds=(5, 5))
    assert tuple(impl.round_totals(d)) == (5, 7)
    after = finish(impl, d)
    assert after["result"] == 1 and after["seals"] == [0, 1]


def test_r6_tie_more_bonus_tokens_wins(impl):
    # player 0: 5 + bonus 1+1 = 7 (2 bonus, 1 goods token)
    # player 1: 4+3 = 7 (0 bonus, 2 goods tokens): more goods tokens must not matter
    d = end_position(taken={"S": "0", "L": "11"}, bonus_taken={"3": "00"})
    assert tuple(impl.round_totals(d)) == (7, 7)
    after = finish(impl, d)
    assert after["result"] == 0 and after["seals"] == [1, 0]


def test_r6_tie_more_bonus_tokens_wins_player_1(impl):
    # player 0: 4+3 + bonus 2 = 9 (1 bonus); player 1: 5 + bonus 2+2 = 9 (2 bonus)
    bonus = {"3": [2, 2, 2, 1, 1, 3, 3], "4": [4, 4, 5, 5, 6, 6], "5": [8, 8, 9, 10, 10]}
    d = end_position(taken={"S": "1", "L": "00"}, bonus=bonus, bonus_taken={"3": "011"})
    assert tuple(impl.round_totals(d)) == (9, 9)
    after = finish(impl, d)
    assert after["result"] == 1 and after["seals"] == [0, 1]


def test_r6_tie_then_more_goods_tokens_wins(impl):
    # player 0: 7 + bonus 2 = 9 (1 bonus, 1 goods token)
    # player 1: 4+3 + bonus 2 = 9 (1 bonus, 2 goods tokens)
    bonus = {"3": [2, 2, 1, 1, 2, 3, 3], "4": [4, 4, 5, 5, 6, 6], "5": [8, 8, 9, 10, 10]}
    d = end_position(taken={"D": "0", "L": "11"}, bonus=bonus, bonus_taken={"3": "01"})
    assert tuple(impl.round_totals(d)) == (9, 9)
    after = finish(impl, d)
    assert after["result"] == 1 and after["seals"] == [0, 1]


def test_r6_full_tie_is_a_draw_without_seal(impl):
    bonus = {"3": [2, 2, 1, 1, 2, 3, 3], "4": [4, 4, 5, 5, 6, 6], "5": [8, 8, 9, 10, 10]}
    d = end_position(taken={"S": "01"}, bonus=bonus, bonus_taken={"3": "10"})
    assert tuple(impl.round_totals(d)) == (7, 7)
    after = finish(impl, d)
    assert after["result"] == "draw"
    assert after["seals"] == [0, 0]


def test_r6_totals_include_tokens_bonus_and_camel_token(impl):
    d = end_position(taken={"D": "01", "C": "001", "L": "1"},
                     bonus_taken={"3": "01", "4": "1", "5": "0"}, herds=(7, 3))
    # player 0: 7 + 5+3 + bonus 1 + 8 + camel 5 = 29
    # player 1: 7 + 3 + 4 + bonus 1 + 4 = 19
    assert tuple(impl.round_totals(d)) == (29, 19)


# --------------------------------------------------------------------------
# The move list itself
# --------------------------------------------------------------------------

def test_legal_moves_distinct_and_canonical(impl):
    d = make_state(hands=("DDGLLC", ""), herds=(3, 0), market="DGSLM")
    moves = impl.legal_moves(d)
    assert len(moves) == len(set(moves))
    assert set(moves) == set(_reference.legal_moves(d))
    for m in moves:
        assert _reference.canonical(m) == m
