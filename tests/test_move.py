"""Tests of jaipur_ai.rules.move: the Move value type, its notation and action ids."""
from __future__ import annotations

import copy
import itertools
import pickle
from math import comb

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

from jaipur_ai.rules._cards import LETTERS
from jaipur_ai.errors import InvalidMoveError
from jaipur_ai.rules.move import N_ACTIONS, NG, NT, OFF, Move, _vectors

try:
    from strategies import moves
except ImportError:  # tests/ run as a package
    from tests.strategies import moves


# ---------------------------------------------------------------------------
# Round trips

@given(moves())
def test_parse_str_round_trip(m):
    assert Move.parse(str(m)) == m
    assert str(Move.parse(str(m))) == str(m)


@given(moves())
def test_action_id_round_trip(m):
    assert 0 <= m.action_id < N_ACTIONS
    back = Move.from_action_id(m.action_id)
    assert back == m and str(back) == str(m) and hash(back) == hash(m)


@given(moves())
def test_repr_eval_round_trip(m):
    assert eval(repr(m)) == m
    assert repr(m) == f"Move.parse({str(m)!r})"


@given(moves())
def test_pickle_and_copy(m):
    assert pickle.loads(pickle.dumps(m)) == m
    assert copy.copy(m) is m and copy.deepcopy(m) is m


@given(moves())
def test_alternate_spellings(m):
    text = str(m)
    assert Move.parse("  " + text.lower().replace(" ", "   ") + " ") == m
    if m.kind == "swap":
        taken, given_ = text[len("swap "):].split(" for ")
        for alt in (f"{taken}>{given_}", f"{taken}/{given_}", f"{taken}-{given_}",
                    f"exchange {taken} {given_}", f"trade {taken[::-1]} for {given_[::-1]}"):
            assert Move.parse(alt) == m, alt


@given(moves())
def test_attributes_consistent(m):
    assert m.kind in ("take", "camels", "sell", "swap")
    assert len(m.take) == 6 and len(m.give) == 7
    if m.kind == "swap":
        assert m.good is None
        assert m.count == sum(m.take) == sum(m.give)
        assert Move.swap(m.take, m.give) == m
    else:
        assert m.take == (0,) * 6 and m.give == (0,) * 7
    if m.kind == "take":
        assert m.count == 1 and Move.take(m.good) == m
    if m.kind == "sell":
        assert Move.sell(LETTERS[m.good], m.count) == m
    if m.kind == "camels":
        assert m.good is None and m.count == 0


def test_every_action_id():
    """Decode every id: the valid ones round-trip, are distinct, and are all the shapes."""
    seen = set()
    for i in range(N_ACTIONS):
        try:
            m = Move.from_action_id(i)
        except InvalidMoveError:
            continue
        assert m.action_id == i
        seen.add(m)
    # count the valid shapes independently
    swaps = 0
    for k in range(2, 6):
        for take in _vectors(k, 6):
            free = sum(1 for c in take if c == 0) + 1          # untaken goods + camel
            swaps += comb(k + free - 1, free - 1)
    sells = 3 * 6 + 3 * 7
    assert len(seen) == 6 + 1 + sells + swaps


# ---------------------------------------------------------------------------
# Action-id layout (docs/notation.md)

def test_layout_figures():
    assert N_ACTIONS == 148225
    assert [NT[k] for k in range(2, 6)] == [21, 56, 126, 252]
    assert [NG[k] for k in range(2, 6)] == [28, 84, 210, 462]
    assert OFF == {2: 0, 3: 588, 4: 588 + 4704, 5: 588 + 4704 + 26460}
    assert 49 + OFF[5] + NT[5] * NG[5] == N_ACTIONS


@pytest.mark.parametrize("k", range(2, 6))
@pytest.mark.parametrize("n", [6, 7])
def test_rank_tables_match_definition(k, n):
    expected = sorted(v for v in itertools.product(range(k + 1), repeat=n) if sum(v) == k)
    assert list(_vectors(k, n)) == expected


