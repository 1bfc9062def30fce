"""View: a player's information set (docs/rules.md, section 7, R8), its sampling,
JSON/text forms, read_position, validation of hand-written views and legal moves.
"""
from __future__ import annotations

import copy
import json
import random
import re
from collections import Counter

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from jaipur_ai import GameState, InvalidPositionError, View, read_position
from strategies import play_randomly, running_states, states, views
from test_state import (CARDS, GOODS, JUNK, TEXT_ALPHABET, TOKENS, build,
                        check_invariants, fuzz_states, pick_path)

SETTINGS = settings(max_examples=50, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def unknown_cards(hand: str, known: str) -> Counter:
    return Counter(hand) - Counter(known)


# --------------------------------------------------------------------------
# R8 (docs/rules.md, section 7): what a view shows and hides

@SETTINGS
@given(states(), st.integers(0, 1))
def test_view_shows_exactly_the_information_set(s, p):
    q = 1 - p
    v = s.view(p)
    me, them = s.players[p], s.players[q]
    assert (v.observer, v.opponent) == (p, q)
    # public
    assert (v.market, v.discard, v.herds) == (s.market, s.discard, (s.players[0].herd,
                                                                   s.players[1].herd))
    assert (v.round, v.to_move, v.seals, v.result, v.bonus_set, v.is_round_over) == \
        (s.round, s.to_move, s.seals, s.result, s.bonus_set, s.is_round_over)
    assert v.tokens == s.tokens
    assert v.deck_size == len(s.deck)
    assert v.opponent_hand_size == len(them.hand)
    assert v.opponent_known == them.known
    d = v.to_dict()
    assert d["starter"] == s.starter
    assert d["bonus_left"] == {k: len(s.bonus[k]) for k in "345"}
    for i in range(2):
        assert d["players"][i]["tokens"] == {g: list(t) for g, t in s.players[i].tokens.items()}
    assert d["players"][q]["bonus"] == {k: len(them.bonus[k]) for k in "345"}
    # private to the observer
    assert v.hand == me.hand
    assert d["players"][p]["hand"] == me.hand
    assert d["players"][p]["known"] == me.known
    assert d["players"][p]["bonus"] == {k: list(me.bonus[k]) for k in "345"}
    # hidden: the opponent's hand beyond the known cards, the deck, the bonus values
    assert "hand" not in d["players"][q] and d["players"][q]["hand_size"] == len(them.hand)
    assert "deck" not in d and "bonus" not in d
    assert all(isinstance(n, int) for n in d["players"][q]["bonus"].values())
    # the unseen cards are exactly the deck and the opponent's unknown hand cards
    assert Counter(v.unseen) == Counter(s.deck) + unknown_cards(them.hand, them.known)
    assert len(v.unseen) == v.deck_size + len(them.hand) - len(them.known)


def _hide_differently(s: GameState, p: int, rng: random.Random) -> dict:
    """A state that differs from ``s`` only in what player ``p`` cannot see: deck
    order, the opponent's unknown hand cards, the values in the bonus stacks and
    of the opponent's bonus tokens."""
    q = 1 - p
    d = copy.deepcopy(s.to_dict())
    deck = list(d["deck"])
    them = d["players"][q]
    unknown = sorted(unknown_cards(them["hand"], them["known"]).elements())
    goods_in_deck = [i for i, c in enumerate(deck) if c != "M"]
    if unknown and goods_in_deck:
        a = rng.choice(unknown)
        i = rng.choice(goods_in_deck)
        hand = list(them["hand"])
        hand[hand.index(a)] = deck[i]
        deck[i] = a
        them["hand"] = "".join(sorted(hand, key="DGSCPL".index))
    rng.shuffle(deck)
    d["deck"] = "".join(deck)
    for k in "345":
        n = len(them["bonus"][k])
        pool = them["bonus"][k] + d["bonus"][k]
        rng.shuffle(pool)
        them["bonus"][k], d["bonus"][k] = pool[:n], pool[n:]
    return d


@SETTINGS
@given(running_states(), st.integers(0, 1), st.randoms())
def test_states_that_differ_only_in_hidden_things_give_the_same_view(s, p, rng):
    t = GameState.from_dict(_hide_differently(s, p, rng))
    check_invariants(t)
    assert t.view(p) == s.view(p)
    assert t.view(p).to_json() == s.view(p).to_json()
    if s.to_move == p:
        assert t.view(p).legal_moves() == s.view(p).legal_moves()
    # nothing hidden leaks through the view's core either: same seed, same world
    for seed in range(3):
        assert t.view(p).sample(seed) == s.view(p).sample(seed)


@settings(SETTINGS, max_examples=30)
@given(running_states(), st.integers(0, 1), st.randoms())
def test_a_change_the_observer_can_see_changes_the_view(s, p, rng):
    """Swapping one of the observer's unknown hand cards with a deck card changes
    the observer's view but not the opponent's."""
    q = 1 - p
    d = s.to_dict()
    me = d["players"][p]
    unknown = sorted(unknown_cards(me["hand"], me["known"]).elements())
    candidates = [(a, i) for a in unknown for i, c in enumerate(d["deck"]) if c not in ("M", a)]
    assume(candidates)
    a, i = rng.choice(candidates)
    deck = list(d["deck"])
    hand = list(me["hand"])
    hand[hand.index(a)] = deck[i]
    deck[i] = a
    me["hand"] = "".join(sorted(hand, key="DGSCPL".index))
    d["deck"] = "".join(deck)
    t = GameState.from_dict(d)
    assert t.view(p) != s.view(p)
    assert t.view(p).hand != s.view(p).hand
    assert t.view(q) == s.view(q)


def test_own_bonus_values_are_shown_and_the_opponents_hidden():
    d = build(hands=("SSPL", "CCLL"), held=({"C": [5, 3, 3]}, {"L": [4, 3, 2, 1]}),
              bonus_held=({"3": [2]}, {"4": [6]}))
    s = GameState.from_dict(d)
    v0, v1 = s.view(0), s.view(1)
    assert v0.to_dict()["players"][0]["bonus"] == {"3": [2], "4": [], "5": []}
    assert v0.to_dict()["players"][1]["bonus"] == {"3": 0, "4": 1, "5": 0}
    assert v1.to_dict()["players"][1]["bonus"] == {"3": [], "4": [6], "5": []}
    assert v1.to_dict()["players"][0]["bonus"] == {"3": 1, "4": 0, "5": 0}
    # the opponent's value changes, the view does not; the observer's own does
    d2 = copy.deepcopy(d)
    d2["players"][1]["bonus"]["4"] = [4]
    d2["bonus"]["4"] = [4, 5, 5, 6, 6]
    s2 = GameState.from_dict(d2)
    assert s2.view(0) == v0 and s2.view(1) != v1


# --------------------------------------------------------------------------
# Known cards

def _expected_known(known: str, move) -> str:
    c = Counter(known)
    if move.kind == "take":
        c["DGSCPL"[move.good]] += 1
    elif move.kind == "sell":
        g = "DGSCPL"[move.good]
        c[g] = max(0, c[g] - move.count)
    elif move.kind == "swap":
        for i, g in enumerate("DGSCPL"):
            c[g] = max(0, c[g] + move.take[i] - move.give[i])
    return "".join(g * c[g] for g in "DGSCPL")


@settings(SETTINGS, max_examples=25)
@given(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1))
def test_known_cards_follow_takes_sales_and_exchanges(seed, rng_seed):
    rng = random.Random(rng_seed)
    s = GameState.new(seed)
    for _ in range(2):
        assert [pl.known for pl in s.players] == ["", ""], "dealt cards are unknown"
        assert s.view(0).opponent_known == s.view(1).opponent_known == ""
        while not s.is_round_over:
            p = s.to_move
            m = rng.choice(s.legal_moves())
            t = s.apply(m)
            assert t.players[p].known == _expected_known(s.players[p].known, m), str(m)
            assert t.players[1 - p].known == s.players[1 - p].known
            assert t.view(1 - p).opponent_known == t.players[p].known
            assert not Counter(t.players[p].known) - Counter(t.players[p].hand)
            s = t
        if s.is_match_over:
            break
        s = s.next_round(seed=rng.getrandbits(32))


