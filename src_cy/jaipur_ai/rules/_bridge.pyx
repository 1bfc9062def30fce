# cython: language_level=3
"""The Python objects over the rules core's C structs: ``CoreState`` (a full game state)
and ``CoreView`` (one player's information set), and their conversion to and from raw
fields (plain dicts and lists).  Validation and the public notation live in the Python
package (jaipur_ai.rules.position, jaipur_ai.rules._fields); raw fields are checked here
field by field too (each a whole number in its range, ``InvalidPositionError``), since
unpickling reaches ``from_raw`` without them.  The rules themselves are in _core.pyx."""
from libc.string cimport memset
from libc.stdint cimport int32_t, uint64_t, uint8_t
from jaipur_ai.rules._core cimport (State, Move, MoveCount, Rng, N_GOODS, N_TYPES, N_CARDS,
                                    N_BONUS_KINDS, MAX_BONUS, MAX_MOVES, RESULT_NONE, RESULT_DRAW,
                                    BONUS_STANDARD, BONUS_PAIRS, CAMEL, HAND_LIMIT, MARKET_SIZE,
                                    SEALS_TO_WIN, token_value, token_len, card_total, rng_seed,
                                    action_of, move_of, apply_move, round_totals, round_winner)
from jaipur_ai.rules._dealing cimport (deal_match, default_starter as c_default_starter,
                                       deal_round, make_view, sample_view,
                                       sample_view_hand)
from jaipur_ai.rules._movegen cimport gen_moves, count_moves, nth_move, is_legal, random_playout
from jaipur_ai.errors import InvalidPositionError, safe_repr


cdef dict _raw_of(const State* s):
    """The struct as a dict of ints and lists (deck only up to deck_len)."""
    return {
        "market": [s.market[i] for i in range(N_TYPES)],
        "hand": [[s.hand[p][i] for i in range(N_GOODS)] for p in range(2)],
        "herd": [s.herd[0], s.herd[1]],
        "known": [[s.known[p][i] for i in range(N_GOODS)] for p in range(2)],
        "discard": [s.discard[i] for i in range(N_GOODS)],
        "deck": [s.deck[i] for i in range(s.deck_len)],
        "tok_pos": [s.tok_pos[i] for i in range(N_GOODS)],
        "tok_owner": [s.tok_owner[i] for i in range(N_GOODS)],
        "bonus": [[s.bonus[k][i] for i in range(s.bonus_len[k])] for k in range(N_BONUS_KINDS)],
        "bonus_pos": [s.bonus_pos[k] for k in range(N_BONUS_KINDS)],
        "bonus_owner": [s.bonus_owner[k] for k in range(N_BONUS_KINDS)],
        "to_move": s.to_move,
        "starter": s.starter,
        "round_no": s.round_no,
        "seals": [s.seals[0], s.seals[1]],
        "bonus_set": s.bonus_set,
        "result": s.result,
    }


cdef enum:
    MAX_BONUS_VALUE = 10       # the largest bonus token of any set (0: not seen, in a view)
    MAX_ROUND = 255            # rounds are numbered in one byte


cdef object _field(dict raw, str key):
    try:
        return raw[key]
    except KeyError:
        raise InvalidPositionError(key, "missing from the raw fields") from None


cdef list _ints(object x, str field, Py_ssize_t n, int lo, object hi):
    """``x`` as ``n`` whole numbers (``n`` < 0: at most ``-n``), the i-th in ``lo`` ..
    ``hi`` (an int, or a list of one bound per entry); InvalidPositionError naming the
    entry otherwise.  The checks of the public parsers (jaipur_ai.rules._fields), field by
    field, so that raw fields from anywhere (unpickling) keep every count inside the
    core's arrays."""
    cdef Py_ssize_t i, m
    if not isinstance(x, (list, tuple)):
        raise InvalidPositionError(field, f"expected a list of whole numbers, got {safe_repr(x)}")
    m = len(x)
    if (n >= 0 and m != n) or (n < 0 and m > -n):
        raise InvalidPositionError(field, f"expected {n if n >= 0 else f'at most {-n}'} "
                                          f"numbers, got {m}")
    out = []
    for i in range(m):
        out.append(_int(x[i], f"{field}[{i}]", lo, hi[i] if isinstance(hi, list) else hi))
    return out