@pytest.mark.parametrize("text, action_id", [
    ("take D", 0), ("take L", 5), ("camels", 6),
    ("sell 2D", 8), ("sell 1C", 28), ("sell 7L", 48),
    ("swap LL for MM", 49),                 # rankT = rankG = 0
    ("swap LL for LM", None),               # overlaps: not a move
    ("swap PL for MM", 49 + 1 * 28),        # taken (0,0,0,0,1,1) has rank 1
    ("swap LLL for MMM", 49 + OFF[3]),
    ("swap DDDDD for GGGGG", 148014),       # the last valid id (see test_last_ids)
])
def test_known_ids(text, action_id):
    if action_id is None:
        with pytest.raises(InvalidMoveError):
            Move.parse(text)
        return
    m = Move.parse(text)
    assert m.action_id == action_id
    assert Move.from_action_id(action_id) == m


def test_last_ids():
    with pytest.raises(InvalidMoveError, match="give back a type it takes"):
        Move.from_action_id(N_ACTIONS - 1)                  # swap DDDDD for DDDDD
    # the last taken vector is DDDDD (rank NT[5]-1); the given vectors after GGGGG
    # (rank C(10, 5) - 1 = 251) all hold a diamond, so GGGGG ends the valid ids
    last = 49 + OFF[5] + (NT[5] - 1) * NG[5] + comb(10, 5) - 1
    assert last == 148014 < N_ACTIONS
    assert str(Move.from_action_id(last)) == "swap DDDDD for GGGGG"
    assert not any(_valid(i) for i in range(last + 1, N_ACTIONS))


def _valid(i):
    try:
        Move.from_action_id(i)
    except InvalidMoveError:
        return False
    return True


@pytest.mark.parametrize("bad", [-1, N_ACTIONS, 10 ** 30, 7, 14, 21, True, 1.0, "6", None])
def test_bad_action_ids(bad):
    with pytest.raises(InvalidMoveError):
        Move.from_action_id(bad)


def test_ordering_by_action_id():
    ms = [Move.parse(t) for t in ("swap DG for LM", "sell 3L", "camels", "take G", "sell 2D")]
    assert [str(m) for m in sorted(ms)] == [
        "take G", "camels", "sell 2D", "sell 3L", "swap DG for LM"]
    a, b = Move.take("D"), Move.camels()
    assert a < b and a <= b and b > a and b >= a and a != b
    assert Move.take("D") == Move.parse("take diamond")
    assert len({Move.take("D"), Move.parse("take d"), Move.take(0)}) == 1
    assert Move.camels() != "camels"
    with pytest.raises(TypeError):
        a < 3  # noqa: B015


def test_immutable():
    m = Move.sell("L", 3)
    with pytest.raises(AttributeError):
        m.count = 4
    with pytest.raises(AttributeError):
        m._count = 4
    with pytest.raises(AttributeError):
        del m.kind
    with pytest.raises(TypeError):
        Move("sell 3L")


def test_take_is_constructor_and_attribute():
    m = Move.swap("DG", "LM")
    assert m.take == (1, 1, 0, 0, 0, 0) and m.give == (0, 0, 0, 0, 0, 1, 1)
    assert Move.take("S").take == (0,) * 6


# ---------------------------------------------------------------------------
# Forgiving parse

@pytest.mark.parametrize("text, canonical", [
    ("take D", "take D"), ("TAKE d", "take D"), ("  take    d  ", "take D"),
    ("take diamond", "take D"), ("take diamonds", "take D"), ("take a diamond", "take D"),
    ("take 1 spice", "take P"), ("take pepper", "take P"), ("take cloth", "take C"),
    ("camels", "camels"), ("camel", "camels"), ("Take Camels", "camels"),
    ("take camel", "camels"), ("take all camels", "camels"), ("take M", "camels"),
    ("sell 3L", "sell 3L"), ("sell 3 leather", "sell 3L"), ("sell LLL", "sell 3L"),
    ("sell leather x3", "sell 3L"), ("sell L x 3", "sell 3L"), ("sell lx3", "sell 3L"),
    ("sell three leathers", "sell 3L"), ("sell 2 diamonds", "sell 2D"), ("sell C", "sell 1C"),
    ("sell7l", "sell 7L"), ("sell 2 gold", "sell 2G"), ("sell SS", "sell 2S"),
    ("swap DG for LM", "swap DG for LM"), ("swap GD for ML", "swap DG for LM"),
    ("exchange DG for LM", "swap DG for LM"), ("trade dg for lm", "swap DG for LM"),
    ("DG>LM", "swap DG for LM"), ("DG/LM", "swap DG for LM"), ("DG-LM", "swap DG for LM"),
    ("dg -> lm", "swap DG for LM"), ("swap DG LM", "swap DG for LM"),
    ("swap D G for L M", "swap DG for LM"), ("take DG for LM", "swap DG for LM"),
    ("swap diamond, gold for leather and camel", "swap DG for LM"),
    ("swap 2 cloth for 2 camels", "swap CC for MM"), ("swap 2C for LM", "swap CC for LM"),
    ("swap DGSCP for MMMMM", "swap DGSCP for MMMMM"),
])
def test_forgiving_parse(text, canonical):
    assert str(Move.parse(text)) == canonical