def test_known_cards_by_hand():
    # Player 0 holds LLLL of which LL were seen taken, and CP seen of CCP.
    d = build(hands=("CCPLLLL", "SS"), known=("CPLL", ""), market="DGSMM",
              held=({}, {}), herds=(1, 0))
    s = GameState.from_dict(d)
    assert s.view(1).opponent_known == "CPLL"
    assert s.apply("sell 1L").players[0].known == "CPL"
    assert s.apply("sell 3L").players[0].known == "CP"           # max(0, 2 - 3)
    assert s.apply("sell 4L").players[0].known == "CP"
    assert s.apply("swap DG for CC").players[0].known == "DGPLL"  # C: max(0, 1 - 2)
    assert s.apply("swap DG for CP").players[0].known == "DGLL"
    assert s.apply("swap DG for LC").players[0].known == "DGPL"          # L: 2 - 1, C: 1 - 1
    t = s.apply("camels")
    assert t.players[0].known == "CPLL"
    # a take by player 1 becomes known to player 0
    u = t.apply("take " + t.market.replace("M", "")[0])
    assert u.view(0).opponent_known == t.market.replace("M", "")[0]
    assert u.players[0].known == "CPLL"


# --------------------------------------------------------------------------
# Sampling

@SETTINGS
@given(states(), st.integers(0, 1), st.integers(0, 2**64 - 1))
def test_samples_are_consistent_with_the_view(s, p, seed):
    v = s.view(p)
    w = v.sample(seed)
    assert isinstance(w, GameState)
    assert w.view(p) == v
    assert v.sample(seed) == w                     # deterministic by seed
    assert w.players[p].hand == s.players[p].hand
    assert w.players[p].bonus == s.players[p].bonus
    assert not Counter(w.players[1 - p].known) - Counter(w.players[1 - p].hand)
    assert Counter(w.deck) + unknown_cards(w.players[1 - p].hand, w.players[1 - p].known) \
        == Counter(v.unseen)
    # a valid state, as any state read back
    check_invariants(w)
    assert GameState.from_text(w.to_text()) == w


