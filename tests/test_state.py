"""GameState: round trips, invariants under random play, illegal moves, who
starts the next round (docs/rules.md, section 6, "The match", R7), the deal, and validation of
positions read from JSON and text.

The figures of the game are written out here from docs/rules.md (section 1) rather than
imported from the package, so that a wrong figure in the package shows up.
"""
from __future__ import annotations

import copy
import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from jaipur_ai import (GameState, IllegalMoveError, InvalidMoveError, InvalidPositionError,
                       Move, N_ACTIONS)
from strategies import moves, play_randomly, states

# --------------------------------------------------------------------------
# Figures (docs/rules.md, section 1, "Components")

LETTERS = "DGSCPLM"
GOODS = "DGSCPL"
CARDS = {"D": 6, "G": 6, "S": 6, "C": 8, "P": 8, "L": 10, "M": 11}
TOKENS = {"D": [7, 7, 5, 5, 5], "G": [6, 6, 5, 5, 5], "S": [5, 5, 5, 5, 5],
          "C": [5, 3, 3, 2, 2, 1, 1], "P": [5, 3, 3, 2, 2, 1, 1],
          "L": [4, 3, 2, 1, 1, 1, 1, 1, 1]}
BONUS = {"standard": {"3": [1, 1, 2, 2, 2, 3, 3], "4": [4, 4, 5, 5, 6, 6],
                      "5": [8, 8, 9, 10, 10]},
         "pairs": {"3": [1, 1, 2, 2, 3, 3], "4": [4, 4, 5, 5, 6, 6],
                   "5": [8, 8, 9, 9, 10, 10]}}
CAMEL_TOKEN = 5
HAND_LIMIT = 7

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def _outcome(d: dict) -> tuple[tuple[int, int], object]:
    """(totals, winner) from a state's JSON dict, by R6."""
    p = d["players"]
    t = [sum(sum(v) for v in pl["tokens"].values()) + sum(sum(v) for v in pl["bonus"].values())
         for pl in p]
    if p[0]["herd"] > p[1]["herd"]:
        t[0] += CAMEL_TOKEN
    elif p[1]["herd"] > p[0]["herd"]:
        t[1] += CAMEL_TOKEN
    keys = [(t[i], sum(len(v) for v in p[i]["bonus"].values()),
             sum(len(v) for v in p[i]["tokens"].values())) for i in range(2)]
    winner = "draw" if keys[0] == keys[1] else (0 if keys[0] > keys[1] else 1)
    return (t[0], t[1]), winner


def expected_totals(s: GameState) -> tuple[int, int]:
    """tokens + bonus + camel token, from the players' holdings (R6)."""
    return _outcome(s.to_dict())[0]


def expected_winner(s: GameState):
    """0, 1 or "draw" by the tie-breaks of R6, from the players' holdings."""
    return _outcome(s.to_dict())[1]


def check_invariants(s: GameState) -> None:
    """Everything that holds in every position of a game."""
    d = s.to_dict()
    census = Counter(d["market"]) + Counter(d["deck"]) + Counter(d["discard"])
    for pl in d["players"]:
        census += Counter(pl["hand"])
        census["M"] += pl["herd"]
    assert census == Counter(CARDS), (s.to_text(), census)
    assert sum(census.values()) == 55
    players = d["players"]
    for g in GOODS:
        left = d["tokens"][g]
        assert left == TOKENS[g][len(TOKENS[g]) - len(left):], (g, left)
        held = players[0]["tokens"][g] + players[1]["tokens"][g]
        assert Counter(left) + Counter(held) == Counter(TOKENS[g]), g
    assert sum(len(v) for v in d["tokens"].values()) + sum(
        len(v) for pl in players for v in pl["tokens"].values()) == 38
    for k in ("3", "4", "5"):
        held = players[0]["bonus"][k] + players[1]["bonus"][k]
        assert sorted(d["bonus"][k] + held) == sorted(BONUS[d["bonus_set"]][k]), k
    for pl in players:
        assert len(pl["hand"]) <= HAND_LIMIT
        assert "M" not in pl["hand"]
        assert not Counter(pl["known"]) - Counter(pl["hand"]), "known cards must be in the hand"
    if d["result"] is None:
        assert len(d["market"]) == 5
        assert sum(1 for g in GOODS if not d["tokens"][g]) < 3
    totals, winner = _outcome(d)
    assert s.round_totals() == totals
    assert s.round_winner() == winner
    if d["result"] is not None:
        assert s.is_round_over and s.result == winner
        assert s.legal_action_ids() == []


def assert_roundtrips(s: GameState) -> None:
    assert GameState.from_json(s.to_json()) == s
    assert GameState.from_json(s.to_json(indent=2)) == s
    assert GameState.from_text(s.to_text()) == s
    assert GameState.from_dict(s.to_dict()) == s
    assert GameState.from_dict(json.loads(json.dumps(s.to_dict()))).to_dict() == s.to_dict()
    assert eval(repr(s), {"GameState": GameState}) == s
    assert hash(GameState.from_text(s.to_text())) == hash(s)


# --------------------------------------------------------------------------
# Positions built by hand

