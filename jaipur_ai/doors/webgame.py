"""The games of ``jaipur-ai web``: a human against the engine, kept in memory by id.

A :class:`WebGame` is what ``jaipur-ai play`` plays (the same seeds: the same seed,
level and moves give the same game), without the terminal: the server applies the
human's move with the rules core, the engine replies at once, and :meth:`WebGame.table`
is what the page draws, from the human's side only.  The engine searches its own
view, never the human's hand; the human sees the engine's hand only once a round is
over.  Every position played is recorded (:mod:`jaipur_ai.matches.record`).

>>> from jaipur_ai.matches.spec import EngineSpec
>>> g = WebGame(EngineSpec.parse("greedy"), EngineSpec.parse("greedy"), seed=3, you=0)
>>> t = g.table()                  # the engine started, and has moved
>>> t["you"], t["turn"], t["last_engine_move"], t["legal_moves"][:3]
(0, 'you', 'take D', ['take S', 'take C', 'camels'])
>>> t = g.play("take silver")
>>> [(h["by"], h["move"]) for h in t["history"]]
[('engine', 'take D'), ('you', 'take S'), ('engine', 'camels')]
"""
from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from typing import Any, Optional, Union

from jaipur_ai.errors import JaipurError
from jaipur_ai.doors.play import (camel_points, end_reason, engine_move, hint_analysis,
                                  hint_reason, new_seed, play_shown, round_seed, seat_of)
from jaipur_ai.matches.spec import EngineSpec, RoundClock
from jaipur_ai.rules.move import Move
from jaipur_ai.matches.record import GameRecord, RoundRecorder
from jaipur_ai.doors.requests import RequestError
from jaipur_ai.rules.position import GameState

__all__ = ["WebGame", "GameStore", "MAX_GAMES", "GameNotFound"]

#: Games a server keeps; past that the least recently used one is forgotten.
MAX_GAMES = 256


class GameNotFound(RequestError):
    """No game with that id (never made, or forgotten): answered with 404."""

    def __init__(self, gid: str) -> None:
        shown = gid if len(gid) <= 40 else gid[:37] + "..."
        super().__init__("id", f"no game {shown!r} (start a new game)", "NotFoundError")


def _who(game: "WebGame", player: Union[int, str, None]) -> Optional[str]:
    if player is None:
        return None
    if player == "draw":
        return "draw"
    return "you" if player == game.you else "engine"


