# cython: language_level=3
"""The vectorised environment's stepping loop (jaipur_ai.vecenv is the public face).

n rounds live in one C array of States.  One call steps all of them: the chosen
moves are applied, the random opponent replies, finished rounds are scored and dealt
afresh, and observations, action masks, rewards and done flags are written into the
caller's preallocated numpy arrays.  No Python object is touched per round.
"""
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memset
from libc.stdint cimport uint8_t, int32_t, int64_t, uint64_t

from jaipur_ai.rules._core cimport (State, Move, Rng, MAX_MOVES, RESULT_NONE, RESULT_DRAW,
                                    BONUS_STANDARD, rng_seed, rng_below, apply_move, round_totals,
                                    hand_size, action_of)
from jaipur_ai.rules._dealing cimport new_match
from jaipur_ai.rules._movegen cimport random_move
from jaipur_ai.rules._bridge cimport CoreState
from jaipur_ai.rules._observation cimport (OBS_SIZE, N_DENSE, dense_move, dense_of_move, observe_state,
                                     legal_dense)

DEF MODE_RANDOM = 0      # the caller plays seat 0, a uniformly random opponent seat 1
DEF MODE_SELF = 1        # the caller plays both seats

DEF REWARD_SEAL = 0      # +1 / -1 / 0 for the seal of the round
DEF REWARD_MARGIN = 1    # the difference of the round totals


