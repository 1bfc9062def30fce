"""A player's view of the game: their information set (docs/rules.md, section 7, "What each player knows", R8).

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
"""
from __future__ import annotations

from typing import Any, Union

from . import _fields as F
from ._board import draw_view
from ._position import RESULT_CORE as _RESULT_CORE
from ._position import (TextValue, parse_held_bonus, parse_held_tokens, parse_stacks,
                        parse_text_head, text_head)
from ._cards import (BONUS_KINDS, BONUS_SET_IDS, BONUS_SETS, CAMEL, CARD_TOTALS, GOODS,
                     HAND_LIMIT, LETTERS, MAX_ROUND, SEALS_TO_WIN, TOKENS, TYPES)
from ._bridge import CoreState, CoreView
from .errors import InvalidPositionError, safe_repr
from .move import Move
from .state import GameState

__all__ = ["View", "read_position", "mover_view"]

VIEW_FORMAT = "jaipur-view/1"
_MAX_REJECTIONS = 1000


class View(TextValue):
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
        return tuple(self._raw["herd"])  # type: ignore[return-value]

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
    def from_dict(cls, d: Any) -> "View":
        """Read and validate a view written as JSON (docs/notation.md)."""
        F.check_nesting(d)
        fmt = F.get(d, "format", "")
        if fmt != VIEW_FORMAT:
            raise F.fail("format", f"expected {safe_repr(VIEW_FORMAT)}, got {safe_repr(fmt)}")
        obs = F.as_int(F.get(d, "observer", ""), "observer", 0, 1)
        opp = 1 - obs
        bonus_set = F.bonus_set_name(F.get(d, "bonus_set", ""))
        players_in = F.get(d, "players", "")
        if not isinstance(players_in, list) or len(players_in) != 2:
            raise F.fail("players", "expected a list of two players")
        fo, fp = f"players[{obs}]", f"players[{opp}]"
        me, them = players_in[obs], players_in[opp]
        hand = F.cards(F.get(me, "hand", fo), f"{fo}.hand", allow_camels=False)
        F.check_hand(hand, f"{fo}.hand")
        my_known = F.cards(F.get(me, "known", fo), f"{fo}.known", allow_camels=False)
        F.check_known(my_known, hand, f"{fo}.known")
        opp_n = F.as_int(F.get(them, "hand_size", fp), f"{fp}.hand_size", 0, HAND_LIMIT)
        opp_known = F.cards(F.get(them, "known", fp), f"{fp}.known", allow_camels=False)
        if sum(opp_known) > opp_n:
            raise F.fail(f"{fp}.known", f"{sum(opp_known)} known cards in a hand of {opp_n}")
        herds = [0, 0]
        herds[obs] = F.as_int(F.get(me, "herd", fo), f"{fo}.herd", 0, 11)
        herds[opp] = F.as_int(F.get(them, "herd", fp), f"{fp}.herd", 0, 11)
        held_tok = [F.held_tokens(F.get(players_in[p], "tokens", f"players[{p}]"),
                                  f"players[{p}].tokens") for p in range(2)]
        my_bonus_map = F.kind_map(F.get(me, "bonus", fo), f"{fo}.bonus")
        my_bonus = [F.int_list(my_bonus_map[k], f"{fo}.bonus.{BONUS_KINDS[k]}", 10)
                    for k in range(3)]
        their_map = F.kind_map(F.get(them, "bonus", fp), f"{fp}.bonus")
        their_bonus = [F.as_int(their_map[k], f"{fp}.bonus.{BONUS_KINDS[k]}", 0, 7)
                       for k in range(3)]
        left_map = F.kind_map(F.get(d, "bonus_left", ""), "bonus_left")
        left = [F.as_int(left_map[k], f"bonus_left.{BONUS_KINDS[k]}", 0, 7) for k in range(3)]

        market = F.cards(F.get(d, "market", ""), "market")
        discard = F.cards(F.get(d, "discard", ""), "discard", allow_camels=False)
        deck_size = F.as_int(F.get(d, "deck_size", ""), "deck_size", 0, 55)
        seen = [market[t] + discard[t] + hand[t] + opp_known[t] for t in range(TYPES)]
        seen[CAMEL] += herds[0] + herds[1]
        F.check_card_totals(seen, "cards", exact=False)
        unseen = [CARD_TOTALS[t] - seen[t] for t in range(TYPES)]
        unknown_slots = opp_n - sum(opp_known)
        if sum(unseen[:GOODS]) < unknown_slots:
            raise F.fail(f"{fp}.hand_size",
                         f"{unknown_slots} unknown cards in the opponent's hand but only "
                         f"{sum(unseen[:GOODS])} goods are unseen")
        if sum(unseen) != unknown_slots + deck_size:
            raise F.fail("deck_size",
                         f"{sum(unseen)} cards are unseen ({F.letters(unseen) or 'none'}): the deck "
                         f"and the opponent's {unknown_slots} unknown hand cards must hold "
                         f"exactly them, so the deck holds {sum(unseen) - unknown_slots}, "
                         f"not {deck_size}")
        taken = F.remaining_tokens(F.get(d, "tokens", ""), "tokens")
        owners = F.token_owners(taken, held_tok, "players[*].tokens")
        F.check_sold(taken, discard)
        stacks, pos, owner_bits = [], [], []
        for k in range(3):
            name = BONUS_KINDS[k]
            F.check_bonus_multiset(bonus_set, k, my_bonus[k], f"{fo}.bonus.{name}", exact=False)
            size = len(BONUS_SETS[bonus_set][k])
            if len(my_bonus[k]) + their_bonus[k] + left[k] != size:
                raise F.fail(f"bonus_left.{name}",
                             f"{len(my_bonus[k])} + {their_bonus[k]} held and {left[k]} left "
                             f"make {len(my_bonus[k]) + their_bonus[k] + left[k]}, the "
                             f"{name}-card set has {size}")
            n = [0, 0]
            n[obs], n[opp] = len(my_bonus[k]), their_bonus[k]
            # Player 0's tokens first, then player 1's, then the stack (values
            # the observer cannot see are 0).
            vals = {obs: my_bonus[k], opp: [0] * their_bonus[k]}
            stacks.append(vals[0] + vals[1] + [0] * left[k])
            pos.append(n[0] + n[1])
            owner_bits.append(((1 << n[1]) - 1) << n[0])
        result = F.result_value(F.get(d, "result", ""))
        seals = d.get("seals")
        if not isinstance(seals, list) or len(seals) != 2:
            raise F.fail("seals", f"expected a pair, got {safe_repr(seals)}")
        hands = [[0] * GOODS, [0] * GOODS]
        hands[obs], hands[opp] = hand[:GOODS], opp_known[:GOODS]
        knowns = [[0] * GOODS, [0] * GOODS]
        knowns[obs], knowns[opp] = my_known[:GOODS], opp_known[:GOODS]
        raw: dict[str, Any] = {
            "market": market, "hand": hands, "herd": herds, "known": knowns,
            "discard": discard[:GOODS], "deck": [0] * deck_size,
            "tok_pos": taken, "tok_owner": owners,
            "bonus": stacks, "bonus_pos": pos, "bonus_owner": owner_bits,
            "to_move": F.as_int(F.get(d, "to_move", ""), "to_move", 0, 1),
            "starter": F.as_int(F.get(d, "starter", ""), "starter", 0, 1),
            "round_no": F.as_int(F.get(d, "round", ""), "round", 1, MAX_ROUND),
            "seals": [F.as_int(s, f"seals[{i}]", 0, SEALS_TO_WIN) for i, s in enumerate(seals)],
            "bonus_set": BONUS_SET_IDS[bonus_set],
            "result": _RESULT_CORE[result],
        }
        empty = sum(1 for g in range(GOODS) if taken[g] == len(TOKENS[g]))
        F.check_round_end(result, market, deck_size, empty)
        F.check_seals(raw["seals"], raw["round_no"], result)
        return cls(CoreView.from_raw(raw, obs, opp_n))



    # -------------------------------------------------------------- one line
    def to_text(self) -> str:
        """One-line text form: ``V <round.starter.to_move.seals.result> <observer>
        <market> <deck size> <discard> <stacks> <bonus left> <player0> <player1>``."""
        d = self.to_dict()
        obs = d["observer"]
        stacks = "".join(str(len(d["tokens"][g])) for g in LETTERS[:GOODS])
        left = "".join(str(d["bonus_left"][k]) for k in BONUS_KINDS)
        players = []
        for p, pl in enumerate(d["players"]):
            toks = ".".join(F.digits(pl["tokens"][g]) for g in LETTERS[:GOODS])
            if p == obs:
                first = F.dash(pl["hand"])
                bonus = ".".join(F.digits(pl["bonus"][k]) for k in BONUS_KINDS)
            else:
                first = str(pl["hand_size"])
                bonus = ".".join(str(pl["bonus"][k]) for k in BONUS_KINDS)
            players.append("/".join([first, str(pl["herd"]), F.dash(pl["known"]), toks, bonus]))
        parts = ["V", text_head(d), str(obs), F.dash(d["market"]), str(d["deck_size"]),
                 F.dash(d["discard"]), stacks, left, *players]
        if d["bonus_set"] != "standard":
            parts.append(d["bonus_set"])
        return " ".join(parts)

    @classmethod
    def from_text(cls, text: str) -> "View":
        parts, bonus_set = F.text_fields(text, "V", 10)
        d: dict[str, Any] = {"format": VIEW_FORMAT, "bonus_set": bonus_set}
        parse_text_head(parts[1], d)
        obs = d["observer"] = F.parse_int(parts[2], "observer", 0, 1)
        d["market"] = parts[3]
        d["deck_size"] = F.parse_int(parts[4], "deck_size", 0, 55)
        d["discard"] = parts[5]
        d["tokens"] = parse_stacks(parts[6])
        if len(parts[7]) != 3 or not F.is_digits(parts[7]):
            raise F.fail("bonus_left", f"expected three digits, got {safe_repr(parts[7])}")
        d["bonus_left"] = {k: int(parts[7][i]) for i, k in enumerate(BONUS_KINDS)}
        d["players"] = []
        for p in range(2):
            f = f"players[{p}]"
            first, herd, known, toks, bonus = F.split(parts[8 + p], "/", 5, f)
            pl: dict[str, Any] = {"herd": F.parse_int(herd, f"{f}.herd", 0, 11), "known": known,
                                  "tokens": parse_held_tokens(toks, f"{f}.tokens")}
            if p == obs:
                pl["hand"] = first
                pl["bonus"] = parse_held_bonus(bonus, f"{f}.bonus")
            else:
                pl["hand_size"] = F.parse_int(first, f"{f}.hand_size", 0, HAND_LIMIT)
                groups = F.split(bonus, ".", 3, f"{f}.bonus")
                pl["bonus"] = {k: F.parse_int(groups[i], f"{f}.bonus.{k}", 0, 7)
                               for i, k in enumerate(BONUS_KINDS)}
            d["players"].append(pl)
        return cls.from_dict(d)

    # ---------------------------------------------------------------- python

    def __str__(self) -> str:
        return draw_view(self)




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

