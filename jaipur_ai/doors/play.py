"""``jaipur-ai play``: a match against the engine in the terminal.

:class:`Game` reads one line at a time (a move in the notation, or a command:
``moves``, ``hint``, ``board``, ``help``, ``quit``), so a game can be scripted;
docs/cli.md shows one.  The engine searches its own view only, never your hand.
"""
from __future__ import annotations

import os
import re
import sys
import time
from typing import TYPE_CHECKING, Any, Optional, Union, cast

from jaipur_ai.rules._cards import LETTERS, NAMES
from jaipur_ai.search._table import format_analysis
from jaipur_ai.errors import IllegalMoveError, InvalidMoveError
from jaipur_ai.matches.record import GameRecord, RecordError, RoundRecorder
from jaipur_ai.matches.spec import EngineSpec, RoundClock, derive_seed
from jaipur_ai.rules.move import Move
from jaipur_ai.rules.position import GameState

__all__ = ["Game", "PLAY_HELP", "seat_of", "engine_seed", "hint_seed", "round_seed",
           "end_reason", "new_seed", "engine_move", "play_shown", "hint_analysis", "hint_reason",
           "camel_points", "recording_game"]


class _Quit(Exception):
    pass


class _EndOfInput(Exception):
    pass


PLAY_HELP = """\
Type a move in the notation (forgiving: case and spaces do not matter, names work):
  take D | take diamond      take one good from the market
  camels                     take all the camels from the market
  sell 3L | sell 3 leather   sell cards of one good
  sell all L                 sell every leather card you hold
  swap DG for LM | DG>LM     exchange: take 2+ goods, give as many cards (camels allowed)
  N                          the move numbered N in the last 'moves' list
Commands:
  moves   list your legal moves (numbered)
  hint    ask the engine for its top moves
  board   draw the table again
  help    this text
  quit    leave the game (end of input does the same)"""


# The seeds of a game against the engine, all derived from the game's seed: the same
# seed, level and moves give the same game in the terminal and in the browser.
def seat_of(seed: int) -> int:
    """The human's player number when it is drawn from the game's seed."""
    return derive_seed(seed, 7) & 1


def engine_seed(seed: int, ply: int) -> int:
    """The seed of the engine's search at ``ply`` (moves played in this round)."""
    return derive_seed(seed, 3, ply)


def hint_seed(seed: int, ply: int) -> int:
    """The seed of a hint's search at ``ply``."""
    return derive_seed(seed, 5, ply)


def round_seed(seed: int, rnd: int) -> int:
    """The deal seed of the round after round ``rnd``.

    >>> round_seed(1, 1) != round_seed(1, 2)
    True
    """
    return derive_seed(seed, 2, rnd)


def new_seed() -> int:
    """A game seed from OS entropy (32 bits: short enough to type back)."""
    return int.from_bytes(os.urandom(4), "little")


def engine_move(engine: Any, spec: EngineSpec, state: GameState, player: int, seed: int,
                ply: int, clock: Optional[RoundClock] = None) -> Move:
    """The engine's move for ``player`` at ``ply``: a search of that player's view only,
    with the spec's limits and :func:`engine_seed`, or on ``clock`` (the engine's
    :class:`RoundClock`, the time the move takes taken off it)."""
    if clock is None:
        clock = RoundClock(spec)
    move: Move = clock.best_move(engine, state.view(player), engine_seed(seed, ply))[0]
    return move


def play_shown(engine: Any, state: GameState, move: Move, bot: int) -> GameState:
    """``state`` after ``move`` (IllegalMoveError: nothing changes), the move shown to
    the engine playing ``bot`` with its view of the position it was played in."""
    after = state.apply(move)
    engine.see_move(state.view(bot), move)
    return after


def hint_reason(report: Any) -> Optional[str]:
    """One line on what the hint's best move gains over the runner-up, from the search's
    own figures (:func:`jaipur_ai.search.why.reason`); None with fewer than two moves."""
    from jaipur_ai.search.why import reason
    c = report.candidates
    if len(c) < 2 or c[0].win_probability is None or c[1].win_probability is None:
        return None
    return reason(c[0].move, c[0].win_probability, c[0].expected_margin, c[0].pv,
                  c[1].move, c[1].win_probability, c[1].expected_margin)


def hint_analysis(hinter: Any, spec: EngineSpec, state: GameState, player: int, seed: int,
                  ply: int, top: int = 3, history: Optional[list[Any]] = None) -> Any:
    """The hint for ``player`` at ``ply``: an analysis of that player's view with the hint
    spec's limits and :func:`hint_seed`, its belief reading ``history`` (the round's
    (state, move) pairs so far: the player saw every move)."""
    lim = spec.fixed_limits("the hint engine")
    return hinter.analyse(state.view(player), time=lim["time"], iterations=lim["iterations"],
                          top=top, seed=hint_seed(seed, ply), history=history)