@settings(SETTINGS, max_examples=30)
@given(running_states(), st.integers(0, 1),
       st.integers(0, 2**32 - 1))
def test_samples_play_to_the_end_of_the_round(s, p, seed):
    w = s.view(p).sample(seed)
    rng = random.Random(seed)
    for _ in range(2000):
        if w.is_round_over:
            break
        legal = w.legal_moves()
        assert legal
        w = w.apply(rng.choice(legal))
        check_invariants(w)
    assert w.is_round_over


def test_different_seeds_give_different_worlds():
    s = GameState.new(seed=123, starter=0)
    for p in (0, 1):
        v = s.view(p)
        worlds = [v.sample(seed) for seed in range(25)]
        assert len({w.deck for w in worlds}) == 25
        assert len({w.players[1 - p].hand for w in worlds}) > 10
        assert len({w.bonus["3"] for w in worlds}) > 10
        assert all(w.view(p) == v for w in worlds)


def _fixed_view():
    """Player 1's view after a few moves: player 0 holds known and unknown cards."""
    s = GameState.new(seed=2024, starter=0)
    rng = random.Random(5)
    while not (s.to_move == 1 and s.players[0].known and
               len(s.players[0].hand) - len(s.players[0].known) >= 3):
        s = s.apply(rng.choice(s.legal_moves()))
        assert not s.is_round_over
    return s.view(1)