def build(*, hands=("", ""), herds=(0, 0), known=("", ""), market="LLPMM",
          held=({}, {}), bonus_held=({}, {}), deck=None, discard=None,
          to_move=0, starter=0, round_no=1, seals=(0, 0), result=None,
          bonus_set="standard") -> dict:
    """A JSON dict of a position that accounts for all 55 cards.

    ``held`` gives the goods tokens each player holds; they must be the top of
    the stacks.  Without ``discard``, each good has as many cards in the discard
    as tokens were taken (as far as cards are left); the rest goes to the deck in
    a fixed shuffled order.  With ``deck`` given, goods left over go to the discard.
    """
    left = Counter(CARDS)
    used = Counter(market) + Counter(hands[0]) + Counter(hands[1])
    used["M"] += herds[0] + herds[1]
    tokens = {}
    for g in GOODS:
        taken = list(held[0].get(g, [])) + list(held[1].get(g, []))
        assert Counter(taken) == Counter(TOKENS[g][:len(taken)]), g
        tokens[g] = TOKENS[g][len(taken):]
    if deck is not None:
        used += Counter(deck)
    rest = left - used
    assert not used - left, "too many cards"
    if discard is None:
        discard = ""
        for g in GOODS:
            n = rest[g] if deck is not None else min(rest[g], len(TOKENS[g]) - len(tokens[g]))
            discard += g * n
    rest -= Counter(discard)
    if deck is None:
        pile = list(rest.elements())
        random.Random(0).shuffle(pile)
        deck = "".join(pile)
    else:
        assert not rest, f"cards unaccounted for: {rest}"
    bonus = {}
    for k, full in BONUS[bonus_set].items():
        taken = list(bonus_held[0].get(k, [])) + list(bonus_held[1].get(k, []))
        assert not Counter(taken) - Counter(full)
        bonus[k] = sorted((Counter(full) - Counter(taken)).elements())
    return {
        "format": "jaipur-state/1", "bonus_set": bonus_set, "round": round_no,
        "starter": starter, "to_move": to_move, "seals": list(seals), "result": result,
        "market": market, "deck": deck, "discard": discard, "tokens": tokens, "bonus": bonus,
        "players": [{"hand": hands[p], "herd": herds[p], "known": known[p],
                     "tokens": {g: list(held[p].get(g, [])) for g in GOODS},
                     "bonus": {k: list(bonus_held[p].get(k, [])) for k in "345"}}
                    for p in range(2)],
    }


def one_sale_from_the_end(outcome: str, *, starter=0, round_no=1, seals=(0, 0)) -> dict:
    """Player 0 to move, one sale ("sell 2S") away from emptying the third stack
    (diamond and gold are empty, one silver token is left).  After the sale:
    player 0 holds 43 in 8 goods tokens; player 1 43 in 8 tokens ("draw"),
    38 in 7 tokens ("0" wins) or 43 + the camel token ("1" wins)."""
    held0 = {"D": [7, 5, 5], "G": [6, 5], "S": [5, 5]}
    held1 = {"D": [7, 5], "G": [6, 5, 5], "S": [5, 5]}
    herds = (2, 2)
    if outcome in ("draw", "1"):
        held1["C"] = [5]
    if outcome == "1":
        herds = (2, 3)
    return build(hands=("SSPL", "CCLL"), herds=herds, market="LLPMM", held=(held0, held1),
                 to_move=0, starter=starter, round_no=round_no, seals=seals)


DECIDING_MOVE = "sell 2S"


# --------------------------------------------------------------------------
# Round trips

@SETTINGS
@given(states())
def test_round_trips_of_random_states(s):
    assert_roundtrips(s)


@SETTINGS
@given(states())
def test_copies_by_every_form_behave_the_same(s):
    t = GameState.from_text(s.to_text())
    assert t.legal_moves() == s.legal_moves()
    assert t.round_totals() == s.round_totals()
    assert (t.result, t.seals, t.round, t.starter, t.to_move, t.bonus_set) == \
        (s.result, s.seals, s.round, s.starter, s.to_move, s.bonus_set)
    if s.legal_moves():
        m = s.legal_moves()[-1]
        assert t.apply(m) == s.apply(m)


def test_round_trip_of_a_hand_built_finished_round():
    s = GameState.from_dict(one_sale_from_the_end("draw")).apply(DECIDING_MOVE)
    assert s.result == "draw"
    assert_roundtrips(s)


def test_text_form_is_one_line_and_state_json_is_the_documented_form():
    s = GameState.new(seed=11, starter=1)
    text = s.to_text()
    assert "\n" not in text and text.startswith("S ")
    assert len(text.split()) == 9          # the standard bonus set is not written
    d = json.loads(s.to_json())
    assert d["format"] == "jaipur-state/1"
    assert set(d) == {"format", "bonus_set", "round", "starter", "to_move", "seals", "result",
                      "market", "deck", "discard", "tokens", "bonus", "players"}
    assert d["deck"] == s.deck and d["deck"][0] == s.deck[0]


# --------------------------------------------------------------------------
# Invariants under random play

@settings(SETTINGS, max_examples=25)
@given(seed=st.integers(0, 2**32 - 1), starter=st.sampled_from([0, 1]),
       bonus_set=st.sampled_from(["standard", "pairs"]), rng_seed=st.integers(0, 2**32 - 1))
def test_invariants_hold_along_random_play_across_rounds(seed, starter, bonus_set, rng_seed):
    rng = random.Random(rng_seed)
    s = GameState.new(seed, starter=starter, bonus_set=bonus_set)
    rounds = 0
    while rounds < 2 and not s.is_match_over:
        check_invariants(s)
        plies = 0
        while not s.is_round_over:
            before = s.to_text()
            legal = s.legal_moves()
            assert legal, "a running round always has a legal move"
            assert legal == sorted(legal, key=lambda m: m.action_id)
            m = rng.choice(legal)
            assert s.is_legal(m) and s.is_legal(str(m)) and s.is_legal(m.action_id)
            t = s.apply(m)
            assert s.to_text() == before, "apply must not change the original"
            check_invariants(t)
            if not t.is_round_over:
                assert t.to_move == 1 - s.to_move
            p = s.to_move
            if m.kind == "take":
                assert len(t.players[p].hand) == len(s.players[p].hand) + 1
            elif m.kind == "camels":
                assert t.players[p].herd == s.players[p].herd + s.market.count("M")
            elif m.kind == "sell":
                assert len(t.players[p].hand) == len(s.players[p].hand) - m.count
                assert len(t.discard) == len(s.discard) + m.count
            s = t
            plies += 1
            assert plies < 2000, "the round must end"
        rounds += 1
        assert s.seals[0] + s.seals[1] <= s.round
        if not s.is_match_over:
            s = s.next_round(seed=rng.getrandbits(32))
    check_invariants(s)


@SETTINGS
@given(states())
def test_every_legal_move_applies_cleanly(s):
    before = s.to_text()
    legal = s.legal_moves()
    assert len(set(legal)) == len(legal)
    for m in legal:
        t = s.apply(m)
        check_invariants(t)
        if not t.is_round_over:
            assert t.to_move == 1 - s.to_move
        assert (t.round, t.starter, t.bonus_set) == (s.round, s.starter, s.bonus_set)
        assert s.apply(str(m)) == t == s.apply(m.action_id)
    assert s.to_text() == before


