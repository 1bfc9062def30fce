"""Full game states: what the table holds, hidden cards included.

A :class:`GameState` is an immutable value over the compiled core's C struct.
``apply`` returns a new state; the old one is left as it was.

>>> import jaipur_ai as jp
>>> state = jp.GameState.new(seed=7, starter=0)
>>> state.market
'GSMMM'
>>> state = state.apply("camels")
>>> state.players[0].herd
3
>>> jp.GameState.from_text(state.to_text()) == state
True
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Union

from . import _fields as F
from ._board import draw_state
from ._position import RESULT_CORE as _RESULT_CORE
from ._position import (TextValue, parse_held_bonus, parse_held_tokens, parse_stacks,
                        parse_text_head, text_head)
from ._cards import (BONUS_KINDS, BONUS_SET_IDS, CAMEL, GOODS, HAND_LIMIT, LETTERS,
                     MAX_ROUND, SEALS_TO_WIN, TOKENS)
from ._bridge import CoreState
from .errors import IllegalMoveError, InvalidPositionError, safe_repr
from .move import Move

if TYPE_CHECKING:  # pragma: no cover
    from .view import View

__all__ = ["GameState", "PlayerState"]

STATE_FORMAT = "jaipur-state/1"

MoveLike = Union[Move, str, int]


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


class GameState(TextValue):
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
            starter = (seed * 0x9E3779B97F4A7C15 >> 17) & 1
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
        return self._raw["starter"]

    @property
    def is_match_over(self) -> bool:
        return max(self._raw["seals"]) >= SEALS_TO_WIN

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

    def view(self, player: int) -> "View":
        """What ``player`` knows: their information set (docs/rules.md, section 7, "What each player knows", R8)."""
        # The one import of view.py from here, inside the method: view.py imports
        # this module (a View samples GameStates), so the module-level imports run
        # one way, view -> state (tests/test_imports.py).
        from .view import View
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
        F.check_nesting(d)
        fmt = F.get(d, "format", "")
        if fmt != STATE_FORMAT:
            raise F.fail("format", f"expected {safe_repr(STATE_FORMAT)}, got {safe_repr(fmt)}")
        bonus_set = F.bonus_set_name(F.get(d, "bonus_set", ""))
        players_in = F.get(d, "players", "")
        if not isinstance(players_in, list) or len(players_in) != 2:
            raise F.fail("players", "expected a list of two players")
        hands, herds, knowns, held_tok, held_bonus = [], [], [], [], []
        for p, pl in enumerate(players_in):
            f = f"players[{p}]"
            hand = F.cards(F.get(pl, "hand", f), f"{f}.hand", allow_camels=False)
            F.check_hand(hand, f"{f}.hand")
            known = F.cards(F.get(pl, "known", f), f"{f}.known", allow_camels=False)
            F.check_known(known, hand, f"{f}.known")
            hands.append(hand)
            knowns.append(known)
            herds.append(F.as_int(F.get(pl, "herd", f), f"{f}.herd", 0, 11))
            held_tok.append(F.held_tokens(F.get(pl, "tokens", f), f"{f}.tokens"))
            bmap = F.kind_map(F.get(pl, "bonus", f), f"{f}.bonus")
            held_bonus.append([F.int_list(bmap[k], f"{f}.bonus.{BONUS_KINDS[k]}", 10)
                               for k in range(3)])
        market = F.cards(F.get(d, "market", ""), "market")
        deck = F.card_list(F.get(d, "deck", ""), "deck")
        discard = F.cards(F.get(d, "discard", ""), "discard", allow_camels=False)
        total = [market[t] + discard[t] + hands[0][t] + hands[1][t] for t in range(7)]
        for c in deck:
            total[c] += 1
        total[CAMEL] += herds[0] + herds[1]
        F.check_card_totals(total, "cards", exact=True)
        taken = F.remaining_tokens(F.get(d, "tokens", ""), "tokens")
        owners = F.token_owners(taken, held_tok, "players[*].tokens")
        F.check_sold(taken, discard)
        bmap = F.kind_map(F.get(d, "bonus", ""), "bonus")
        bonus_stacks, bonus_pos, bonus_owner = [], [], []
        for k in range(3):
            rest = F.int_list(bmap[k], f"bonus.{BONUS_KINDS[k]}", 10)
            stack = held_bonus[0][k] + held_bonus[1][k] + rest
            F.check_bonus_multiset(bonus_set, k, stack, f"bonus.{BONUS_KINDS[k]}", exact=True)
            bonus_stacks.append(stack)
            n0, n1 = len(held_bonus[0][k]), len(held_bonus[1][k])
            bonus_pos.append(n0 + n1)
            bonus_owner.append(((1 << n1) - 1) << n0)
        result = F.result_value(F.get(d, "result", ""))
        raw = {
            "market": market,
            "hand": [h[:GOODS] for h in hands],
            "herd": herds,
            "known": [k[:GOODS] for k in knowns],
            "discard": discard[:GOODS],
            "deck": list(reversed(deck)),
            "tok_pos": taken,
            "tok_owner": owners,
            "bonus": bonus_stacks,
            "bonus_pos": bonus_pos,
            "bonus_owner": bonus_owner,
            "to_move": F.as_int(F.get(d, "to_move", ""), "to_move", 0, 1),
            "starter": F.as_int(F.get(d, "starter", ""), "starter", 0, 1),
            "round_no": F.as_int(F.get(d, "round", ""), "round", 1, MAX_ROUND),
            "seals": [F.as_int(s, f"seals[{i}]", 0, SEALS_TO_WIN)
                      for i, s in enumerate(_pair(F.get(d, "seals", ""), "seals"))],
            "bonus_set": BONUS_SET_IDS[bonus_set],
            "result": _RESULT_CORE[result],
        }
        state = cls(CoreState.from_raw(raw))
        _check_round(state, raw, result)
        return state



    # -------------------------------------------------------------- one line
    def to_text(self) -> str:
        """The one-line text form (docs/notation.md, like chess's FEN)."""
        d = self.to_dict()
        head = text_head(d)
        stacks = "".join(str(len(d["tokens"][g])) for g in LETTERS[:GOODS])
        bonus = ".".join(F.digits(d["bonus"][k]) for k in BONUS_KINDS)
        players = [
            "/".join([F.dash(pl["hand"]), str(pl["herd"]), F.dash(pl["known"]),
                      ".".join(F.digits(pl["tokens"][g]) for g in LETTERS[:GOODS]),
                      ".".join(F.digits(pl["bonus"][k]) for k in BONUS_KINDS)])
            for pl in d["players"]
        ]
        parts = ["S", head, F.dash(d["market"]), F.dash(d["deck"]), F.dash(d["discard"]),
                 stacks, bonus, *players]
        if d["bonus_set"] != "standard":
            parts.append(d["bonus_set"])
        return " ".join(parts)

    @classmethod
    def from_text(cls, text: str) -> "GameState":
        parts, bonus_set = F.text_fields(text, "S", 9)
        d: dict[str, Any] = {"format": STATE_FORMAT, "bonus_set": bonus_set}
        parse_text_head(parts[1], d)
        d["market"], d["deck"], d["discard"] = parts[2], parts[3], parts[4]
        d["tokens"] = parse_stacks(parts[5])
        groups = F.split(parts[6], ".", 3, "bonus")
        d["bonus"] = {k: F.parse_digits(groups[i], f"bonus.{k}") for i, k in enumerate(BONUS_KINDS)}
        d["players"] = []
        for p in range(2):
            f = f"players[{p}]"
            hand, herd, known, toks, bonus = F.split(parts[7 + p], "/", 5, f)
            d["players"].append({
                "hand": hand, "known": known,
                "herd": F.parse_int(herd, f"{f}.herd", 0, 11),
                "tokens": parse_held_tokens(toks, f"{f}.tokens"),
                "bonus": parse_held_bonus(bonus, f"{f}.bonus"),
            })
        return cls.from_dict(d)

    # -------------------------------------------------------------- python

    def __str__(self) -> str:
        return draw_state(self)



def _pair(x: Any, field: str) -> list:
    if not isinstance(x, (list, tuple)) or len(x) != 2:
        raise F.fail(field, f"expected a pair, got {safe_repr(x)}")
    return list(x)


def _check_round(state: "GameState", raw: dict, result: Any) -> None:
    """Consistency of the round's status and the seals with the table."""
    empty = sum(1 for g in range(GOODS) if raw["tok_pos"][g] == len(TOKENS[g]))
    F.check_round_end(result, raw["market"], len(raw["deck"]), empty)
    if result is not None:
        actual = state.round_winner()
        if actual != result:
            raise F.fail("result", f"says {safe_repr(result)} but the totals "
                                   f"{state.round_totals()} and tie-breaks give {safe_repr(actual)}")
    F.check_seals(raw["seals"], raw["round_no"], result)
