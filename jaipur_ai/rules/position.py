"""Positions: a full game state, and a player's view of it (their information set).

A :class:`GameState` holds what the table holds, hidden cards included: an immutable
value over the compiled core's C struct. ``apply`` returns a new state; the old one is
left as it was.

>>> import jaipur_ai as jp
>>> state = jp.GameState.new(seed=7, starter=0)
>>> state.market
'GSMMM'
>>> state = state.apply("camels")
>>> state.players[0].herd
3
>>> jp.GameState.from_text(state.to_text()) == state
True

A :class:`View` holds exactly what one player (the *observer*) knows: the market,
their own hand and bonus values, both herds, the discard pile, the token stacks,
who took which goods token, how many bonus tokens each player holds and how many
are left, the deck size, the opponent's hand size and the cards the opponent is
known to hold (taken from the market and not given back or sold since).

Build one from a game with :meth:`GameState.view`, or write one by hand from a
real table with :meth:`View.from_dict` / :meth:`View.from_text`.

>>> import jaipur_ai as jp
>>> state = jp.GameState.new(seed=7, starter=0).apply("take G")
>>> view = state.view(1)
>>> view.opponent_known
'G'
>>> world = view.sample(seed=3)          # a full state consistent with the view
>>> world.view(1) == view
True

The two refer to each other (a state shows each player a view, a view deals
states consistent with itself), so they live in one module.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Optional, Union

from jaipur_ai.errors import IllegalMoveError, InvalidPositionError, safe_repr
from jaipur_ai.rules import _fields as F
from jaipur_ai.rules._board import draw_state, draw_view
from jaipur_ai.rules._bridge import CoreState, CoreView, default_starter
from jaipur_ai.rules._cards import (BONUS_KINDS, BONUS_SET_IDS, CAMEL, CARD_TOTALS, GOODS,
                                    HAND_LIMIT, LETTERS, MAX_ROUND, SEALS_TO_WIN, TYPES,
                                    empty_stacks)
from jaipur_ai.rules._notation import (STATE_FORMAT, VIEW_FORMAT, read_state_dict,
                                       read_view_dict, state_dict_of_text, state_text,
                                       view_dict_of_text, view_text)
from jaipur_ai.rules._position import TextValue
from jaipur_ai.rules.move import Move

__all__ = ["GameState", "PlayerState", "View", "read_position", "mover_view", "STATE_FORMAT",
           "VIEW_FORMAT"]

MoveLike = Union[Move, str, int]
_MAX_REJECTIONS = 1000   # draws of the hidden bonus values for a finished round's view


@dataclass(frozen=True)
class PlayerState:
    """One player's side of the table, as read from a full state."""

    hand: str                            #: goods in hand, canonical letters
    herd: int                            #: camels
    known: str                           #: cards of the hand the opponent saw taken
    tokens: dict[str, tuple[int, ...]]   #: goods-token values taken, by good letter
    bonus: dict[str, tuple[int, ...]]    #: bonus-token values taken, by kind "3"/"4"/"5"

    @property
    def goods_points(self) -> int:
        return sum(sum(v) for v in self.tokens.values())

    @property
    def bonus_points(self) -> int:
        return sum(sum(v) for v in self.bonus.values())


def _entropy_seed() -> int:
    return int.from_bytes(os.urandom(8), "little")