@SETTINGS
@given(states(), st.lists(st.integers(49, N_ACTIONS - 1), min_size=20, max_size=20))
def test_is_legal_agrees_with_legal_moves(s, swap_ids):
    legal = {m.action_id for m in s.legal_moves()}
    assert legal == set(s.legal_action_ids())
    for a in list(range(49)) + sorted(legal) + swap_ids:
        assert s.is_legal(a) == (a in legal), a
        try:
            m = Move.from_action_id(a)
        except InvalidMoveError:        # an id that is no move of a valid shape
            assert a not in legal
            continue
        assert s.is_legal(m) == s.is_legal(str(m)) == (a in legal)
    assert not s.is_legal("not a move")
    assert not s.is_legal(-1)
    assert not s.is_legal(N_ACTIONS)


@SETTINGS
@given(states())
def test_the_round_always_ends_under_random_play(s):
    rng = random.Random(s.to_text())
    for _ in range(2000):
        if s.is_round_over:
            break
        s = s.apply(rng.choice(s.legal_moves()))
    assert s.is_round_over
    assert s.result == expected_winner(s)
    empty = sum(1 for g in GOODS if not s.tokens[g])
    assert empty >= 3 or len(s.market) < 5


# --------------------------------------------------------------------------
# Illegal moves

@SETTINGS
@given(states(), moves())
def test_illegal_moves_raise_and_change_nothing(s, m):
    before = s.to_text()
    if s.is_legal(m):
        assert s.apply(m) != s
        return
    with pytest.raises(IllegalMoveError) as err:
        s.apply(m)
    assert isinstance(err.value, ValueError)
    assert isinstance(err.value, InvalidMoveError)
    assert s.to_text() == before
    with pytest.raises(IllegalMoveError):
        s.apply(str(m))
    with pytest.raises(IllegalMoveError):
        s.apply(m.action_id)
    assert s.to_text() == before


@pytest.mark.parametrize("move", ["sell 1D", "take X", "swap DG for DL", "nonsense", -1,
                                  N_ACTIONS, "sell 9L"])
def test_unreadable_moves_raise_invalid_move_error(move):
    s = GameState.new(seed=3, starter=0)
    before = s.to_text()
    with pytest.raises(InvalidMoveError) as err:
        s.apply(move)
    assert isinstance(err.value, ValueError)
    assert s.to_text() == before


def test_specific_illegal_moves_in_a_known_position():
    # seed 7: market GSMMM, player 0 holds DSSPP and no camel.
    s = GameState.new(seed=7, starter=0)
    assert s.market == "GSMMM" and s.players[0].hand == "DSSPP" and s.players[0].herd == 0
    for bad in ["take D", "sell 1D", "sell 3S", "sell 3P", "swap GS for DM", "swap GS for SP",
                "swap G for D"]:
        try:
            m = Move.parse(bad)
        except InvalidMoveError:
            continue
        assert not s.is_legal(m)
        with pytest.raises(IllegalMoveError):
            s.apply(m)
    for good in ["take G", "take S", "camels", "sell 2S", "sell 2P", "sell 1P",
                 "swap GS for DP", "swap GS for PP"]:
        assert s.is_legal(good), good
    assert not s.is_legal("sell 1S")       # silver needs a sale of 2 (R5)


def test_moves_after_the_round_is_over_raise():
    s = GameState.from_dict(one_sale_from_the_end("0")).apply(DECIDING_MOVE)
    assert s.is_round_over
    before = s.to_text()
    for m in ["take L", "camels", "sell 1L", "sell 1P", "swap LL for PM"]:
        assert not s.is_legal(m)
        with pytest.raises(IllegalMoveError):
            s.apply(m)
    assert s.to_text() == before
    assert s.legal_moves() == [] and s.legal_action_ids() == []


# --------------------------------------------------------------------------
# R7 (docs/rules.md, section 6): the next round

@pytest.mark.parametrize("starter", [0, 1])
@pytest.mark.parametrize("outcome,winner", [("0", 0), ("1", 1), ("draw", "draw")])
def test_deciding_sale_ends_the_round_with_the_tie_breaks(outcome, winner, starter):
    s = GameState.from_dict(one_sale_from_the_end(outcome, starter=starter))
    assert not s.is_round_over
    assert s.result is None
    t = s.apply(DECIDING_MOVE)
    assert t.is_round_over
    assert sum(1 for g in GOODS if not t.tokens[g]) == 3
    assert expected_winner(t) == winner     # the scenario is the one intended
    assert t.result == winner == t.round_winner()
    assert t.round_totals() == {"0": (43, 38), "1": (43, 48), "draw": (43, 43)}[outcome]
    assert t.seals == {0: (1, 0), 1: (0, 1), "draw": (0, 0)}[winner]
    assert not t.is_match_over and t.match_winner is None


@pytest.mark.parametrize("starter", [0, 1])
@pytest.mark.parametrize("outcome,next_starter", [("0", 1), ("1", 0), ("draw", None)])
def test_next_round_is_started_by_the_loser_or_after_a_draw_by_the_other(
        outcome, next_starter, starter):
    finished = GameState.from_dict(one_sale_from_the_end(outcome, starter=starter)) \
        .apply(DECIDING_MOVE)
    if next_starter is None:
        next_starter = 1 - starter
    nxt = finished.next_round(seed=99)
    assert nxt.starter == next_starter
    assert nxt.to_move == next_starter
    assert nxt.round == 2
    assert nxt.seals == finished.seals
    assert nxt.result is None and not nxt.is_round_over
    assert nxt.bonus_set == finished.bonus_set
    # a fresh deal
    assert len(nxt.deck) == 40 and nxt.discard == ""
    assert all(list(nxt.tokens[g]) == TOKENS[g] for g in GOODS)
    assert all(not v for pl in nxt.players for v in pl.tokens.values())
    assert all(not v for pl in nxt.players for v in pl.bonus.values())
    assert nxt.round_totals() == expected_totals(nxt)
    check_invariants(nxt)
    # deterministic by seed, and the old state is untouched
    assert finished.next_round(seed=99) == nxt
    assert finished.is_round_over and finished.round == 1


