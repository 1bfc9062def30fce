# cython: language_level=3
"""The observation tensor of a player and the dense action index, in the compiled core
(docs/notation.md, "Observation tensor" and "Dense action index").

The dense index numbers the moves that are legal in some position: the fixed action
ids of docs/notation.md ("Action ids") less those no position ever allows (a sale of
7 diamonds, gold or silver: only 6 exist).  Dense ids follow the action ids' order,
so sorting either sorts both.
"""
from libc.string cimport memset
from libc.stdint cimport uint8_t, int16_t, int32_t

cimport numpy as cnp
import numpy as np

from jaipur_ai.rules._core cimport (State, View, Move, N_GOODS, N_TYPES, CAMEL, N_BONUS_KINDS,
                                    MAX_MOVES, HAND_LIMIT, N_ACTIONS, MOVE_SELL, RESULT_NONE,
                                    action_of, move_of, hand_size, token_value, token_len,
                                    card_total)
from jaipur_ai.rules._movegen cimport gen_moves
from jaipur_ai.rules._bridge cimport CoreState, CoreView

cnp.import_array()

# ---------------------------------------------------------------------------
# Dense action index
# ---------------------------------------------------------------------------
cdef int16_t _DENSE_OF[N_ACTIONS]
cdef int32_t _ACTION_OF[N_DENSE]
cdef Move _MOVE_OF[N_DENSE]


cdef bint _ever_legal(const Move* m) noexcept nogil:
    """A move shape (valid for move_of) that some position allows: the only shapes no
    position allows are sales of more cards of a good than exist or fit in a hand."""
    cdef int lim
    if m.kind == MOVE_SELL:
        lim = card_total(m.good)
        if lim > HAND_LIMIT:
            lim = HAND_LIMIT
        return m.count <= lim
    return True


cdef void _init_dense() except *:
    cdef int32_t a, n = 0
    cdef Move m
    for a in range(N_ACTIONS):
        _DENSE_OF[a] = -1
        if move_of(a, &m) == 0 and _ever_legal(&m):
            if n >= N_DENSE:
                raise AssertionError("more dense ids than N_DENSE")
            _DENSE_OF[a] = n
            _ACTION_OF[n] = a
            _MOVE_OF[n] = m
            n += 1
    if n != N_DENSE:
        raise AssertionError(f"{n} dense ids, N_DENSE is {N_DENSE}")


_init_dense()


cdef int32_t dense_of_action(int32_t action) noexcept nogil:
    if action < 0 or action >= N_ACTIONS:
        return -1
    return _DENSE_OF[action]


cdef int32_t action_of_dense(int32_t dense) noexcept nogil:
    if dense < 0 or dense >= N_DENSE:
        return -1
    return _ACTION_OF[dense]


cdef const Move* dense_move(int32_t dense) noexcept nogil:
    return &_MOVE_OF[dense]


cdef int32_t dense_of_move(const Move* m) noexcept nogil:
    return _DENSE_OF[action_of(m)]


cdef void _sort_ids(int32_t* ids, int n) noexcept nogil:
    """Sort a few ids ascending.  The generator lists each exchange group's ids in
    descending runs, so those runs are reversed first; the insertion sort that follows
    then only moves whole runs past each other."""
    cdef int i = 0, j, lo, hi
    cdef int32_t d
    while i < n - 1:
        if ids[i + 1] < ids[i]:
            lo = i
            while i < n - 1 and ids[i + 1] < ids[i]:
                i += 1
            hi = i
            while lo < hi:
                d = ids[lo]
                ids[lo] = ids[hi]
                ids[hi] = d
                lo += 1
                hi -= 1
        i += 1
    for i in range(1, n):
        d = ids[i]
        j = i
        while j > 0 and ids[j - 1] > d:
            ids[j] = ids[j - 1]
            j -= 1
        ids[j] = d


cdef int legal_dense(const State* s, int32_t* out) noexcept nogil:
    """The dense ids of the legal moves, ascending (one order for every door: an index
    action means the same move in the vector env, the single envs and the lists)."""
    cdef Move buf[MAX_MOVES]
    cdef int n = gen_moves(s, buf), i
    cdef int32_t d, prev = -1
    cdef bint ascending = True
    for i in range(n):
        d = _DENSE_OF[action_of(&buf[i])]
        ascending &= d > prev
        prev = d
        out[i] = d
    if not ascending:     # (the generator's order is ascending but for rare positions)
        _sort_ids(out, n)
    return n

# ---------------------------------------------------------------------------
# Observation tensor (docs/notation.md has the table; OBS_FIELDS below names it)
# ---------------------------------------------------------------------------
cdef inline int _popcount16(unsigned int x) noexcept nogil:
    cdef int n = 0
    while x:
        x &= x - 1
        n += 1
    return n


