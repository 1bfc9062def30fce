# cython: language_level=3
"""The settings of one search, as plain C data shared by the playout policy, the leaf
evaluation and the searchers (filled from the Engine's options)."""
from jaipur_ai.search._evaluation cimport Model

cdef enum:
    PLAYOUT_RANDOM = 0         # playouts by uniformly random legal moves
    PLAYOUT_INFORMED = 1       # playouts by the informed policy (_policy.pyx)
    REWARD_WIN = 0             # reward: 1 win, 0.5 draw, 0 loss (or a win chance)
    REWARD_MARGIN = 1          # reward: the margin mapped linearly onto [0, 1]
    EXPAND_RANDOM = 0          # expand an untried move drawn uniformly
    EXPAND_ORDERED = 1         # expand the untried move with the best move score (+ noise)

ctypedef struct Params:
    double c_uct               # UCB exploration constant
    int playout                # PLAYOUT_RANDOM or PLAYOUT_INFORMED
    int reward                 # REWARD_WIN or REWARD_MARGIN
    double margin_scale        # points that map to a full reward swing
    double epsilon             # informed policy: chance of a uniformly random candidate
    double noise               # informed policy: uniform noise added to scores
    int max_playout            # plies before a playout is scored as it stands
    int expand                 # EXPAND_RANDOM or EXPAND_ORDERED
    int cutoff                 # playout plies before the leaf evaluation scores it (0: none)
    int tree_depth             # deepest tree node an iteration descends to (0: no limit)
    double widen               # progressive widening: children <= 1 + widen*sqrt(visits) (0: off)
    double puct                # PUCT constant below the root (0: UCB over all moves)
    double prior_temp          # temperature (points) of the PUCT priors from move scores
    int all_moves_after        # PUCT nodes with this many visits also consider every legal
                               # move, not only the policy's candidates (0: never)
    int chance_nodes           # tree nodes branch on the cards drawn into the market
    double chance_width        # sparse draws: a move's node keeps at most 1 + chance_width *
                               # sqrt(visits) children for the cards drawn; a draw beyond
                               # them is made one of theirs (0: every draw its own child)
    int learned_priors         # PUCT priors from learned afterstate values (needs model)
    int use_policy             # the model's move policy shapes the priors and playouts,
                               # where the weights hold one (docs/search.md)
    const Model* model         # learned evaluation weights, or NULL (hand-set evaluation)
    int observer               # the searching player (whose hand is real in every world)
    int opp_view               # the opponent's tree priors and playout moves read a world
                               # re-dealt from its own information (0: the sampled world)
    int own_view               # the searcher's own tree priors (below the root) and playout
                               # moves read a world re-dealt from its own information: the
                               # opponent's cards it never saw shuffled with the pile's
                               # (0: the sampled world, which shows it the opponent's hand)
    int opp_values_redealt     # the statistics the opponent's tree choices read are backed
                               # up from the leaf re-dealt as it sees it (0: the sampled
                               # world's result, which reads the searcher's real hand)


cdef inline double reward_of(const Params* P, double win, double margin) noexcept nogil:
    """The reward an iteration backs up: win (1/0.5/0 or a win chance), or the margin
    mapped onto [0, 1] (clipped at +-margin_scale points)."""
    cdef double x
    if P.reward != REWARD_MARGIN:
        return win
    x = margin / P.margin_scale
    if x > 1.0:
        x = 1.0
    elif x < -1.0:
        x = -1.0
    return 0.5 + 0.5 * x
