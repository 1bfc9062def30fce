"""Shared fixtures: the ``impl`` fixture runs a test against both rules engines.

Both adapters take and return states as JSON dicts (docs/notation.md) and moves
as canonical text, so a test is written once for the reference oracle
(``jaipur_ai.rules._reference``) and the compiled core behind ``jaipur_ai.GameState``.
"""
from __future__ import annotations

import pytest
from hypothesis import settings

from jaipur_ai.rules import _reference

# No per-example deadline: the suite asserts behaviour, never speed, and a loaded CI
# machine must not turn a slow example into a failure (speed lives in bench/).
settings.register_profile("jaipur", deadline=None)
settings.load_profile("jaipur")


class ReferenceImpl:
    """The pure-Python oracle."""

    name = "reference"

    def legal_moves(self, d: dict) -> list[str]:
        return _reference.legal_moves(d)

    def apply(self, d: dict, move: str) -> dict:
        return _reference.apply(d, move)

    def round_totals(self, d: dict) -> tuple[int, int]:
        return _reference.round_totals(d)


class CoreImpl:
    """The public API over the compiled core."""

    name = "core"

    def __init__(self, GameState, Move) -> None:
        self.GameState = GameState
        self.Move = Move

    def legal_moves(self, d: dict) -> list[str]:
        return sorted(str(m) for m in self.GameState.from_dict(d).legal_moves())

    def apply(self, d: dict, move: str) -> dict:
        state = self.GameState.from_dict(d)
        return state.apply(self.Move.parse(move)).to_dict()

    def round_totals(self, d: dict) -> tuple[int, int]:
        return tuple(self.GameState.from_dict(d).round_totals())


@pytest.fixture(params=["reference", "core"])
def impl(request):
    if request.param == "reference":
        return ReferenceImpl()
    from jaipur_ai import GameState, Move
    return CoreImpl(GameState, Move)
