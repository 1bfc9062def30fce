"""Jaipur for OpenSpiel (``pip install "jaipur-ai[openspiel]"``; docs/ecosystem.md).

Importing this module registers the game with pyspiel as ``"python_jaipur"``: one
round of Jaipur, the deal and every card drawn as chance nodes with their
probabilities, the value of every bonus token taken too, information-state and
observation strings, observation tensors (jaipur_ai's 64-float tensor), and the seal of
the round as the players' returns (+1 / -1, 0 for a draw).  :class:`JaipurBot` is an
OpenSpiel ``Bot`` that plays with a jaipur_ai engine.

>>> import pyspiel
>>> import jaipur_ai.openspiel
>>> game = pyspiel.load_game("python_jaipur")
>>> state = game.new_initial_state()
>>> state.is_chance_node(), state.chance_outcomes()[0]         # 6 diamonds of 52 cards
(True, (0, 0.11538461538461539))
>>> game.num_distinct_actions(), game.observation_tensor_shape()
(25499, [64])

Player actions are the dense action ids of docs/notation.md.  Chance outcomes 0 to 6
are the card types D G S C P L M drawn; 7 to 16 the bonus values 1 to 10.  The game has
one parameter, ``max_plies`` (default 400): a round still running after that many moves
ends there and is scored as it stands, so that the game is finite.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from jaipur_ai.envs import _spiel

from jaipur_ai.rules import encoding
from jaipur_ai.envs._adapter import need
from jaipur_ai.rules._cards import LETTERS
from jaipur_ai.rules._bridge import CoreState
from jaipur_ai.rules._observation import legal_dense_ids as _legal_dense_ids
from jaipur_ai.search.engine import Engine
from jaipur_ai.matches.spec import EngineSpec
from jaipur_ai.rules.move import Move
from jaipur_ai.rules.position import GameState

if TYPE_CHECKING:   # (pyspiel has no type information: pyproject.toml's mypy overrides)
    import pyspiel
else:
    pyspiel = need("pyspiel", "openspiel")

__all__ = ["JaipurGame", "JaipurState", "JaipurBot", "GAME_NAME", "information_state_size"]

GAME_NAME = "python_jaipur"
_N_CARD_OUTCOMES = 7
_BONUS0 = 7                   # chance outcome of bonus value v: _BONUS0 + v - 1
_MAX_BONUS_VALUE = 10
_DEAL = [0] * 5 + [1] * 5 + [2] * 2   # the deal: 5 cards each, then 2 to the market
_DEFAULT_MAX_PLIES = 400

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Jaipur (jaipur_ai, one round)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"max_plies": _DEFAULT_MAX_PLIES},
)


def _game_info(max_plies: int) -> Any:
    return pyspiel.GameInfo(
        num_distinct_actions=encoding.N_DENSE_ACTIONS,
        max_chance_outcomes=_BONUS0 + _MAX_BONUS_VALUE,
        num_players=2,
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=0.0,
        # moves, plus chance: the deal (12), every card drawn (at most 40), bonuses (18)
        max_game_length=max_plies + 12 + 40 + 18)


class JaipurGame(pyspiel.Game):
    """One round of Jaipur; see the module docstring."""

    def __init__(self, params: Optional[dict[str, Any]] = None) -> None:
        params = dict(params or {})
        self.max_plies = int(params.get("max_plies", _DEFAULT_MAX_PLIES))
        if self.max_plies < 1:
            raise ValueError("max_plies must be at least 1")
        super().__init__(_GAME_TYPE, _game_info(self.max_plies), params)

    def new_initial_state(self) -> "JaipurState":
        return JaipurState(self)

    def make_py_observer(self, iig_obs_type: Any = None,
                         params: Optional[dict[str, Any]] = None) -> "JaipurObserver":
        return JaipurObserver(iig_obs_type, params, self.max_plies)


class JaipurState(pyspiel.State):
    """A position of the round: a jaipur_ai CoreState whose deck and bonus stacks are
    unordered until chance picks the next card or value, plus what each player saw."""

    _core: CoreState
    _dealt: int
    _pending: int
    _draws: list[int]
    _bonus_kind: int
    _plies: int
    _events: list[str]
    _deal_goods: list[list[int]]
    _history: list[dict[str, Any]]
    _opening: list[int]

    def __init__(self, game: JaipurGame, _copy: Optional["JaipurState"] = None) -> None:
        super().__init__(game)
        self._max_plies = game.max_plies
        if _copy is not None:
            self._core = _copy._core.copy()
            self._dealt = _copy._dealt
            self._pending = _copy._pending
            self._draws = list(_copy._draws)
            self._bonus_kind = _copy._bonus_kind
            self._plies = _copy._plies
            self._events = list(_copy._events)
            self._deal_goods = [list(_copy._deal_goods[0]), list(_copy._deal_goods[1])]
            self._history = [dict(h, drawn=list(h["drawn"])) for h in _copy._history]
            self._opening = list(_copy._opening)
            return
        self._core = CoreState.new(0, 0)      # dealt, then put back: the deal is chance's
        _spiel.undeal(self._core)
        self._dealt = 0               # cards of the deal handed out so far (12 in all)
        self._pending = -1            # the move waiting for its chance outcomes
        self._draws = []              # cards already drawn for it
        self._bonus_kind = -1         # the bonus stack it takes from, -1 none or done
        self._plies = 0
        # What the players saw, in order: public tokens, the same for both, except that a
        # bonus token taken is "B<taker><kind><index>", its value shown to its taker only;
        # and the goods each player was dealt (private to that player).
        self._events = []
        self._deal_goods = [[0] * 6, [0] * 6]
        # The same, structured for the information-state tensor: the opening (the market's
        # 5 cards by type, the camels dealt to each player, who starts), then a record per
        # move (its player, its dense id, the cards drawn after it, the bonus it took).
        self._opening = [0] * (_N_CARD_OUTCOMES + 2) + [-1]
        self._history = []

    # -------------------------------------------------------------- the game
    def _need(self) -> int:
        """Chance outcomes the pending move still needs: cards first, then a bonus."""
        n, _ = _spiel.chance_needs(self._core, self._pending)
        return n - len(self._draws) + (1 if self._bonus_kind >= 0 else 0)

    def current_player(self) -> int:
        if self._is_over():
            return int(pyspiel.PlayerId.TERMINAL)
        if self._dealt < len(_DEAL) or self._pending >= 0:
            return int(pyspiel.PlayerId.CHANCE)
        return _spiel.to_move(self._core)

    def _to_move(self) -> int:
        return _spiel.to_move(self._core)

    def _is_over(self) -> bool:
        return self._dealt == len(_DEAL) and self._pending < 0 and _spiel.round_over(self._core)

    def _legal_actions(self, player: int) -> list[Any]:
        return _legal_dense_ids(self._core)

    def chance_outcomes(self) -> list[Any]:
        if self._dealt < len(_DEAL):
            counts = _spiel.deck_counts(self._core)
        elif len(self._draws) < _spiel.chance_needs(self._core, self._pending)[0]:
            counts = _spiel.deck_counts(self._core, len(self._draws))
        else:
            values = _spiel.bonus_left(self._core, self._bonus_kind)
            return [(_BONUS0 + v - 1, values.count(v) / len(values)) for v in sorted(set(values))]
        total = sum(counts)
        return [(c, n / total) for c, n in enumerate(counts) if n]

    def _apply_action(self, action: int) -> None:
        if self._dealt < len(_DEAL):
            where = _DEAL[self._dealt]
            _spiel.deal_card(self._core, action, where)
            self._dealt += 1
            letter = LETTERS[action]
            if where == 2:
                self._events.append(f"m{letter}")
                self._opening[action] += 1
            else:                                 # a dealt camel goes to the herd, face up
                self._events.append(f"{where}{'M' if letter == 'M' else '?'}")
                if letter != "M":
                    self._deal_goods[where][action] += 1
                else:
                    self._opening[_N_CARD_OUTCOMES + where] += 1
            if self._dealt == len(_DEAL):
                self._events.append(f"s{self._to_move()}")
                self._opening[-1] = self._to_move()
            return
        if self._pending < 0:                     # a player's move
            n, k = _spiel.chance_needs(self._core, action)
            self._events.append(str(Move.from_dense_index(action)))
            self._history.append({"player": self._to_move(), "action": action,
                                  "drawn": [0] * _N_CARD_OUTCOMES, "bonus": None})
            if n or k >= 0:
                self._pending, self._draws, self._bonus_kind = action, [], k
                return
            self._play(action)
            return
        n, _ = _spiel.chance_needs(self._core, self._pending)
        if len(self._draws) < n:                  # a card drawn to the market: public
            _spiel.fix_next(self._core, action, len(self._draws))
            self._draws.append(action)
            self._events.append(f"m{LETTERS[action]}")
            self._history[-1]["drawn"][action] += 1
        else:                                     # a bonus value: only its taker sees it
            v = action - _BONUS0 + 1
            _spiel.fix_bonus(self._core, self._bonus_kind, v)
            k = self._bonus_kind
            self._events.append(f"B{self._to_move()}{k}{_spiel.bonus_pos(self._core, k)}")
            self._history[-1]["bonus"] = (self._to_move(), k, _spiel.bonus_pos(self._core, k))
            self._bonus_kind = -1
        if self._need() == 0:
            pending, self._pending, self._draws = self._pending, -1, []
            self._play(pending)

    def _play(self, dense: int) -> None:
        _spiel.apply_dense(self._core, dense)
        self._plies += 1
        if self._plies >= self._max_plies and not _spiel.round_over(self._core):
            _spiel.end_round_now(self._core)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if action < _N_CARD_OUTCOMES:
                return f"draw {LETTERS[action]}"
            return f"bonus {action - _BONUS0 + 1}"
        return str(Move.from_dense_index(action))

    def is_terminal(self) -> bool:
        return self._is_over()

    def returns(self) -> list[Any]:
        if not self._is_over():
            return [0.0, 0.0]
        w = _spiel.winner(self._core)
        return [0.0, 0.0] if w == 2 else ([1.0, -1.0] if w == 0 else [-1.0, 1.0])

    # -------------------------------------------------------------- information
    def information_state_string(self, player: Optional[int] = None) -> str:
        if player is None:
            player = self.current_player()
        own = str(player)
        parts = [f"p{player}", "".join(LETTERS[g] * n for g, n in enumerate(self._deal_goods[player]))
                 or "-"]
        for e in self._events:
            if e[0] == "B":
                parts.append(f"b{_spiel.bonus_at(self._core, int(e[2]), int(e[3]))}"
                             if e[1] == own else "b?")
            else:
                parts.append(e)
        return " ".join(parts)

    def observation_string(self, player: Optional[int] = None) -> str:
        if player is None:
            player = self.current_player()
        return GameState(self._core).view(player).to_text()

    def observation_tensor(self, player: Optional[int] = None) -> list[Any]:
        if player is None:
            player = self.current_player()
        out: list[Any] = encoding.observation(GameState(self._core), player).tolist()
        return out

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> "JaipurState":
        """A state with the same information state for ``player_id``, the hidden cards and
        bonus values drawn uniformly among those consistent with it (``View.sample``)."""
        seed = int(probability_sampler() * 2**53) if callable(probability_sampler) else 0
        world = GameState(self._core).view(player_id).sample(seed)
        clone: JaipurState = self.clone()
        clone._core = world._core.copy()
        # the opponent's dealt goods: the unknown cards they still hold were dealt to them
        opp = 1 - player_id
        before, after = _spiel.unknown_hand(self._core, opp), _spiel.unknown_hand(clone._core, opp)
        clone._deal_goods[opp] = [d - b + a for d, b, a in zip(self._deal_goods[opp], before, after)]
        return clone

    def __str__(self) -> str:
        if self._dealt < len(_DEAL):
            return f"dealing ({self._dealt} of {len(_DEAL)} cards)"
        return GameState(self._core).to_text()


#: Floats of one move's record in the information-state tensor: whose move (mine,
#: the opponent's), its kind (take, camels, sell, exchange), the goods it takes by type,
#: the cards it gives or sells by type (camels last), the cards drawn after it by type
#: (camels last), and the value of the bonus token it took, seen by its taker only (/10).
MOVE_RECORD = 2 + 4 + 6 + 7 + 7 + 1
#: The opening's floats: my dealt goods by type, the market's 5 cards by type, the
#: camels dealt to me and to the opponent, who starts (me, the opponent).
OPENING = 6 + 7 + 2 + 2


def information_state_size(max_plies: int) -> int:
    """The length of the information-state tensor: the observation tensor of the
    current view, the opening, and one record per move up to ``max_plies``."""
    return encoding.OBSERVATION_SIZE + OPENING + max_plies * MOVE_RECORD


def _information_state(state: "JaipurState", player: int, out: np.ndarray) -> None:
    """Fill ``out`` with player's information state: perfect recall of everything the
    player saw (what its view shows now, its dealt goods, the public opening, every move
    in order with the cards it drew, its own bonus values)."""
    out[:] = 0.0
    o = encoding.OBSERVATION_SIZE
    if state._dealt == len(_DEAL):
        encoding.observation(GameState(state._core), player, out=out[:o])
    out[o:o + 6] = state._deal_goods[player]
    op = state._opening
    out[o + 6:o + 13] = np.asarray(op[:_N_CARD_OUTCOMES], np.float32) / 5.0
    out[o + 13] = op[_N_CARD_OUTCOMES + player]
    out[o + 14] = op[_N_CARD_OUTCOMES + 1 - player]
    if op[-1] >= 0:
        out[o + 15 + (0 if op[-1] == player else 1)] = 1.0
    base = o + OPENING
    for j, h in enumerate(state._history[:(len(out) - base) // MOVE_RECORD]):
        r = out[base + j * MOVE_RECORD: base + (j + 1) * MOVE_RECORD]
        r[0 if h["player"] == player else 1] = 1.0
        m = Move.from_dense_index(h["action"])
        r[2 + ("take", "camels", "sell", "swap").index(m.kind)] = 1.0
        if m.kind == "take" and m.good is not None:
            r[6 + m.good] = 1.0
        elif m.kind == "sell" and m.good is not None:
            r[12 + m.good] = m.count
        elif m.kind == "swap":
            r[6:12] = m.take
            r[12:19] = m.give
        r[19:26] = h["drawn"]
        b = h["bonus"]
        if b is not None and b[0] == player:
            r[26] = _spiel.bonus_at(state._core, b[1], b[2]) / 10.0


class JaipurObserver:
    """The PyObserver of the game (OpenSpiel's observation API).  Without perfect
    recall: jaipur_ai's observation tensor of a player's view, and the view's one-line
    text.  With perfect recall (``pyspiel.IIGObservationType(perfect_recall=True)``, what
    ``information_state_tensor`` reads): the information-state tensor
    (:func:`information_state_size` floats) and the information-state string."""

    def __init__(self, iig_obs_type: Any = None, params: Optional[dict[str, Any]] = None,
                 max_plies: int = _DEFAULT_MAX_PLIES) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        self.perfect_recall = bool(getattr(iig_obs_type, "perfect_recall", False))
        size = (information_state_size(max_plies) if self.perfect_recall
                else encoding.OBSERVATION_SIZE)
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: JaipurState, player: int) -> None:
        if self.perfect_recall:
            _information_state(state, player, self.tensor)
        else:
            encoding.observation(GameState(state._core), player, out=self.tensor)

    def string_from(self, state: JaipurState, player: int) -> str:
        if self.perfect_recall:
            return state.information_state_string(player)
        return GameState(state._core).view(player).to_text()


class JaipurBot(pyspiel.Bot):
    """An OpenSpiel bot that plays ``python_jaipur`` with a jaipur_ai engine, searching only
    its player's view.  ``engine`` is an engine spec (``"ismcts:iterations=500"``,
    ``"greedy"``, a level name ...; docs/cli.md)."""

    def __init__(self, player_id: int, engine: str = "ismcts:iterations=300",
                 seed: int = 0) -> None:
        pyspiel.Bot.__init__(self)
        self._player_id = player_id
        self._spec = EngineSpec.parse(engine)
        self._limits = self._spec.fixed_limits("an OpenSpiel bot")
        self._engine: Engine = self._spec.make_engine()
        self._rng = np.random.default_rng(seed)

    def player_id(self) -> int:
        return self._player_id

    def provides_policy(self) -> bool:
        return False

    def restart_at(self, state: Any) -> None:
        pass

    def step(self, state: JaipurState) -> int:
        game_state = GameState(state._core.copy())
        p = game_state.to_move
        position = game_state if self._spec.cheats else game_state.view(p)
        move = self._engine.best_move(position, seed=int(self._rng.integers(2**63)),
                                      **self._limits)
        return move.dense_index


pyspiel.register_game(_GAME_TYPE, JaipurGame)