def test_seals_are_carried_over_and_the_match_ends_at_two():
    # Round 3, one seal each: the winner of the round wins the match.
    s = GameState.from_dict(one_sale_from_the_end("1", round_no=3, seals=(1, 1), starter=1))
    assert not s.is_match_over and s.match_winner is None
    t = s.apply(DECIDING_MOVE)
    assert t.seals == (1, 2)
    assert t.is_match_over and t.match_winner == 1
    with pytest.raises(InvalidPositionError) as err:
        t.next_round(seed=1)
    assert isinstance(err.value, ValueError)
    # A draw in round 3 leaves the match open.
    d = GameState.from_dict(one_sale_from_the_end("draw", round_no=3, seals=(1, 1), starter=1))
    d = d.apply(DECIDING_MOVE)
    assert d.seals == (1, 1) and not d.is_match_over and d.match_winner is None
    n = d.next_round(seed=4)
    assert (n.round, n.seals, n.starter) == (4, (1, 1), 0)


def test_match_over_after_two_wins_in_a_row():
    s = GameState.from_dict(one_sale_from_the_end("0", round_no=2, seals=(1, 0), starter=1))
    t = s.apply(DECIDING_MOVE)
    assert t.seals == (2, 0) and t.is_match_over and t.match_winner == 0
    with pytest.raises(InvalidPositionError):
        t.next_round()


def test_next_round_of_a_running_round_raises():
    s = GameState.new(seed=5)
    with pytest.raises(InvalidPositionError) as err:
        s.next_round(seed=1)
    assert err.value.field == "result"


def test_round_ended_by_the_deck_also_hands_the_start_to_the_loser():
    # Deck of one card, two camels in the market: taking them needs two cards.
    d = build(hands=("DD", "GG"), herds=(4, 5), market="LLPMM", deck="C",
              held=({"S": [5]}, {"G": [6]}), to_move=0, starter=0)
    s = GameState.from_dict(d)
    assert s.round_totals() == (5, 11) and s.round_winner() == 1
    t = s.apply("camels")
    assert t.is_round_over
    assert len(t.market) == 3 and t.deck == "C"
    # player 0 now has the bigger herd (6 against 5): 5 + 5 against 6
    assert t.round_totals() == (10, 6) and t.result == 0 == expected_winner(t)
    assert t.seals == (1, 0)
    nxt = t.next_round(seed=8)
    assert (nxt.starter, nxt.to_move, nxt.round, nxt.seals) == (1, 1, 2, (1, 0))


def test_pairs_bonus_set_is_kept_by_next_round():
    s = GameState.from_dict(one_sale_from_the_end("0"))
    d = s.to_dict()
    d["bonus_set"] = "pairs"
    d["bonus"] = {k: list(v) for k, v in BONUS["pairs"].items()}
    t = GameState.from_dict(d).apply(DECIDING_MOVE).next_round(seed=3)
    assert t.bonus_set == "pairs"
    assert {k: sorted(v) for k, v in t.bonus.items()} == BONUS["pairs"]


# --------------------------------------------------------------------------
# The deal

@SETTINGS
@given(st.integers(0, 2**64 - 1), st.sampled_from([None, 0, 1]),
       st.sampled_from(["standard", "pairs"]))
def test_the_deal(seed, starter, bonus_set):
    s = GameState.new(seed=seed, starter=starter, bonus_set=bonus_set)
    assert s == GameState.new(seed=seed, starter=starter, bonus_set=bonus_set)
    if starter is not None:
        assert s.starter == s.to_move == starter
    else:
        assert s.starter == s.to_move in (0, 1)
    assert (s.round, s.seals, s.result, s.bonus_set) == (1, (0, 0), None, bonus_set)
    assert not s.is_round_over and not s.is_match_over
    assert len(s.market) == 5 and s.market.count("M") >= 3
    assert len(s.deck) == 40 and s.discard == ""
    for pl in s.players:
        assert len(pl.hand) + pl.herd == 5 and "M" not in pl.hand
        assert pl.known == ""
        assert all(v == () for v in pl.tokens.values())
        assert all(v == () for v in pl.bonus.values())
    assert {g: list(v) for g, v in s.tokens.items()} == TOKENS
    assert {k: sorted(v) for k, v in s.bonus.items()} == BONUS[bonus_set]
    check_invariants(s)
    text = s.to_text()
    assert (text.split()[-1] == "pairs") == (bonus_set == "pairs")
    assert GameState.from_text(text).bonus_set == bonus_set
    assert s.to_dict()["bonus_set"] == bonus_set


def test_deals_differ_between_seeds_and_shuffle_the_bonus_stacks():
    deals = [GameState.new(seed=i, starter=0) for i in range(30)]
    assert len({d.to_text() for d in deals}) == 30
    assert len({d.deck for d in deals}) == 30
    for k in "345":
        assert len({d.bonus[k] for d in deals}) > 5
    # the two cards drawn to the market beside the three camels vary
    assert len({d.market for d in deals}) > 5
    # an unspecified starter is drawn from the seed: both players get to start
    assert {GameState.new(seed=i).starter for i in range(30)} == {0, 1}
    assert all(GameState.new(seed=i).starter == GameState.new(seed=i).starter
               for i in range(10))


def test_starter_argument_is_respected_without_changing_the_cards():
    a, b = GameState.new(seed=42, starter=0), GameState.new(seed=42, starter=1)
    assert (a.to_move, b.to_move) == (0, 1)
    assert a.deck == b.deck and a.market == b.market
    assert [p.hand for p in a.players] == [p.hand for p in b.players]


@pytest.mark.parametrize("kwargs,field", [
    ({"seed": 1, "starter": 2}, "starter"),
    ({"seed": 1, "starter": "0"}, "starter"),
    ({"seed": 1, "bonus_set": "triples"}, "bonus_set"),
    ({"seed": -1}, "seed"),
    ({"seed": 2**64}, "seed"),
    ({"seed": "7"}, "seed"),
])
def test_new_rejects_bad_arguments(kwargs, field):
    with pytest.raises(InvalidPositionError) as err:
        GameState.new(**kwargs)
    assert err.value.field == field


