"""One game of a match: two engines, each searching its own view, play a deal from
given seats, and the :class:`GameRecord` of what happened (docs/cli.md, "match").

>>> from jaipur_ai.matches.games import play_round
>>> r = play_round("greedy", "random", deal_seed=5, a_seat=0, seed=1)
>>> r.score in (0.0, 0.5, 1.0)
True
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Union

from jaipur_ai.matches.spec import EngineSpec, RoundClock, SpecError, derive_seed
from jaipur_ai.rules.position import GameState

__all__ = ["GameRecord", "play_game", "play_round"]


# ----------------------------------------------------------------------- playing
@dataclass
class GameRecord:
    """One finished game between A and B (a round, or a match to two seals)."""

    deal: int                    #: deal number in the match
    deal_seed: int
    a_seat: int                  #: player number (0/1) engine A played
    starter: int                 #: player who moved first in the (first) round
    winner: str                  #: "A", "B" or "draw"
    points: tuple[Any, ...]                #: (A's points, B's points), summed over rounds
    rounds: int = 1
    seals: tuple[Any, ...] = (0, 0)        #: (A's seals, B's seals)
    plies: int = 0
    moves: list[Any] = field(default_factory=list)   #: move texts, "|" between rounds
    seconds: tuple[Any, ...] = (0.0, 0.0)  #: total thinking seconds (A, B)
    engine_moves: tuple[Any, ...] = (0, 0) #: moves made (A, B)
    overtime: tuple[Any, ...] = (0, 0)     #: moves made past an empty clock (A, B)

    @property
    def score(self) -> float:
        return {"A": 1.0, "B": 0.0, "draw": 0.5}[self.winner]

    @property
    def margin(self) -> int:
        return int(self.points[0] - self.points[1])

    @property
    def a_started(self) -> bool:
        return self.starter == self.a_seat

    def to_dict(self) -> dict[str, Any]:
        return {"deal": self.deal, "deal_seed": self.deal_seed, "a_seat": self.a_seat,
                "starter": self.starter, "a_started": self.a_started, "winner": self.winner,
                "score": self.score, "points": list(self.points), "margin": self.margin,
                "rounds": self.rounds, "seals": list(self.seals), "plies": self.plies,
                "seconds": list(self.seconds), "engine_moves": list(self.engine_moves),
                "overtime": list(self.overtime), "moves": self.rounds_moves()}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "GameRecord":
        """The record of :meth:`to_dict` (a line of a results file) read back."""
        moves: list[str] = []
        for i, rnd in enumerate(d.get("moves") or [[]]):
            if i:
                moves.append("|")
            moves.extend(rnd)
        return cls(deal=int(d["deal"]), deal_seed=int(d["deal_seed"]), a_seat=int(d["a_seat"]),
                   starter=int(d["starter"]), winner=str(d["winner"]),
                   points=tuple(d["points"]), rounds=int(d.get("rounds", 1)),
                   seals=tuple(d.get("seals", (0, 0))), plies=int(d.get("plies", 0)),
                   moves=moves, seconds=tuple(d.get("seconds", (0.0, 0.0))),
                   engine_moves=tuple(d.get("engine_moves", (0, 0))),
                   overtime=tuple(d.get("overtime", (0, 0))))

    def rounds_moves(self) -> list[list[str]]:
        """The moves, one list per round (as JSON records hold them)."""
        out: list[list[str]] = [[]]
        for m in self.moves:
            if m == "|":
                out.append([])
            else:
                out[-1].append(m)
        return out


def _choose(engine: Any, clock: RoundClock, state: GameState, seed: int) -> tuple[Any, float]:
    # the player's view only, unless the spec asks for the cheating mode
    view = state if clock.spec.cheats else state.view(state.to_move)
    return clock.best_move(engine, view, seed)


def _play_one_round(state: GameState, engines: dict[int, Any], clocks: dict[int, RoundClock],
                    seed_of: Callable[[int, int], int], acc: dict[str, Any]) -> GameState:
    """Play ``state`` to the end of its round; ``engines``/``clocks`` (their specs'
    limits and clocks) by player;
    ``seed_of(ply, player)`` seeds each search.  An engine with a ``see_move(view,
    move)`` method (:meth:`jaipur_ai.Engine.see_move`) is shown every move played,
    with its own view of the position the move was played in: what a player at the
    table sees, from which ``Engine(belief=...)`` weighs the opponent's hand."""
    ply = 0
    watchers = [q for q in (0, 1) if hasattr(engines[q], "see_move")]
    for c in clocks.values():
        c.new_round()         # (each round starts with a full clock)
    while not state.is_round_over:
        p = state.to_move
        move, secs = _choose(engines[p], clocks[p], state, seed_of(ply, p))
        for q in watchers:
            engines[q].see_move(state.view(q), move)
        state = state.apply(move)
        acc["moves"].append(str(move))
        acc["seconds"][p] += secs
        acc["count"][p] += 1
        ply += 1
    acc["plies"] += ply
    return state