def test_sample_is_uniform_over_the_unseen_cards():
    v = _fixed_view()
    opp = v.opponent
    unseen = Counter(v.unseen)
    goods = {g: unseen[g] for g in GOODS}
    n_goods = sum(goods.values())
    slots = v.opponent_hand_size - len(v.opponent_known)
    assert slots >= 3 and len([g for g in goods if goods[g]]) >= 3
    in_hand, on_top = Counter(), Counter()
    n = 3000
    for seed in range(n):
        w = v.sample(seed)
        in_hand += unknown_cards(w.players[opp].hand, v.opponent_known)
        on_top[w.deck[0]] += 1
    assert sum(in_hand.values()) == n * slots
    for g in GOODS:
        share = goods[g] / n_goods
        assert abs(in_hand[g] / (n * slots) - share) < 0.03, (g, in_hand, goods)
    for c in unseen:
        share = unseen[c] / sum(unseen.values())
        assert abs(on_top[c] / n - share) < 0.035, (c, on_top, unseen)


def test_sample_is_uniform_over_the_unseen_bonus_values():
    # player 1 holds a 3-bonus worth 2; player 0 holds one 3-bonus, value hidden
    d = build(hands=("SSPL", "CCLL"), held=({"C": [5, 3, 3]}, {"L": [4, 3, 2, 1]}),
              bonus_held=({"3": [3]}, {"3": [2]}))
    v = GameState.from_dict(d).view(1)
    seen = Counter()
    top = Counter()
    n = 3000
    for seed in range(n):
        w = v.sample(seed)
        (value,) = w.players[0].bonus["3"]
        seen[value] += 1
        top[w.bonus["3"][0]] += 1
        assert sorted(w.players[0].bonus["3"] + w.bonus["3"]) == [1, 1, 2, 2, 3, 3]
    # the values left: 1 1 2 2 3 3 (the standard set less player 1's 2)
    for value in (1, 2, 3):
        assert abs(seen[value] / n - 1 / 3) < 0.03, seen
        assert abs(top[value] / n - 1 / 3) < 0.03, top


def test_samples_of_a_finished_round_agree_with_its_result():
    # Round over, player 1 won 54-54 on bonus tokens; player 1's 4-bonus (a 6) is hidden
    # from player 0: only a 6 is consistent with the result.
    s = GameState.from_text(
        "S 1.0.0.01.1 CMMMM S DDDDDDSSSSCCCCCCCPPPPPPPLLLLLLLL 051001 3132221.54564.89TT8 "
        "GGGGL/1/GGGGL/7755.-.55.322.5321.11/-.-.- "
        "GGSPL/6/GGSPL/5.-.55.5311.321.432111/-.6.-")
    assert s.result == 1 and s.round_totals() == (54, 54)
    v = s.view(0)
    for seed in range(20):
        w = v.sample(seed)
        assert w.round_winner() == w.result == 1
        assert GameState.from_text(w.to_text()) == w


# --------------------------------------------------------------------------
# Forms and read_position

@SETTINGS
@given(views())
def test_view_round_trips(v):
    assert View.from_json(v.to_json()) == v
    assert View.from_json(v.to_json(indent=2)) == v
    assert View.from_dict(v.to_dict()) == v
    assert View.from_dict(json.loads(json.dumps(v.to_dict()))).to_dict() == v.to_dict()
    assert View.from_text(v.to_text()) == v
    assert eval(repr(v), {"View": View}) == v
    assert hash(View.from_text(v.to_text())) == hash(v)
    assert v.to_text().startswith("V ") and "\n" not in v.to_text()
    assert read_position(v.to_text()) == v
    assert read_position(v.to_json()) == v
    assert read_position("  \n" + v.to_json(indent=1) + "\n") == v
    # a view read back samples the same worlds
    assert View.from_text(v.to_text()).sample(1) == v.sample(1)