# --------------------------------------------------------------------------
# Bad input: every one raises InvalidPositionError naming the field

def base() -> dict:
    """seed 7: market GSMMM, hands DSSPP / SCPP, herds 0 / 1."""
    return GameState.new(seed=7, starter=0).to_dict()


def move_card(d: dict, letter: str, to: str) -> dict:
    """Move one card of ``letter`` from the deck to ``to`` (a players[p] hand or the market)."""
    i = d["deck"].index(letter)
    d["deck"] = d["deck"][:i] + d["deck"][i + 1:]
    if to == "market":
        d["market"] += letter
    else:
        d["players"][int(to)]["hand"] += letter
    return d


def finished() -> dict:
    return GameState.from_dict(one_sale_from_the_end("0")).apply(DECIDING_MOVE).to_dict()


def _set(path, value):
    def f(d):
        node = d
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        return d
    return f


def _del(key):
    def f(d):
        del d[key]
        return d
    return f


def _market_to_deck(d):
    d["deck"] += d["market"][0]
    d["market"] = d["market"][1:]
    return d


def _seven_diamonds(d):
    d["deck"] = d["deck"].replace("G", "D", 1)
    return d


def _eight_goods(d):
    for letter in "LLL":
        move_card(d, letter, "0")
    return d


def _camel_in_hand(d):
    return move_card(d, "M", "0")


def _three_empty_stacks(d):
    d["tokens"]["D"], d["tokens"]["G"], d["tokens"]["S"] = [], [], []
    d["players"][0]["tokens"]["D"] = TOKENS["D"]
    d["players"][0]["tokens"]["G"] = TOKENS["G"]
    d["players"][1]["tokens"]["S"] = TOKENS["S"]
    return d


def _bonus_added_to_player(value, kind="3", remove=None):
    def f(d):
        if remove is not None:
            d["bonus"][kind].remove(remove)
        d["players"][0]["bonus"][kind].append(value)
        return d
    return f


def _held_not_taken(d):
    d["players"][0]["tokens"]["D"] = [7]
    return d


def _held_wrong_values(d):
    d["tokens"]["C"] = [3, 2, 2, 1, 1]
    d["players"][0]["tokens"]["C"] = [5, 1]
    return d


def _tokens_taken_nobody_holds(d):
    d["tokens"]["L"] = [1, 1]
    return d


BAD_STATES = [
    ("7 diamonds", _seven_diamonds, r"cards"),
    ("a card missing", lambda d: {**d, "deck": d["deck"][1:]}, r"cards"),
    ("a card too many", lambda d: {**d, "discard": "L"}, r"cards"),
    ("a camel in the discard",
     lambda d: {**d, "discard": "M", "deck": d["deck"].replace("M", "", 1)},
     r"discard"),
    ("unknown letter", lambda d: {**d, "deck": "X" + d["deck"][1:]}, r"deck"),
    ("stack not a suffix", _set(("tokens", "D"), [7, 5, 5]), r"tokens\.D"),
    ("stack longer than the real one", _set(("tokens", "S"), [5] * 6), r"tokens\.S"),
    ("stack with a foreign value", _set(("tokens", "L"), [4, 3, 2, 1, 1, 1, 1, 1, 2]),
     r"tokens\.L"),
    ("held tokens not gone from the stack", _held_not_taken, r"players\[[*0]\]\.tokens\.D"),
    ("held tokens of other values", _held_wrong_values, r"players\[[*0]\]\.tokens\.C"),
    ("tokens gone but held by nobody", _tokens_taken_nobody_holds,
     r"players\[[*01]\]\.tokens\.L"),
    ("8 goods in hand", _eight_goods, r"players\[0\]\.hand"),
    ("a camel in a hand", _camel_in_hand, r"players\[0\]\.hand"),
    ("known card not in hand", _set(("players", 1, "known"), "D"), r"players\[1\]\.known"),
    ("known camel", _set(("players", 1, "known"), "M"), r"players\[1\]\.known"),
    ("bonus value not in the set", _bonus_added_to_player(4, "3", remove=1),
     r"(players\[0\]\.)?bonus\.3"),
    ("a third bonus 3", _bonus_added_to_player(3, "3"), r"(players\[0\]\.)?bonus\.3"),
    ("bonus moved, not copied, is fine but 10 in the 4-set is not",
     _bonus_added_to_player(10, "4", remove=4), r"(players\[0\]\.)?bonus\.4"),
    ("bonus stack short", _set(("bonus", "4"), [4, 5, 5, 6, 6]), r"bonus\.4"),
    ("bonus value out of range", _set(("bonus", "5"), [8, 8, 9, 10, 11]), r"bonus\.5(\[4\])?"),
    ("market of 4 while running", _market_to_deck, r"market"),
    ("market of 6 while running", lambda d: move_card(d, "L", "market"), r"market"),
    ("three empty stacks, result null", _three_empty_stacks, r"tokens"),
    ("result contradicts the totals", lambda d: {**finished(), "result": 1,
                                                 "seals": [0, 1]}, r"result"),
    ("draw contradicts the totals", lambda d: {**finished(), "result": "draw",
                                               "seals": [0, 0]}, r"result"),
    ("winner without a seal", lambda d: {**finished(), "seals": [0, 0]}, r"seals"),
    ("two seals while running", _set(("seals",), [2, 0]), r"seals"),
    ("more seals than rounds", _set(("seals",), [1, 1]), r"seals"),
    ("seal out of range", _set(("seals",), [3, 0]), r"seals\[0\]"),
    ("seals not a pair", _set(("seals",), [0]), r"seals"),
    ("result unknown", _set(("result",), "player 0"), r"result"),
    ("result bool", _set(("result",), True), r"result"),
    ("format", _set(("format",), "jaipur-view/1"), r"format"),
    ("bonus set unknown", _set(("bonus_set",), "triples"), r"bonus_set"),
    ("round 0", _set(("round",), 0), r"round"),
    ("to_move 2", _set(("to_move",), 2), r"to_move"),
    ("starter as string", _set(("starter",), "0"), r"starter"),
    ("herd as string", _set(("players", 0, "herd"), "1"), r"players\[0\]\.herd"),
    ("herd negative", _set(("players", 1, "herd"), -1), r"players\[1\]\.herd"),
    ("hand not a string", _set(("players", 0, "hand"), ["D"]), r"players\[0\]\.hand"),
    ("three players", lambda d: {**d, "players": d["players"] * 2}, r"players"),
    ("players not a list", _set(("players",), {}), r"players"),
    ("player not an object", _set(("players", 0), "DSSPP"), r"players\[0\]"),
    ("player tokens missing a good", lambda d: (d["players"][0]["tokens"].pop("L"), d)[1],
     r"players\[0\]\.tokens\.L"),
    ("stack tokens not a list", _set(("tokens", "P"), 5), r"tokens\.P"),
    ("bonus kind unknown", _set(("bonus", "6"), []), r"bonus"),
    ("market missing", _del("market"), r"market"),
    ("deck missing", _del("deck"), r"deck"),
    ("players missing", _del("players"), r"players"),
]