class GameState(TextValue[CoreState]):
    """A full position of a round of Jaipur, within a match to two seals.

    Build one with :meth:`new` (a dealt first round), :meth:`from_dict`,
    :meth:`from_json` or :meth:`from_text`.  Player numbers are 0 and 1.
    """

    _CORE = CoreState
    _BUILD = "GameState.new(seed), "

    __slots__ = ()

    # ------------------------------------------------------------------ set-up
    @classmethod
    def new(cls, seed: Optional[int] = None, starter: Optional[int] = None,
            bonus_set: str = "standard") -> "GameState":
        """Deal the first round of a match.

        ``seed`` fixes the deal (``None``: from OS entropy); ``starter`` is the
        player who moves first (``None``: drawn from the seed).

        >>> GameState.new(seed=1, starter=1).to_move
        1
        """
        if seed is None:
            seed = _entropy_seed()
        seed = F.as_int(seed, "seed", 0, 2**64 - 1)
        if starter is None:
            starter = default_starter(seed)
        starter = F.as_int(starter, "starter", 0, 1)
        F.bonus_set_name(bonus_set)
        return cls(CoreState.new(seed, starter, BONUS_SET_IDS[bonus_set]))

    def next_round(self, seed: Optional[int] = None) -> "GameState":
        """Deal the next round of the match (seals are kept).

        The loser of the finished round starts; after a drawn round, the player
        who did not start it."""
        if not self.is_round_over:
            raise InvalidPositionError("result", "the round is still running")
        if self.is_match_over:
            raise InvalidPositionError("seals", "the match is over")
        if self.round >= MAX_ROUND:
            raise InvalidPositionError("round", f"round {self.round} is the last a position "
                                                f"can number (1..{MAX_ROUND})")
        core = self._core.copy()
        core.next_round(_entropy_seed() if seed is None else F.as_int(seed, "seed", 0, 2**64 - 1))
        return GameState(core)

    # ------------------------------------------------------------- properties

    @property
    def starter(self) -> int:
        return int(self._raw["starter"])

    @property
    def is_match_over(self) -> bool:
        return bool(max(self._raw["seals"]) >= SEALS_TO_WIN)

    @property
    def match_winner(self) -> Optional[int]:
        seals = self._raw["seals"]
        for p in range(2):
            if seals[p] >= SEALS_TO_WIN:
                return p
        return None

    @property
    def deck(self) -> str:
        """The draw pile, top card first."""
        return "".join(LETTERS[c] for c in reversed(self._raw["deck"]))

    @property
    def bonus(self) -> dict[str, tuple[int, ...]]:
        """What is left of each bonus stack, next token first (hidden in play)."""
        raw = self._raw
        return {BONUS_KINDS[k]: tuple(raw["bonus"][k][raw["bonus_pos"][k]:]) for k in range(3)}

    @property
    def players(self) -> tuple[PlayerState, PlayerState]:
        raw = self._raw
        held = F.owners_to_held(raw["tok_pos"], raw["tok_owner"])
        bonus: list[dict[str, list[int]]] = [{k: [] for k in BONUS_KINDS} for _ in range(2)]
        for k in range(3):
            for i in range(raw["bonus_pos"][k]):
                bonus[(raw["bonus_owner"][k] >> i) & 1][BONUS_KINDS[k]].append(raw["bonus"][k][i])
        return tuple(  # type: ignore[return-value]
            PlayerState(
                hand=F.letters(raw["hand"][p]),
                herd=raw["herd"][p],
                known=F.letters(raw["known"][p]),
                tokens={g: tuple(v) for g, v in held[p].items()},
                bonus={k: tuple(v) for k, v in bonus[p].items()},
            )
            for p in range(2)
        )

    # ------------------------------------------------------------------ rules
    def legal_moves(self) -> list[Move]:
        """Every legal move of the player to move, sorted by action id
        (empty once the round is over)."""
        return Move._of_ids(self._core.legal_actions())

    def legal_action_ids(self) -> list[int]:
        return self._core.legal_actions()

    def is_legal(self, move: MoveLike) -> bool:
        try:
            m = Move.coerce(move, self.mover_hand())
        except ValueError:
            return False
        return self._core.is_legal_action(m.action_id)

    def apply(self, move: MoveLike) -> "GameState":
        """The state after the player to move plays ``move`` (a Move, its text or
        its action id).  Raises :class:`IllegalMoveError` if the rules forbid it;
        ``self`` is never changed."""
        m = Move.coerce(move, self.mover_hand())
        if self.is_round_over:
            raise IllegalMoveError(str(m), "the round is over")
        if not self._core.is_legal_action(m.action_id):
            raise IllegalMoveError(str(m), self._why_illegal(m))
        core = self._core.copy()
        core.apply_action(m.action_id)
        return GameState(core)

    def mover_hand(self) -> tuple[int, ...]:
        """The player to move's 7 counts by type: the goods in hand, then the herd (what
        "all" counts in a move text: ``state.apply("sell all leather")``)."""
        raw = self._raw
        p = raw["to_move"]
        return (*raw["hand"][p], raw["herd"][p])

    def _why_illegal(self, m: Move) -> str:
        raw = self._raw
        p = raw["to_move"]
        hand, market, herd = raw["hand"][p], raw["market"], raw["herd"][p]
        good = 0 if m.good is None else m.good       # (a take or a sale has a good)
        if m.kind == "take":
            if not market[good]:
                return f"there is no {LETTERS[good]} in the market"
            return f"the hand already holds {HAND_LIMIT} goods"
        if m.kind == "camels":
            return "there is no camel in the market"
        if m.kind == "sell":
            return f"the hand holds {hand[good]} {LETTERS[good]}, not {m.count}"
        for g in range(GOODS):
            if m.take[g] > market[g]:
                return f"the market does not hold {F.letters(m.take)}"
            if m.give[g] > hand[g]:
                return f"the hand does not hold {F.letters(m.give[:GOODS])}"
        if m.give[CAMEL] > herd:
            return f"the herd holds {herd} camels, not {m.give[CAMEL]}"
        return f"the hand would hold more than {HAND_LIMIT} goods"

    def round_totals(self) -> tuple[int, int]:
        """Each player's points: goods tokens + bonus tokens + the camel token
        (to the bigger herd) as if the round ended now."""
        return self._core.totals()

    def round_winner(self) -> Union[int, str]:
        """0, 1 or ``"draw"`` by the seal's tie-breaks, as if the round ended now."""
        w = self._core.winner()
        return "draw" if w == 2 else w

    def view(self, player: int) -> View:
        """What ``player`` knows: their information set (docs/rules.md, section 7, "What each player knows", R8)."""
        F.as_int(player, "player", 0, 1)
        return View(self._core.view(player))

    # ----------------------------------------------------------- dict / JSON
    def to_dict(self) -> dict[str, Any]:
        """The JSON form (docs/notation.md) as a dict."""
        raw = self._raw
        players = self.players
        return {
            "format": STATE_FORMAT,
            "bonus_set": self.bonus_set,
            "round": raw["round_no"],
            "starter": raw["starter"],
            "to_move": raw["to_move"],
            "seals": list(raw["seals"]),
            "result": self.result,
            "market": self.market,
            "deck": self.deck,
            "discard": self.discard,
            "tokens": {g: list(v) for g, v in self.tokens.items()},
            "bonus": {k: list(v) for k, v in self.bonus.items()},
            "players": [
                {
                    "hand": pl.hand,
                    "herd": pl.herd,
                    "known": pl.known,
                    "tokens": {g: list(v) for g, v in pl.tokens.items()},
                    "bonus": {k: list(v) for k, v in pl.bonus.items()},
                }
                for pl in players
            ],
        }

    @classmethod
    def from_dict(cls, d: Any) -> "GameState":
        """Read and validate the JSON form.  Raises InvalidPositionError naming
        the field and the reason for anything that cannot occur in a game."""
        raw, result = read_state_dict(d)
        state = cls(CoreState.from_raw(raw))
        _check_round(state, raw, result)
        return state

    # -------------------------------------------------------------- one line
    def to_text(self) -> str:
        """The one-line text form (docs/notation.md, like chess's FEN)."""
        return state_text(self.to_dict())

    @classmethod
    def from_text(cls, text: str) -> "GameState":
        return cls.from_dict(state_dict_of_text(text))

    # -------------------------------------------------------------- python
    def __str__(self) -> str:
        return draw_state(self.to_dict())


