"""Hand-built positions with one clearly right move, for the search tests.

All three share a late-round table: the diamond and gold token stacks are empty,
silver, cloth, spice and leather have one token left each (so any sale of those
ends the round), the deck holds one card, and the ten goods still in play are
spread over the market, the hands and the deck.  Every card is accounted for and
the token stacks agree with the discard pile, so the positions can occur in a game.
"""
from __future__ import annotations

import random

from jaipur_ai import GameState
from jaipur_ai.rules._cards import BONUS_KINDS, BONUS_SETS, CARD_TOTALS, LETTERS, TOKENS

GOODS = LETTERS[:6]
TAKEN = {"D": 5, "G": 5, "S": 4, "C": 6, "P": 6, "L": 8}   # tokens gone from each stack


def build(*, market: str, deck: str, hands: tuple, herds: tuple, known=("", ""),
          owners: dict, to_move: int = 0) -> GameState:
    """A validated GameState; the discard pile holds every good not placed elsewhere.

    ``owners`` maps each good to the player who took its gone tokens."""
    used = {c: 0 for c in LETTERS}
    for cards in (market, deck, hands[0], hands[1]):
        for c in cards:
            used[c] += 1
    used["M"] += herds[0] + herds[1]
    assert used["M"] == CARD_TOTALS[6], "every camel is in a herd, the market or the deck"
    discard = "".join(g * (CARD_TOTALS[i] - used[g]) for i, g in enumerate(GOODS))
    stacks = {g: list(TOKENS[i]) for i, g in enumerate(GOODS)}
    held = [{g: [] for g in GOODS}, {g: [] for g in GOODS}]
    for g, n in TAKEN.items():
        held[owners[g]][g] = stacks[g][:n]
    d = {
        "format": "jaipur-state/1", "bonus_set": "standard", "round": 1, "starter": 0,
        "to_move": to_move, "seals": [0, 0], "result": None,
        "market": market, "deck": deck, "discard": discard,
        "tokens": {g: stacks[g][TAKEN[g]:] for g in GOODS},
        "bonus": {k: list(v) for k, v in zip(BONUS_KINDS, BONUS_SETS["standard"])},
        "players": [
            {"hand": hands[p], "herd": herds[p], "known": known[p], "tokens": held[p],
             "bonus": {k: [] for k in BONUS_KINDS}}
            for p in range(2)
        ],
    }
    return GameState.from_dict(d)


def winning_sale() -> GameState:
    """Player 0 leads 63-59.  Selling the single cloth takes the last cloth token and
    empties a third stack: the round ends at once, won 64-59.  No other move ends it."""
    return build(market="SCPLM", deck="L", hands=("DGC", "SP"), herds=(5, 5),
                 owners={"D": 0, "S": 0, "L": 0, "G": 1, "C": 1, "P": 1})


WINNING_SALE = "sell 1C"


def winning_camels() -> GameState:
    """Player 0 trails 59-68 (player 1 holds the camel majority).  Taking the two
    camels needs two new cards but the deck holds one: the round ends at once, and
    player 0's herd of 6 against 5 brings the camel token: 64-63.  Selling the
    cloth or the leather also ends it, lost; after anything else player 1 ends
    the round and wins."""
    return build(market="SCPMM", deck="L", hands=("DGCL", "SP"), herds=(4, 5),
                 owners={"D": 0, "C": 0, "L": 0, "G": 1, "S": 1, "P": 1})


WINNING_CAMELS = "camels"


def stop_the_threat() -> GameState:
    """Player 0 trails 59-63 with equal herds; one camel in the market, one card in
    the deck.  Taking the camel is refilled (the round goes on) and brings player 0
    the camel majority, 64-63; then whatever player 1 does that ends the round loses
    it (a one-card sale ties 64-64 and the tie goes to player 0's 19 goods tokens
    against 16).  Any other move loses: the cloth sale ends the round at once,
    60-63; after a take the deck is empty and player 1 takes the camel, ending the
    round with the majority; an exchange gives back camels, and player 1 takes
    them, which the single card in the deck cannot refill."""
    return build(market="SCPLM", deck="L", hands=("C", "DGSP"), herds=(5, 5),
                 owners={"D": 0, "C": 0, "L": 0, "G": 1, "S": 1, "P": 1})


STOP_THE_THREAT = "camels"

POSITIONS = [
    ("winning_sale", winning_sale, WINNING_SALE),
    ("winning_camels", winning_camels, WINNING_CAMELS),
    ("stop_the_threat", stop_the_threat, STOP_THE_THREAT),
]


def stop_the_threat_deep() -> GameState:
    """As :func:`stop_the_threat`, but player 0 holds four single goods, so exchanges
    can give goods instead of camels.  After one, player 1 takes the camel (refilled
    from the last card) and leads 68-59; every move of player 0 then loses.  A
    one-ply check of the opponent's replies does not see this: a search does."""
    return build(market="SCPLM", deck="P", hands=("DGCL", "S"), herds=(5, 5),
                 known=("", "S"),
                 owners={"D": 0, "C": 0, "L": 0, "G": 1, "S": 1, "P": 1})


STOP_THE_THREAT_DEEP = "camels"


def mid_position(seed: int = 3, plies: int = 20) -> GameState:
    """A running position: ``plies`` uniformly random moves from a seeded deal."""
    rng = random.Random(seed)
    s = GameState.new(seed=seed, starter=0)
    for _ in range(plies):
        nxt = s.apply(rng.choice(s.legal_moves()))
        if nxt.is_round_over:
            break
        s = nxt
    return s


def hidden_swap(s: GameState) -> GameState:
    """Another full state of the same view of the player to move: the opponent's
    hidden cards (and the pile's order) dealt otherwise."""
    v = s.view(s.to_move)
    return next(x for x in (v.sample(k) for k in range(50)) if x != s)


def fair_analysis(engine, s: GameState, **limits) -> list:
    """The engine's analysis of s as (move, visits, win probability) rows, after
    checking that it is the same for a state that differs only in what the mover cannot
    see, and the same again (fair and deterministic)."""
    def rows(x):
        return [(str(c.move), c.visits, c.win_probability) for c in engine.analyse(x, **limits)]
    key = rows(s)
    assert key == rows(hidden_swap(s)), "the analysis read a hidden card"
    assert key == rows(s), "the same analysis twice differs"
    return key