cdef int _int(object x, str field, int lo, int hi) except? -1:
    if isinstance(x, (bool, float)) or not hasattr(x, "__index__"):
        raise InvalidPositionError(field, f"expected a whole number, got {safe_repr(x)}")
    v = x.__index__()
    if not lo <= v <= hi:
        raise InvalidPositionError(field, f"{v} is out of range {lo}..{hi}")
    return v


cdef dict _checked_raw(dict raw):
    """The raw fields read and range-checked, before any is written to a struct."""
    cdef int p, g, k
    totals = [card_total(g) for g in range(N_TYPES)]
    c = {}
    c["market"] = _ints(_field(raw, "market"), "market", N_TYPES, 0, totals)
    if sum(c["market"]) > MARKET_SIZE:
        raise InvalidPositionError("market", f"{sum(c['market'])} cards, at most {MARKET_SIZE}")
    hands, known, herd, seals = _field(raw, "hand"), _field(raw, "known"), \
        _field(raw, "herd"), _field(raw, "seals")
    for key, x in (("hand", hands), ("known", known)):
        if not isinstance(x, (list, tuple)) or len(x) != 2:
            raise InvalidPositionError(key, "expected a list of two players' counts")
    c["hand"] = [_ints(hands[p], f"hand[{p}]", N_GOODS, 0, totals[:N_GOODS]) for p in range(2)]
    for p in range(2):
        if sum(c["hand"][p]) > HAND_LIMIT:
            raise InvalidPositionError(f"hand[{p}]", f"{sum(c['hand'][p])} goods in hand, the "
                                                     f"limit is {HAND_LIMIT}")
    c["known"] = [_ints(known[p], f"known[{p}]", N_GOODS, 0, c["hand"][p]) for p in range(2)]
    c["herd"] = _ints(herd, "herd", 2, 0, totals[CAMEL])
    c["seals"] = _ints(seals, "seals", 2, 0, SEALS_TO_WIN)
    c["discard"] = _ints(_field(raw, "discard"), "discard", N_GOODS, 0, totals[:N_GOODS])
    c["deck"] = _ints(_field(raw, "deck"), "deck", -N_CARDS, 0, N_TYPES - 1)
    c["tok_pos"] = _ints(_field(raw, "tok_pos"), "tok_pos", N_GOODS, 0,
                         [token_len(g) for g in range(N_GOODS)])
    c["tok_owner"] = _ints(_field(raw, "tok_owner"), "tok_owner", N_GOODS, 0,
                           [(1 << c["tok_pos"][g]) - 1 for g in range(N_GOODS)])
    bonus = _field(raw, "bonus")
    if not isinstance(bonus, (list, tuple)) or len(bonus) != N_BONUS_KINDS:
        raise InvalidPositionError("bonus", f"expected a list of {N_BONUS_KINDS} stacks")
    c["bonus"] = [_ints(bonus[k], f"bonus[{k}]", -MAX_BONUS, 0, MAX_BONUS_VALUE)
                  for k in range(N_BONUS_KINDS)]
    c["bonus_pos"] = _ints(_field(raw, "bonus_pos"), "bonus_pos", N_BONUS_KINDS, 0,
                           [len(c["bonus"][k]) for k in range(N_BONUS_KINDS)])
    c["bonus_owner"] = _ints(_field(raw, "bonus_owner"), "bonus_owner", N_BONUS_KINDS, 0,
                             [(1 << c["bonus_pos"][k]) - 1 for k in range(N_BONUS_KINDS)])
    c["to_move"] = _int(_field(raw, "to_move"), "to_move", 0, 1)
    c["starter"] = _int(_field(raw, "starter"), "starter", 0, 1)
    c["round_no"] = _int(_field(raw, "round_no"), "round_no", 1, MAX_ROUND)
    c["bonus_set"] = _int(_field(raw, "bonus_set"), "bonus_set", BONUS_STANDARD, BONUS_PAIRS)
    c["result"] = _int(_field(raw, "result"), "result", RESULT_NONE, RESULT_DRAW)
    return c