@pytest.mark.parametrize("text, reason", [
    ("", "empty move text"),
    ("   ", "empty move text"),
    ("jump D", "unknown move 'jump'"),
    ("take X", "unknown card letter 'X'"),
    ("swap DX for LM", "unknown card letter 'X' in 'DX'"),
    ("take diamnd", "unknown card 'diamnd'"),
    ("take", "take what?"),
    ("take DD", "single good"),
    ("take DG", "single good"),
    ("take 2D", "single good"),
    ("take 0D", "exactly one good"),
    ("take DM", "take one good, or all camels"),
    ("camels D", "'camels' takes no cards"),
    ("sell", "sell what?"),
    ("sell 3", "a count needs a card after it"),
    ("sell 3M", "camels cannot be sold"),
    ("sell 2 camels", "camels cannot be sold"),
    ("sell LLC", "one good type"),
    ("sell 0L", "at least 1 card"),
    ("sell 8L", "at most 7 cards"),
    ("sell 99999999999999999999999L", "at most 7 cards"),
    ("sell D", "diamond needs a sale of at least 2 cards"),
    ("sell 1 gold", "gold needs a sale of at least 2 cards"),
    ("sell S", "silver needs a sale of at least 2 cards"),
    ("sell 3 3L", "unexpected number '3'"),
    ("sell 3LL", "a count applies to a single card letter"),
    ("sell x3", "must follow a single card"),
    ("sell L!", "unexpected character '!'"),
    ("swap", "swap TAKEN for GIVEN"),
    ("swap DG", "swap TAKEN for GIVEN"),
    ("swap DG LM CC", "swap TAKEN for GIVEN"),
    ("DG>", "swap TAKEN for GIVEN"),
    ("swap DG for LM for CC", "one 'for'"),
    ("swap DG for L", "a swap needs as many cards given as taken"),
    ("swap D for L", "at least 2 goods"),
    ("swap DDDDDD for LLLLLL", "at most 5 cards"),
    ("swap DM for LL", "cannot take camels"),
    ("swap DG for DL", "cannot give back a type it takes (D)"),
])
def test_parse_rejections(text, reason):
    with pytest.raises(InvalidMoveError) as info:
        Move.parse(text)
    assert reason in info.value.reason
    assert info.value.text == text
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("bad", [None, 3, b"take D", ["take D"], Move.camels()])
def test_parse_non_str(bad):
    with pytest.raises(InvalidMoveError, match="must be a str"):
        Move.parse(bad)


_MOVE_ALPHABET = "takesllwapcmxDGSCPLMX0123456789 >/-*,for\u00d7\u2192"


@settings(max_examples=300)
@given(st.one_of(st.text(), st.text(alphabet=_MOVE_ALPHABET),
                 st.builds("{} {}".format,
                           st.sampled_from(["take", "sell", "swap", "camels", "trade", ""]),
                           st.text(alphabet=_MOVE_ALPHABET, max_size=12))))
@example("\u00b2/0")                    # a unicode digit that int() rejects
@example("sell \u0663L")               # one that int() accepts
@example("swap D\u0130 for LM")        # lower() gives two code points
def test_parse_only_raises_invalid_move(text):
    try:
        m = Move.parse(text)
    except InvalidMoveError as e:
        assert e.text == text and e.reason
    else:
        assert Move.parse(str(m)) == m
        assert Move.from_action_id(m.action_id) == m


# ---------------------------------------------------------------------------
# Constructors