cdef void observe(const State* s, int me, int opp_hand_n, float* out) noexcept nogil:
    """Reads only what `me` sees: never s.hand[opp] (only s.known[opp]), s.deck (only
    deck_len), the bonus stacks' values or the opponent's bonus points."""
    cdef int opp = 1 - me, g, k, left
    for g in range(N_TYPES):
        out[g] = s.market[g]
    for g in range(N_GOODS):
        out[7 + g] = s.hand[me][g]
        out[13 + g] = s.known[me][g]
        out[19 + g] = s.known[opp][g]
        out[30 + g] = s.discard[g]
        left = token_len(g) - s.tok_pos[g]
        out[36 + g] = left
        out[42 + g] = token_value(g, s.tok_pos[g]) if left > 0 else 0
    out[25] = s.herd[me]
    out[26] = s.herd[opp]
    out[27] = hand_size(s, me)
    out[28] = opp_hand_n
    out[29] = s.deck_len
    for k in range(N_BONUS_KINDS):
        out[48 + k] = s.bonus_len[k] - s.bonus_pos[k]
    out[51] = s.goods_pts[me]
    out[52] = s.goods_pts[opp]
    out[53] = s.bonus_pts[me]
    out[54] = s.n_bonus_tok[me]
    out[55] = s.n_bonus_tok[opp]
    out[56] = s.n_goods_tok[me]
    out[57] = s.n_goods_tok[opp]
    out[58] = s.seals[me]
    out[59] = s.seals[opp]
    out[60] = s.round_no
    out[61] = 1.0 if s.to_move == me else 0.0
    out[62] = 1.0 if s.starter == me else 0.0
    out[63] = 0.0 if s.result == RESULT_NONE else 1.0


cdef void observe_state(const State* s, int observer, float* out) noexcept nogil:
    observe(s, observer, hand_size(s, 1 - observer), out)


cdef void observe_view(const View* v, float* out) noexcept nogil:
    observe(&v.s, v.observer, v.opp_hand_n, out)

# ---------------------------------------------------------------------------
# Python bridge (jaipur_ai.rules.encoding is the public face)
# ---------------------------------------------------------------------------
OBS_SIZE_PY = OBS_SIZE
N_DENSE_PY = N_DENSE

_G = "DGSCPL"
OBS_FIELDS = tuple(
    [f"market_{c}" for c in "DGSCPLM"]
    + [f"hand_{c}" for c in _G]
    + [f"my_known_{c}" for c in _G]
    + [f"opp_known_{c}" for c in _G]
    + ["herd", "opp_herd", "hand_size", "opp_hand_size", "deck_size"]
    + [f"discard_{c}" for c in _G]
    + [f"tokens_left_{c}" for c in _G]
    + [f"top_token_{c}" for c in _G]
    + [f"bonus_left_{k}" for k in (3, 4, 5)]
    + ["goods_points", "opp_goods_points", "bonus_points", "bonus_tokens", "opp_bonus_tokens",
       "goods_tokens", "opp_goods_tokens", "seals", "opp_seals", "round", "to_move", "starter",
       "round_over"])
assert len(OBS_FIELDS) == OBS_SIZE

# The largest value each slot can take (gymnasium's Box bounds).
OBS_HIGH = np.array(
    [5] * 7 + [7] * 6 + [7] * 6 + [7] * 6
    + [11, 11, 7, 7, 40]
    + [card_total(g) for g in range(N_GOODS)]
    + [token_len(g) for g in range(N_GOODS)]
    + [token_value(g, 0) for g in range(N_GOODS)]
    + [7, 6, 6]
    + [140, 140, 60, 18, 18, 38, 38, 2, 2, 255, 1, 1, 1], dtype=np.float32)
assert OBS_HIGH.shape[0] == OBS_SIZE


def observation_into(obj, int observer, float[::1] out):
    """Write the observation of `observer` into out (OBS_SIZE float32).  obj is a CoreState
    (any observer) or a CoreView (its own observer only)."""
    cdef CoreView cv
    if out.shape[0] != OBS_SIZE:
        raise ValueError(f"out must hold {OBS_SIZE} floats")
    if observer not in (0, 1):
        raise ValueError("observer must be 0 or 1")
    if isinstance(obj, CoreState):
        observe_state(&(<CoreState>obj).s, observer, &out[0])
    elif isinstance(obj, CoreView):
        cv = <CoreView>obj
        if cv.v.observer != observer:
            raise ValueError("a view can only be observed by its observer")
        observe_view(&cv.v, &out[0])
    else:
        raise TypeError("expected a CoreState or a CoreView")


cdef const State* _state_of(obj) except NULL:
    if isinstance(obj, CoreState):
        return &(<CoreState>obj).s
    if isinstance(obj, CoreView):
        return &(<CoreView>obj).v.s
    raise TypeError("expected a CoreState or a CoreView")


def mask_into(obj, cnp.ndarray out):
    """Set out (N_DENSE entries, any 1-byte dtype or bool) to 1 at the dense ids of the legal
    moves of the player to move and 0 elsewhere; return how many are legal."""
    cdef int32_t ids[MAX_MOVES]
    cdef const State* s = _state_of(obj)
    cdef int n, i
    cdef uint8_t* p
    if out.ndim != 1 or out.shape[0] != N_DENSE or out.itemsize != 1 or not out.flags.c_contiguous \
            or not out.flags.writeable:
        raise ValueError(f"out must be a writable contiguous 1-byte array of {N_DENSE} entries")
    p = <uint8_t*>cnp.PyArray_DATA(out)
    memset(p, 0, N_DENSE)
    n = legal_dense(s, ids)
    for i in range(n):
        p[ids[i]] = 1
    return n


def legal_dense_ids(obj):
    """Dense ids of the legal moves of the player to move, ascending."""
    cdef int32_t ids[MAX_MOVES]
    cdef int n = legal_dense(_state_of(obj), ids), i
    return [ids[i] for i in range(n)]


def dense_from_action(int32_t action):
    """The dense id of a fixed action id, or -1 when no position allows that move."""
    return dense_of_action(action)


def action_from_dense(int32_t dense):
    """The fixed action id of a dense id, or -1 when out of range."""
    return action_of_dense(dense)


def dense_table():
    """The fixed action id of every dense id, as an int32 array of N_DENSE."""
    return np.array([_ACTION_OF[i] for i in range(N_DENSE)], dtype=np.int32)
