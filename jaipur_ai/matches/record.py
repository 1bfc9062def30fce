"""Game records: one JSON format for whole matches (docs/ecosystem.md, "Game records").

A record holds, for every game, its rounds; for every round the deal (a seed or the
explicit dealt position), who started, every move as a list of canonical move texts,
and the result; and for the record, who played (engine specs) and the settings of the
run.  ``jaipur-ai match --record FILE`` and ``jaipur-ai play --record FILE`` write one;
:meth:`GameRecord.load` reads it back, replaying and checking every move.

>>> from jaipur_ai.matches.record import GameRecord
>>> from jaipur_ai.matches.runner import run_match
>>> rec = GameRecord.from_match(run_match("greedy", "random", games=1, seed=4))
>>> len(rec.games), rec.games[0]["seats"], rec.games[0]["rounds"][0]["moves"][:2]
(2, ['A', 'B'], ['take D', 'swap CL for GM'])
>>> GameRecord.from_json(rec.to_json()).games == rec.games
True
"""
from __future__ import annotations

import copy
import json
from typing import Any, Iterator, Optional

from jaipur_ai.errors import JaipurError
from jaipur_ai.rules.move import Move
from jaipur_ai.matches.spec import derive_seed
from jaipur_ai.rules.position import GameState

__all__ = ["GameRecord", "RecordError", "FORMAT", "RoundRecorder"]

FORMAT = "jaipur-record/1"


class RecordError(JaipurError):
    """A record that cannot be read or does not replay; ``field`` names the place
    (``games[0].rounds[1].moves[12]``) and ``move_number`` the move (1-based) when a
    move is at fault."""

    def __init__(self, field: str, reason: str, move_number: Optional[int] = None) -> None:
        super().__init__(field, reason)
        self.move_number = move_number


def _result_of(state: GameState) -> Any:
    r = state.result
    return "draw" if r == "draw" else r