def test_constructor_forms():
    assert Move.take("D") == Move.take("d") == Move.take("diamond") == Move.take(0)
    assert Move.sell("leather", 3) == Move.sell("L", 3) == Move.sell(5, 3)
    assert Move.swap("DG", "LM") == Move.swap((1, 1, 0, 0, 0, 0), (0, 0, 0, 0, 0, 1, 1))
    assert Move.swap([1, 1, 0, 0, 0, 0, 0], "ML") == Move.swap("DG", "LM")
    assert Move.swap("CC", [0, 0, 0, 0, 1, 1]) == Move.parse("swap CC for PL")
    assert Move.swap(iter((1, 1, 0, 0, 0, 0)), "2 camels") == Move.parse("swap DG for MM")


@pytest.mark.parametrize("call, reason", [
    (lambda: Move.take("M"), "take camels with 'camels'"),
    (lambda: Move.take(6), "take camels with 'camels'"),
    (lambda: Move.take(7), "out of range"),
    (lambda: Move.take(-1), "out of range"),
    (lambda: Move.take("X"), "unknown card letter 'X'"),
    (lambda: Move.take("rubies"), "unknown card 'rubies'"),
    (lambda: Move.take(True), "got bool"),
    (lambda: Move.take(None), "got NoneType"),
    (lambda: Move.sell("M", 2), "camels cannot be sold"),
    (lambda: Move.sell("D", 1), "diamond needs a sale of at least 2"),
    (lambda: Move.sell("L", 0), "at least 1 card"),
    (lambda: Move.sell("L", 8), "at most 7 cards"),
    (lambda: Move.sell("L", 2.0), "got float"),
    (lambda: Move.swap("DG", "L"), "as many cards given as taken"),
    (lambda: Move.swap("DM", "LL"), "cannot take camels"),
    (lambda: Move.swap((1, 0, 0, 0, 0, 0, 1), "LL"), "cannot take camels"),
    (lambda: Move.swap("DG", "GL"), "cannot give back a type it takes (G)"),
    (lambda: Move.swap("D", "L"), "at least 2 goods"),
    (lambda: Move.swap((8, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 8, 0)), "cannot give 8 leather"),
    (lambda: Move.swap((1, 1), "LM"), "6 or 7 counts"),
    (lambda: Move.swap((1, 1, 0, 0, 0, -1), "L"), "negative count"),
    (lambda: Move.swap(12, "LM"), "got int"),
    (lambda: Move.swap(b"DG", "LM"), "got bytes"),
    (lambda: Move.swap(("D", "G", "", "", "", ""), "LM"), "must be an int, got str"),
])
def test_constructor_rejections(call, reason):
    with pytest.raises(InvalidMoveError) as info:
        call()
    assert reason in info.value.reason


# ------------------------------------------------------------------ the hand "all" reads
@pytest.mark.parametrize("hand,why", [
    ([], "7 counts"), ({"L": 3}, "got dict"), ("LLL", "got str"), ([None] * 7, "count 0"),
    ([1.5] * 7, "count 0"), ([True] * 7, "count 0"), ([0] * 6 + [12], "0..11"),
    ([0, 0, 0, 0, 0, -1, 0], "0..7"), ([0] * 8, "7 counts")])
def test_a_bad_hand_is_a_typed_error_naming_it(hand, why):
    with pytest.raises(InvalidMoveError) as e:
        Move.parse("sell all L", hand=hand)
    assert "hand: " in e.value.reason and why in e.value.reason


@given(st.lists(st.integers(0, 7), min_size=6, max_size=6), st.integers(0, 11))
def test_any_hand_in_range_reads_all_as_its_count(goods, camels):
    hand = (*goods, camels)
    for g, n in enumerate(goods):
        text = f"sell all {'DGSCPL'[g]}"
        if n == 0 or (g < 3 and n < 2):
            with pytest.raises(InvalidMoveError):
                Move.parse(text, hand=hand)
        else:
            assert Move.parse(text, hand=hand) == Move.sell(g, n)
            assert Move.parse(text, hand=np.array(hand)) == Move.sell(g, n)


def test_all_of_a_good_the_hand_lacks_says_so():
    with pytest.raises(InvalidMoveError, match="the hand holds no diamond"):
        Move.parse("sell all diamond", hand=(0, 0, 0, 0, 0, 3, 2))
