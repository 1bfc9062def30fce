"""The requests of the engine protocol (docs/protocol.md): reading and checking their
fields (positions, histories, options, ids), writing positions back in the form they came
in, and the typed errors every answer reports (:class:`RequestError`, :func:`error_body`).
:mod:`jaipur_ai.doors.serve` and the web API (:mod:`jaipur_ai.doors.webapi`) read
requests through it."""
from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, Optional, Union

from jaipur_ai.errors import InvalidOptionError, InvalidPositionError, JaipurError
from jaipur_ai.options import check
from jaipur_ai.rules.position import (STATE_FORMAT, VIEW_FORMAT, GameState, View, mover_view,
                                      read_position)

__all__ = ["RequestError", "error_body", "read_request_position", "read_request_history",
           "Position"]

Position = Union[GameState, View]
#: The shipped sample position (``"sample"`` at every door: analyse, review, serve, web).
SAMPLE_PATH = Path(__file__).resolve().parents[1] / "data" / "sample.txt"


# --------------------------------------------------------------------------- errors
class RequestError(Exception):
    """A request the server cannot carry out (not a position or move error):
    ``field`` names the request field (``None``: the whole line), ``reason``
    says what is wrong with it."""

    def __init__(self, field: Optional[str], reason: str,
                 type_: str = "InvalidRequestError") -> None:
        self.type = type_
        self.field = field
        self.reason = reason
        self.message = f"{field}: {reason}" if field else reason
        super().__init__(self.message)


def _position_field(field: str, root: str = "position") -> str:
    """A position reader's field, as a path inside the request (the position read
    is the request's ``root`` field)."""
    if field in ("text", "json", "", "position"):
        return root
    if field.startswith("position."):
        field = field[len("position."):]
    return f"{root}.{field}"


def error_body(exc: BaseException, where: str = "") -> dict[str, Any]:
    """The ``error`` object of an answer.  ``where`` is "position" when the
    exception came from reading or checking the request's position."""
    if isinstance(exc, RequestError):
        return {"type": exc.type, "field": exc.field, "message": exc.message,
                "reason": exc.reason}
    if isinstance(exc, JaipurError):
        field = _position_field(exc.field) if where == "position" else exc.field
        # a bad limit or engine option is a request error on the wire (docs/protocol.md)
        kind = "InvalidRequestError" if isinstance(exc, InvalidOptionError) else \
            type(exc).__name__
        return {"type": kind, "field": field,
                "message": f"{field}: {exc.reason}", "reason": exc.reason}
    message = f"{type(exc).__name__}: {exc}"
    return {"type": "InternalError", "field": None, "message": message, "reason": message}


# --------------------------------------------------------------------------- reading fields
_MISSING = object()


def json_error_reason(e: BaseException) -> str:
    """Why a request's text is not JSON that can be read, in the user's terms (not
    Python's advice on its own limits)."""
    if isinstance(e, RecursionError):
        return "not valid JSON: nested too deeply"
    if "integer string conversion" in str(e):
        return "not valid JSON: a number of more than 4,300 digits"
    return f"not valid JSON: {e}"


def required_field(req: dict[str, Any], key: str) -> Any:
    v = req.get(key, _MISSING)
    if v is _MISSING or v is None:
        raise RequestError(key, "missing")
    return v


def option_field(req: dict[str, Any], key: str) -> Any:
    """Request field ``key``, checked by the one table of options (jaipur_ai.options);
    absent or null: None."""
    return check(key, req.get(key))


def integer_field(req: dict[str, Any], key: str, lo: int, hi: int) -> Optional[int]:
    v = req.get(key)
    if v is None:
        return None
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int):
        raise RequestError(key, f"expected an integer, got {v!r}")
    if not lo <= v <= hi:
        raise RequestError(key, f"{v} is out of range {lo}..{hi}")
    return v


def read_request_position(value: Any) -> tuple[Position, str]:
    """The request's ``position`` and the form it came in: ``"object"``
    (a JSON object), ``"json"`` (a JSON string) or ``"text"`` (one line)."""
    if isinstance(value, dict):
        if value.get("format") == VIEW_FORMAT:
            return View.from_dict(value), "object"
        return GameState.from_dict(value), "object"
    if isinstance(value, str):
        if value.strip().lower() == "sample":           # as analyse and review take it
            return read_position(SAMPLE_PATH.read_text()), "text"
        form = "json" if value.lstrip().startswith("{") else "text"
        return read_position(value), form
    raise RequestError("position", "expected a JSON object or a one-line text "
                                   f"form, got {type(value).__name__}")


def read_request_history(value: Any, pos: Position) -> Optional[list[Any]]:
    """The request's ``history`` (the moves of the round before ``pos``, oldest first:
    a list of ``{"position": ..., "move": ...}`` objects, each position a state or the
    searching player's view in any form ``position`` takes) as the engine's
    (position, move) pairs, checked against ``pos`` now, before any search starts
    (:func:`jaipur_ai.search.belief.read_history`); absent or null: None."""
    if value is None:
        return None
    if not isinstance(value, list):
        raise RequestError("history", "expected a list of {\"position\", \"move\"} objects, "
                                      f"got {type(value).__name__}")
    pairs = []
    for i, entry in enumerate(value):
        where = f"history[{i}]"
        if not isinstance(entry, dict):
            raise RequestError(where, "expected an object with \"position\" and \"move\", "
                                      f"got {type(entry).__name__}")
        for key in ("position", "move"):
            if entry.get(key) is None:
                raise RequestError(f"{where}.{key}", "missing")
        try:
            before, _ = read_request_position(entry["position"])
        except RequestError as e:
            raise RequestError(f"{where}.position", e.reason) from None
        except JaipurError as e:
            raise InvalidPositionError(_position_field(e.field, f"{where}.position"),
                                       e.reason) from None
        move = entry["move"]
        if isinstance(move, bool) or not isinstance(move, (str, int)):
            raise RequestError(f"{where}.move", "expected a move text or an action id, got "
                                                f"{move!r}")
        pairs.append((before, move))
    from jaipur_ai.search.belief import read_history    # with the search: serve starts without it
    read_history(pairs, mover_view(pos))
    return pairs


def write_position(pos: Position, form: str) -> Any:
    if form == "object":
        return pos.to_dict()
    if form == "json":
        return pos.to_json()
    return pos.to_text()


def as_state(pos: Position, what: str) -> GameState:
    if not isinstance(pos, GameState):
        raise RequestError("position", f"{what} needs a full state "
                                       f"({STATE_FORMAT!r} or 'S ...'), got a view",
                           "InvalidPositionError")
    return pos


def scalar_id(req: dict[str, Any]) -> Any:
    rid = req.get("id")
    if rid is None or isinstance(rid, (str, int, float, bool)):
        return rid
    raise RequestError("id", "expected a JSON scalar (string, number, true/false or null)")


_ID_RE = re.compile(r'"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?'
                    r'|true|false|null)')


def salvage_id(line: str) -> Any:
    """Best effort: the id of a line that is not valid JSON."""
    m = _ID_RE.search(line)
    if m is None:
        return None
    try:
        return json.loads(m.group(1))
    except ValueError:
        return None


def reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def json_safe(x: Any) -> Any:
    """Non-finite floats become null: they are not JSON."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: json_safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [json_safe(v) for v in x]
    return x