cdef void _set_raw(State* s, dict raw) except *:
    """Fill the struct from raw fields, each checked first (InvalidPositionError naming
    it, and the struct untouched); derived scores are recomputed."""
    cdef int p, i, k, g, owner, v
    raw = _checked_raw(raw)
    memset(s, 0, sizeof(State))
    for i in range(N_TYPES):
        s.market[i] = raw["market"][i]
    for p in range(2):
        s.herd[p] = raw["herd"][p]
        s.seals[p] = raw["seals"][p]
        for i in range(N_GOODS):
            s.hand[p][i] = raw["hand"][p][i]
            s.known[p][i] = raw["known"][p][i]
    for i in range(N_GOODS):
        s.discard[i] = raw["discard"][i]
        s.tok_pos[i] = raw["tok_pos"][i]
        s.tok_owner[i] = raw["tok_owner"][i]
    deck = raw["deck"]
    s.deck_len = len(deck)
    for i in range(s.deck_len):
        s.deck[i] = deck[i]
    for k in range(N_BONUS_KINDS):
        stack = raw["bonus"][k]
        s.bonus_len[k] = len(stack)
        s.bonus_pos[k] = raw["bonus_pos"][k]
        s.bonus_owner[k] = raw["bonus_owner"][k]
        for i in range(s.bonus_len[k]):
            s.bonus[k][i] = stack[i]
    s.to_move = raw["to_move"]
    s.starter = raw["starter"]
    s.round_no = raw["round_no"]
    s.bonus_set = raw["bonus_set"]
    s.result = raw["result"]
    # Scores are derived from who took which token.
    for g in range(N_GOODS):
        for i in range(s.tok_pos[g]):
            owner = (s.tok_owner[g] >> i) & 1
            s.goods_pts[owner] += token_value(g, i)
            s.n_goods_tok[owner] += 1
    for k in range(N_BONUS_KINDS):
        for i in range(s.bonus_pos[k]):
            owner = (s.bonus_owner[k] >> i) & 1
            s.bonus_pts[owner] += s.bonus[k][i]
            s.n_bonus_tok[owner] += 1


def default_starter(uint64_t seed):
    """Who starts a match dealt from ``seed`` when the caller does not say."""
    return c_default_starter(seed)


