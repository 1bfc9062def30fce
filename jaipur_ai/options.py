"""The one table of options: every engine option, search limit and match setting,
with its type, range, default and meaning.

Every door reads its options through this table: the Python API
(:class:`jaipur_ai.Engine`, :func:`jaipur_ai.best_move`, :func:`jaipur_ai.analyse`),
the command line (flags and ``-o key=value``), engine specs
(``ismcts:iterations=2000,exploration=1``) and ``jaipur-ai serve`` requests.  So each
rejects the same values with the same :class:`~jaipur_ai.InvalidOptionError`,
naming the option.  docs/protocol.md's option list is this table (a test keeps
them equal).

Every number has a finite range, and every size (threads, samples, tree nodes, ...)
one limit, checked before anything is allocated.

>>> from jaipur_ai.options import check
>>> check("threads", 4)
4
>>> check("threads", 10**6)
Traceback (most recent call last):
...
jaipur_ai.errors.InvalidOptionError: threads: must be a whole number, at least 1 and at most 256, got 1000000
>>> check("exploration", float("nan"))
Traceback (most recent call last):
...
jaipur_ai.errors.InvalidOptionError: exploration: must be a number, at least 0 and at most 100, got nan
>>> parse_text("iterations", "2_000")
2000
"""
from __future__ import annotations

import difflib
import math
import numbers
import os
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Optional, Union

from jaipur_ai.errors import InvalidOptionError, describe, is_bool

__all__ = ["Option", "OPTIONS", "ENGINE_OPTIONS", "SETTING_OPTIONS", "SPEC_OPTIONS",
           "SEARCH_LIMITS", "ALGORITHMS", "SETTINGS_NAMES", "LEVEL_NAMES", "EVALUATIONS",
           "MAX_THREADS", "MAX_ITERATIONS", "MAX_TIME", "MAX_SEED", "MAX_DEPTH",
           "LATE_SEARCH_OPTIONS", "check", "check_engine_options", "check_applicable",
           "reads", "check_clock", "parse_text", "describe", "option", "unknown",
           "did_you_mean", "number_text"]

ALGORITHMS = ("ismcts", "expectimax", "pimc", "greedy", "random", "ply1", "cheat")
#: The names of the levels (jaipur_ai/data/levels.json: the ladder, then its aliases;
#: a test keeps them equal).
LEVEL_NAMES = ("1", "2", "3", "4", "5", "6", "7", "max", "easy", "medium", "hard")
#: The named search settings (jaipur_ai.search.settings.NAMED).
SETTINGS_NAMES = ("default", "handset")
#: The engine option ``evaluation``'s choices (a levels file names one of them too).
EVALUATIONS = ("learned", "linear", "heuristic")

MAX_THREADS = 256             #: search threads of one search
MAX_ITERATIONS = 10**12       #: iterations (ISMCTS) or nodes (expectimax) of one search
MAX_TIME = 1_000_000.0        #: seconds of one search
MAX_SEED = 2**64 - 1          #: seeds are 64-bit
MAX_DEPTH = 64                #: expectimax plies
MAX_SAMPLES = 4096            #: sampled worlds (expectimax, round-ending moves)
MAX_NODES = 100_000_000       #: ISMCTS tree nodes per thread (about 53 bytes each)
MIN_NODES = 4096              #: enough for every root move and its chance node
MAX_TOP = 10_000              #: candidates in an analysis
MAX_GAMES = 1_000_000         #: deals of a match
MAX_WORKERS = 256             #: processes of a match