cdef class VecCore:
    cdef State* st
    cdef Rng* rng
    cdef Rng sampler
    cdef int32_t* legal          # n * MAX_MOVES dense ids: the mask's set entries
    cdef int32_t* nlegal
    cdef int32_t* plies
    cdef readonly int n
    cdef readonly int mode
    cdef readonly int reward_kind
    cdef readonly int max_plies
    cdef readonly long long rounds_done

    def __cinit__(self, int n, uint64_t seed, int mode, int reward_kind, int max_plies):
        if n < 1:
            raise ValueError("n must be at least 1")
        self.n = n
        self.mode = mode
        self.reward_kind = reward_kind
        self.max_plies = max_plies
        self.st = <State*>calloc(n, sizeof(State))
        self.rng = <Rng*>calloc(n, sizeof(Rng))
        self.legal = <int32_t*>calloc(<size_t>n * MAX_MOVES, sizeof(int32_t))
        self.nlegal = <int32_t*>calloc(n, sizeof(int32_t))
        self.plies = <int32_t*>calloc(n, sizeof(int32_t))
        if not (self.st and self.rng and self.legal and self.nlegal and self.plies):
            raise MemoryError()
        self.seed(seed)

    def __dealloc__(self):
        free(self.st)
        free(self.rng)
        free(self.legal)
        free(self.nlegal)
        free(self.plies)

    def seed(self, uint64_t seed):
        cdef int i
        for i in range(self.n):
            rng_seed(&self.rng[i], seed * <uint64_t>0x100000001B3 + <uint64_t>i)
        rng_seed(&self.sampler, ~seed)

    cdef inline int _seat(self, int i) noexcept nogil:
        """The seat whose observation and mask env i reports."""
        return self.st[i].to_move if self.mode == MODE_SELF else 0

    cdef void _opponent(self, int i) noexcept nogil:
        """In MODE_RANDOM, let seat 1 play uniformly random moves while it is to move."""
        cdef Move m
        cdef State* s = &self.st[i]
        while (self.mode == MODE_RANDOM and s.result == RESULT_NONE and s.to_move == 1
               and self.plies[i] < self.max_plies):
            random_move(s, &self.rng[i], &m)        # counts the moves, builds only this one
            apply_move(s, &m)
            self.plies[i] += 1

    cdef void _deal(self, int i) noexcept nogil:
        cdef State* s = &self.st[i]
        new_match(s, &self.rng[i], rng_below(&self.rng[i], 2), BONUS_STANDARD)
        self.plies[i] = 0
        self._opponent(i)

    cdef void _publish(self, int i, float* obs, uint8_t* mask, int32_t* to_move) noexcept nogil:
        """Write env i's observation and mask (the mask's old entries are cleared first)."""
        cdef int j, seat = self._seat(i)
        cdef int32_t* lg = &self.legal[<size_t>i * MAX_MOVES]
        for j in range(self.nlegal[i]):
            mask[lg[j]] = 0
        self.nlegal[i] = legal_dense(&self.st[i], lg)
        for j in range(self.nlegal[i]):
            mask[lg[j]] = 1
        observe_state(&self.st[i], seat, obs)
        to_move[i] = seat

    def reset(self, float[:, ::1] obs, uint8_t[:, ::1] mask, int32_t[::1] to_move):
        cdef int i
        self._check(obs, mask, to_move)
        with nogil:
            memset(&mask[0, 0], 0, <size_t>self.n * N_DENSE)
            for i in range(self.n):
                self.nlegal[i] = 0
                self._deal(i)
                self._publish(i, &obs[i, 0], &mask[i, 0], &to_move[0])

    cdef _check(self, float[:, ::1] obs, uint8_t[:, ::1] mask, int32_t[::1] to_move):
        if obs.shape[0] != self.n or obs.shape[1] != OBS_SIZE:
            raise ValueError(f"obs must have shape ({self.n}, {OBS_SIZE})")
        if mask.shape[0] != self.n or mask.shape[1] != N_DENSE:
            raise ValueError(f"mask must have shape ({self.n}, {N_DENSE})")
        if to_move.shape[0] != self.n:
            raise ValueError(f"to_move must have shape ({self.n},)")

    def step(self, int64_t[::1] actions, float[:, ::1] obs, uint8_t[:, ::1] mask,
             float[::1] reward, uint8_t[::1] terminated, uint8_t[::1] truncated,
             int32_t[::1] to_move):
        """Apply actions[i] (a dense id, legal by mask[i]) in every env; see jaipur_ai.vecenv."""
        cdef int i, mover, res
        cdef int t[2]
        cdef int64_t a
        cdef State* s
        cdef float r
        self._check(obs, mask, to_move)
        if (actions.shape[0] != self.n or reward.shape[0] != self.n or terminated.shape[0] != self.n
                or truncated.shape[0] != self.n):
            raise ValueError(f"actions, reward, terminated and truncated must have shape ({self.n},)")
        for i in range(self.n):       # all checked before anything moves
            a = actions[i]
            if a < 0 or a >= N_DENSE or not mask[i, a]:
                raise ValueError(f"env {i}: action {a} is not legal there (see the mask)")
        with nogil:
            for i in range(self.n):
                s = &self.st[i]
                mover = s.to_move
                apply_move(s, dense_move(<int32_t>actions[i]))
                self.plies[i] += 1
                self._opponent(i)
                r = 0
                terminated[i] = 0
                truncated[i] = 0
                if s.result != RESULT_NONE:
                    terminated[i] = 1
                    res = s.result
                    if self.reward_kind == REWARD_MARGIN:
                        round_totals(s, t)
                        r = t[mover] - t[1 - mover]
                    elif res != RESULT_DRAW:
                        r = 1 if res == mover else -1
                elif self.plies[i] >= self.max_plies:
                    truncated[i] = 1
                reward[i] = r
                if terminated[i] or truncated[i]:
                    self.rounds_done += 1
                    self._deal(i)
                self._publish(i, &obs[i, 0], &mask[i, 0], &to_move[0])

    def sample(self, int64_t[::1] out):
        """A uniformly random legal dense id for every env (from the sampler's own stream)."""
        cdef int i
        if out.shape[0] != self.n:
            raise ValueError(f"out must have shape ({self.n},)")
        with nogil:
            for i in range(self.n):
                out[i] = self.legal[<size_t>i * MAX_MOVES + rng_below(&self.sampler, self.nlegal[i])]

    def core_state(self, int i):
        """A copy of env i's state as a CoreState (for tests and debugging)."""
        cdef CoreState c = CoreState.__new__(CoreState)
        if not 0 <= i < self.n:
            raise IndexError(i)
        c.s = self.st[i]
        return c