class WebGame:
    """One game (a match to two seals) of a human against the engine ``spec``;
    ``hint_spec`` answers hints.  ``seed`` (``None``: fresh entropy) fixes the deals
    and every search; ``you`` is the human's player number, 0, 1 or ``"random"``
    (drawn from the seed, as in ``jaipur-ai play``)."""

    def __init__(self, spec: EngineSpec, hint_spec: EngineSpec, seed: Optional[int] = None,
                 you: Union[int, str] = "random") -> None:
        self._setup(spec, hint_spec, seed, you)
        self.state = GameState.new(self.seed)
        self.recorder.see(self.state, seed=self.seed)
        self.last_table = self.table()        # what a reader sees while the engine thinks
        self.engine_replies()

    def _setup(self, spec: EngineSpec, hint_spec: EngineSpec, seed: Optional[int],
               you: Union[int, str]) -> None:
        self.id = secrets.token_hex(6)
        self.spec = spec
        self.hint_spec = hint_spec
        self.seed = seed if seed is not None else new_seed()
        self.you = seat_of(self.seed) if you == "random" else int(you)
        self.bot = 1 - self.you
        self.lock = threading.Lock()
        self.engine = spec.make_engine()
        self.clock = RoundClock(spec)         # the engine's, when its spec has a clock
        self._hinter: Any = None
        seats = ["human", "engine"] if self.you == 0 else ["engine", "human"]
        self.recorder = RoundRecorder({"human": "human", "engine": str(spec)}, seats,
                                      {"seed": self.seed}, source="web")
        self.ply = 0                          # moves played in this round
        self.history: list[dict[str, Any]] = []   # this round's moves
        self.round_moves: list[tuple[GameState, Move]] = []   # the same, for hints

    @classmethod
    def from_record(cls, record: GameRecord, spec: EngineSpec, hint_spec: EngineSpec, *,
                    game: int = 0, round_index: Optional[int] = None, ply: Optional[int] = None,
                    you: Optional[int] = None) -> "WebGame":
        """A game opened from a record, to be reviewed or played on: game ``game`` of
        the record, round ``round_index`` (from 0; default the last), before its move
        ``ply`` (from 0; default after its last move).  Everything before is replayed,
        and recorded again, so a review covers it.  ``you``: the human's player number
        (default: the seat of a player named "human", else 0).  A record's seed, when it
        has one, deals the later rounds and seeds the engine."""
        games = record.games
        rounds = record.rounds_of(game)
        n_rounds = len(rounds)
        ri = n_rounds - 1 if round_index is None else round_index
        if isinstance(ri, bool) or not isinstance(ri, int) or not 0 <= ri < n_rounds:
            raise RequestError("round", f"expected a round of that game, 1 to {n_rounds}, "
                                        f"got {ri + 1 if isinstance(ri, int) else ri!r}")
        played = rounds[ri][1]
        k = len(played) if ply is None else ply
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= len(played):
            raise RequestError("ply", f"expected a move number of that round, 0 to "
                                      f"{len(played)}, got {ply!r}")
        seats = games[game].get("seats", [])
        if you is None:
            human = [i for i, name in enumerate(seats)
                     if record.players.get(name) == "human" or name == "human"]
            you = human[0] if human else 0
        if you not in (0, 1):
            raise RequestError("you", f"expected 0 or 1, got {you!r}")
        settings_seed = record.settings.get("seed")
        g = cls.__new__(cls)
        g._setup(spec, hint_spec, settings_seed if isinstance(settings_seed, int)
                 and 0 <= settings_seed < 2**64 else None, you)
        # the rounds before, whole; then this round up to the ply
        for r in range(ri + 1):
            dealt, moves = rounds[r]
            deal = games[game]["rounds"][r]["deal"]
            g.state = dealt
            g.recorder.see(dealt, seed=deal.get("seed") if isinstance(deal.get("seed"), int)
                           else None)
            for j, (state, move) in enumerate(moves if r < ri else moves[:k]):
                g.state = state.apply(move)
                g.recorder.see(g.state)
                if r == ri:
                    g.ply = j + 1
                    g.round_moves.append((state, move))
                    g.history.append({"ply": j + 1, "by": _who(g, state.to_move),
                                      "move": str(move),
                                      "position": state.view(g.you).to_text()})
        g.last_table = g.table()
        g.engine_replies()
        return g

    # ------------------------------------------------------------ playing
    def _apply(self, move: Move, by: int, seconds: Optional[float] = None) -> None:
        before = self.state
        self.state = play_shown(self.engine, self.state, move, self.bot)
        self.round_moves.append((before, move))
        self.recorder.see(self.state)
        self.ply += 1
        entry: dict[str, Any] = {"ply": self.ply, "by": _who(self, by), "move": str(move),
                                 "position": before.view(self.you).to_text()}
        if seconds is not None:
            entry["seconds"] = round(seconds, 3)
        self.history.append(entry)
        self.last_table = self.table()

    def engine_replies(self) -> None:
        """The engine moves while it is its turn and the round runs; it searches its own
        view only."""
        while not self.state.is_round_over and self.state.to_move == self.bot:
            t0 = time.perf_counter()
            move = engine_move(self.engine, self.spec, self.state, self.bot, self.seed,
                               self.ply, self.clock)
            self._apply(move, self.bot, time.perf_counter() - t0)

    def play(self, text: Any) -> dict[str, Any]:
        """Apply the human's move (any text ``Move.parse`` reads, e.g. ``"take D"``),
        then the engine's reply; returns :meth:`table`.  ``InvalidMoveError`` /
        ``IllegalMoveError`` (field ``move``) for a bad one, RequestError when it is
        not the human's turn."""
        if not isinstance(text, str):
            raise RequestError("move", f"expected a move text like 'take D', got "
                                       f"{type(text).__name__}")
        if self.state.is_round_over:
            raise RequestError("move", "the round is over: start the next round",
                               "ConflictError")
        if self.state.to_move != self.you:   # (the engine replies at once: only by a race)
            raise RequestError("move", "it is the engine's turn", "ConflictError")
        move = Move.parse(text, hand=self.state.mover_hand())
        self._apply(move, self.you)           # (IllegalMoveError: nothing is changed)
        self.engine_replies()
        return self.last_table

    def next_round(self) -> dict[str, Any]:
        """Deal the next round (after a round that did not end the match)."""
        if not self.state.is_round_over:
            raise RequestError("round", "the round is still being played", "ConflictError")
        if self.state.is_match_over:
            raise RequestError("round", "the match is over: start a new game", "ConflictError")
        seed = round_seed(self.seed, self.state.round)
        self.state = self.state.next_round(seed=seed)
        self.clock.new_round()
        self.recorder.see(self.state, seed=seed)
        self.ply = 0
        self.history = []
        self.round_moves = []
        self.last_table = self.table()
        self.engine_replies()
        return self.last_table

    def hint(self, top: int = 3) -> dict[str, Any]:
        """The hint engine's analysis of the human's view (``Analysis.to_dict()``) and
        ``why``: what its best move gains over the runner-up, in one line."""
        if self.state.is_round_over or self.state.to_move != self.you:
            raise RequestError("hint", "there is no move of yours to hint at now",
                               "ConflictError")
        if self._hinter is None:
            self._hinter = self.hint_spec.make_engine()
        report = hint_analysis(self._hinter, self.hint_spec, self.state, self.you, self.seed,
                               self.ply, top, self.round_moves)
        return {"engine": str(self.hint_spec), **report.to_dict(), "why": hint_reason(report)}

    def line(self, round_number: Any, ply: Any, moves: Any) -> dict[str, Any]:
        """A line of moves played out from before move ``ply`` (from 1) of round
        ``round_number`` (from 1) of this game, on the cards as they really were (the
        draws the pile really held): the view of that move's mover after each move, as
        JSON forms, up to the first move that is not legal there (``stopped``: its index,
        and why).  For a review's best line, once that round is over: the real draws of
        a round still being played are not shown (a later round is dealt afresh, so an
        earlier round's are)."""
        rounds = self.record().rounds_of(0)
        if isinstance(round_number, bool) or not isinstance(round_number, int) \
                or not 1 <= round_number <= len(rounds):
            raise RequestError("round", f"expected a round of the game, 1 to {len(rounds)}, "
                                        f"got {round_number!r}")
        if round_number == len(rounds) and not self.state.is_round_over:
            raise RequestError("round", "the round is still being played: lines are shown "
                                        "once it is over", "ConflictError")
        played = rounds[round_number - 1][1]
        if isinstance(ply, bool) or not isinstance(ply, int) or not 1 <= ply <= len(played):
            raise RequestError("ply", f"expected a move of that round, 1 to {len(played)}, "
                                      f"got {ply!r}")
        if not isinstance(moves, list) or len(moves) > 64 \
                or not all(isinstance(m, str) for m in moves):
            raise RequestError("moves", "expected a list of at most 64 move texts")
        state = played[ply - 1][0]
        mover = state.to_move
        views, stopped = [], None
        for k, text in enumerate(moves):
            try:
                move = Move.parse(text, hand=state.mover_hand())
                state = state.apply(move)
            except JaipurError as e:
                stopped = {"index": k, "reason": f"{text}: {e.reason}"}
                break
            views.append(state.view(mover).to_dict())
            if state.is_round_over:
                break
        return {"views": views, "stopped": stopped}

    def record(self) -> GameRecord:
        """The :class:`GameRecord` of everything played so far."""
        return self.recorder.record()

    def finished_record(self) -> GameRecord:
        """A copy of the record for a review, which comes once a round is over (the
        review shows every ply from its mover's view, the engine's too)."""
        if not self.state.is_round_over:
            raise RequestError("review", "the round is still being played: the review "
                                         "comes once it is over", "ConflictError")
        return GameRecord.from_dict(self.record().to_dict(), verify=False)

    def _engine_cards(self) -> Optional[dict[str, Any]]:
        """Where the cards of the engine's last move went, as the human sees them, when it
        is the last move played: the cards that came into the market (what it gave and
        the refill), the cards of its hand the human saw it take, the camels that joined
        its herd and the cards it sold (the page marks them)."""
        if not self.round_moves or self.history[-1]["by"] != "engine":
            return None
        state, move = self.round_moves[-1]
        before = state.view(self.you).to_dict()
        after = self.state.view(self.you).to_dict()
        b, a = before["players"][self.bot], after["players"][self.bot]
        # the market less the cards the move took from it: what is left of it is what
        # stayed; everything else in it now came in
        words = str(move).split()
        taken = {"take": words[-1], "camels": "M" * before["market"].count("M"),
                 "swap": words[1] if move.kind == "swap" else "", "sell": ""}[move.kind]
        stayed = before["market"]
        for c in taken:
            stayed = stayed.replace(c, "", 1)
        return {"market": _added(stayed, after["market"]),
                "hand": _added(b["known"], a["known"]),
                "herd": max(0, a["herd"] - b["herd"]),
                "discard": _added(before["discard"], after["discard"])}

    # ------------------------------------------------------------ what the page draws
    def table(self) -> dict[str, Any]:
        """The game from the human's side: their view (the JSON form of
        docs/notation.md) and its one-line text, whose turn it is, the legal moves, this
        round's moves, scores, seals, and once the round is over how it ended."""
        s = self.state
        view = s.view(self.you)
        over = s.is_round_over
        turn = None if over else ("you" if s.to_move == self.you else "engine")
        me, them = s.players[self.you], s.players[self.bot]
        vd = view.to_dict()
        their_bonus = sum(vd["players"][self.bot]["bonus"].values())
        out: dict[str, Any] = {
            "id": self.id, "you": self.you, "engine": str(self.spec),
            "hint_engine": str(self.hint_spec), "seed": self.seed, "round": s.round,
            "turn": turn, "view": vd, "position": view.to_text(),
            "legal_moves": [str(m) for m in view.legal_moves()] if turn == "you" else [],
            "history": list(self.history),
            "last_engine_move": next((h["move"] for h in reversed(self.history)
                                      if h["by"] == "engine"), None),
            "score": {"you": me.goods_points + me.bonus_points, "you_goods": me.goods_points,
                      "you_bonus": me.bonus_points, "engine_goods": them.goods_points,
                      "engine_bonus_tokens": their_bonus},
            "seals": {"you": s.seals[self.you], "engine": s.seals[self.bot]},
            "round_over": over, "round_end": None,
            "match_over": s.is_match_over, "match_winner": _who(self, s.match_winner),
        }
        out["last_engine_cards"] = self._engine_cards()
        if over:
            totals = s.round_totals()
            out["round_end"] = {
                "reason": end_reason(s), "winner": _who(self, s.result),
                "engine_hand": them.hand,
                "totals": {"you": totals[self.you], "engine": totals[self.bot]},
                "goods": {"you": me.goods_points, "engine": them.goods_points},
                "bonus": {"you": me.bonus_points, "engine": them.bonus_points},
                "camel_token": {w: camel_points(s, p)
                                for w, p in (("you", self.you), ("engine", self.bot))},
            }
        return out


def _added(before: str, after: str) -> str:
    """The cards of ``after`` beyond those of ``before`` (both as letters), in order."""
    left = list(before)
    out = []
    for c in after:
        if c in left:
            left.remove(c)
        else:
            out.append(c)
    return "".join(out)


class GameStore:
    """Games by id, the ``MAX_GAMES`` most recently used (thread-safe)."""

    def __init__(self, limit: int = MAX_GAMES) -> None:
        self.limit = limit
        self._games: OrderedDict[str, WebGame] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, game: WebGame) -> WebGame:
        with self._lock:
            self._games[game.id] = game
            while len(self._games) > self.limit:
                self._games.popitem(last=False)
        return game

    def get(self, gid: str) -> WebGame:
        with self._lock:
            game = self._games.get(gid)
            if game is None:
                raise GameNotFound(gid)
            self._games.move_to_end(gid)
            return game

    def __len__(self) -> int:
        with self._lock:
            return len(self._games)