@pytest.mark.parametrize("mutate,field", [(m, f) for _, m, f in BAD_STATES],
                         ids=[n for n, _, _ in BAD_STATES])
def test_bad_positions_raise_invalid_position_error_naming_the_field(mutate, field):
    import re
    d = mutate(base())
    with pytest.raises(InvalidPositionError) as err:
        GameState.from_dict(d)
    assert isinstance(err.value, ValueError)
    assert re.fullmatch(field, err.value.field), (err.value.field, err.value.reason)
    assert err.value.reason
    # and the same through JSON
    with pytest.raises(InvalidPositionError) as err2:
        GameState.from_json(json.dumps(d))
    assert err2.value.field == err.value.field


def test_the_base_positions_are_valid():
    assert GameState.from_dict(base()) == GameState.new(seed=7, starter=0)
    assert GameState.from_dict(finished()).result == 0
    for outcome in ("0", "1", "draw"):
        GameState.from_dict(one_sale_from_the_end(outcome))


@pytest.mark.parametrize("text", ["", "{", "[1, 2", "nul", "{'a': 1}", "\x00", "1e999999x",
                                  "[]", "null", "17", '"S 1.0.0.00.-"', b"\xff\xfe"])
def test_bad_json_raises_invalid_position_error(text):
    with pytest.raises(InvalidPositionError) as err:
        GameState.from_json(text)
    assert err.value.field in ("json", "format", "position")


@pytest.mark.parametrize("top", [[], None, 17, "S"])
def test_top_level_not_an_object_names_a_field(top):
    with pytest.raises(InvalidPositionError) as err:
        GameState.from_dict(top)
    assert err.value.field


def test_non_string_json_raises_invalid_position_error():
    for x in (None, 17, ["S"], {"format": "jaipur-state/1"}):
        with pytest.raises(InvalidPositionError):
            GameState.from_json(x)


def test_deeply_nested_json_raises_invalid_position_error():
    with pytest.raises(InvalidPositionError) as err:
        GameState.from_json("[" * 100_000 + "]" * 100_000)
    assert err.value.field == "json"


@pytest.mark.parametrize("junk", [[], ["standard"], {}])
def test_unhashable_bonus_set_raises_invalid_position_error(junk):
    d = base()
    d["bonus_set"] = junk
    with pytest.raises(InvalidPositionError) as err:
        GameState.from_dict(d)
    assert err.value.field == "bonus_set"


def test_float_result_raises_invalid_position_error():
    d = base()                       # seed 7: player 1 leads by the camel token
    assert GameState.from_dict(d).round_winner() == 1
    d["result"], d["seals"] = 1.0, [0, 1]
    with pytest.raises(InvalidPositionError) as err:
        GameState.from_dict(d)
    assert err.value.field == "result"


def finished_draw() -> dict:
    return GameState.from_dict(one_sale_from_the_end("draw")).apply(DECIDING_MOVE).to_dict()


@pytest.mark.parametrize("make,round_no,seals", [
    (base, 1, [1, 0]),          # running round 1: no round has finished yet
    (base, 2, [1, 1]),          # running round 2: one finished round gives one seal at most
    (finished, 5, [2, 2]),      # both players cannot reach two seals
    (finished, 5, [1, 2]),      # player 0 won this round, but player 1 had already won the match
    (finished_draw, 5, [2, 0]),  # a drawn round after the match was over
], ids=["running-r1-1-0", "running-r2-1-1", "won-2-2", "won-1-2", "draw-2-0"])
def test_impossible_seals_raise_invalid_position_error(make, round_no, seals):
    d = make()
    d["round"], d["seals"] = round_no, seals
    with pytest.raises(InvalidPositionError) as err:
        GameState.from_dict(d)
    assert err.value.field == "seals"


def test_possible_seals_are_accepted():
    for make, round_no, seals in [(base, 2, [1, 0]), (base, 3, [1, 1]), (finished, 3, [2, 1]),
                                  (finished, 2, [1, 1]), (finished_draw, 4, [1, 1])]:
        d = make()
        d["round"], d["seals"] = round_no, seals
        assert GameState.from_dict(d).seals == tuple(seals)


def test_result_on_a_running_table_raises_invalid_position_error():
    d = base()                       # seed 7: player 1 leads by the camel token
    d["result"], d["seals"] = 1, [0, 1]
    with pytest.raises(InvalidPositionError) as err:
        GameState.from_dict(d)
    assert err.value.field in ("result", "market", "tokens")


@pytest.mark.parametrize("key", ["", "DG", "GSC"])
def test_unknown_good_key_raises_invalid_position_error(key):
    d = base()
    d["tokens"][key] = [5]
    with pytest.raises(InvalidPositionError) as err:
        GameState.from_dict(d)
    assert err.value.field == "tokens"


# --------------------------------------------------------------------------
# Fuzzing: from_dict and from_text never raise anything but InvalidPositionError

JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(2**63, 2**200),
    st.integers(-2**200, -1), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12), st.text(alphabet="DGSCPLMdgscplm-xT 0123456789", max_size=60),
    st.lists(st.integers(-3, 12), max_size=12),
    st.lists(st.one_of(st.none(), st.text(max_size=3), st.floats()), max_size=4),
    st.dictionaries(st.sampled_from(["D", "G", "3", "4", "5", "hand", "x", ""]),
                    st.one_of(st.integers(-2, 11), st.lists(st.integers(0, 10), max_size=9)),
                    max_size=4),
    st.sampled_from([0, 1, 2, 7, 8, 10, 11, 12, 255, 256, 2**64, -1, "", "-", "D", "M",
                     "DDDDDDDD", "draw", "pairs", "standard", [], {}, [[]], [0, 1], 0.5,
                     0.0, 1.0, True, False, "1", "²", "D" * 100]),
)


def _fixed_positions() -> list:
    """A spread of positions to fuzz from: deals, rounds under way, finished rounds
    (won and drawn), later rounds, the pairs bonus set."""
    out = [GameState.from_dict(one_sale_from_the_end(o)).apply(DECIDING_MOVE)
           for o in ("0", "1", "draw")]
    for seed in range(12):
        s = GameState.new(seed, bonus_set="pairs" if seed % 4 == 0 else "standard")
        rng = random.Random(seed)
        out.append(s)
        for plies in (20, 40):
            s = play_randomly(s, rng, plies)
            out.append(s)
        while not s.is_round_over:
            s = s.apply(rng.choice(s.legal_moves()))
        out.append(s)
        out.append(play_randomly(s, rng, 30 + seed))
    return out


POSITIONS = _fixed_positions()


def fuzz_states() -> st.SearchStrategy:
    """Fixed positions (cheap) or states reached by random play."""
    return st.one_of(st.sampled_from(POSITIONS), states(max_plies=200))


def _paths(obj, path=()):
    if path:
        yield path
    if isinstance(obj, dict):
        for k in obj:
            yield from _paths(obj[k], path + (k,))
    elif isinstance(obj, list):
        for i in range(len(obj)):
            yield from _paths(obj[i], path + (i,))


def pick_path(data, d: dict) -> tuple:
    """A node of ``d`` to mutate: half the time a top-level or player field, else any node."""
    paths = list(_paths(d))
    shallow = [p for p in paths if len(p) == 1 or (p[0] == "players" and len(p) <= 3)]
    return data.draw(st.one_of(st.sampled_from(shallow), st.sampled_from(paths)))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fuzz_states(), st.data())
def test_from_dict_with_a_junk_leaf_raises_only_invalid_position_error(s, data):
    d = s.to_dict()
    path = pick_path(data, d)
    action = data.draw(st.sampled_from(["replace", "replace", "replace", "delete"]))
    d = copy.deepcopy(d)
    node = d
    for key in path[:-1]:
        node = node[key]
    if action == "delete":
        if isinstance(node, list):
            del node[path[-1]]
        else:
            node.pop(path[-1])
    else:
        junk = data.draw(JUNK)
        node[path[-1]] = junk
    try:
        t = GameState.from_dict(d)
    except InvalidPositionError as e:
        assert isinstance(e.field, str) and e.field and e.reason
        return
    # accepted: a position of the game, that reads back as itself
    check_invariants(t)
    assert GameState.from_text(t.to_text()) == t
    assert GameState.from_dict(t.to_dict()) == t


@settings(max_examples=100, deadline=None)
@given(st.one_of(st.text(max_size=200),
                 st.text(alphabet="S 0123456789.-/DGSCPLMT=pairs", max_size=200),
                 st.builds(lambda t: "S " + t, st.text(max_size=200))))
def test_from_text_of_random_text_raises_only_invalid_position_error(text):
    try:
        t = GameState.from_text(text)
    except InvalidPositionError as e:
        assert e.field
        return
    check_invariants(t)
    assert GameState.from_text(t.to_text()) == t


TEXT_ALPHABET = st.one_of(st.sampled_from("0123456789DGSCPLMTdgscplmx-./=_ ²٣"), st.characters())


@st.composite
def mutated_texts(draw):
    s = draw(fuzz_states())
    tokens = s.to_text().split(" ")
    i = draw(st.integers(0, len(tokens) - 1))
    how = draw(st.sampled_from(["char", "char", "insert", "delete", "token", "drop", "dup",
                                "append"]))
    tok = tokens[i]
    if how == "char" and tok:
        j = draw(st.integers(0, len(tok) - 1))
        tokens[i] = tok[:j] + draw(TEXT_ALPHABET) + tok[j + 1:]
    elif how == "insert":
        j = draw(st.integers(0, len(tok)))
        tokens[i] = tok[:j] + draw(TEXT_ALPHABET) + tok[j:]
    elif how == "delete" and tok:
        j = draw(st.integers(0, len(tok) - 1))
        tokens[i] = tok[:j] + tok[j + 1:]
    elif how == "token":
        tokens[i] = draw(st.text(TEXT_ALPHABET, min_size=1, max_size=20))
    elif how == "drop":
        del tokens[i]
    elif how == "dup":
        tokens.insert(i, tok)
    else:
        tokens.append(draw(st.sampled_from(["pairs", "standard", "x", "-"])))
    return " ".join(tokens)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_texts())
def test_from_text_of_a_mutated_text_raises_only_invalid_position_error(text):
    try:
        t = GameState.from_text(text)
    except InvalidPositionError as e:
        assert e.field
        return
    check_invariants(t)
    assert GameState.from_text(t.to_text()) == t


@pytest.mark.parametrize("old,new", [("DSSPP/0/", "DSSPP/²/"), (" 555779 ", " 55577² "),
                                     ("S 1.0.0.00.-", "S 1.0.0.²0.-"),
                                     ("2122313.", "212231²."),
                                     ("DSSPP/0/", "DSSPP/" + "0" * 5000 + "/")],
                         ids=["herd", "stacks", "seals", "bonus", "5000-digit-herd"])
def test_text_with_odd_digits_raises_invalid_position_error(old, new):
    text = GameState.new(seed=7, starter=0).to_text()
    assert old in text
    with pytest.raises(InvalidPositionError):
        GameState.from_text(text.replace(old, new, 1))


