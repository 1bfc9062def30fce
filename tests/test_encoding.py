"""The observation tensor and the dense action index (jaipur_ai.rules.encoding,
docs/notation.md "Observation tensor" and "Dense action index")."""
from __future__ import annotations

import random

import numpy as np
import pytest

import jaipur_ai as jp
from jaipur_ai.rules import encoding as E
from jaipur_ai.rules._cards import CARD_TOTALS, GOODS, LETTERS, TYPES
from jaipur_ai.errors import InvalidMoveError


def random_positions(n_rounds: int, seed: int):
    """Every position of n seeded random rounds (each to its end), the last included."""
    rng = random.Random(seed)
    for i in range(n_rounds):
        s = jp.GameState.new(seed=seed * 1000 + i, starter=i % 2)
        yield s
        while not s.is_round_over:
            s = s.apply(rng.choice(s.legal_action_ids()))
            yield s


# --------------------------------------------------------------------------- dense index
def test_dense_index_is_every_move_some_position_allows_in_action_id_order():
    assert E.N_DENSE_ACTIONS == 25499 == len(E.DENSE_TO_ACTION)
    assert (np.diff(E.DENSE_TO_ACTION) > 0).all()
    dense = set(E.DENSE_TO_ACTION.tolist())
    left_out = []
    for a in range(jp.N_ACTIONS):
        try:
            m = jp.Move.from_action_id(a)
        except InvalidMoveError:
            assert a not in dense
            continue
        if a not in dense:
            left_out.append(str(m))
    # only 6 diamonds, gold and silver exist: nobody ever sells 7
    assert left_out == ["sell 7D", "sell 7G", "sell 7S"]


def test_dense_index_round_trips_for_every_dense_id():
    for i in range(E.N_DENSE_ACTIONS):
        m = jp.Move.from_dense_index(i)
        assert m.dense_index == i and m.action_id == E.DENSE_TO_ACTION[i]
    with pytest.raises(InvalidMoveError):
        E.move_of_dense(E.N_DENSE_ACTIONS)
    with pytest.raises(InvalidMoveError):
        E.move_of_dense(-1)
    with pytest.raises(InvalidMoveError):
        jp.Move.sell("G", 7).dense_index
    assert E.dense_index("swap GS for PP") == E.dense_index(jp.Move.parse("swap GS for PP").action_id)


def test_mask_is_the_legal_moves_and_every_legal_move_round_trips_on_random_rounds():
    checked = 0
    mask = np.zeros(E.N_DENSE_ACTIONS, dtype=np.int8)
    for s in random_positions(12, seed=5):
        legal = s.legal_moves()
        ids = E.legal_dense_ids(s)
        assert ids == sorted(m.dense_index for m in legal)
        assert [jp.Move.from_dense_index(i) for i in ids] == legal   # both in action-id order
        E.action_mask(s, out=mask)
        assert set(np.flatnonzero(mask).tolist()) == set(ids)
        assert int(mask.sum()) == len(legal)
        if not s.is_round_over:
            v = s.view(s.to_move)
            assert E.legal_dense_ids(v) == ids
            assert (E.action_mask(v) == mask).all()
        checked += len(legal)
    assert checked > 1000


def test_mask_of_a_view_needs_the_observer_to_move():
    s = jp.GameState.new(seed=1, starter=0)
    with pytest.raises(jp.InvalidPositionError):
        E.action_mask(s.view(1))
    with pytest.raises(ValueError):
        E.action_mask(s, out=np.zeros(10, dtype=np.int8))


# --------------------------------------------------------------------------- observation
def expected_observation(v: jp.View) -> list:
    """The observation of a view, slot by slot from the public API (docs/notation.md)."""
    d = v.to_dict()
    me, opp = v.observer, v.opponent
    mine, theirs = d["players"][me], d["players"][opp]

    def counts(cards, n=GOODS):
        return [cards.count(LETTERS[t]) for t in range(n)]

    stacks = d["tokens"]
    out = counts(v.market, TYPES) + counts(v.hand) + counts(mine["known"]) + counts(theirs["known"])
    out += [v.herds[me], v.herds[opp], len(v.hand), v.opponent_hand_size, v.deck_size]
    out += counts(v.discard)
    out += [len(stacks[LETTERS[g]]) for g in range(GOODS)]
    out += [stacks[LETTERS[g]][0] if stacks[LETTERS[g]] else 0 for g in range(GOODS)]
    out += [d["bonus_left"][k] for k in "345"]
    out += [sum(sum(t) for t in mine["tokens"].values()), sum(sum(t) for t in theirs["tokens"].values())]
    out += [sum(sum(b) for b in mine["bonus"].values()), sum(len(b) for b in mine["bonus"].values()),
            sum(theirs["bonus"].values())]
    out += [sum(len(t) for t in mine["tokens"].values()), sum(len(t) for t in theirs["tokens"].values())]
    out += [v.seals[me], v.seals[opp], v.round, int(v.to_move == me), int(d["starter"] == me),
            int(v.is_round_over)]
    return out


def test_observation_layout_matches_the_view_slot_by_slot():
    n = 0
    for s in random_positions(4, seed=9):
        for p in (0, 1):
            obs = E.observation(s, p)
            assert obs.dtype == np.float32 and obs.shape == (E.OBSERVATION_SIZE,)
            v = s.view(p)
            assert obs.tolist() == expected_observation(v), s.to_text()
            assert (obs >= 0).all() and (obs <= E.OBSERVATION_HIGH).all()
            n += 1
    assert n > 200
    assert len(E.OBSERVATION_FIELDS) == E.OBSERVATION_SIZE == 64


def test_observation_hides_what_the_view_hides():
    """A state's observation is its view's, and every world consistent with the view
    (other hidden hand, deck order, bonus values) gives the same observation."""
    for s in list(random_positions(3, seed=2))[::7]:
        for p in (0, 1):
            v = s.view(p)
            obs = E.observation(s, p)
            assert (E.observation(v) == obs).all()
            for seed in range(3):
                world = v.sample(seed)
                assert (E.observation(world, p) == obs).all()


def test_observation_defaults_and_errors():
    s = jp.GameState.new(seed=3, starter=1)
    assert (E.observation(s) == E.observation(s, 1)).all()
    out = np.zeros(E.OBSERVATION_SIZE, dtype=np.float32)
    assert E.observation(s, 0, out=out) is out
    with pytest.raises(ValueError):
        E.observation(s.view(0), player=1)
    with pytest.raises(TypeError):
        E.observation("S ...")
    assert E.OBSERVATION_HIGH[E.OBSERVATION_FIELDS.index("discard_L")] == CARD_TOTALS[5]