class GameRecord:
    """A match record: ``games`` (a list of dicts, see docs/ecosystem.md), ``players``
    (name -> engine spec or ``"human"``), ``settings`` and ``source``."""

    def __init__(self, games: list[Any], players: dict[str, Any], settings: Optional[dict[str, Any]] = None,
                 source: str = "api", bonus_set: str = "standard") -> None:
        self.games = games
        self.players = players
        self.settings = dict(settings or {})
        self.source = source
        self.bonus_set = bonus_set

    # ---------------------------------------------------------------- building
    @classmethod
    def from_match(cls, result: Any) -> "GameRecord":
        """The record of a :class:`jaipur_ai.matches.runner.MatchResult` (its games, replayed from
        their deal seeds to recover every position)."""
        games = []
        for rec in result.records:
            seats = ["A", "B"] if rec.a_seat == 0 else ["B", "A"]
            chunks: list[Any] = [[]]
            for m in rec.moves:
                if m == "|":
                    chunks.append([])
                else:
                    chunks[-1].append(m)
            rounds: list[Any] = []
            state = GameState.new(rec.deal_seed, starter=rec.starter)
            for i, moves in enumerate(chunks):
                seed = rec.deal_seed if i == 0 else derive_seed(rec.deal_seed, 2, i)
                if i > 0:
                    state = state.next_round(seed=seed)
                starter = state.starter
                for m in moves:
                    state = state.apply(m)
                rounds.append({"deal": {"seed": seed}, "starter": starter, "moves": moves,
                               "totals": list(state.round_totals()), "result": _result_of(state)})
            games.append({"deal": rec.deal, "seats": seats, "rounds": rounds,
                          "seals": list(state.seals), "winner": _winner(state, seats, result.unit)})
        settings = {"seed": result.seed, "deals": result.deals, "unit": result.unit,
                    "interrupted": result.interrupted}
        return cls(games, {"A": str(result.a), "B": str(result.b)}, settings, source="match")

    # ---------------------------------------------------------------- JSON
    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "source": self.source, "bonus_set": self.bonus_set,
                "players": dict(self.players), "settings": copy.deepcopy(self.settings),
                "games": copy.deepcopy(self.games)}

    def to_json(self, indent: Optional[int] = None) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    def save(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.to_json(indent=1) + "\n")

    @classmethod
    def from_dict(cls, d: Any, verify: bool = True) -> "GameRecord":
        if not isinstance(d, dict):
            raise RecordError("record", "expected a JSON object")
        if d.get("format") != FORMAT:
            raise RecordError("format", f"expected {FORMAT!r}, got {d.get('format')!r}")
        games = d.get("games")
        if not isinstance(games, list):
            raise RecordError("games", "expected a list of games")
        players = d.get("players", {})
        if not isinstance(players, dict):
            raise RecordError("players", "expected an object")
        settings = d.get("settings")
        if settings is not None and not isinstance(settings, dict):
            raise RecordError("settings", "expected an object")
        source = d.get("source", "api")
        if not isinstance(source, str):
            raise RecordError("source", "expected a text")
        bonus_set = d.get("bonus_set", "standard")
        if not isinstance(bonus_set, str):
            raise RecordError("bonus_set", "expected a text")
        rec = cls(games, players, settings or {}, source, bonus_set)
        if verify:
            for _ in rec.replay():
                pass
        return rec

    @classmethod
    def from_json(cls, text: str, verify: bool = True) -> "GameRecord":
        try:
            d = json.loads(text)
        except json.JSONDecodeError as e:
            raise RecordError("record", f"not JSON: {e}") from None
        except RecursionError:
            raise RecordError("record", "nested too deeply to be a record") from None
        return cls.from_dict(d, verify)

    @classmethod
    def load(cls, path: str, verify: bool = True) -> "GameRecord":
        """Read a record file, replaying and checking every move (``RecordError``)."""
        with open(path, encoding="utf-8") as f:
            return cls.from_json(f.read(), verify)

    # ---------------------------------------------------------------- replay
    def replay(self) -> Iterator[tuple[Any, ...]]:
        """(game, round, ply, state before the move, move) for every move, checking
        every deal, move and result on the way; ``RecordError`` on the first fault."""
        for gi, game in enumerate(self.games):
            where = f"games[{gi}]"
            if not isinstance(game, dict) or not isinstance(game.get("rounds"), list) \
                    or not game["rounds"]:
                raise RecordError(where, "expected an object with a non-empty list of rounds")
            state: Optional[GameState] = None
            for ri, rnd in enumerate(game["rounds"]):
                rw = f"{where}.rounds[{ri}]"
                state = self._deal(rnd, state, ri, rw)
                moves = rnd.get("moves")
                if not isinstance(moves, list):
                    raise RecordError(f"{rw}.moves", "expected a list of move texts")
                for k, text in enumerate(moves):
                    mw = f"{rw}.moves[{k}]"
                    if not isinstance(text, str):
                        raise RecordError(mw, f"move {k + 1}: expected a move text, got "
                                              f"{text!r}", k + 1)
                    if state.is_round_over:
                        raise RecordError(mw, f"move {k + 1} {text!r}: the round is already over",
                                          k + 1)
                    try:
                        move = Move.parse(text)
                        after = state.apply(move)
                    except JaipurError as e:
                        reason = e.reason
                        for prefix in (f"{text!r}: ", f"'{text}': "):
                            if reason.startswith(prefix):
                                reason = reason[len(prefix):]
                        raise RecordError(mw, f"move {k + 1} {text!r}: {reason}", k + 1) from None
                    yield gi, ri, k, state, move
                    state = after
                self._check_result(rnd, state, rw)
            if state is None:   # (cannot happen: the list of rounds is not empty)
                raise RecordError(where, "expected an object with a non-empty list of rounds")
            if "seals" in game and (not isinstance(game["seals"], list)
                                    or list(game["seals"]) != list(state.seals)):
                raise RecordError(f"{where}.seals", f"recorded {game['seals']}, the replay gives "
                                                    f"{list(state.seals)}")

    def _deal(self, rnd: Any, prev: Optional[GameState], ri: int, rw: str) -> GameState:
        if not isinstance(rnd, dict) or not isinstance(rnd.get("deal"), dict):
            raise RecordError(f"{rw}.deal", "expected an object with 'seed' or 'state'")
        deal = rnd["deal"]
        try:
            if "state" in deal:
                state = GameState.from_dict(deal["state"])
            elif "seed" in deal:
                if ri == 0:
                    state = GameState.new(deal["seed"], starter=rnd.get("starter"),
                                          bonus_set=self.bonus_set)
                else:
                    if prev is None:
                        raise RecordError(f"{rw}.deal", "a round after the first needs the "
                                                        "previous round")
                    if not prev.is_round_over:
                        raise RecordError(f"{rw}.deal", "the previous round did not end")
                    state = prev.next_round(seed=deal["seed"])
            else:
                raise RecordError(f"{rw}.deal", "expected 'seed' or 'state'")
        except RecordError:
            raise
        except JaipurError as e:
            raise RecordError(f"{rw}.deal", f"{e.field}: {e.reason}") from None
        if "starter" in rnd and rnd["starter"] != state.starter:
            raise RecordError(f"{rw}.starter", f"recorded {rnd['starter']!r}, the deal has "
                                               f"player {state.starter} starting")
        return state

    @staticmethod
    def _check_result(rnd: dict[str, Any], state: GameState, rw: str) -> None:
        if "result" in rnd:
            got = _result_of(state) if state.is_round_over else None
            if rnd["result"] != got:
                raise RecordError(f"{rw}.result", f"recorded {rnd['result']!r}, the replay "
                                                  f"gives {got!r}")
        if "totals" in rnd and rnd["totals"] is not None and (
                not isinstance(rnd["totals"], list)
                or list(rnd["totals"]) != list(state.round_totals())):
            raise RecordError(f"{rw}.totals", f"recorded {rnd['totals']}, the replay gives "
                                              f"{list(state.round_totals())}")

    def final_states(self) -> list[Any]:
        """The last position of every game, after replaying it."""
        last: dict[int, Any] = {}
        for gi, _ri, _k, state, move in self.replay():
            last[gi] = (state, move)
        out = []
        for gi in range(len(self.games)):
            if gi in last:
                out.append(last[gi][0].apply(last[gi][1]))
            else:
                out.append(self._deal(self.games[gi]["rounds"][-1], None, 0, f"games[{gi}]"))
        return out


