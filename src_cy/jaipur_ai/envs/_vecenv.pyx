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
                                    BONUS_STANDARD, rng_seed, rng_next, rng_below, apply_move, round_totals,
                                    hand_size, action_of)
from jaipur_ai.rules._dealing cimport deal_match, default_starter
from jaipur_ai.rules._movegen cimport random_move
from jaipur_ai.rules._bridge cimport CoreState
from jaipur_ai.rules._observation cimport (OBS_SIZE, N_DENSE, dense_move, dense_of_move, observe_state,
                                     legal_dense)
from jaipur_ai.search._params cimport Params, PLAYOUT_INFORMED
from jaipur_ai.search._policy cimport (MAX_CAND, candidates, score_candidates, rescore_learned,
                                       policy_move)
from jaipur_ai.search._heuristic cimport HoldTab, hold_tab
from jaipur_ai.search._evaluation cimport Evaluation

DEF MODE_RANDOM = 0      # the caller plays seat 0, a uniformly random opponent seat 1
DEF MODE_SELF = 1        # the caller plays both seats
DEF MODE_GREEDY = 2      # seat 1: the playouts' move-score policy, without noise
DEF MODE_LEARNED = 3     # seat 1: the best candidate by the learned value after it (one ply)
DEF MODE_EXTERNAL = 4    # seat 1: moves given by the caller (apply_opponent), between calls

DEF ACTIONS_DENSE = 0    # an action is a dense id
DEF ACTIONS_INDEX = 1    # an action is an index into the round's list of legal ids

DEF REWARD_SEAL = 0      # +1 / -1 / 0 for the seal of the round
DEF REWARD_MARGIN = 1    # the difference of the round totals


cdef inline uint64_t episode_deal_seed_c(uint64_t base, uint64_t k) noexcept nogil:
    """The seed of episode k's deal in an environment reset with seed `base`."""
    cdef Rng r
    rng_seed(&r, base + k * <uint64_t>0x9E3779B97F4A7C15)
    return rng_next(&r)


