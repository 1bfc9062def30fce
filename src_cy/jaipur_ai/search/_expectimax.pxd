# cython: language_level=3
"""Depth-limited expectimax over sampled worlds (see _expectimax.pyx and
docs/search.md, "Expectimax")."""
from libc.stdint cimport uint8_t, int32_t
from jaipur_ai.rules._core cimport State, Move, Rng, MAX_MOVES
from jaipur_ai.search._root cimport RootSearch
from jaipur_ai.search._evaluation cimport Evaluation, Model
from jaipur_ai.search._params cimport Params

ctypedef struct MoveOrder:
    double sc                   # the move's heuristic score (an ending move: its end score)
    int32_t act                 # its action id (ties: the lowest first)
    int idx                     # its index in the generated moves


# the moves of s, best heuristic score first (ties: lowest action id)
cdef int ordered_moves(const State* s, Move* buf, MoveOrder* order) noexcept nogil
# the informed policy's candidate moves of s (buf and order hold MAX_CAND), best prior
# score first (P: the priors' settings; ties: lowest action id); 0 when there are none
cdef int policy_ordered(const State* s, Move* buf, MoveOrder* order,
                        const Params* P) noexcept nogil


cdef inline void star1_window(double alpha, double beta, double acc, double rem, double q,
                              double* ca, double* cb) noexcept nogil:
    """Star1: the window an outcome of probability q is searched with, so that the chance
    node's average (acc so far, rem of probability left, values in [0, 1]) can still
    leave [alpha, beta]."""
    ca[0] = (alpha - acc - rem) / q
    cb[0] = (beta - acc) / q
    if ca[0] < 0.0:
        ca[0] = 0.0
    if cb[0] > 1.0:
        cb[0] = 1.0


cdef inline bint star1_cutoff(double alpha, double beta, double acc, double rem,
                              double* value) noexcept nogil:
    """Star1: whether the chance node can stop, the best outcomes left unable to lift it
    to alpha (value acc + rem) or its average already at beta (value acc)."""
    if acc + rem <= alpha:
        value[0] = acc + rem
        return True
    if acc >= beta:
        value[0] = acc
        return True
    return False


ctypedef struct XCtx:
    int P                       # the searching player
    long long nodes             # states generated (one per apply_move)
    long long node_limit        # -1: none
    double deadline             # < 0: none
    volatile int* stop          # the searcher's stop flag
    int aborted                 # set once the search must unwind
    int beam                    # moves tried at inner nodes (0 = all)
    int chance_samples          # sampled draws when 3+ cards are drawn
    int chance_top              # 3+ cards drawn: the most likely outcomes enumerated
                                # exactly, the rest of the mass sampled (0: all sampled)
    Rng rng                     # draws the sampled refills
    const Model* model          # learned leaf evaluation, or NULL (hand-set)
    int inner_policy            # inner nodes try the informed policy's candidates by
                                # their prior scores (0: every legal move by its score)
    Params prm                  # the prior scores' settings (inner_policy)


cdef class ExpectimaxSearcher(RootSearch):
    cdef readonly int samples          # worlds searched
    cdef object _worlds_arr            # the numpy array behind `worlds`
    cdef uint8_t[::1] worlds           # samples * sizeof(State) bytes: the sampled worlds
    cdef readonly int n_moves          # legal root moves
    cdef Move moves[MAX_MOVES]         # the root moves
    cdef int32_t root_acts[MAX_MOVES]  # their action ids
    cdef double[:, ::1] value          # [move, world]: value of the depth being searched
    cdef double[:, ::1] marg           # [move, world]: margin, same
    cdef int32_t[:, ::1] reply         # [move, world]: the opponent's best reply (-1: none)
    cdef readonly long long nodes      # states generated so far
    cdef readonly double elapsed       # seconds spent in run_depth()
    cdef readonly int depth_done       # deepest completed depth
    cdef readonly bint inner_policy    # inner nodes: the policy's candidates (else all moves)
    cdef Params prm                    # the prior scores' settings (inner_policy)
    cdef readonly int beam             # moves tried at inner nodes (0 = all)
    cdef readonly int chance_samples   # sampled draws when 3+ cards are drawn
    cdef readonly int chance_top       # 3+ cards: the outcomes enumerated exactly (0: none)
    cdef readonly Evaluation evaluation  # learned leaf evaluation, or None (hand-set)
    cdef object _last                  # (value, marg, reply, each move's depth) of the
                                       # deepest completed depth
    cdef dict _done                    # depth -> its _last, for every completed depth

    cdef double _root_move(self, XCtx* X, const State* w, int i, int depth, double* mg,
                           int32_t* reply) noexcept nogil