@SETTINGS
@given(states())
def test_read_position_reads_states(s):
    for text in (s.to_text(), s.to_json(), " " + s.to_text() + "\n", s.to_json(indent=2)):
        r = read_position(text)
        assert isinstance(r, GameState) and r == s


@pytest.mark.parametrize("text,field", [
    ("", "text"), ("   ", "text"), ("X 1 2 3", "text"), ("{", "json"), ("{}", "format"),
    ('{"format": "jaipur-view/1"}', "observer"), ('{"format": "other"}', "format"),
    ("V 1.0.0.00.-", "text"), ("S 1.0.0.00.-", "text"), (None, "text"), (17, "text"),
])
def test_read_position_rejects_bad_input(text, field):
    with pytest.raises(InvalidPositionError) as err:
        read_position(text)
    assert err.value.field == field


def test_view_text_form_records_the_pairs_bonus_set():
    s = GameState.new(seed=3, bonus_set="pairs")
    v = s.view(0)
    assert v.to_text().split()[-1] == "pairs" and v.bonus_set == "pairs"
    assert View.from_text(v.to_text()).bonus_set == "pairs"
    assert len(GameState.new(seed=3).view(0).to_text().split()) == 10


# --------------------------------------------------------------------------
# Hand-written views

def hand_view() -> dict:
    """Player 1's view, written by hand: player 0 sold two cloth (tokens 5 and 3)
    and took a silver from the market; 16 cards are in sight, 39 unseen: three
    in player 0's hand, 36 in the deck."""
    none = {g: [] for g in "DGSCPL"}
    return {
        "format": "jaipur-view/1", "observer": 1, "bonus_set": "standard",
        "round": 1, "starter": 0, "to_move": 1, "seals": [0, 0], "result": None,
        "market": "DGLMM", "deck_size": 36, "discard": "CC",
        "tokens": {"D": [7, 7, 5, 5, 5], "G": [6, 6, 5, 5, 5], "S": [5, 5, 5, 5, 5],
                   "C": [3, 2, 2, 1, 1], "P": [5, 3, 3, 2, 2, 1, 1],
                   "L": [4, 3, 2, 1, 1, 1, 1, 1, 1]},
        "bonus_left": {"3": 7, "4": 6, "5": 5},
        "players": [
            {"hand_size": 4, "herd": 2, "known": "S", "tokens": {**none, "C": [5, 3]},
             "bonus": {"3": 0, "4": 0, "5": 0}},
            {"hand": "DGPPL", "herd": 1, "known": "", "tokens": dict(none),
             "bonus": {"3": [], "4": [], "5": []}},
        ],
    }


def test_a_hand_written_view_is_accepted():
    v = View.from_json(json.dumps(hand_view()))
    assert (v.observer, v.opponent, v.to_move) == (1, 0, 1)
    assert v.hand == "DGPPL" and v.opponent_hand_size == 4 and v.opponent_known == "S"
    assert v.deck_size == 36 and v.herds == (2, 1)
    expected_unseen = Counter(CARDS) - Counter("DGLMM" + "CC" + "DGPPL" + "S" + "MMM")
    assert Counter(v.unseen) == expected_unseen and len(v.unseen) == 39
    assert v.to_dict() == hand_view()
    assert [str(m) for m in v.legal_moves()] == [
        str(m) for m in v.sample(0).legal_moves()]
    assert "take D" in [str(m) for m in v.legal_moves()]
    for seed in range(10):
        w = v.sample(seed)
        assert w.view(1) == v
        assert w.players[0].hand.count("S") >= 1 and len(w.players[0].hand) == 4
        check_invariants(w)
    assert View.from_text(v.to_text()) == v


def _vset(path, value):
    def f(d):
        node = d
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        return d
    return f


def _vdel(path):
    def f(d):
        node = d
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
        return d
    return f