def episode_deal_seed(uint64_t base, uint64_t k):
    """The seed of the ``k``-th round dealt (from 0) by an environment reset with seed
    ``base``: the round is ``GameState.new(seed=...)`` of it, who starts included.
    JaipurEnv deals by it, and JaipurVectorEnv's round ``i`` as a JaipurEnv reset with
    seed ``base + i``."""
    return episode_deal_seed_c(base, k)


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
    cdef readonly int action_kind      # ACTIONS_DENSE or ACTIONS_INDEX
    cdef readonly int write_mask       # 1: keep the dense mask up to date
    cdef readonly int max_legal        # the width of the legal-id lists (MAX_LEGAL)
    cdef readonly long long rounds_done
    cdef Params greedy                 # the greedy opponent's policy (no noise, no epsilon)
    cdef Evaluation evaluation         # the learned opponent's weights (MODE_LEARNED)
    cdef int64_t* last_mover           # the seat that made the step's move, per round
    cdef uint8_t* pending              # 1: the round waits for an external opponent's move
    cdef uint64_t* deal_base           # round i's episodes are dealt from base seed + i ...
    cdef uint64_t* deals               # ... and the number of rounds it has dealt
    cdef uint64_t* deal_seed           # the seed of round i's current deal

    def __cinit__(self, int n, uint64_t seed, int mode, int reward_kind, int max_plies,
                  int action_kind=ACTIONS_DENSE, bint write_mask=True, int max_legal=MAX_MOVES):
        if n < 1:
            raise ValueError("n must be at least 1")
        self.n = n
        self.mode = mode
        self.reward_kind = reward_kind
        self.max_plies = max_plies
        self.action_kind = action_kind
        self.write_mask = write_mask
        if not 1 <= max_legal <= MAX_MOVES:
            raise ValueError(f"max_legal must be in 1..{MAX_MOVES}")
        self.max_legal = max_legal
        memset(&self.greedy, 0, sizeof(Params))
        self.greedy.playout = PLAYOUT_INFORMED
        self.evaluation = None
        self.last_mover = <int64_t*>calloc(n, sizeof(int64_t))
        self.pending = <uint8_t*>calloc(n, sizeof(uint8_t))
        self.deal_base = <uint64_t*>calloc(n, sizeof(uint64_t))
        self.deals = <uint64_t*>calloc(n, sizeof(uint64_t))
        self.deal_seed = <uint64_t*>calloc(n, sizeof(uint64_t))
        self.st = <State*>calloc(n, sizeof(State))
        self.rng = <Rng*>calloc(n, sizeof(Rng))
        self.legal = <int32_t*>calloc(<size_t>n * MAX_MOVES, sizeof(int32_t))
        self.nlegal = <int32_t*>calloc(n, sizeof(int32_t))
        self.plies = <int32_t*>calloc(n, sizeof(int32_t))
        if not (self.st and self.rng and self.legal and self.nlegal and self.plies
                and self.last_mover and self.pending and self.deal_base and self.deals
                and self.deal_seed):
            raise MemoryError()
        self.seed(seed)

    def __dealloc__(self):
        free(self.st)
        free(self.rng)
        free(self.legal)
        free(self.nlegal)
        free(self.plies)
        free(self.last_mover)
        free(self.pending)
        free(self.deal_base)
        free(self.deals)
        free(self.deal_seed)

    def set_evaluation(self, Evaluation evaluation):
        """The weights of the learned opponent (MODE_LEARNED)."""
        self.evaluation = evaluation
    def seed(self, uint64_t seed):
        """Round i deals its episodes from seed + i (episode_deal_seed), as n JaipurEnvs
        reset with seeds seed, seed + 1, ... would."""
        cdef int i
        for i in range(self.n):
            self.deal_base[i] = seed + <uint64_t>i
            self.deals[i] = 0
        rng_seed(&self.sampler, ~seed)

    def deal_seeds(self):
        """The seed of every round's current deal (a list)."""
        return [self.deal_seed[i] for i in range(self.n)]

    cdef inline int _seat(self, int i) noexcept nogil:
        """The seat whose observation and mask env i reports."""
        return self.st[i].to_move if self.mode == MODE_SELF else 0

    cdef inline bint _opponent_to_move(self, int i) noexcept nogil:
        cdef State* s = &self.st[i]
        return (self.mode != MODE_SELF and s.result == RESULT_NONE and s.to_move == 1
                and self.plies[i] < self.max_plies)

    cdef void _learned_move(self, State* s, Move* out) noexcept nogil:
        """The candidate whose position the learned value rates best for the mover."""
        cdef Move cand[MAX_CAND]
        cdef double sc[MAX_CAND]
        cdef HoldTab T
        cdef int n, j, best = 0
        hold_tab(s, &T)
        n = candidates(s, &T, cand)
        score_candidates(s, &T, cand, n, sc)
        rescore_learned(s, cand, n, sc, &self.evaluation.m, False, NULL)
        for j in range(1, n):
            if sc[j] > sc[best]:
                best = j
        out[0] = cand[best]

    cdef void _opponent(self, int i) noexcept nogil:
        """Let a compiled opponent (seat 1) play while it is to move."""
        cdef Move m
        cdef State* s = &self.st[i]
        if self.mode == MODE_EXTERNAL:
            return
        while self._opponent_to_move(i):
            if self.mode == MODE_GREEDY:
                policy_move(s, &self.rng[i], &self.greedy, &m)
            elif self.mode == MODE_LEARNED:
                self._learned_move(s, &m)
            else:
                random_move(s, &self.rng[i], &m)    # counts the moves, builds only this one
            apply_move(s, &m)
            self.plies[i] += 1

    cdef void _deal(self, int i) noexcept nogil:
        """Deal round i's next episode: GameState.new(seed=d) for its next deal seed d; the
        random opponent then draws from the same stream."""
        cdef State* s = &self.st[i]
        cdef uint64_t d = episode_deal_seed_c(self.deal_base[i], self.deals[i])
        self.deals[i] += 1
        self.deal_seed[i] = d
        deal_match(s, &self.rng[i], d, default_starter(d), BONUS_STANDARD)
        self.plies[i] = 0
        self._opponent(i)

    cdef void _publish(self, int i, float* obs, uint8_t* mask, int32_t* ids, int32_t* nids,
                       int32_t* to_move) noexcept nogil:
        """Write env i's observation, its mask (when kept: the old entries cleared first)
        and its list of legal ids (padded with -1)."""
        cdef int j, seat = self._seat(i), n
        cdef int32_t* lg = &self.legal[<size_t>i * MAX_MOVES]
        if self.write_mask:
            for j in range(self.nlegal[i]):
                mask[lg[j]] = 0
        n = legal_dense(&self.st[i], lg)
        self.nlegal[i] = n
        if self.write_mask:
            for j in range(n):
                mask[lg[j]] = 1
        for j in range(n if n < self.max_legal else self.max_legal):
            ids[j] = lg[j]
        for j in range(n, self.max_legal):
            ids[j] = -1
        nids[i] = n
        observe_state(&self.st[i], seat, obs)
        to_move[i] = seat

    def reset(self, float[:, ::1] obs, uint8_t[:, ::1] mask, int32_t[:, ::1] ids,
              int32_t[::1] nids, int32_t[::1] to_move):
        """Deal every round; returns how many wait for an external opponent's first move
        (published once it is made: apply_opponent)."""
        cdef int i, waiting = 0
        self._check(obs, mask, ids, nids, to_move)
        if self.mode == MODE_LEARNED and self.evaluation is None:
            raise ValueError("the learned opponent needs weights (set_evaluation)")
        with nogil:
            if self.write_mask:
                memset(&mask[0, 0], 0, <size_t>self.n * N_DENSE)
            for i in range(self.n):
                self.nlegal[i] = 0
                self._deal(i)
                self.pending[i] = self.mode == MODE_EXTERNAL and self._opponent_to_move(i)
                waiting += self._publish_ready(i, &obs[i, 0], &mask[i, 0] if self.write_mask
                                               else NULL, &ids[i, 0], &nids[0], &to_move[0])
        return waiting

    cdef inline int _publish_ready(self, int i, float* obs, uint8_t* mask, int32_t* ids,
                                   int32_t* nids, int32_t* to_move) noexcept nogil:
        """Publish round i unless it waits for an external opponent; 1 if it waits."""
        if self.pending[i]:
            return 1
        self._publish(i, obs, mask, ids, nids, to_move)
        return 0

    cdef void _settle(self, int i, float* reward, uint8_t* terminated, uint8_t* truncated,
                      float* final_obs) noexcept nogil:
        """After a move in round i: compiled opponents reply; a round that ended (or was
        cut off) is scored for the seat that made this step's move, its last observation
        kept in final_obs, and dealt afresh; pending[i] says whether an external opponent
        is now to move."""
        cdef State* s = &self.st[i]
        cdef int mover = <int>self.last_mover[i], res
        cdef int t[2]
        cdef float r = 0
        self._opponent(i)
        if s.result != RESULT_NONE:
            terminated[i] = 1
            res = s.result
            if self.reward_kind == REWARD_MARGIN:
                round_totals(s, t)
                r = t[mover] - t[1 - mover]
            elif res != RESULT_DRAW:
                r = 1 if res == mover else -1
            reward[i] = r
        elif self.plies[i] >= self.max_plies:
            truncated[i] = 1
        if s.result != RESULT_NONE or self.plies[i] >= self.max_plies:
            if final_obs != NULL:
                observe_state(s, mover if self.mode == MODE_SELF else 0,
                              &final_obs[<size_t>i * OBS_SIZE])
            self.rounds_done += 1
            self._deal(i)
        self.pending[i] = self.mode == MODE_EXTERNAL and self._opponent_to_move(i)

    cdef _check(self, float[:, ::1] obs, uint8_t[:, ::1] mask, int32_t[:, ::1] ids,
                int32_t[::1] nids, int32_t[::1] to_move):
        if obs.shape[0] != self.n or obs.shape[1] != OBS_SIZE:
            raise ValueError(f"obs must have shape ({self.n}, {OBS_SIZE})")
        if self.write_mask and (mask.shape[0] != self.n or mask.shape[1] != N_DENSE):
            raise ValueError(f"mask must have shape ({self.n}, {N_DENSE})")
        if ids.shape[0] != self.n or ids.shape[1] != self.max_legal:
            raise ValueError(f"ids must have shape ({self.n}, {self.max_legal})")
        if nids.shape[0] != self.n or to_move.shape[0] != self.n:
            raise ValueError(f"nids and to_move must have shape ({self.n},)")

    cdef bint _is_legal_dense(self, int i, int64_t a) noexcept nogil:
        cdef int j
        cdef int32_t* lg = &self.legal[<size_t>i * MAX_MOVES]
        for j in range(self.nlegal[i]):
            if lg[j] == a:
                return True
        return False

    def step(self, int64_t[::1] actions, float[:, ::1] obs, uint8_t[:, ::1] mask,
             int32_t[:, ::1] ids, int32_t[::1] nids,
             float[::1] reward, uint8_t[::1] terminated, uint8_t[::1] truncated,
             int32_t[::1] to_move, float[:, ::1] final_obs):
        """Apply actions[i] in every env (a dense id legal by mask[i], or an index into
        its list of legal ids); see jaipur_ai.vecenv.  ``final_obs`` (n, OBS_SIZE), or
        (0, OBS_SIZE) for none: the last observation of each round that ends.  Returns
        how many rounds wait for an external opponent's move."""
        cdef int i, waiting = 0
        cdef int64_t a
        cdef int32_t d
        cdef State* s
        if final_obs.shape[0] not in (0, self.n) or final_obs.shape[1] != OBS_SIZE:
            raise ValueError(f"final_obs must have shape ({self.n}, {OBS_SIZE}) or (0, {OBS_SIZE})")
        if self.mode == MODE_LEARNED and self.evaluation is None:
            raise ValueError("the learned opponent needs weights (set_evaluation)")
        for i in range(self.n):
            if self.pending[i]:
                raise ValueError(f"round {i} waits for the opponent's move (apply_opponent)")
        self._check(obs, mask, ids, nids, to_move)
        if (actions.shape[0] != self.n or reward.shape[0] != self.n or terminated.shape[0] != self.n
                or truncated.shape[0] != self.n):
            raise ValueError(f"actions, reward, terminated and truncated must have shape ({self.n},)")
        for i in range(self.n):       # all checked before anything moves
            a = actions[i]
            if self.action_kind == ACTIONS_INDEX:
                if a < 0 or a >= self.nlegal[i]:
                    raise ValueError(f"env {i}: action {a} is not an index of its "
                                     f"{self.nlegal[i]} legal moves")
            elif a < 0 or a >= N_DENSE or not (
                    mask[i, a] if self.write_mask else self._is_legal_dense(i, a)):
                raise ValueError(f"env {i}: action {a} is not legal there (see the mask)")
        with nogil:
            for i in range(self.n):
                s = &self.st[i]
                self.last_mover[i] = s.to_move
                d = <int32_t>actions[i]
                if self.action_kind == ACTIONS_INDEX:
                    d = self.legal[<size_t>i * MAX_MOVES + d]
                apply_move(s, dense_move(d))
                self.plies[i] += 1
                reward[i] = 0
                terminated[i] = 0
                truncated[i] = 0
                self._settle(i, &reward[0], &terminated[0], &truncated[0],
                             &final_obs[0, 0] if final_obs.shape[0] else NULL)
                waiting += self._publish_ready(i, &obs[i, 0], &mask[i, 0] if self.write_mask
                                               else NULL, &ids[i, 0], &nids[0], &to_move[0])
        return waiting

    def pending_rounds(self):
        """The rounds waiting for an external opponent's move (MODE_EXTERNAL)."""
        return [i for i in range(self.n) if self.pending[i]]

    def apply_opponent(self, int i, int32_t dense, float[:, ::1] obs, uint8_t[:, ::1] mask,
                       int32_t[:, ::1] ids, int32_t[::1] nids, float[::1] reward,
                       uint8_t[::1] terminated, uint8_t[::1] truncated, int32_t[::1] to_move,
                       float[:, ::1] final_obs):
        """Play the external opponent's move (a dense id) in pending round i; the round is
        published when the agent is to move again.  Returns whether it still waits."""
        cdef Move m
        if not 0 <= i < self.n or not self.pending[i]:
            raise ValueError(f"round {i} is not waiting for the opponent's move")
        if dense < 0 or dense >= N_DENSE or not self._is_legal_opponent(i, dense):
            raise ValueError(f"round {i}: the opponent's action {dense} is not legal there")
        apply_move(&self.st[i], dense_move(dense))
        self.plies[i] += 1
        self._settle(i, &reward[0], &terminated[0], &truncated[0],
                     &final_obs[0, 0] if final_obs.shape[0] else NULL)
        return bool(self._publish_ready(i, &obs[i, 0], &mask[i, 0] if self.write_mask else NULL,
                                        &ids[i, 0], &nids[0], &to_move[0]))

    cdef bint _is_legal_opponent(self, int i, int32_t dense):
        cdef int32_t buf[MAX_MOVES]
        cdef int j, n = legal_dense(&self.st[i], buf)
        for j in range(n):
            if buf[j] == dense:
                return True
        return False

    def sample(self, int64_t[::1] out):
        """A uniformly random legal move for every env (from the sampler's own stream): a
        dense id, or an index into the legal list in index mode."""
        cdef int i, k
        if out.shape[0] != self.n:
            raise ValueError(f"out must have shape ({self.n},)")
        with nogil:
            for i in range(self.n):
                k = rng_below(&self.sampler, self.nlegal[i])
                out[i] = k if self.action_kind == ACTIONS_INDEX else \
                    self.legal[<size_t>i * MAX_MOVES + k]

    def core_state(self, int i):
        """A copy of env i's state as a CoreState (for tests and debugging)."""
        cdef CoreState c = CoreState.__new__(CoreState)
        if not 0 <= i < self.n:
            raise IndexError(i)
        c.s = self.st[i]
        return c