@dataclass(frozen=True)
class Option:
    """One option: ``kind`` is "int", "float", "bool", "choice" or "path"; ``lo``/``hi``
    the inclusive range of a number (``lo_open``: ``lo`` itself excluded);
    ``none``: ``None`` is allowed (and means what ``doc`` says); ``scope``:
    "engine" (an :class:`Engine` parameter), "settings" (a field of the search's
    :class:`~jaipur_ai.search.settings.Settings`), "search" (a limit of one search: also
    an :class:`Engine` default), "analyse" (of one search only), "match" or "review"."""

    name: str
    kind: str
    default: Any
    doc: str
    lo: Optional[float] = None
    hi: Optional[float] = None
    lo_open: bool = False
    choices: tuple[Any, ...] = ()
    none: bool = False
    scope: str = "engine"
    algorithms: tuple[Any, ...] = ()

    # -- what the option accepts, in words -------------------------------------
    def requirement(self) -> str:
        if self.kind == "bool":
            req = "true or false"
        elif self.kind == "choice":
            req = "one of " + ", ".join(self.choices)
        elif self.kind == "path":
            req = "the path of a file"
        else:
            what = "a whole number" if self.kind == "int" else "a number"
            lo, hi = number_text(self.lo), number_text(self.hi)
            if self.lo_open:
                req = f"{what} > {lo} and at most {hi}"
            else:
                req = f"{what}, at least {lo} and at most {hi}"
        if self.none:
            req += " (or none)"
        return req

    def fail(self, value: Any, why: str = "") -> InvalidOptionError:
        return InvalidOptionError(self.name, why or f"must be {self.requirement()}, "
                                                    f"got {describe(value)}")

    # -- checking ----------------------------------------------------------------
    def check(self, value: Any) -> Any:
        """The value, normalised (int, float, bool, str or None); InvalidOptionError
        naming the option when it is not acceptable."""
        if value is None:
            if self.none:
                return None
            raise self.fail(value)
        k = self.kind
        if k == "bool":
            if is_bool(value):
                return bool(value)
            raise self.fail(value)
        if k == "choice":
            if self.name == "level" and isinstance(value, (int, str)) and \
                    not isinstance(value, bool):
                value = str(value).strip().lower()     # (Engine(level=3), "MAX")
            if isinstance(value, str) and value in self.choices:
                return value
            raise self.fail(value)
        if k == "path":
            if isinstance(value, os.PathLike):
                value = os.fspath(value)
            if isinstance(value, str) and value.strip() and "\x00" not in value:
                return value
            raise self.fail(value)
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise self.fail(value)
        if k == "int":
            if not isinstance(value, numbers.Integral):
                if isinstance(value, float) and value.is_integer():
                    # (2.0 reads as 2 in messages: say why it is refused all the same)
                    raise InvalidOptionError(self.name, f"must be a whole number written "
                                                        f"without a decimal point, got "
                                                        f"{value!r}")
                raise self.fail(value)
            v: Union[int, float] = int(value)
        else:
            try:
                v = float(value)
            except (OverflowError, ValueError):
                raise self.fail(value) from None
            if not math.isfinite(v):
                raise self.fail(value)
        assert self.lo is not None and self.hi is not None
        if (v <= self.lo if self.lo_open else v < self.lo) or v > self.hi:
            raise self.fail(value)
        return v

    def parse(self, text: str) -> Any:
        """The value of a text (a command-line flag, ``-o key=value``, an engine spec),
        read as this option's type, then checked."""
        if not isinstance(text, str):
            return self.check(text)
        t = text.strip()
        low = t.lower()
        if self.none and low in ("none", "null"):
            return None
        k = self.kind
        if k == "bool":
            if low in ("true", "yes", "on", "1"):
                return True
            if low in ("false", "no", "off", "0"):
                return False
            raise self.fail(t)
        if k in ("choice", "path"):
            return self.check(low if k == "choice" else t)
        if len(t) > 40 or not t.isascii():      # (int() and float() read other scripts'
            raise self.fail(t)                    # digits: a position text does not)
        try:
            if k == "int":
                if not t.lstrip("+-").replace("_", "").isdigit():
                    raise ValueError
                value: Union[int, float] = int(t)
            else:
                value = float(t)
        except ValueError:
            raise self.fail(t) from None
        return self.check(value)


def number_text(x: Optional[float]) -> str:
    """A range's bound as the docs write it: ``10^6``, ``2^64-1``, ``0.5``."""
    if x is None:
        return "?"
    if float(x).is_integer():
        n = int(x)
        if n == MAX_SEED:
            return "2^64-1"
        k = len(str(n)) - 1
        return f"10^{k}" if n >= 10**6 and n == 10**k else str(n)
    return repr(float(x))