def _too_few_unseen_goods(d):
    # all goods but one silver and one cloth in sight: 2 unseen goods, 7 unknown slots
    d["discard"] = "DDDDGGGGSSSSSCCCCCCCPPPPPPLLLLLLLL"
    d["players"][0].update(hand_size=7, known="")
    return d


def _three_empty_stacks(d):
    d["tokens"].update(D=[], G=[], S=[])
    d["players"][0]["tokens"].update(D=TOKENS["D"], G=TOKENS["G"], S=TOKENS["S"])
    return d


BAD_VIEWS = [
    ("deck_size too big", _vset(("deck_size",), 37), r"deck_size"),
    ("deck_size too small", _vset(("deck_size",), 35), r"deck_size"),
    ("deck_size over 55", _vset(("deck_size",), 56), r"deck_size"),
    ("opponent hand_size 8", _vset(("players", 0, "hand_size"), 8), r"players\[0\]\.hand_size"),
    ("opponent hand_size below known", _vset(("players", 0, "hand_size"), 0),
     r"players\[0\]\.(known|hand_size)"),
    ("opponent hand written out", lambda d: (d["players"][0].pop("hand_size"),
                                             d["players"][0].update(hand="SDGL"), d)[-1],
     r"players\[0\]\.hand_size"),
    ("more unknown slots than unseen goods", _too_few_unseen_goods, r"players\[0\]\.hand_size"),
    ("bonus counts over the set", _vset(("bonus_left", "3"), 8), r"bonus_left\.3"),
    ("bonus counts short", _vset(("bonus_left", "4"), 5), r"bonus_left\.4"),
    ("opponent bonus count too many", _vset(("players", 0, "bonus", "5"), 1), r"bonus_left\.5"),
    ("own bonus value not in the set",
     lambda d: (_vset(("players", 1, "bonus", "3"), [4])(d), _vset(("bonus_left", "3"), 6)(d))[1],
     r"players\[1\]\.bonus\.3"),
    ("own bonus value 10 in the 4-set",
     lambda d: (_vset(("players", 1, "bonus", "4"), [10])(d), _vset(("bonus_left", "4"), 5)(d))[1],
     r"players\[1\]\.bonus\.4"),
    ("own bonus values too many 3s",
     lambda d: (_vset(("players", 1, "bonus", "3"), [3, 3, 3])(d),
                _vset(("bonus_left", "3"), 4)(d))[1], r"players\[1\]\.bonus\.3"),
    ("opponent bonus as values", _vset(("players", 0, "bonus", "3"), [2]),
     r"players\[0\]\.bonus\.3"),
    ("market of 4", lambda d: {**d, "market": "DGLM", "deck_size": 37}, r"market"),
    ("7 diamonds in sight", lambda d: {**d, "discard": "CCDDDDD"}, r"cards"),
    ("12 camels in sight", _vset(("players", 0, "herd"), 10), r"cards"),
    ("8 goods in own hand", _vset(("players", 1, "hand"), "DGPPLLLL"), r"players\[1\]\.hand"),
    ("camel in own hand", _vset(("players", 1, "hand"), "DGPPM"), r"players\[1\]\.hand"),
    ("own known not in hand", _vset(("players", 1, "known"), "S"), r"players\[1\]\.known"),
    ("opponent known camel", _vset(("players", 0, "known"), "M"), r"players\[0\]\.known"),
    ("stack not a suffix", _vset(("tokens", "C"), [5, 2, 2, 1, 1]), r"tokens\.C"),
    ("held tokens do not match", _vset(("players", 0, "tokens", "C"), [5, 2]),
     r"players\[[*0]\]\.tokens\.C"),
    ("three empty stacks, result null", _three_empty_stacks, r"tokens"),
    ("observer 2", _vset(("observer",), 2), r"observer"),
    ("observer missing", _vdel(("observer",)), r"observer"),
    ("state format", _vset(("format",), "jaipur-state/1"), r"format"),
    ("bonus set unknown", _vset(("bonus_set",), "triples"), r"bonus_set"),
    ("seals not a pair", _vset(("seals",), [0]), r"seals"),
    ("seal out of range", _vset(("seals",), [0, 3]), r"seals\[1\]"),
    ("result unknown", _vset(("result",), "2"), r"result"),
    ("to_move bool", _vset(("to_move",), True), r"to_move"),
    ("round 256", _vset(("round",), 256), r"round"),
    ("herd negative", _vset(("players", 1, "herd"), -1), r"players\[1\]\.herd"),
    ("bonus_left missing a kind", _vdel(("bonus_left", "5")), r"bonus_left\.5"),
    ("players not two", _vset(("players",), []), r"players"),
]