def _check_round(state: "GameState", raw: dict[str, Any], result: Any) -> None:
    """Consistency of the round's status and the seals with the table."""
    F.check_round_end(result, raw["market"], len(raw["deck"]), empty_stacks(raw["tok_pos"]))
    if result is not None:
        actual = state.round_winner()
        if actual != result:
            raise F.fail("result", f"says {safe_repr(result)} but the totals "
                                   f"{state.round_totals()} and tie-breaks give {safe_repr(actual)}")
    F.check_seals(raw["seals"], raw["round_no"], result)


class View(TextValue[CoreView]):
    """What one player knows of a position.  Immutable."""

    _CORE = CoreView
    _BUILD = "state.view(player), "
    __slots__ = ()

    # ------------------------------------------------------------ properties

    @property
    def observer(self) -> int:
        """The player whose information set this is (0 or 1)."""
        return self._core.observer

    @property
    def opponent(self) -> int:
        return 1 - self._core.observer

    @property
    def hand(self) -> str:
        """The observer's hand."""
        return F.letters(self._raw["hand"][self.observer])

    @property
    def deck_size(self) -> int:
        return len(self._raw["deck"])

    @property
    def herds(self) -> tuple[int, int]:
        h0, h1 = self._raw["herd"]
        return int(h0), int(h1)

    @property
    def opponent_hand_size(self) -> int:
        return self._core.opp_hand_n

    @property
    def opponent_known(self) -> str:
        """Cards known to be in the opponent's hand."""
        return F.letters(self._raw["known"][self.opponent])

    @property
    def unseen(self) -> str:
        """Cards the observer has not seen: in the deck or the opponent's hand
        outside the known cards."""
        raw = self._raw
        pool = list(CARD_TOTALS)
        for t in range(TYPES):
            pool[t] -= raw["market"][t]
        for g in range(GOODS):
            pool[g] -= raw["hand"][0][g] + raw["hand"][1][g] + raw["discard"][g]
        pool[CAMEL] -= raw["herd"][0] + raw["herd"][1]
        return F.letters(pool)

    # ------------------------------------------------------------------ rules
    def legal_moves(self) -> list[Move]:
        """The observer's legal moves (it must be the observer's turn)."""
        if self.is_round_over:
            return []
        if self.to_move != self.observer:
            raise InvalidPositionError(
                "to_move", "it is the opponent's turn: their moves depend on their hidden hand")
        return Move._of_ids(CoreState.from_raw(self._raw).legal_actions())

    def sample(self, seed: int) -> GameState:
        """A full state drawn uniformly among those consistent with this view:
        the unseen cards are split between the opponent's unknown hand slots and
        the deck (in random order), the unseen bonus values between the
        opponent's bonus tokens and the stacks."""
        seed = F.as_int(seed, "seed", 0, 2**64 - 1)
        if not self.is_round_over:
            return GameState(self._core.sample(seed))
        # A finished round's result is public: keep only the hidden bonus values
        # that agree with it (rejection sampling, deterministic in the seed).
        for attempt in range(_MAX_REJECTIONS):
            world = GameState(self._core.sample((seed + attempt * 0x9E3779B97F4A7C15) % 2**64))
            if world.round_winner() == self.result:
                return world
        raise InvalidPositionError("result", "no values of the hidden bonus tokens agree "
                                             "with the result of the round")

    # ------------------------------------------------------------------ dict
    def to_dict(self) -> dict[str, Any]:
        raw = self._raw
        obs, opp = self.observer, self.opponent
        held = F.owners_to_held(raw["tok_pos"], raw["tok_owner"])
        bonus_vals: list[dict[str, list[int]]] = [{k: [] for k in BONUS_KINDS} for _ in range(2)]
        for k in range(3):
            for i in range(raw["bonus_pos"][k]):
                owner = (raw["bonus_owner"][k] >> i) & 1
                bonus_vals[owner][BONUS_KINDS[k]].append(raw["bonus"][k][i])
        players: list[dict[str, Any]] = [{}, {}]
        players[obs] = {
            "hand": F.letters(raw["hand"][obs]),
            "herd": raw["herd"][obs],
            "known": F.letters(raw["known"][obs]),
            "tokens": held[obs],
            "bonus": bonus_vals[obs],
        }
        players[opp] = {
            "hand_size": self._core.opp_hand_n,
            "herd": raw["herd"][opp],
            "known": F.letters(raw["known"][opp]),
            "tokens": held[opp],
            "bonus": {k: len(v) for k, v in bonus_vals[opp].items()},
        }
        return {
            "format": VIEW_FORMAT,
            "observer": obs,
            "bonus_set": self.bonus_set,
            "round": raw["round_no"],
            "starter": raw["starter"],
            "to_move": raw["to_move"],
            "seals": list(raw["seals"]),
            "result": self.result,
            "market": self.market,
            "deck_size": self.deck_size,
            "discard": self.discard,
            "tokens": {g: list(v) for g, v in self.tokens.items()},
            "bonus_left": {BONUS_KINDS[k]: len(raw["bonus"][k]) - raw["bonus_pos"][k]
                           for k in range(3)},
            "players": players,
        }

    @classmethod
    def from_dict(cls, d: Any) -> View:
        """Read and validate a view written as JSON (docs/notation.md)."""
        raw, obs, opp_n = read_view_dict(d)
        return cls(CoreView.from_raw(raw, obs, opp_n))

    # -------------------------------------------------------------- one line
    def to_text(self) -> str:
        """The one-line text form (docs/notation.md)."""
        return view_text(self.to_dict())

    @classmethod
    def from_text(cls, text: str) -> View:
        return cls.from_dict(view_dict_of_text(text))

    def __str__(self) -> str:
        return draw_view(self.to_dict())


