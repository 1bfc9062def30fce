"""Property tests of the pure-Python reference rules (jaipur_ai.rules._reference).

Random rounds are dealt from a shuffled 55-card pack (seeded by hypothesis) and
played with uniformly random legal moves; every position on the way must keep
the invariants of the game.
"""
from __future__ import annotations

import copy
import random

import pytest
from hypothesis import given, settings, strategies as st

from jaipur_ai.rules import _reference as ref
from jaipur_ai.rules._cards import BONUS_KINDS, BONUS_SETS, CARD_TOTALS, HAND_LIMIT, LETTERS, TOKENS

GOOD_LETTERS = LETTERS[:6]
MAX_PLIES = 400
SETTINGS = settings(max_examples=25, deadline=None)

seeds = st.integers(min_value=0, max_value=2**32 - 1)
bonus_sets = st.sampled_from(sorted(BONUS_SETS))
starters = st.integers(min_value=0, max_value=1)


def card_counts(d: dict) -> list[int]:
    text = d["market"] + d["deck"] + d["discard"]
    text += "".join(pl["hand"] + "M" * pl["herd"] for pl in d["players"])
    return [text.count(ch) for ch in LETTERS]


def token_multisets(d: dict) -> tuple[dict, dict]:
    """All goods tokens and all bonus tokens, wherever they are, by stack."""
    goods = {g: sorted(d["tokens"][g] + sum((pl["tokens"][g] for pl in d["players"]), []))
             for g in GOOD_LETTERS}
    bonus = {k: sorted(d["bonus"][k] + sum((pl["bonus"][k] for pl in d["players"]), []))
             for k in BONUS_KINDS}
    return goods, bonus


def check_invariants(d: dict) -> None:
    assert card_counts(d) == list(CARD_TOTALS)
    goods, bonus = token_multisets(d)
    assert goods == {g: sorted(TOKENS[i]) for i, g in enumerate(GOOD_LETTERS)}
    assert sum(len(v) for v in goods.values()) == 38
    assert bonus == {k: sorted(v) for k, v in zip(BONUS_KINDS, BONUS_SETS[d["bonus_set"]])}
    for i, g in enumerate(GOOD_LETTERS):             # stacks are taken from the top
        stack = d["tokens"][g]
        assert stack == list(TOKENS[i][len(TOKENS[i]) - len(stack):])
    for pl in d["players"]:
        assert "M" not in pl["hand"]
        assert len(pl["hand"]) <= HAND_LIMIT
        assert all(pl["known"].count(c) <= pl["hand"].count(c) for c in set(pl["known"]))
    if d["result"] is None:
        assert len(d["market"]) == 5
        assert sum(1 for g in GOOD_LETTERS if not d["tokens"][g]) < 3


def play(d: dict, rng: random.Random):
    """Yield (state, legal moves, chosen move) along a random game."""
    for _ in range(MAX_PLIES):
        moves = ref.legal_moves(d)
        if d["result"] is not None:
            assert moves == []
            return
        yield d, moves
        d = ref.apply(d, rng.choice(moves))
    raise AssertionError(f"round not over after {MAX_PLIES} plies")


@SETTINGS
@given(seed=seeds, bonus_set=bonus_sets, starter=starters)
def test_random_games_keep_invariants_and_end(seed, bonus_set, starter):
    rng = random.Random(seed)
    d = ref.deal(rng, starter=starter, bonus_set=bonus_set)
    check_invariants(d)
    assert d["to_move"] == starter
    plies = 0
    for state, moves in play(d, rng):
        check_invariants(state)
        assert moves == sorted(set(moves))
        assert all(ref.canonical(m) == m for m in moves)
        assert state["to_move"] == (starter + plies) % 2
        plies += 1


@settings(max_examples=15, deadline=None)
@given(seed=seeds)
def test_every_listed_move_applies(seed):
    rng = random.Random(seed)
    d = ref.deal(rng)
    for state, moves in play(d, rng):
        if rng.random() < 0.1:                      # a sample of positions
            frozen = copy.deepcopy(state)
            for m in moves:
                after = ref.apply(state, m)
                check_invariants(after)
                assert after["to_move"] == 1 - state["to_move"]
            assert state == frozen                   # apply never mutates its input


@SETTINGS
@given(seed=seeds)
def test_round_end_sets_result_and_seal(seed):
    rng = random.Random(seed)
    d = ref.deal(rng)
    moves = ref.random_game(d, rng, max_plies=MAX_PLIES)
    end = d
    for m in moves:
        end = ref.apply(end, m)
    assert end["result"] is not None
    assert end["result"] == ref.round_winner(end)
    empty = sum(1 for g in GOOD_LETTERS if not end["tokens"][g])
    assert empty >= 3 or len(end["market"]) < 5      # the two ways a round ends
    if end["result"] == "draw":
        assert end["seals"] == [0, 0]
    else:
        assert end["seals"][end["result"]] == 1 and sum(end["seals"]) == 1
        totals = ref.round_totals(end)
        assert totals[end["result"]] >= totals[1 - end["result"]]


def test_illegal_and_malformed_moves_raise():
    d = ref.deal(random.Random(3))
    for bad in ("", "take M", "take X", "sell 0L", "swap D for L", "dance", "swap DM for LL"):
        with pytest.raises(ValueError):
            ref.apply(d, bad)


def test_canonical_forms():
    assert ref.canonical("Swap  GD for ML") == "swap DG for LM"
    assert ref.canonical("SELL 3l") == "sell 3L"
    assert ref.canonical(" take d ") == "take D"
    assert ref.canonical("CAMELS") == "camels"


@SETTINGS
@given(seed=seeds)
def test_known_cards_follow_takes_and_leave_with_sales(seed):
    """``known``: + cards taken from the market, - cards given or sold (not below 0)."""
    rng = random.Random(seed)
    d = ref.deal(rng)
    for state, moves in play(d, rng):
        move = rng.choice(moves)
        p = state["to_move"]
        before = [state["players"][p]["known"].count(g) for g in GOOD_LETTERS]
        after_state = ref.apply(state, move)
        after = [after_state["players"][p]["known"].count(g) for g in GOOD_LETTERS]
        expected = list(before)
        words = move.split()
        if words[0] == "take":
            expected[GOOD_LETTERS.index(words[1])] += 1
        elif words[0] == "sell":
            i = GOOD_LETTERS.index(words[1][-1])
            expected[i] = max(0, expected[i] - int(words[1][:-1]))
        elif words[0] == "swap":
            for i, g in enumerate(GOOD_LETTERS):
                expected[i] = max(0, expected[i] + words[1].count(g) - words[3].count(g))
        assert after == expected, move
        other = 1 - p
        assert after_state["players"][other]["known"] == state["players"][other]["known"]