def _o(name: str, kind: str, default: Any, doc: str, **kw: Any) -> Option:
    return Option(name, kind, default, doc, **kw)


_IS = ("ismcts",)
_TREE = ("ismcts", "pimc")        # the settings of the tree that PIMC grows in each world
_X = ("expectimax",)
_SEARCH = ("ismcts", "expectimax", "pimc")
_EVAL = _SEARCH + ("ply1",)       # the algorithms that read an evaluation

#: Every option, in the order of the docs.
OPTIONS: tuple[Option, ...] = (
    # -- limits of one search (also Engine defaults) --------------------------------
    _o("time", "float", None, "seconds to search (none: the engine's default, else 1 s)",
       lo=0, hi=MAX_TIME, lo_open=True, none=True, scope="search"),
    _o("time_left", "float", None, "a clock instead of a fixed time: the seconds the mover "
       "has left for the rest of the round, spent unevenly over its moves (UCI's wtime; "
       "docs/search.md, \"Playing on a clock\"; none: no clock)", lo=0, hi=MAX_TIME,
       none=True, scope="analyse"),
    _o("increment", "float", None, "with time_left: the seconds added to the mover's "
       "clock after each of its moves (UCI's winc; none: 0)", lo=0, hi=MAX_TIME, none=True,
       scope="analyse"),
    _o("iterations", "int", None, "ISMCTS iterations or expectimax nodes (0: nothing is "
       "searched, only round-ending moves are judged)", lo=0, hi=MAX_ITERATIONS, none=True,
       scope="search"),
    _o("seed", "int", None, "seed of the search (none: fresh entropy, reported in the "
       "answer)", lo=0, hi=MAX_SEED, none=True, scope="search"),
    _o("top", "int", 5, "candidate moves reported, best first (none: all)", lo=1,
       hi=MAX_TOP, none=True, scope="analyse"),
    _o("report_every", "float", None, "seconds between partial reports (none: no reports)",
       lo=0.01, hi=3600, none=True, scope="analyse"),
    # -- the engine -------------------------------------------------------------------
    _o("algorithm", "choice", "ismcts", "the search: ISMCTS, expectimax, PIMC (perfect-"
       "information Monte Carlo: a tree in each of several sampled worlds), greedy (the best "
       "immediate gain), random, ply1 (the evaluation alone: the move whose position after "
       "it the evaluation values best, averaged over sampled worlds), or cheat (ISMCTS on "
       "the true full state, for study)",
       choices=ALGORITHMS),
    _o("threads", "int", 1, "search threads (ISMCTS: root-parallel trees; expectimax: the "
       "sampled worlds split between threads)", lo=1, hi=MAX_THREADS),
    _o("perfect_information", "bool", False, "search the true full state (needs a full "
       "state): cheating, for study only"),
    _o("evaluation", "choice", "learned", "leaf evaluation of ISMCTS and expectimax, and "
       "ply1's only judge: learned (weights learned by self-play: the shipped ones, or "
       "`weights`), linear (the learned linear model of 6 December 2026, the same as "
       "weights=2026-12-06), or heuristic (the hand-set one)",
       choices=EVALUATIONS, algorithms=_EVAL),
    _o("weights", "path", None, "a weights file of one's own for evaluation=learned "
       "(none: the shipped weights)", none=True, algorithms=_EVAL),
    _o("belief", "bool", True, "weigh the opponent's unseen goods by the moves it was "
       "shown playing this round (Engine.see_move or the history given with the position; "
       "matches and games show every move), read as the moves of a player like the search "
       "or of a greedy one (docs/search.md, \"A belief over the opponent's hand\"); false: "
       "deal them uniformly", algorithms=_TREE),
    _o("temperature", "float", None, "a weaker player's choice: best_move picks among the "
       "searched moves at random, a move valued d points of win % below the best with "
       "weight exp(-d / temperature), moves more than 4 temperatures below left out "
       "(none: the level's, else 0, always the best; docs/levels.md)", lo=0, hi=100,
       none=True, algorithms=_SEARCH),
    _o("level", "choice", None, "a level of the rated ladder, weakest first (`jaipur-ai "
       "levels`; docs/levels.md): its iterations a move (unless a limit is given) and "
       "its temperature", choices=LEVEL_NAMES, none=True, algorithms=_IS),
    _o("elo", "float", None, "a strength on the levels' rating scale: the point of the "
       "ladder between two levels rated so (`jaipur-ai levels`), its iterations a move "
       "and temperature interpolated", lo=0, hi=4000, none=True, algorithms=_IS),
    _o("settings", "choice", None, "the search's tuning by name: this build's, or "
       "`handset`, the baseline the hand-set evaluation was tuned with (the fields below "
       "change single settings; none: `default`)", choices=SETTINGS_NAMES, none=True,
       algorithms=_SEARCH),
    # -- the search's settings (jaipur_ai.search.settings.Settings) ------------------------
    _o("max_nodes", "int", 4_000_000, "ISMCTS tree nodes per thread (the tree stops "
       "growing there)", lo=MIN_NODES, hi=MAX_NODES, algorithms=_TREE, scope="settings"),
    _o("decisive_samples", "int", 64, "sampled worlds that judge the moves ending the "
       "round at once", lo=1, hi=MAX_SAMPLES, scope="settings"),
    _o("playout", "choice", "informed", "ISMCTS playouts: the informed policy or "
       "uniformly random moves", choices=("informed", "random"), algorithms=_TREE,
       scope="settings"),
    _o("exploration", "float", 0.7, "UCB exploration constant at the root (ISMCTS)",
       lo=0, hi=100, algorithms=_TREE, scope="settings"),
    _o("reward", "choice", "win", "what an ISMCTS iteration backs up: 1/0.5/0 for a "
       "win/draw/loss, or the score margin mapped onto [0, 1]", choices=("win", "margin"),
       algorithms=_TREE, scope="settings"),
    _o("margin_scale", "float", 40.0, "points of margin that map to a full reward swing",
       lo=1, hi=1000, algorithms=_TREE, scope="settings"),
    _o("epsilon", "float", 0.1, "informed policy: chance of a uniformly random candidate",
       lo=0, hi=1, algorithms=_TREE, scope="settings"),
    _o("noise", "float", 1.0, "informed policy and ordered expansion: uniform noise added "
       "to the move scores, in points", lo=0, hi=1000, algorithms=_TREE, scope="settings"),
    _o("max_playout", "int", 400, "plies after which a playout is scored as it stands",
       lo=0, hi=10_000, algorithms=_TREE, scope="settings"),
    _o("expand", "choice", "ordered", "order in which ISMCTS tries untried moves: best "
       "move score first (with noise), or uniformly random", choices=("ordered", "random"),
       algorithms=_TREE, scope="settings"),
    _o("cutoff", "int", 6, "playout plies after which an unfinished round is scored by "
       "the leaf evaluation (0: play every round out)", lo=0, hi=10_000, algorithms=_TREE, scope="settings"),
    _o("tree_depth", "int", 0, "decisions an ISMCTS iteration descends before its playout "
       "(0: no limit; 1: flat Monte Carlo)", lo=0, hi=128, algorithms=_TREE, scope="settings"),
    _o("widen", "float", 0.0, "progressive widening: a node gets a new child only while "
       "its legal children number fewer than 1 + widen * sqrt(visits) (0: off)", lo=0,
       hi=100, algorithms=_TREE, scope="settings"),
    _o("puct", "float", 1.5, "PUCT constant below the root, priors from the evaluation "
       "(0: UCB over all legal moves)", lo=0, hi=100, algorithms=_TREE, scope="settings"),
    _o("opponent_view", "choice", "all", "what the opponent's choices in the search read: "
       "'off' the sampled world; 'all' its priors and playout moves from that world "
       "re-dealt as the opponent sees it", choices=("off", "all"), algorithms=_IS, scope="settings"),
    _o("hidden_hands", "choice", "uniform", "with the belief on, how the opponent's "
       "unknown goods are dealt before its moves weigh them: 'uniform' from the unseen "
       "cards, or 'kept' tilted toward the hands players keep (learned from games; "
       "docs/search.md, \"The pair sum\")", choices=("uniform", "kept"),
       algorithms=_TREE, scope="settings"),
    _o("own_view", "choice", "off", "what the searcher's own choices below the root "
       "read: 'off' the sampled world (its imagined future play sees the opponent's "
       "hand); 'all' its priors and playout moves from that world re-dealt from its own "
       "information (docs/search.md, \"The searcher's own view\")", choices=("off", "all"),
       algorithms=_IS, scope="settings"),
    _o("opponent_stats", "choice", "hand", "the statistics the opponent's choices in the "
       "ISMCTS tree read: 'pooled' over the hands it may hold, or 'hand' kept apart for "
       "each hand (docs/search.md, \"The opponent's statistics\")",
       choices=("pooled", "hand"), algorithms=_IS, scope="settings"),
    _o("opponent_values", "choice", "world", "what the statistics the opponent's choices "
       "in the ISMCTS tree read are backed up from: 'world' the sampled world's result, "
       "'redealt' the leaf scored in a copy re-dealt as the opponent sees it (its "
       "hidden cards only; docs/search.md, \"The opponent's values\")",
       choices=("world", "redealt"), algorithms=_IS, scope="settings"),
    _o("all_moves_after", "int", 1000, "visits after which an ISMCTS node below the root "
       "also considers every legal move, not only the playout policy's candidates "
       "(0: never)", lo=0, hi=1_000_000_000, algorithms=_TREE, scope="settings"),
    _o("prior_temp", "float", 1.0, "softmax temperature of the PUCT priors, in points (also "
       "weighs the move policy in expectimax's inner_moves=policy order)",
       lo=0.01, hi=1000, algorithms=_TREE + _X, scope="settings"),
    _o("policy", "bool", True, "the learned move policy of the weights, where they hold "
       "one, shapes the tree's priors and the playouts' moves, and expectimax's "
       "inner_moves=policy order (false: the prior scores alone)", algorithms=_TREE + _X,
       scope="settings"),
    _o("chance_nodes", "bool", True, "the ISMCTS tree branches on the cards drawn into "
       "the market", algorithms=_IS, scope="settings"),
    _o("chance_width", "float", 0.0, "sparse draws: a move's node keeps at most 1 + "
       "chance_width * sqrt(visits) children for the cards drawn, and a later draw is "
       "made one of theirs (0: off; docs/search.md)", lo=0, hi=100, algorithms=_IS,
       scope="settings"),
    _o("endgame", "bool", False, "near the end of the round, solve the rest of it "
       "exactly (expectimax over the draws and bonus tokens, in worlds drawn by the "
       "belief) and play a move proven best; otherwise search as usual (docs/search.md, "
       "\"Exact endgames\")", algorithms=_IS, scope="settings"),
    _o("endgame_deck", "int", 3, "exact endgames: solve once the draw pile holds at most "
       "this many cards", lo=0, hi=40, algorithms=_IS, scope="settings"),
    _o("endgame_worlds", "int", 16, "exact endgames: worlds of the view the solve averages "
       "over", lo=1, hi=MAX_SAMPLES, algorithms=_IS, scope="settings"),
    _o("endgame_nodes", "int", 1_000_000, "exact endgames: positions the solve may visit "
       "before the tree search decides instead (with an iteration limit, at most 100 per "
       "iteration)", lo=1, hi=1_000_000_000, algorithms=_IS, scope="settings"),
    _o("late_search", "choice", "ismcts", "ISMCTS: what searches the late positions "
       "(two goods-token stacks empty, or at most 3 cards in the draw pile): 'ismcts' the "
       "tree as everywhere, or 'expectimax' as the expectimax engine searches (its "
       "worlds dealt uniformly, the belief unread; with an iteration limit, up to three "
       "plies and 20 nodes an iteration, reported as its iterations; not where a "
       "hand_prior is given or the exact endgame solve applies; docs/search.md, "
       "\"Late positions\")",
       choices=("ismcts", "expectimax"), algorithms=_IS, scope="settings"),
    _o("rollouts", "int", 0, "the search's n best candidates are played to the end of "
       "the round in the same sampled worlds (the learned move policy for both players, "
       "each reading only what it knows): each move's result and its difference from "
       "the search's best, with standard errors, beside the search's values (the "
       "order and the move played stay the search's; 0: off; docs/search.md, "
       "\"Rollouts: a second opinion\")", lo=0, hi=64,
       algorithms=_SEARCH, scope="settings"),
    _o("rollout_share", "float", 0.5, "rollouts: the share of a time-limited move they "
       "take (the search takes the rest)", lo=0.05, hi=0.95, algorithms=_SEARCH,
       scope="settings"),
    _o("rollout_worlds", "int", 0, "rollouts: worlds each candidate is rolled out in (0: "
       "as many as the time allows, or 1,000 without a time limit; 1 counts as 2); they "
       "stop sooner once the ranking is settled", lo=0, hi=10_000_000, algorithms=_SEARCH,
       scope="settings"),
    _o("rollout_cutoff", "int", 0, "rollouts: plies after the move after which a round "
       "still running is scored by the leaf evaluation (truncated rollouts; 0: every "
       "round played out)", lo=0, hi=1000, algorithms=_SEARCH, scope="settings"),
    _o("rollout_pick", "bool", False, "rollouts: order the rolled-out moves by their "
       "results and play the best of them, instead of the search's (for the study of "
       "the rollouts as a judge: it lost most rounds, docs/strength.md)",
       algorithms=_SEARCH, scope="settings"),
    _o("worlds", "int", 8, "PIMC: the worlds sampled from the view, each searched by its "
       "own perfect-information tree (the iterations or time split evenly between them)",
       lo=1, hi=MAX_SAMPLES, algorithms=("pimc",), scope="settings"),
    _o("depth", "int", None, "expectimax plies (none: 3 without a time limit; with one, "
       "deeper until the time is spent)", lo=1, hi=MAX_DEPTH, none=True, algorithms=_X, scope="settings"),
    _o("samples", "int", 8, "sampled worlds expectimax (and ply1) averages over", lo=1,
       hi=MAX_SAMPLES, algorithms=_X + ("ply1",), scope="settings"),
    _o("beam", "int", 0, "expectimax moves tried at inner nodes (0: all)", lo=0, hi=1024,
       algorithms=_X, scope="settings"),
    _o("chance_samples", "int", 4, "expectimax: sampled draws when three or more cards "
       "are drawn", lo=1, hi=64, algorithms=_X, scope="settings"),
    _o("chance_top", "int", 0, "expectimax: draws of three or more cards: the likeliest this "
       "many exactly, the rest sampled (0: all sampled)", lo=0, hi=32, algorithms=_X,
       scope="settings"),
    _o("inner_moves", "choice", "all", "expectimax: moves tried at inner nodes, 'all' by the "
       "move score or 'policy' the policy's candidates", choices=("all", "policy"),
       algorithms=_X, scope="settings"),
    _o("root_filter", "int", 0, "expectimax: root moves searched past depth 1, the best of "
       "the depth before (0: all)", lo=0, hi=1024, algorithms=_X, scope="settings"),
    _o("more_worlds", "bool", False, "expectimax: where the next depth would not finish in "
       "the budget, search more worlds to the depth done", algorithms=_X, scope="settings"),
    # -- match ----------------------------------------------------------------------------
    _o("games", "int", 10, "deals of a match, each played in both seats", lo=1,
       hi=MAX_GAMES, scope="match"),
    _o("workers", "int", None, "games (or self-play shards) played at once: processes on "
       "this machine, or Ray tasks in flight (none: 1 on the local backend, the cluster's "
       "CPUs on ray)", lo=1, hi=MAX_WORKERS, none=True, scope="match"),
    _o("backend", "choice", "local", "where a match's games and self-play's shards run: "
       "`local` processes, or tasks on a `ray` cluster (the jaipur-ai[ray] extra)",
       choices=("local", "ray"), scope="match"),
    _o("out", "path", None, "results file of a match: one JSON line per finished game, "
       "appended as it finishes; a rerun with the same file resumes", none=True,
       scope="match"),
    _o("elo0", "float", 0.0, "SPRT: the Elo difference A - B of H0", lo=-1000, hi=1000,
       scope="match"),
    _o("elo1", "float", 5.0, "SPRT: the Elo difference A - B of H1 (above elo0)",
       lo=-1000, hi=1000, scope="match"),
    _o("alpha", "float", 0.05, "SPRT: the chance of accepting H1 when H0 holds", lo=0,
       lo_open=True, hi=0.5, scope="match"),
    _o("beta", "float", 0.05, "SPRT: the chance of accepting H0 when H1 holds", lo=0,
       lo_open=True, hi=0.5, scope="match"),
    # -- a server's limits (jaipur-ai serve and web; jaipur_ai.doors.limits) -----------
    _o("limit_time", "float", 60.0, "seconds one search of a request may run, whatever "
       "limit it names (iterations too; on web, a whole review)", lo=0,
       lo_open=True, hi=MAX_TIME, scope="serve"),
    _o("limit_iterations", "int", 10_000_000, "iterations (or expectimax nodes) of one "
       "search of a request that gives no time", lo=1, hi=MAX_ITERATIONS, scope="serve"),
    _o("limit_threads", "int", 2, "threads of one search of a request", lo=1,
       hi=MAX_THREADS, scope="serve"),
    _o("limit_nodes", "int", 1_000_000, "ISMCTS tree nodes per thread a request gets (at "
       "most)", lo=MIN_NODES, hi=MAX_NODES, scope="serve"),
    _o("limit_searches", "int", 8, "searches running at once (on web, reviews too)",
       lo=1, hi=4096, scope="serve"),
    _o("memory_budget", "int", 1024, "megabytes the running searches may reserve together "
       "(250 bytes a tree node)", lo=16, hi=1 << 20, scope="serve"),
    _o("weights_dir", "path", None, "the folder whose files requests may name as weights "
       "(none: requests name no weights file)", none=True, scope="serve"),
    # -- a review (jaipur-ai review) ---------------------------------------------------
    _o("game", "int", 0, "the game of a record to review: its index in the record's games",
       lo=0, hi=2 * MAX_GAMES, scope="review"),
)

