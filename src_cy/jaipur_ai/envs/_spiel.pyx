# cython: language_level=3
"""Chance made explicit, for jaipur_ai.openspiel: the deal and every card drawn become
chance outcomes chosen by the caller, and so does the value of each bonus token taken.

A CoreState's deck and bonus stacks are multisets here: their order means nothing until
an outcome is chosen, when the chosen card (value) is moved to the place the rules
core will take it from next.  The rules themselves stay in _core.
"""
from libc.stdint cimport uint8_t, int32_t

from jaipur_ai.rules._core cimport (State, Move, N_GOODS, N_TYPES, CAMEL, N_BONUS_KINDS,
                              MOVE_SELL, RESULT_DRAW, RESULT_NONE, apply_move,
                              cards_to_draw, round_winner)
from jaipur_ai.rules._bridge cimport CoreState
from jaipur_ai.rules._observation cimport N_DENSE, dense_move

DEF FACE_UP_CAMELS = 3     # the set-up's camels in the market (docs/rules.md, set-up)


def undeal(CoreState c):
    """Put every card dealt to the hands, herds and market back into the deck, except the
    face-up camels of the set-up (the bonus stacks stay as dealt)."""
    cdef State* s = &c.s
    cdef int p, g, i
    for p in range(2):
        for g in range(N_GOODS):
            for i in range(s.hand[p][g]):
                s.deck[s.deck_len] = g
                s.deck_len += 1
            s.hand[p][g] = 0
            s.known[p][g] = 0
        for i in range(s.herd[p]):
            s.deck[s.deck_len] = CAMEL
            s.deck_len += 1
        s.herd[p] = 0
    for g in range(N_TYPES):
        for i in range(s.market[g] - (FACE_UP_CAMELS if g == CAMEL else 0)):
            s.deck[s.deck_len] = g
            s.deck_len += 1
        s.market[g] = FACE_UP_CAMELS if g == CAMEL else 0


def deck_counts(CoreState c, int fixed=0):
    """Cards of each type among the deck's cards not yet fixed (the first deck_len - fixed)."""
    cdef State* s = &c.s
    cdef int counts[N_TYPES]
    cdef int i
    for i in range(N_TYPES):
        counts[i] = 0
    for i in range(s.deck_len - fixed):
        counts[s.deck[i]] += 1
    return [counts[i] for i in range(N_TYPES)]


cdef int _fix(State* s, int card, int fixed) except -1:
    """Move a `card` of the unfixed part of the deck to position deck_len-1-fixed."""
    cdef int i, top = s.deck_len - 1 - fixed
    for i in range(top, -1, -1):
        if s.deck[i] == card:
            s.deck[i] = s.deck[top]
            s.deck[top] = card
            return 0
    raise ValueError(f"no card of type {card} left in the deck")


def fix_next(CoreState c, int card, int fixed):
    """Make `card` the (fixed+1)-th card drawn next."""
    _fix(&c.s, card, fixed)


def deal_card(CoreState c, int card, int where):
    """Deal one `card` from the deck: to player 0's or 1's hand (camels to the herd) for
    where 0 or 1, to the market for 2."""
    cdef State* s = &c.s
    _fix(s, card, 0)
    s.deck_len -= 1
    if where == 2:
        s.market[card] += 1
    elif card == CAMEL:
        s.herd[where] += 1
    else:
        s.hand[where][card] += 1


def bonus_left(CoreState c, int kind):
    """The values left in bonus stack `kind` (0, 1, 2 for sales of 3, 4, 5+), as a list."""
    cdef State* s = &c.s
    return [s.bonus[kind][i] for i in range(s.bonus_pos[kind], s.bonus_len[kind])]


def fix_bonus(CoreState c, int kind, int value):
    """Make `value` the next bonus token taken from stack `kind`."""
    cdef State* s = &c.s
    cdef int i, pos = s.bonus_pos[kind]
    for i in range(pos, s.bonus_len[kind]):
        if s.bonus[kind][i] == value:
            s.bonus[kind][i] = s.bonus[kind][pos]
            s.bonus[kind][pos] = value
            return
    raise ValueError(f"no bonus token {value} left in stack {kind}")


def chance_needs(CoreState c, int dense):
    """What the move needs from chance before it is applied: (cards drawn, bonus kind or -1).
    No card is drawn when the deck cannot refill the market (the round ends)."""
    cdef State* s = &c.s
    cdef const Move* m
    cdef int n, k = -1
    if dense < 0 or dense >= N_DENSE:
        raise ValueError("not a dense action id")
    m = dense_move(dense)
    n = cards_to_draw(s, m)
    if n > s.deck_len:
        n = 0
    if m.kind == MOVE_SELL and m.count >= 3:
        k = (m.count if m.count < 5 else 5) - 3
        if s.bonus_pos[k] >= s.bonus_len[k]:
            k = -1
    return n, k


def apply_dense(CoreState c, int dense):
    """Apply a move by its dense id (its legality is the caller's to check)."""
    if dense < 0 or dense >= N_DENSE:
        raise ValueError("not a dense action id")
    apply_move(&c.s, dense_move(dense))


def end_round_now(CoreState c):
    """Score the round as it stands (the OpenSpiel game's ply limit): result and seal."""
    cdef State* s = &c.s
    cdef int w = round_winner(s)
    s.result = w
    if w != RESULT_DRAW:
        s.seals[w] += 1


def to_move(CoreState c):
    return c.s.to_move


def round_over(CoreState c):
    return c.s.result != RESULT_NONE


def winner(CoreState c):
    """0, 1, or 2 for a drawn round (the round must be over)."""
    return c.s.result


def bonus_at(CoreState c, int kind, int i):
    """The value of the i-th token of bonus stack `kind` (0 if not yet fixed)."""
    return c.s.bonus[kind][i]


def bonus_pos(CoreState c, int kind):
    """Tokens already taken from bonus stack `kind`."""
    return c.s.bonus_pos[kind]


def unknown_hand(CoreState c, int p):
    """Player p's goods not known to the other player, by good (hand less known)."""
    return [c.s.hand[p][g] - c.s.known[p][g] for g in range(N_GOODS)]
