"""Plain-text drawings of a state or a view, for the command line and ``str()``, drawn
from their JSON forms (``to_dict()``)."""
from __future__ import annotations

from typing import Any

from jaipur_ai.rules._cards import BONUS_KINDS, GOODS, LETTERS, NAMES


def _stacks(tokens: dict[str, Any]) -> list[str]:
    return [f"  {NAMES[g]:<8} {LETTERS[g]}  " + (" ".join(map(str, tokens[LETTERS[g]])) or "(empty)")
            for g in range(GOODS)]


def _pts(tokens: dict[str, Any]) -> int:
    return sum(sum(v) for v in tokens.values())


def draw_state(d: dict[str, Any]) -> str:
    """A full state's drawing, from its JSON form."""
    status = "running" if d["result"] is None else (
        "drawn" if d["result"] == "draw" else f"won by player {d['result']}")
    lines = [f"Round {d['round']} ({status}), player {d['to_move']} to move, "
             f"seals {d['seals'][0]}-{d['seals'][1]}",
             f"  market  {d['market'] or '-'}      deck {len(d['deck'])}   discard {d['discard'] or '-'}",
             "  token stacks (top first):", *_stacks(d["tokens"]),
             "  bonus left: " + "  ".join(f"{k}:{len(d['bonus'][k])}" for k in BONUS_KINDS)]
    for p, pl in enumerate(d["players"]):
        nb = sum(len(v) for v in pl["bonus"].values())
        lines.append(f"  player {p}: hand {pl['hand'] or '-':<8} herd {pl['herd']:<2} "
                     f"tokens {_pts(pl['tokens'])} pts, {nb} bonus ({_pts(pl['bonus'])} pts)")
    return "\n".join(lines)


def draw_view(d: dict[str, Any]) -> str:
    """A view's drawing, from its JSON form."""
    obs = d["observer"]
    status = "running" if d["result"] is None else (
        "drawn" if d["result"] == "draw" else f"won by player {d['result']}")
    lines = [f"Round {d['round']} ({status}) as seen by player {obs}, "
             f"player {d['to_move']} to move, seals {d['seals'][0]}-{d['seals'][1]}",
             f"  market  {d['market'] or '-'}      deck {d['deck_size']}   discard {d['discard'] or '-'}",
             "  token stacks (top first):", *_stacks(d["tokens"]),
             "  bonus left: " + "  ".join(f"{k}:{d['bonus_left'][k]}" for k in BONUS_KINDS)]
    for p, pl in enumerate(d["players"]):
        if p == obs:
            nb = sum(len(x) for x in pl["bonus"].values())
            lines.append(f"  you (player {p}): hand {pl['hand'] or '-':<8} herd {pl['herd']:<2} "
                         f"tokens {_pts(pl['tokens'])} pts, {nb} bonus ({_pts(pl['bonus'])} pts)")
        else:
            nb = sum(pl["bonus"].values())
            n = pl["hand_size"]
            lines.append(f"  opponent (player {p}): {n} card{'' if n == 1 else 's'}, known "
                         f"{pl['known'] or '-':<6} herd {pl['herd']:<2} "
                         f"tokens {_pts(pl['tokens'])} pts, {nb} bonus")
    return "\n".join(lines)