_BY_NAME = {o.name: o for o in OPTIONS}

#: The parameters of :class:`jaipur_ai.Engine`, in its signature's order.
ENGINE_OPTIONS: tuple[str, ...] = tuple(
    o.name for o in OPTIONS if o.scope == "engine") + ("seed", "time", "iterations")
#: The fields of the search's settings (:class:`jaipur_ai.search.settings.Settings`),
#: which engine specs, the command line and the server name as options too.
SETTING_OPTIONS: tuple[str, ...] = tuple(o.name for o in OPTIONS if o.scope == "settings")
#: Every option an engine spec or a door's engine options may name.
SPEC_OPTIONS: tuple[str, ...] = ENGINE_OPTIONS + SETTING_OPTIONS
#: The limits of one search (:meth:`Engine.analyse`).
SEARCH_LIMITS: tuple[str, ...] = ("time", "time_left", "increment", "iterations", "top",
                                  "seed", "report_every")


def option(name: str) -> Option:
    """The table's entry for ``name``; InvalidOptionError for an unknown name."""
    o = _BY_NAME.get(name)
    if o is None:
        raise unknown(name)
    return o


def did_you_mean(name: Any, known: Iterable[str]) -> Optional[str]:
    """``"did you mean X?"`` (or ``X or Y``) naming the names of ``known`` closest to
    ``name`` (a typo: ``iteration``, ``exploraton``), None when none is close.

    >>> did_you_mean("iteration", SPEC_OPTIONS)
    'did you mean iterations?'
    >>> did_you_mean("xyzzy", SPEC_OPTIONS) is None
    True
    """
    if not isinstance(name, str) or len(name) > 100:
        return None
    close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.75)
    return f"did you mean {' or '.join(close)}?" if close else None