def _winner(state: GameState, seats: list[Any], unit: str) -> Any:
    if unit == "match":
        w = state.match_winner if state.is_match_over else None
    else:
        r = state.result
        if r == "draw":
            return "draw"
        w = r if isinstance(r, int) else None
    return None if w is None else seats[w]


class RoundRecorder:
    """Builds a record of games as they are played, one position at a time:
    :meth:`see` each new position (a fresh deal, or the position after a move, whose
    move it finds among the legal ones)."""

    def __init__(self, players: dict[str, Any], seats: list[Any], settings: Optional[dict[str, Any]] = None,
                 source: str = "play") -> None:
        self.players, self.seats = players, seats
        self.settings = dict(settings or {})
        self.source = source
        self.rounds: list[Any] = []
        self.state: Optional[GameState] = None

    def see(self, state: GameState, seed: Optional[int] = None) -> None:
        prev = self.state
        self.state = state
        if prev is not None and not prev.is_round_over and state.round == prev.round:
            for m in prev.legal_moves():
                if prev.apply(m) == state:
                    self.rounds[-1]["moves"].append(str(m))
                    self._close()
                    return
            raise RecordError("state", "not reached by one legal move")
        deal = {"seed": seed} if seed is not None else {"state": state.to_dict()}
        self.rounds.append({"deal": deal, "starter": state.starter, "moves": [],
                            "totals": None, "result": None})

    def _close(self) -> None:
        s = self.state
        if s is None:
            raise RecordError("state", "no position seen yet")
        self.rounds[-1]["totals"] = list(s.round_totals()) if s.is_round_over else None
        self.rounds[-1]["result"] = _result_of(s) if s.is_round_over else None

    def record(self) -> GameRecord:
        s = self.state
        w = s.match_winner if s is not None else None     # (None until the match is over)
        game = {"deal": 0, "seats": self.seats, "rounds": self.rounds,
                "seals": list(s.seals) if s is not None else [0, 0],
                "winner": self.seats[w] if w is not None else None}
        return GameRecord([game], self.players, self.settings, self.source)
