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

__all__ = ["GameRecord", "RecordError", "FORMAT", "RoundRecorder", "LABELS", "HEADER_KEYS"]

FORMAT = "jaipur-record/1"

#: The labels a move's note may carry: a review's judgement of the move played
#: (jaipur_ai.doors.review.THRESHOLDS gives the loss each stands for).
LABELS = ("inaccuracy", "mistake", "blunder")
#: The headers with a meaning (any other text header is kept as it is, like a PGN tag):
#: ``names`` maps a seat label ("A", "B") to a player's name; ``date`` is YYYY-MM-DD.
HEADER_KEYS = ("event", "site", "date", "round", "annotator", "names")
#: The fields of a move's note (``rounds[i].notes[k]``, the k-th move's).
NOTE_KEYS = ("comment", "label", "eval")
#: The fields of a note's engine evaluation.
EVAL_KEYS = ("win_probability", "expected_margin", "best", "engine", "iterations")
MAX_TEXT = 10_000


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
                 source: str = "api", bonus_set: str = "standard",
                 headers: Optional[dict[str, Any]] = None) -> None:
        self.games = games
        self.players = players
        self.settings = dict(settings or {})
        self.source = source
        self.bonus_set = bonus_set
        self.headers = dict(headers or {})

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
        d = {"format": FORMAT, "source": self.source, "bonus_set": self.bonus_set,
             "players": dict(self.players), "settings": copy.deepcopy(self.settings),
             "games": copy.deepcopy(self.games)}
        if self.headers:
            d["headers"] = copy.deepcopy(self.headers)
        return d

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameRecord) and self.to_dict() == other.to_dict()

    # ---------------------------------------------------------------- annotations
    def annotate(self, game: int, round_index: int, ply: int, *, comment: Optional[str] = None,
                 label: Optional[str] = None, eval: Optional[dict[str, Any]] = None) -> None:
        """Set the note of one move (``ply``, 0-based, of round ``round_index`` of
        ``game``): a comment, a review label (:data:`LABELS`) and an engine evaluation
        (``win_probability``, ``expected_margin``, ``best`` move text, ``engine`` spec,
        ``iterations``); fields left None are left out.  Checked like a record read
        from a file (``RecordError``); the record is unchanged when it fails."""
        rnd = self.games[game]["rounds"][round_index]
        moves = rnd["moves"]
        if not 0 <= ply < len(moves):
            raise RecordError(f"games[{game}].rounds[{round_index}].notes[{ply}]",
                              f"the round has {len(moves)} moves")
        note: dict[str, Any] = {}
        if comment is not None:
            note["comment"] = comment
        if label is not None:
            note["label"] = label
        if eval is not None:
            note["eval"] = {k: v for k, v in eval.items() if v is not None}
        where = f"games[{game}].rounds[{round_index}].notes[{ply}]"
        _check_note(note, where)
        notes = list(rnd.get("notes") or [None] * len(moves))
        notes[ply] = note or None
        if note.get("eval", {}).get("best") is not None:
            # the best move must be legal where it is given: replay the round to check
            trial = copy.deepcopy(self)
            trial.games[game]["rounds"][round_index]["notes"] = notes
            for _ in trial.replay():
                pass
        rnd["notes"] = notes if any(n is not None for n in notes) else None
        if rnd["notes"] is None:
            del rnd["notes"]

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
        headers = d.get("headers", {})
        _check_headers(headers)
        rec = cls(games, players, settings or {}, source, bonus_set, headers)
        if verify:
            for _ in rec.replay():
                pass
        return rec

    @classmethod
    def from_json(cls, text: str, verify: bool = True) -> "GameRecord":
        if not isinstance(text, (str, bytes, bytearray)):
            raise RecordError("record", f"expected the record's JSON text, got "
                                        f"{type(text).__name__}")
        try:
            d = json.loads(text)
        except json.JSONDecodeError as e:
            raise RecordError("record", f"not JSON: {e}") from None
        except UnicodeDecodeError as e:          # bytes that are not UTF-8 (nor 16 or 32)
            raise RecordError("record", f"not UTF-8 text: {e.reason} at byte "
                                        f"{e.start}") from None
        except RecursionError:
            raise RecordError("record", "nested too deeply to be a record") from None
        return cls.from_dict(d, verify)

    @classmethod
    def load(cls, path: str, verify: bool = True) -> "GameRecord":
        """Read a record file, replaying and checking every move (``RecordError``, also
        for a file that cannot be read: missing, a folder, not UTF-8)."""
        try:
            with open(path, encoding="utf-8-sig") as f:      # (a leading BOM dropped)
                text = f.read()
        except (OSError, UnicodeDecodeError) as e:
            reason = e.strerror if isinstance(e, OSError) and e.strerror else \
                "not UTF-8 text" if isinstance(e, UnicodeDecodeError) else str(e)
            raise RecordError("record", f"cannot read {path}: {reason}") from None
        return cls.from_json(text, verify)

    # ---------------------------------------------------------------- replay
    def replay(self) -> Iterator[tuple[Any, ...]]:
        """(game, round, ply, state before the move, move) for every move, checking
        every deal, move and result on the way; ``RecordError`` on the first fault."""
        for gi, game in enumerate(self.games):
            where = f"games[{gi}]"
            if not isinstance(game, dict) or not isinstance(game.get("rounds"), list) \
                    or not game["rounds"]:
                raise RecordError(where, "expected an object with a non-empty list of rounds")
            seats = game.get("seats")
            if seats is not None and (not isinstance(seats, list) or len(seats) != 2 or not all(
                    isinstance(x, str) or (isinstance(x, int) and not isinstance(x, bool))
                    for x in seats)):
                raise RecordError(f"{where}.seats", "expected the names of the two players, "
                                                    f"player 0's first, got {seats!r}")
            state: Optional[GameState] = None
            for ri, rnd in enumerate(game["rounds"]):
                rw = f"{where}.rounds[{ri}]"
                state = self._deal(rnd, state, ri, rw)
                moves = rnd.get("moves")
                if not isinstance(moves, list):
                    raise RecordError(f"{rw}.moves", "expected a list of move texts")
                notes = rnd.get("notes")
                if notes is not None and (not isinstance(notes, list)
                                          or len(notes) != len(moves)):
                    raise RecordError(f"{rw}.notes", "expected a list with one note (or null) "
                                                     "per move")
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
                    if notes is not None and notes[k] is not None:
                        _check_note(notes[k], f"{rw}.notes[{k}]", state)
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

    def rounds_of(self, game: int) -> list[tuple[GameState, list[tuple[GameState, Move]]]]:
        """Game ``game``'s rounds replayed (and the whole record checked, as by
        :meth:`replay`): for each round, the position dealt and the (position, move) of
        every move."""
        if not self.games:
            raise RecordError("games", "the record holds no game")
        if isinstance(game, bool) or not isinstance(game, int) \
                or not 0 <= game < len(self.games):
            raise RecordError("game", f"expected a game of the record, 0 to "
                                      f"{len(self.games) - 1}, got {game!r}")
        played: dict[int, list[tuple[GameState, Move]]] = {}
        for gi, ri, _k, state, move in self.replay():
            if gi == game:
                played.setdefault(ri, []).append((state, move))
        out: list[tuple[GameState, list[tuple[GameState, Move]]]] = []
        prev: Optional[GameState] = None
        for ri, rnd in enumerate(self.games[game]["rounds"]):
            moves = played.get(ri, [])
            dealt = moves[0][0] if moves else self._deal(rnd, prev, ri,
                                                         f"games[{game}].rounds[{ri}]")
            out.append((dealt, moves))
            prev = moves[-1][0].apply(moves[-1][1]) if moves else dealt
        return out

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