def unknown(name: Any, known: Iterable[str] = SPEC_OPTIONS,
            what: str = "an engine option") -> InvalidOptionError:
    """The error for a name that is not an option: the closest names when one is close
    (a typo), else every name known."""
    known = sorted(known)
    shown = name if isinstance(name, str) and len(name) <= 40 else describe(name)
    hint = did_you_mean(name, known)
    if hint is not None:
        return InvalidOptionError(str(shown), f"not {what}; {hint}")
    return InvalidOptionError(str(shown), f"not {what} (known: {', '.join(known)})")


def check(name: str, value: Any) -> Any:
    """``value`` checked against the table's entry for ``name`` (normalised)."""
    return option(name).check(value)


def parse_text(name: str, text: str) -> Any:
    """``text`` read as option ``name``'s type and checked (the CLI, engine specs)."""
    return option(name).parse(text)


def check_engine_options(values: Mapping[str, Any]) -> dict[str, Any]:
    """Every option of ``values`` checked: the engine's own and the search's settings
    (names unknown to both are an InvalidOptionError naming them), and the rules
    between options: with an ``algorithm``, none it would not read
    (:func:`check_applicable`)."""
    out: dict[str, Any] = {}
    for k, v in values.items():
        if k not in SPEC_OPTIONS:
            raise unknown(k)
        out[k] = _BY_NAME[k].check(v)
    if "algorithm" in out:
        check_applicable(out["algorithm"], out)
    evaluation = out.get("evaluation", "learned")
    if out.get("weights") is not None and evaluation != "learned":
        raise InvalidOptionError("weights", "only with evaluation=learned, got evaluation="
                                            f"{evaluation}")
    return out


