"""The search's tuning: one frozen :class:`Settings` value, every field with the match
that set its default (docs/strength.md names the sections quoted here).

A user chooses the algorithm, the time, the threads, the seed, the belief and the
evaluation (:class:`jaipur_ai.Engine`'s own parameters); what lies behind them, how the
tree is built and the playouts played, is this value.  It is reached as
``Engine(settings=...)``, by name in engine specs (``ismcts:settings=handset`` or a
field: ``ismcts:cutoff=10``) and through the one options table
(:mod:`jaipur_ai.options`) at every door.

>>> from jaipur_ai.search.settings import Settings, named_settings
>>> Settings().cutoff
6
>>> named_settings("handset").cutoff
10
>>> Settings().replace(cutoff=8).cutoff
8
>>> Settings().replace(cutoff=-1)
Traceback (most recent call last):
...
jaipur_ai.errors.InvalidOptionError: cutoff: must be a whole number, at least 0 and at most 10000, got -1
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Union

from jaipur_ai.options import SETTINGS_NAMES, check, option, unknown

__all__ = ["Settings", "DEFAULT", "HANDSET", "NAMED", "named_settings", "settings_of",
           "FIELDS"]


@dataclass(frozen=True)
class Settings:
    """How the searches are tuned.  Immutable; :meth:`replace` gives a changed copy.

    The ISMCTS fields come first, then the expectimax ones.  Every default is the one a
    match chose, or kept because the alternatives measured no better (docs/strength.md).
    """

    # -- the ISMCTS tree ------------------------------------------------------------------
    #: UCB constant at the root. "Search choices": 0.4 and 1.0 against 0.7 scored
    #: 50.0 % and 51.5 % (no difference), so 0.7 stayed.
    exploration: float = 0.7
    #: PUCT constant below the root (0: UCB over every legal move). "The PUCT tree with
    #: chance nodes": the PUCT tree 67.2 % against the flat search at 0.1 s; puct=3
    #: 50.5 % against 1.5.
    puct: float = 1.5
    #: Softmax temperature of the PUCT priors, in points. "The learned evaluation and
    #: priors": 2 and 0.5 scored 78.5 % and 77.5 % where 1 scored 79.0 %; "Looking past
    #: the candidates": 2 scored 49.1 % against 1 at 32,000 iterations.
    prior_temp: float = 1.0
    #: The tree branches on the cards drawn into the market. "The PUCT tree with chance
    #: nodes" (the tree of this build).
    chance_nodes: bool = True
    #: Sparse draws (docs/search.md, "Sparse draws"): a move's node keeps at most
    #: 1 + chance_width * sqrt(visits) children for the cards drawn, and a later draw
    #: is made one of theirs, so that the tree grows deeper past the draws (0: off).
    #: "Sparse draws" (docs/strength.md): 0.25 deepens the tree by about a level and
    #: scored 41.2 % against off at 32,000 iterations (102 games), so off.
    chance_width: float = 0.0
    #: Decisions an iteration descends before its playout (0: no limit; 1: flat Monte
    #: Carlo). The flat search (1) was the default until the PUCT tree beat it, 67.2 %.
    tree_depth: int = 0
    #: Progressive widening (0: off). Never measured against off (the "Search choices"
    #: row, 46.0 %, compares budgets with widen=1 on both sides), so off; kept because
    #: the golden searches (tests/golden.py, "flat-widen") replay a build that used it.
    widen: float = 0.0
    #: Order of untried moves: "ordered" (best move score first, with noise) or
    #: "random". "Search choices": ordered 80.0 % (1,000 it) and 63.2 % (4,000 it);
    #: "random" stays for the golden searches.
    expand: str = "ordered"
    #: Visits after which a node below the root considers every legal move, not only
    #: the policy's candidates (0: never). "Looking past the candidates, and the
    #: opponent's hand"; with opponent_stats="hand", 54.0 % (0.1 s) and 56.5 % (1 s)
    #: against the settings before.
    all_moves_after: int = 1000
    #: The statistics the opponent's choices read: "hand" (kept apart for each hand it
    #: may hold) or "pooled". "Looking past the candidates, and the opponent's hand".
    opponent_stats: str = "hand"
    #: What the opponent's choices read in a sampled world: "all" (its priors and
    #: playout moves from the world re-dealt as it sees it) or "off" (the sampled world).
    #: "The learned evaluation and priors": "all" 53.3 % against "off" with the same
    #: weights (a third value, "priors", 50.7 %, was retired).
    opponent_view: str = "all"
    #: What the searcher's own choices below the root read (its tree priors and playout
    #: moves): "off" (the sampled world, which shows it the opponent's hand: its future
    #: play is clairvoyant) or "all" (that world re-dealt from the searcher's own
    #: information). Off until a match measures it (issue 53, the pair sum).
    own_view: str = "off"
    #: What the statistics the opponent's tree choices read are backed up from: "world"
    #: (the sampled world's result, which reads the searcher's real hand) or "redealt"
    #: (the leaf scored in a copy re-dealt as the opponent sees it). docs/search.md,
    #: "The opponent's values"; "redealt" scored 51.5 % at 32,000 iterations and
    #: 39.6 % over 53 games at 1 s (docs/strength.md, "The opponent's values"), so "world".
    opponent_values: str = "world"
    #: How the belief deals the opponent's unknown goods before weighing them by its
    #: moves: "uniform" (the uniform deal of the unseen cards) or "kept" (tilted toward
    #: the hands players keep, jaipur_ai.search.handprior). Read only with belief on.
    #: "Kept hands": 51.9 % over 1,200 games at 3,000 iterations, 50.2 % over 400 at
    #: 0.1 s: not settled, so uniform.
    hidden_hands: str = "uniform"
    #: The learned move policy of the weights, where they hold one (docs/search.md, "The
    #: learned move policy"): the tree's priors and the playouts' move scores read it.
    #: Off, or with weights that hold none, the search is the one before it.
    policy: bool = True
    #: Tree nodes per thread; the tree stops growing there (about 53 bytes a node): a
    #: memory bound, not tuning, far above what 1 s a move fills.
    max_nodes: int = 4_000_000

    # -- the playouts -------------------------------------------------------------------
    #: "informed" (the move-score policy) or "random". "Informed playouts against random
    #: playouts": 97.0 % at equal iterations ("random" stays for the golden searches).
    playout: str = "informed"
    #: Playout plies after which the round is scored by the leaf evaluation (0: play it
    #: out). "The learned evaluation and priors": 6 scored 76.0 % at 0.1 s, 4 69.5 %;
    #: the hand-set evaluation's 10 is in :data:`HANDSET`.
    cutoff: int = 6
    #: The informed policy's chance of a uniformly random candidate. "Search choices":
    #: 0 and 0.25 scored 51.0 % and 51.5 % against 0.1.
    epsilon: float = 0.1
    #: Uniform noise on the move scores, in points. "Search choices": 3 scored 44.8 %.
    noise: float = 1.0
    #: Plies after which a playout is scored as it stands (a safety bound, never
    #: reached: the cutoff ends playouts first; no match).
    max_playout: int = 400
    #: What an iteration backs up: "win" (1, ½, 0) or "margin" (the score margin mapped
    #: onto [0, 1]). Never measured in a match: the round is won by seals, so "win";
    #: "margin" stays for the golden searches ("margin").
    reward: str = "win"
    #: Points of margin that map to a full reward swing (reward="margin" only).
    margin_scale: float = 40.0
    #: Sampled worlds that judge the moves ending the round at once (docs/search.md,
    #: "Decisive moves"; not tuned by a match).
    decisive_samples: int = 64

    # -- exact endgames (ISMCTS; docs/search.md, "Exact endgames") --------------------------
    #: Solve the rest of the round first when it is near its end, and play a move proven
    #: best. Off until a match measures it (issue 35).
    endgame: bool = False
    #: "Near its end": the draw pile holds at most this many cards.
    endgame_deck: int = 3
    #: Worlds of the searcher's view the solve averages over (drawn by the belief).
    endgame_worlds: int = 16
    #: Positions the solve may visit before the tree search decides instead.
    endgame_nodes: int = 1_000_000

    # -- late positions (ISMCTS; docs/search.md, "Late positions") ---------------------------
    #: What searches a late position (two goods-token stacks empty, or at most 3 cards
    #: in the draw pile): "ismcts" or "expectimax" (with the expectimax fields below).
    #: The move-quality benchmark's late positions favour expectimax; the games do not
    #: (46.9 % over 564, docs/strength.md, "Late positions to expectimax").
    late_search: str = "ismcts"

    # -- rollouts of the best candidates (docs/search.md, "Rollouts: a second opinion") --
    #: The search's n best candidates are played to the end of the round in the same
    #: sampled worlds, a second opinion beside the search's values (0: off). Analysis
    #: only: picking by them lost most rounds ("Rollouts as a judge"), so they change
    #: neither the order nor the move played.
    rollouts: int = 0
    #: The share of a time-limited move that the rollouts take (the search the rest).
    rollout_share: float = 0.5
    #: Worlds each candidate is rolled out in (0: as many as the time allows, or
    #: 1,000 for a search limited by iterations only); the rollouts stop sooner once
    #: the ranking is settled.
    rollout_worlds: int = 0
    #: Plies after which a rollout still running is scored by the leaf evaluation
    #: (truncated rollouts; 0: every round played out). "Rollouts as a judge": picking
    #: by rollouts truncated at 6 scored 36.5 %.
    rollout_cutoff: int = 0
    #: Play the rollouts' best instead of the search's (for the study of the rollouts
    #: as a judge). "Rollouts as a judge": 29.5 % against the search alone, so off.
    rollout_pick: bool = False

    # -- PIMC (algorithm "pimc"; the tree fields above shape each world's tree) -----------
    #: Worlds sampled from the view, each searched by its own perfect-information tree
    #: (the strongest public Jaipur engine searches 8; tuned in docs/strength.md).
    worlds: int = 8

    # -- expectimax ------------------------------------------------------------------------
    #: Plies (None: 3 without a time limit; with one, deeper until the time is spent).
    #: Headline "PUCT tree, hand-set evaluation": depth 6 scored no better against
    #: ISMCTS (82.0 % for ISMCTS) than iterative deepening (88.5 %).
    depth: Optional[int] = None
    #: Sampled worlds averaged. "Algorithms".
    samples: int = 8
    #: Moves tried at inner nodes (0: all; never measured otherwise).
    beam: int = 0
    #: Sampled draws when three or more cards are drawn (never tuned by a match).
    chance_samples: int = 4
    #: Draws of three or more cards: the likeliest searched exactly (0: all sampled).
    chance_top: int = 0
    #: Inner nodes' moves: "all" by the move score, or "policy": the informed policy's
    #: candidates by the learned move policy. docs/search.md, "Expectimax".
    inner_moves: str = "all"
    #: Root moves searched past depth 1, the best of the depth before (0: all).
    root_filter: int = 0
    #: Where the next depth would not finish, more worlds at the depth done.
    more_worlds: bool = False

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            object.__setattr__(self, f.name, check(f.name, getattr(self, f.name)))

    def searcher_keywords(self) -> dict[str, Any]:
        """These settings as the compiled ISMCTS searcher's keyword arguments (without
        the evaluation, which the engine loads)."""
        return {"exploration": self.exploration, "playout": self.playout,
                "reward": self.reward, "margin_scale": self.margin_scale,
                "epsilon": self.epsilon, "noise": self.noise,
                "max_playout": self.max_playout, "max_nodes": self.max_nodes,
                "decisive_samples": self.decisive_samples, "expand": self.expand,
                "cutoff": self.cutoff, "widen": self.widen, "tree_depth": self.tree_depth,
                "chance_nodes": self.chance_nodes, "chance_width": self.chance_width,
                "puct": self.puct, "prior_temp": self.prior_temp,
                "opp_view": self.opponent_view == "all", "own_view": self.own_view == "all",
                "opp_stats": self.opponent_stats, "opp_values": self.opponent_values,
                "all_moves_after": self.all_moves_after, "policy": self.policy}

    def __repr__(self) -> str:
        """Only the fields that differ from this build's default: ``Settings(cutoff=8)``."""
        return "Settings(" + ", ".join(f"{k}={v!r}" for k, v in self.changes().items()) + ")"

    def replace(self, **changes: Any) -> "Settings":
        """A copy with ``changes`` (each checked against the options table)."""
        for k in changes:
            if k not in FIELDS:
                raise unknown(k, FIELDS, "a search setting")
        return dataclasses.replace(self, **changes)

    def changes(self) -> dict[str, Any]:
        """The fields that differ from :data:`DEFAULT`, by name."""
        return {f: getattr(self, f) for f in FIELDS if getattr(self, f) != getattr(DEFAULT, f)}

    def name(self) -> Optional[str]:
        """The name of this value in :data:`NAMED`, or None."""
        for n, s in NAMED.items():
            if s == self:
                return n
        return None


FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Settings))

DEFAULT = Settings()
"""The search of this build (docs/strength.md, "Headline matches")."""

HANDSET = Settings(cutoff=10, all_moves_after=0, opponent_stats="pooled", opponent_view="off")
"""The settings the hand-set evaluation was tuned with, the baseline of the headline
matches: with ``evaluation="heuristic", belief=False`` it plays the default of the
builds before the learned evaluation, move for move."""

NAMED: dict[str, Settings] = {"default": DEFAULT, "handset": HANDSET}
assert tuple(NAMED) == SETTINGS_NAMES


def named_settings(name: str) -> Settings:
    """The settings called ``name`` (:data:`NAMED`)."""
    return NAMED[check("settings", name)]


def settings_of(base: Union[None, str, Settings],
                changes: Optional[Mapping[str, Any]] = None) -> Settings:
    """``base`` (a :class:`Settings`, a name, None for :data:`DEFAULT`) with ``changes``
    (setting fields by name), checked; what every door builds an engine's settings with."""
    if base is None:
        s = DEFAULT
    elif isinstance(base, Settings):
        s = base
    elif isinstance(base, str):
        s = named_settings(base)
    else:
        raise option("settings").fail(base)
    return s.replace(**changes) if changes else s