@pytest.mark.parametrize("mutate,field", [(m, f) for _, m, f in BAD_VIEWS],
                         ids=[n for n, _, _ in BAD_VIEWS])
def test_bad_views_raise_invalid_position_error_naming_the_field(mutate, field):
    d = mutate(hand_view())
    with pytest.raises(InvalidPositionError) as err:
        View.from_dict(d)
    assert isinstance(err.value, ValueError)
    assert re.fullmatch(field, err.value.field), (err.value.field, err.value.reason)
    with pytest.raises(InvalidPositionError) as err2:
        View.from_json(json.dumps(d))
    assert err2.value.field == err.value.field


@pytest.mark.parametrize("text", ["", "[", "{\"format\": ", "nan", b"\xff"])
def test_bad_view_json_raises_invalid_position_error(text):
    with pytest.raises(InvalidPositionError):
        View.from_json(text)


def test_view_text_names_the_field():
    text = View.from_dict(hand_view()).to_text()
    parts = text.split()
    assert parts[0] == "V" and parts[2] == "1" and parts[4] == "36"
    cases = {
        " ".join(parts[:4] + ["37"] + parts[5:]): r"deck_size",
        " ".join(parts[:4] + ["x"] + parts[5:]): r"deck_size",
        " ".join(parts[:2] + ["2"] + parts[3:]): r"observer",
        " ".join(parts[:7] + ["75"] + parts[8:]): r"bonus_left",
        " ".join(parts[:7] + ["855"] + parts[8:]): r"bonus_left\.3",
        text.replace(" 4/2/S/", " 8/2/S/"): r"players\[0\]\.hand_size",
        text.replace(" 4/2/S/", " 0/2/S/"): r"players\[0\]\.(known|hand_size)",
        text + " triples": r"bonus_set",
        "S" + text[1:]: r"text",
        text.replace("V ", "V  ", 1) + " x y": r"text",
    }
    for bad, field in cases.items():
        with pytest.raises(InvalidPositionError) as err:
            View.from_text(bad)
        assert re.fullmatch(field, err.value.field), (bad, err.value.field)


@pytest.mark.parametrize("round_no,seals", [(1, [2, 0]), (1, [1, 1]), (1, [1, 0]), (3, [2, 1])],
                         ids=["2-0", "1-1", "1-0-round-1", "match-over-running"])
def test_views_with_impossible_seals_are_rejected(round_no, seals):
    d = hand_view()
    d["round"], d["seals"] = round_no, seals
    try:
        v = View.from_dict(d)
    except InvalidPositionError as e:
        assert e.field == "seals"
        return
    w = v.sample(0)                                   # what the acceptance leads to
    GameState.from_text(w.to_text())
    pytest.fail(f"accepted {v.to_text()}")


def test_view_with_unhashable_bonus_set_raises_invalid_position_error():
    d = hand_view()
    d["bonus_set"] = ["standard"]
    with pytest.raises(InvalidPositionError):
        View.from_dict(d)


@pytest.mark.parametrize("which", [4, 7])
def test_view_text_with_odd_digits_raises_invalid_position_error(which):
    parts = View.from_dict(hand_view()).to_text().split()
    parts[which] = parts[which][:-1] + "²"
    with pytest.raises(InvalidPositionError):
        View.from_text(" ".join(parts))