cdef class CoreState:
    """A full game state held as one C struct (see _core.pxd)."""

    @staticmethod
    def new(uint64_t seed, int starter, int bonus_set=BONUS_STANDARD):
        cdef CoreState c = CoreState.__new__(CoreState)
        cdef Rng r
        deal_match(&c.s, &r, seed, starter, bonus_set)
        return c

    @staticmethod
    def from_raw(dict raw):
        cdef CoreState c = CoreState.__new__(CoreState)
        _set_raw(&c.s, raw)
        return c

    def raw(self):
        """The struct as a dict of ints and lists (deck only up to deck_len)."""
        return _raw_of(&self.s)

    def copy(self):
        cdef CoreState c = CoreState.__new__(CoreState)
        c.s = self.s
        return c

    def __reduce__(self):
        return (CoreState.from_raw, (self.raw(),))

    def legal_actions(self):
        """Action ids of the legal moves, ascending."""
        cdef Move buf[MAX_MOVES]
        cdef int n = gen_moves(&self.s, buf), i
        return sorted([action_of(&buf[i]) for i in range(n)])

    def generated_actions(self):
        """Action ids of the legal moves in generation order: the order in which
        searches and playouts index them (``gen_moves``)."""
        cdef Move buf[MAX_MOVES]
        cdef int n = gen_moves(&self.s, buf), i
        return [action_of(&buf[i]) for i in range(n)]

    def counted_actions(self):
        """The same list built by ``count_moves`` and ``nth_move`` for every index
        (the path of random moves); equal to generated_actions()."""
        cdef MoveCount q
        cdef Move m
        cdef int n = count_moves(&self.s, &q), j
        out = []
        for j in range(n):
            nth_move(&self.s, &q, j, &m)
            out.append(action_of(&m))
        return out

    def is_legal_action(self, int32_t action):
        cdef Move m
        if move_of(action, &m) != 0:
            return False
        return is_legal(&self.s, &m)

    def apply_action(self, int32_t action):
        """Apply a move in place; ValueError (and no change) if it is illegal."""
        cdef Move m
        if move_of(action, &m) != 0 or not is_legal(&self.s, &m):
            raise ValueError(f"action {action} is not legal here")
        apply_move(&self.s, &m)

    def next_round(self, uint64_t seed):
        """Deal the next round in place: the loser of the last round starts,
        after a drawn round the player who did not start it."""
        cdef Rng r
        if self.s.result == RESULT_NONE:
            raise ValueError("the round is still running")
        rng_seed(&r, seed)
        starter = (1 - self.s.starter) if self.s.result == RESULT_DRAW else (1 - self.s.result)
        self.s.round_no += 1
        deal_round(&self.s, &r, starter)

    def totals(self):
        cdef int t[2]
        round_totals(&self.s, t)
        return (t[0], t[1])

    def winner(self):
        """0, 1 or 2 (draw) as if the round ended now."""
        return round_winner(&self.s)

    def random_playout(self, uint64_t seed, int max_plies=10000):
        cdef Rng r
        rng_seed(&r, seed)
        with nogil:
            n = random_playout(&self.s, &r, max_plies)
        return n

    def view(self, int observer):
        cdef CoreView v = CoreView.__new__(CoreView)
        make_view(&self.s, observer, &v.v)
        return v


cdef class CoreView:
    """A player's information set: a masked State plus the opponent's hand size."""

    @staticmethod
    def from_raw(dict raw, observer, opp_hand_n):
        cdef CoreView c = CoreView.__new__(CoreView)
        observer = _int(observer, "observer", 0, 1)
        opp_hand_n = _int(opp_hand_n, "opp_hand_n", 0, HAND_LIMIT)
        _set_raw(&c.v.s, raw)
        if opp_hand_n < sum(raw["hand"][1 - observer]):
            raise InvalidPositionError("opp_hand_n", f"{opp_hand_n} goods, fewer than the "
                                                     f"{sum(raw['hand'][1 - observer])} known")
        c.v.observer = observer
        c.v.opp_hand_n = opp_hand_n
        return c

    def raw(self):
        return _raw_of(&self.v.s)

    @property
    def observer(self):
        return self.v.observer

    @property
    def opp_hand_n(self):
        return self.v.opp_hand_n

    def __reduce__(self):
        return (CoreView.from_raw, (self.raw(), self.v.observer, self.v.opp_hand_n))

    def sample(self, uint64_t seed, unknown_goods=None):
        """A full CoreState drawn uniformly among the worlds consistent with the view
        (with ``unknown_goods``, N_GOODS counts: among those where the opponent's
        unknown hand slots hold exactly those goods)."""
        cdef CoreState c = CoreState.__new__(CoreState)
        cdef Rng r
        cdef uint8_t u[N_GOODS]
        cdef int g, rc
        rng_seed(&r, seed)
        if unknown_goods is None:
            rc = sample_view(&self.v, &c.s, &r)
        else:
            if len(unknown_goods) != N_GOODS:
                raise ValueError(f"unknown_goods must hold {N_GOODS} counts")
            for g in range(N_GOODS):
                if not 0 <= unknown_goods[g] <= 255:
                    raise ValueError("unknown_goods must be counts from 0 to 255")
                u[g] = unknown_goods[g]
            rc = sample_view_hand(&self.v, u, &c.s, &r)
            if rc != 0:
                raise ValueError("those unknown goods do not fit the view")
        if rc != 0:
            raise ValueError("the view is inconsistent: no full state matches it")
        return c