@pytest.mark.parametrize("text,field", [
    (None, "text"), (17, "text"), ("", "text"), ("V 1.0.0.00.-", "text"),
    ("S 1.0.0.00.- GSMMM", "text"),
])
def test_from_text_bad_shapes(text, field):
    with pytest.raises(InvalidPositionError) as err:
        GameState.from_text(text)
    assert err.value.field == field


def test_from_text_names_the_field():
    text = GameState.new(seed=7, starter=0).to_text()
    cases = {
        text.replace("DSSPP/0/", "DSSPP/x/"): r"players\[0\]\.herd",
        text.replace(" 555779 ", " 555789 "): r"tokens\.P",
        text.replace(" 555779 ", " 55577 "): r"tokens",
        text.replace("S 1.0.0.00.-", "S 1.0.0.00.9"): r"result",
        text.replace("S 1.0.0.00.-", "S 1.2.0.00.-"): r"starter",
        text.replace("S 1.0.0.00.-", "S 0.0.0.00.-"): r"round",
        text.replace("S 1.0.0.00.-", "S 1.0.0.0.-"): r"seals",
        text.replace("DSSPP/0/", "DSSPPLLL/0/"): r"players\[0\]\.hand|cards",
        text + " triples": r"bonus_set",
    }
    import re
    for bad, field in cases.items():
        with pytest.raises(InvalidPositionError) as err:
            GameState.from_text(bad)
        assert re.fullmatch(field, err.value.field), (bad, err.value.field)


# --------------------------------------------------------------------------
# The compiled core's raw fields (issue 51, item 12): CoreState.from_raw and unpickling
# are a door too, checked field by field as the public parsers check positions

def _raw_of(seed: int = 7) -> dict:
    return GameState.new(seed=seed).core_object().raw()


@pytest.mark.parametrize("key, value, field", [
    ("hand", [[100, 0, 0, 0, 0, 0], [0] * 6], "hand[0][0]"),      # segfaulted the release build
    ("hand", [[2, 2, 2, 2, 0, 0], [0] * 6], "hand[0]"),           # 8 goods: over the limit
    ("tok_pos", [50, 0, 0, 0, 0, 0], "tok_pos[0]"),               # trapped the debug build
    ("to_move", 5, "to_move"),
    ("market", [5, 0, 0, 0, 0, 0, 1], "market"),
    ("deck", [7] * 3, "deck[0]"),
    ("deck", [0] * 56, "deck"),
    ("tok_owner", [1, 0, 0, 0, 0, 0], "tok_owner[0]"),            # a token not yet taken
    ("bonus", [[1] * 8, [], []], "bonus[0]"),
    ("bonus_pos", [9, 0, 0], "bonus_pos[0]"),
    ("result", 1.5, "result"),
    ("seals", [3, 0], "seals[0]"),
    ("round_no", 0, "round_no"),
    ("bonus_set", 2, "bonus_set"),
    ("herd", "MM", "herd"),
])
def test_core_raw_fields_out_of_range_are_invalid_position_errors(key, value, field):
    import pickle
    from jaipur_ai.rules._bridge import CoreState
    raw = _raw_of()
    raw[key] = value
    with pytest.raises(InvalidPositionError) as e:
        CoreState.from_raw(raw)
    assert e.value.field == field

    class Crafted:                     # a pickle that rebuilds a core from these fields
        def __reduce__(self):
            return (CoreState.from_raw, (raw,))
    with pytest.raises(InvalidPositionError):
        pickle.loads(pickle.dumps(Crafted()))
    del raw[key]
    with pytest.raises(InvalidPositionError) as e:
        CoreState.from_raw(raw)
    assert e.value.field == key and "missing" in e.value.reason


def test_core_view_raw_fields_are_checked_and_views_still_pickle():
    import pickle
    from jaipur_ai.rules._bridge import CoreView
    view = GameState.new(seed=3).view(1).core_object()
    again = pickle.loads(pickle.dumps(view))
    assert (again.raw(), again.observer, again.opp_hand_n) == (view.raw(), 1, view.opp_hand_n)
    for observer, opp_n, field in [(5, 5, "observer"), (-1, 5, "observer"), (1, 99, "opp_hand_n"),
                                   (1, 1.0, "opp_hand_n")]:
        with pytest.raises(InvalidPositionError) as e:
            CoreView.from_raw(view.raw(), observer, opp_n)
        assert e.value.field == field


_RAW_JUNK = st.one_of(st.integers(-300, 300), st.none(), st.text(max_size=3),
                      st.lists(st.integers(-3, 300), max_size=60),
                      st.lists(st.lists(st.integers(-3, 12), max_size=8), max_size=4))


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.data())
def test_core_from_raw_of_any_fields_is_checked_or_plays_safely(seed, data):
    from jaipur_ai.rules._bridge import CoreState
    raw = GameState.new(seed=seed % 1000).core_object().raw()
    for _ in range(data.draw(st.integers(1, 3))):
        key = data.draw(st.sampled_from(sorted(raw)))
        if isinstance(raw[key], list) and raw[key] and data.draw(st.booleans()):
            i = data.draw(st.integers(0, len(raw[key]) - 1))
            raw[key] = list(raw[key])
            if isinstance(raw[key][i], list) and raw[key][i] and data.draw(st.booleans()):
                j = data.draw(st.integers(0, len(raw[key][i]) - 1))
                raw[key][i] = list(raw[key][i])
                raw[key][i][j] = data.draw(st.integers(-3, 300))
            else:
                raw[key][i] = data.draw(_RAW_JUNK)
        else:
            raw[key] = data.draw(_RAW_JUNK)
    try:
        core = CoreState.from_raw(raw)
    except InvalidPositionError:
        return
    # accepted: the rules run on it without reading or writing outside their arrays
    assert core.generated_actions() == core.counted_actions()
    for a in core.legal_actions():
        c = core.copy()
        c.apply_action(a)
    core.copy().random_playout(seed)
    for p in (0, 1):
        try:
            core.view(p).sample(seed)
        except ValueError:
            pass                       # a table whose cards do not add up: no world