#: The expectimax settings an ISMCTS engine reads too when ``late_search=expectimax``
#: (its late positions are searched with them).
LATE_SEARCH_OPTIONS: tuple[str, ...] = ("depth", "samples", "beam", "chance_samples",
                                        "chance_top", "inner_moves", "root_filter",
                                        "more_worlds")


def check_applicable(algorithm: str, values: Mapping[str, Any]) -> None:
    """InvalidOptionError naming the first option of ``values`` that ``algorithm`` would
    not read (it would be ignored silently).  Every door checks so, the engine specs
    and :meth:`Engine.from_options` alike; a value left at its default (or ``None``)
    passes, since ignoring it changes nothing.

    >>> check_applicable("ismcts", {"depth": 3, "late_search": "expectimax"})
    >>> try:
    ...     check_applicable("ismcts", {"depth": 3})
    ... except InvalidOptionError as e:
    ...     print(e.field)
    depth
    """
    late = reads(algorithm, "late_search") and values.get("late_search") == "expectimax"
    for k, v in values.items():
        o = option(k)
        if v is None or v == o.default or reads(algorithm, k) or (late and k in
                                                                  LATE_SEARCH_OPTIONS):
            continue
        also = " (and of ismcts with late_search=expectimax)" if k in LATE_SEARCH_OPTIONS else ""
        raise InvalidOptionError(k, f"not an option of {algorithm}: only of "
                                    f"{', '.join(o.algorithms)}{also}")


def reads(algorithm: str, name: str) -> bool:
    """Whether ``algorithm`` reads option ``name`` at all."""
    used_by = option(name).algorithms
    return not used_by or ("ismcts" if algorithm == "cheat" else algorithm) in used_by


def check_clock(time_left: Any, increment: Any,
                time: Any = None) -> tuple[Optional[float], float]:
    """``(time_left, increment)`` checked against the options table; a clock and a
    fixed ``time`` together, or an increment without a clock, are an
    :class:`InvalidOptionError` naming the field."""
    time_left = check("time_left", time_left)
    increment = check("increment", increment)
    if time_left is None:
        if increment:
            raise InvalidOptionError("increment", "an increment needs a clock: give "
                                                  "time_left too")
        return None, 0.0
    if time is not None:
        raise InvalidOptionError("time_left", "a clock (time_left) and a fixed time per "
                                              "move (time) together: give one of them")
    return time_left, float(increment or 0.0)