def test_view_deeply_nested_json_raises_invalid_position_error():
    with pytest.raises(InvalidPositionError):
        View.from_json("[" * 100_000)
    with pytest.raises(InvalidPositionError):
        read_position("{\"a\": " * 100_000)


# --------------------------------------------------------------------------
# Fuzzing hand-written views

def fuzz_views() -> st.SearchStrategy:
    """Views of fixed positions (cheap) or of states reached by random play."""
    return st.tuples(fuzz_states(), st.integers(0, 1)).map(lambda t: t[0].view(t[1]))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fuzz_views(), st.data())
def test_view_from_dict_with_a_junk_leaf_raises_only_invalid_position_error(v, data):
    d = v.to_dict()
    path = pick_path(data, d)
    node = d
    for key in path[:-1]:
        node = node[key]
    if data.draw(st.booleans()) and data.draw(st.booleans()):
        if isinstance(node, list):
            del node[path[-1]]
        else:
            node.pop(path[-1])
    else:
        junk = data.draw(JUNK)
        node[path[-1]] = junk
    try:
        u = View.from_dict(d)
    except InvalidPositionError as e:
        assert e.field and e.reason
        return
    assert View.from_text(u.to_text()) == u
    assert u.sample(0).view(u.observer) == u


@st.composite
def mutated_view_texts(draw):
    tokens = draw(fuzz_views()).to_text().split(" ")
    i = draw(st.integers(0, len(tokens) - 1))
    tok = tokens[i]
    how = draw(st.sampled_from(["char", "insert", "delete", "token", "drop", "dup"]))
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
    else:
        tokens.insert(i, tok)
    return " ".join(tokens)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(mutated_view_texts(), st.text(max_size=100),
                 st.builds(lambda t: "V " + t, st.text(max_size=200))))
def test_view_from_text_raises_only_invalid_position_error(text):
    try:
        u = View.from_text(text)
    except InvalidPositionError as e:
        assert e.field
        return
    assert View.from_text(u.to_text()) == u
    try:
        r = read_position(text)
    except InvalidPositionError:
        pytest.fail("read_position rejects a text View.from_text accepts")
    assert r == u


# --------------------------------------------------------------------------
# Legal moves of a view

@SETTINGS
@given(states(), st.integers(0, 1))
def test_view_legal_moves(s, p):
    v = s.view(p)
    if s.is_round_over:
        assert v.legal_moves() == [] == s.legal_moves()
    elif s.to_move == p:
        assert v.legal_moves() == s.legal_moves()
        w = v.sample(7)
        assert w.legal_moves() == s.legal_moves()
    else:
        with pytest.raises(InvalidPositionError) as err:
            v.legal_moves()
        assert err.value.field == "to_move"


def test_view_legal_moves_on_both_sides_of_a_deal():
    s = GameState.new(seed=9, starter=1)
    assert s.view(1).legal_moves() == s.legal_moves()
    with pytest.raises(InvalidPositionError):
        s.view(0).legal_moves()
    t = s.apply(s.legal_moves()[0])
    assert t.view(0).legal_moves() == t.legal_moves()
    with pytest.raises(InvalidPositionError):
        t.view(1).legal_moves()


@pytest.mark.parametrize("player", [2, -1, "0", None])
def test_view_of_a_bad_player_raises(player):
    with pytest.raises(InvalidPositionError) as err:
        GameState.new(seed=1).view(player)
    assert err.value.field == "player"


def test_sample_rejects_bad_seeds():
    v = GameState.new(seed=1).view(0)
    for seed in (-1, 2**64, "1", None):
        with pytest.raises(InvalidPositionError) as err:
            v.sample(seed)
        assert err.value.field == "seed"


def test_play_randomly_helper_crosses_round_ends():
    s = play_randomly(GameState.new(seed=1, starter=0), random.Random(1), 400)
    assert s.round >= 2