def camel_points(state: GameState, player: int) -> int:
    """The camel token's points in ``player``'s round total (5 or 0)."""
    pl = state.players[player]
    return state.round_totals()[player] - pl.goods_points - pl.bonus_points


def end_reason(state: GameState) -> str:
    """Why the round ended: three goods token stacks empty, or the deck ran out."""
    d = state.to_dict()
    empty = [NAMES[g] for g in range(6) if not d["tokens"][LETTERS[g]]]
    if len(empty) >= 3:
        return f"three goods token stacks are empty ({', '.join(empty)})"
    return "the deck ran out (the market could not be refilled)"


def _cards_spaced(cards: str) -> str:
    return " ".join(cards) if cards else "-"


def _plural(n: int, word: str) -> str:
    """``1 card``, ``2 cards``, ``0 cards``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def _budget(spec: EngineSpec, clock: Optional[RoundClock] = None) -> str:
    """The search budget per move of ``spec``, in words: ``up to 1 s``,
    ``5,000 iterations``, ``5,000 iterations or 1 s``, ``12.5 s left on its clock``;
    "" for an engine that does not search (it answers at once)."""
    if clock is not None and clock.left is not None:
        return f"{clock.left:.1f} s left on its clock"
    lim = spec.limits()
    parts = []
    if lim["iterations"] is not None:
        parts.append(f"{lim['iterations']:,} iterations")
    if lim["time"] is not None:
        parts.append(f"{lim['time']:g} s")
    if not parts:
        return ""
    return ("up to " if len(parts) == 1 and lim["time"] is not None else "") + " or ".join(parts)


def _enable_line_editing() -> bool:
    """Import :mod:`readline` where there is one, so that ``input()`` gets line editing
    and history (the arrow keys); only for a terminal: scripted input is read as is."""
    try:
        import readline  # noqa: F401  (importing it is what enables it)
    except ImportError:  # Windows without pyreadline, a Python built without it
        return False
    return True


class Game:
    """Human versus engine in the terminal, one line of input at a time.

    ``spec`` is the engine's, ``hint_spec`` the one that answers ``hint``;
    ``seed`` (``None``: from OS entropy) fixes the deals and the searches; ``you``
    is your player number, 0, 1 or ``"random"`` (drawn from the seed)."""

    def __init__(self, spec: EngineSpec, hint_spec: EngineSpec, seed: Optional[int] = None,
                 you: Union[int, str] = "random") -> None:
        hint_spec.fixed_limits("the hint engine")      # (a clock is an error now, not later)
        self.spec = spec
        self.hint_spec = hint_spec
        self.seed = seed if seed is not None else new_seed()
        self.you = seat_of(self.seed) if you == "random" else int(you)
        self.bot = 1 - self.you
        self.state = GameState.new(self.seed)
        self.engine = self.spec.make_engine()
        self.clock = RoundClock(spec)         # the engine's, when its spec has a clock
        self._hinter: Any = None
        self.echo = not sys.stdin.isatty()
        if not self.echo:
            _enable_line_editing()
        self.last: list[str] = []           # what happened since your last move
        self.listed: list[Move] = []
        self.ply = 0
        self.round_moves: list[tuple[GameState, Move]] = []   # this round's, for hints

    # -- i/o --
    def say(self, text: str = "") -> None:
        print(text, flush=True)

    def read(self, prompt: str) -> str:
        if not self.echo:
            try:
                return input(prompt)
            except EOFError:
                raise _EndOfInput from None
        sys.stdout.write(prompt)
        sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:
            self.say()
            raise _EndOfInput
        line = line.rstrip("\r\n")
        self.say(line)
        return line

    # -- drawing --
    def table(self) -> str:
        v = self.state.view(self.you)
        d = v.to_dict()
        me, them = d["players"][self.you], d["players"][self.bot]
        my_pts = sum(sum(x) for x in me["tokens"].values())
        my_bonus = sum(sum(x) for x in me["bonus"].values())
        my_nb = sum(len(x) for x in me["bonus"].values())
        th_pts = sum(sum(x) for x in them["tokens"].values())
        th_nb = sum(them["bonus"].values())
        seals = d["seals"]
        turn = "your move" if d["to_move"] == self.you else "engine to move"
        lines = [
            f"==== Round {d['round']}  |  seals: you {seals[self.you]}, engine {seals[self.bot]}"
            f"  |  {turn} ====",
            f"  market     {_cards_spaced(d['market']):<12}  deck {_plural(d['deck_size'], 'card')}",
            f"  discard    {_cards_spaced(d['discard']) if d['discard'] else 'empty'}"
            + (f"   ({_plural(len(d['discard']), 'card')})" if d["discard"] else ""),
            f"  your hand  {_cards_spaced(me['hand']):<14}({len(me['hand'])}/7)"
            f"   herd {_plural(me['herd'], 'camel')}",
            f"  engine     {_plural(them['hand_size'], 'card')}, known: "
            f"{_cards_spaced(them['known']):<10}herd {_plural(them['herd'], 'camel')}",
            f"  the engine knows you hold: {_cards_spaced(me['known'])}",
            f"  score      you {my_pts + my_bonus} (goods {my_pts}, {my_nb} bonus worth {my_bonus})"
            f"   engine {th_pts} + {th_nb} hidden bonus token{'s' if th_nb != 1 else ''}",
            "  camel token (5 points) to the bigger herd at the end of the round",
            "  goods tokens left (next first)          bonus tokens left",
        ]
        bonus = [f"{k} cards: {_plural(d['bonus_left'][k[0]], 'token')}"
                 for k in ("3", "4", "5+")] + ["", "", ""]
        for g in range(6):
            stack = " ".join(map(str, d["tokens"][LETTERS[g]])) or "(empty)"
            lines.append(f"    {LETTERS[g]} {NAMES[g]:<8} {stack:<25}   {bonus[g]}".rstrip())
        if self.last:
            lines.append("  since your last move: " + "; ".join(self.last))
        return "\n".join(lines)

    # -- commands --
    def show_moves(self) -> None:
        self.listed = self.state.legal_moves()
        items = [f"{i:>3}. {m}" for i, m in enumerate(self.listed, 1)]
        width = max(len(x) for x in items) + 2
        per = max(1, 78 // width)
        self.say(f"{len(items)} legal moves:")
        for k in range(0, len(items), per):
            self.say("".join(x.ljust(width) for x in items[k:k + per]).rstrip())

    def hint(self) -> None:
        if self._hinter is None:
            self._hinter = self.hint_spec.make_engine()
        budget = _budget(self.hint_spec)
        self.say(f"thinking ({self.hint_spec}{': ' + budget if budget else ''}) ...")
        report = hint_analysis(self._hinter, self.hint_spec, self.state, self.you, self.seed,
                               self.ply, history=self.round_moves)
        for line in format_analysis(report, 3).splitlines():
            self.say(("  " + line).rstrip())
        why = hint_reason(report)
        if why:
            self.say(f"  why: {why}")

    def human_turn(self) -> None:
        self.say()
        self.say(self.table())
        while True:
            text = self.read("your move> ").strip()
            low = text.lower()
            if not text:
                continue
            if low in ("quit", "exit", "q", "resign"):
                raise _Quit
            if low in ("help", "?", "h"):
                self.say(PLAY_HELP)
                continue
            if low in ("moves", "legal", "m", "list"):
                self.show_moves()
                continue
            if low in ("hint", "suggest"):
                self.hint()
                continue
            if low in ("board", "table", "show"):
                self.say(self.table())
                continue
            if low.isdigit():
                k = int(low)
                legal = self.state.legal_moves()
                if self.listed != legal:
                    self.say("type 'moves' first to number the legal moves")
                    continue
                if not 1 <= k <= len(legal):
                    self.say(f"no move numbered {k}: choose 1 to {len(legal)}")
                    continue
                move = legal[k - 1]
            else:
                try:
                    move = Move.parse(text, hand=self.state.mover_hand())
                except InvalidMoveError as e:
                    if e.by_rule:                 # read as a move no rule allows
                        self.say(f"illegal move: {text}: {_after_quote(e.reason)} (type "
                                 f"'moves' for the legal ones)")
                    else:
                        self.say(f"cannot read {text!r} as a move: {_after_quote(e.reason)} "
                                 f"(type 'help' or 'moves')")
                    continue
            try:
                self._play(move)
            except IllegalMoveError as e:
                self.say(f"illegal move: {move}: {_after_quote(e.reason)} (type 'moves' for "
                         f"the legal ones)")
                continue
            self.ply += 1
            self.listed = []
            self.last = []
            self.say(f"you play: {move}")
            return

    def _play(self, move: Move) -> None:
        before = self.state
        self.state = play_shown(self.engine, self.state, move, self.bot)
        self.round_moves.append((before, move))

    def engine_turn(self) -> None:
        budget = _budget(self.spec, self.clock)
        live = budget and sys.stdout.isatty()
        if budget:  # on a terminal, a notice that the move replaces; else its own line
            notice = f"the engine is thinking ({budget}) ..."
            if live:
                sys.stdout.write(notice)
                sys.stdout.flush()
            else:
                self.say(notice)
        t0 = time.perf_counter()
        try:
            move = engine_move(self.engine, self.spec, self.state, self.bot, self.seed,
                               self.ply, self.clock)
        finally:
            if live:
                sys.stdout.write("\r\x1b[K")   # erase the notice
                sys.stdout.flush()
        secs = time.perf_counter() - t0
        self._play(move)
        self.ply += 1
        self.last.append(f"engine played {move}")
        self.say(f"engine plays: {move}   ({secs:.2f} s)")

    def round_summary(self) -> None:
        s = self.state
        totals = s.round_totals()
        pl = s.players
        self.say()
        self.say(f"==== Round {s.round} over ====")
        self.say(f"  the round ended: {end_reason(s)}")
        for p, who in ((self.you, "you   "), (self.bot, "engine")):
            camel = camel_points(s, p)
            self.say(f"  {who} goods {pl[p].goods_points:>3} + bonus {pl[p].bonus_points:>3}"
                     f" + camel token {camel} = {totals[p]:>3}   (herd {pl[p].herd})")
        self.say(f"  the engine's hand was: {_cards_spaced(pl[self.bot].hand)}")
        r = s.result
        if r == "draw":
            self.say("  the round is drawn: nobody takes a seal")
        elif r == self.you:
            self.say("  you win the round and take a seal of excellence")
        else:
            self.say("  the engine wins the round and takes a seal of excellence")
        self.say(f"  seals: you {s.seals[self.you]}, engine {s.seals[self.bot]}")

    def run(self) -> int:
        self.say(f"Jaipur: you are player {self.you}, the engine ({self.spec}) is player "
                 f"{self.bot}.  Seed {self.seed}.  A match is won with 2 seals.")
        self.say("Type a move (e.g. 'take D', 'camels', 'sell 3L', 'swap DG for LM'), or "
                 "'moves', 'hint', 'help', 'quit'.")
        self.say(f"Round 1: {'you start' if self.state.to_move == self.you else 'the engine starts'}.")
        try:
            while True:
                if self.state.is_round_over:
                    self.round_summary()
                    if self.state.is_match_over:
                        w = self.state.match_winner
                        assert w is not None          # (the match is over)
                        seals = self.state.seals
                        who = "You win" if w == self.you else "The engine wins"
                        self.say(f"{who} the match, {seals[w]}-{seals[1 - w]}.")
                        return 0
                    self.state = self.state.next_round(
                        seed=round_seed(self.seed, self.state.round))
                    self.clock.new_round()
                    self.ply = 0
                    self.last = []
                    self.round_moves = []
                    starter = "you start" if self.state.to_move == self.you else "the engine starts"
                    self.say(f"Round {self.state.round}: {starter}.")
                    continue
                if self.state.to_move == self.you:
                    self.human_turn()
                else:
                    self.engine_turn()
        except _Quit:
            self.say("You left the game.")
            return 0
        except _EndOfInput:
            self.say("End of input: the game is left unfinished.")
            return 0


def _after_quote(reason: str) -> str:
    """``"'xyz': unknown card"`` -> ``"unknown card"`` (the text is shown already)."""
    m = re.match(r"'.*?': (.*)", reason, re.S)
    return m.group(1) if m else reason


if TYPE_CHECKING:
    class RecordingGameType(Game):
        """(for type checkers) the class :func:`recording_game` makes."""
        def record(self) -> GameRecord: ...


def recording_game() -> type[RecordingGameType]:
    """``jaipur-ai play``'s :class:`jaipur_ai.doors.play.Game`, recording every position it
    reaches; ``game.record()`` is the :class:`GameRecord` of what was played."""

    class RecordingGame(Game):
        _recorder: Optional[RoundRecorder] = None

        @property
        def state(self) -> GameState:
            return self._state

        @state.setter
        def state(self, state: GameState) -> None:
            if self._recorder is None:
                seats = ["human", "engine"] if self.you == 0 else ["engine", "human"]
                self._recorder = RoundRecorder({"human": "human", "engine": str(self.spec)},
                                               seats, {"seed": self.seed}, source="play")
                self._recorder.see(state, seed=self.seed)
            else:
                self._recorder.see(state)
            self._state = state

        def record(self) -> GameRecord:
            if self._recorder is None:
                raise RecordError("record", "no position has been played")
            return self._recorder.record()

    return cast("type[RecordingGameType]", RecordingGame)