def _text(v: Any, where: str) -> str:
    if not isinstance(v, str) or len(v) > MAX_TEXT:
        raise RecordError(where, f"expected a text of at most {MAX_TEXT} characters")
    return v


def _check_headers(headers: Any) -> None:
    if not isinstance(headers, dict):
        raise RecordError("headers", "expected an object")
    for k, v in headers.items():
        where = f"headers.{k}"
        if k == "names":
            if not isinstance(v, dict):
                raise RecordError(where, "expected an object: seat label -> name")
            for label, name in v.items():
                _text(name, f"{where}.{label}")
        else:
            _text(v, where)
    date = headers.get("date")
    if date is not None:
        import datetime
        try:
            datetime.date.fromisoformat(date)
        except ValueError:
            raise RecordError("headers.date", f"expected YYYY-MM-DD, got {date!r}") from None


def _check_note(note: Any, where: str, state: Optional[GameState] = None) -> None:
    """A move's note: an object of NOTE_KEYS; its eval's ``best`` a move text, legal in
    ``state`` when it is given."""
    if not isinstance(note, dict):
        raise RecordError(where, "expected an object (comment, label, eval) or null")
    unknown = sorted(set(note) - set(NOTE_KEYS))
    if unknown:
        raise RecordError(f"{where}.{unknown[0]}", f"not a note field (known: "
                                                    f"{', '.join(NOTE_KEYS)})")
    if "comment" in note:
        _text(note["comment"], f"{where}.comment")
    if "label" in note and note["label"] not in LABELS:
        raise RecordError(f"{where}.label", f"expected one of {', '.join(LABELS)}, got "
                                            f"{note['label']!r}")
    if "eval" not in note:
        return
    ev = note["eval"]
    if not isinstance(ev, dict):
        raise RecordError(f"{where}.eval", "expected an object")
    unknown = sorted(set(ev) - set(EVAL_KEYS))
    if unknown:
        raise RecordError(f"{where}.eval.{unknown[0]}", f"not an eval field (known: "
                                                         f"{', '.join(EVAL_KEYS)})")
    wp = ev.get("win_probability")
    if wp is not None and (isinstance(wp, bool) or not isinstance(wp, (int, float))
                           or not 0.0 <= wp <= 1.0):
        raise RecordError(f"{where}.eval.win_probability", "expected a number in [0, 1]")
    em = ev.get("expected_margin")
    if em is not None and (isinstance(em, bool) or not isinstance(em, (int, float))
                           or not abs(em) < 1e6):
        raise RecordError(f"{where}.eval.expected_margin", "expected a finite number")
    it = ev.get("iterations")
    if it is not None and (isinstance(it, bool) or not isinstance(it, int) or it < 0):
        raise RecordError(f"{where}.eval.iterations", "expected a whole number >= 0")
    if "engine" in ev:
        _text(ev["engine"], f"{where}.eval.engine")
    if "best" in ev:
        text = _text(ev["best"], f"{where}.eval.best")
        try:
            best = Move.parse(text)
        except JaipurError as e:
            raise RecordError(f"{where}.eval.best", e.reason) from None
        if state is not None and best not in state.legal_moves():
            raise RecordError(f"{where}.eval.best", f"{text!r} is not a legal move there")


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