def play_game(spec_a: Union[str, EngineSpec], spec_b: Union[str, EngineSpec], deal_seed: int,
              a_seat: int, *, unit: str = "round", starter: Optional[int] = None,
              seed: Optional[int] = None, deal: int = 0,
              move_seed: Optional[Callable[[int, int, int], int]] = None) -> GameRecord:
    """Play one game (``unit="round"``: one round; ``"match"``: rounds until a
    player holds two seals) from ``GameState.new(deal_seed, starter)``, engine A
    as player ``a_seat``.  Search seeds derive from ``seed`` (default: the deal
    seed), the seat, the round and the ply; ``move_seed(round, ply, player)``,
    when given, is the seed of each search instead (bench/bench_strength.py keeps
    its own seeding this way)."""
    if unit not in ("round", "match"):
        raise SpecError("unit", f"expected 'round' or 'match', got {unit!r}")
    if a_seat not in (0, 1):
        raise SpecError("a_seat", f"expected 0 or 1, got {a_seat!r}")
    a, b = EngineSpec.parse(spec_a), EngineSpec.parse(spec_b)
    specs = {a_seat: a, 1 - a_seat: b}
    engines = {a_seat: a.make_engine(), 1 - a_seat: b.make_engine()}
    clocks = {p: RoundClock(spec) for p, spec in specs.items()}
    base = deal_seed if seed is None else seed
    state = GameState.new(deal_seed, starter=starter)
    first_starter = state.starter
    acc: dict[str, Any] = {"moves": [], "seconds": [0.0, 0.0], "count": [0, 0], "plies": 0}
    points = [0, 0]
    rounds = 0
    while True:
        rounds += 1
        seed_of: Callable[[int, int], int]
        if move_seed is None:
            path = (base, 1, deal, a_seat, rounds)

            def derived(ply: int, player: int, path: tuple[Any, ...] = path) -> int:
                return derive_seed(*path, ply)
            seed_of = derived
        else:
            def given(ply: int, player: int, rnd: int = rounds,
                      fn: Callable[[int, int, int], int] = move_seed) -> int:
                return fn(rnd, ply, player)
            seed_of = given
        state = _play_one_round(state, engines, clocks, seed_of, acc)
        totals = state.round_totals()
        points[0] += totals[0]
        points[1] += totals[1]
        if unit == "round" or state.is_match_over:
            break
        acc["moves"].append("|")
        state = state.next_round(seed=derive_seed(deal_seed, 2, rounds))
    if unit == "round":
        r = state.result
        winner_player = None if r == "draw" else r
    else:
        winner_player = state.match_winner
    if winner_player is None:
        winner = "draw"
    else:
        winner = "A" if winner_player == a_seat else "B"
    seals = state.seals
    return GameRecord(
        deal=deal, deal_seed=deal_seed, a_seat=a_seat, starter=first_starter, winner=winner,
        points=(points[a_seat], points[1 - a_seat]), rounds=rounds,
        seals=(seals[a_seat], seals[1 - a_seat]), plies=acc["plies"], moves=acc["moves"],
        seconds=(acc["seconds"][a_seat], acc["seconds"][1 - a_seat]),
        engine_moves=(acc["count"][a_seat], acc["count"][1 - a_seat]),
        overtime=(clocks[a_seat].overtime, clocks[1 - a_seat].overtime))


def play_round(spec_a: Union[str, EngineSpec], spec_b: Union[str, EngineSpec], deal_seed: int,
               a_seat: int, *, starter: Optional[int] = None, seed: Optional[int] = None,
               deal: int = 0) -> GameRecord:
    """Play one round from ``GameState.new(deal_seed, starter)``, engine A as
    player ``a_seat``, each engine searching only its own view.

    >>> r = play_round("greedy", "random", deal_seed=5, a_seat=0)
    >>> r.winner in ("A", "B", "draw"), r.rounds
    (True, 1)
    """
    return play_game(spec_a, spec_b, deal_seed, a_seat, unit="round", starter=starter,
                     seed=seed, deal=deal)