def mover_view(position: Union[GameState, View]) -> View:
    """The view a search of ``position`` reads: a view itself, or a state as its player
    to move sees it."""
    return position if isinstance(position, View) else position.view(position.to_move)


def read_position(text: str) -> Union[GameState, View]:
    """A state or a view from its one-line text form or its JSON form."""
    s = text.strip() if isinstance(text, str) else text
    if not isinstance(s, str):
        raise F.fail("text", f"expected the text of a position, got {type(text).__name__}")
    if s.startswith(("{", "[")) or s in ("null", "true", "false") or s[:1].isdigit() \
            or s.startswith(('"', "-")):
        d = F.load_json(s)
        if not isinstance(d, dict):
            kind = {list: "an array", str: "a string", bool: "true/false", int: "a number",
                    float: "a number", type(None): "null"}.get(type(d), type(d).__name__)
            raise F.fail("json", f"a position's JSON form is an object, got {kind}")
        fmt = d.get("format")
        if fmt == VIEW_FORMAT:
            return View.from_dict(d)
        return GameState.from_dict(d)
    if s.startswith("V"):
        return View.from_text(s)
    if s.startswith("S"):
        return GameState.from_text(s)
    raise F.fail("text", "expected a position: its one-line text ('S ...' for a state, "
                         "'V ...' for a view) or its JSON form ('{...}'), "
                         f"{F.found(s.split()[0] if s.split() else '')}")
