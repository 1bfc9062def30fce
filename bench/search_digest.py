"""A digest of the default searches: two builds that print the same digest search alike.

For a change meant to leave behaviour alone (a reorganisation, a speed-up): run it on
the build before and after.  It plays the first plies of four deals with the greedy
engine, then searches each position with this build's default engine (one thread, two
threads, expectimax, and the default engine shown the round's moves, so its belief
weighs the worlds), 3,000 iterations and seed 3, and hashes every candidate's move,
visits and win probability.  tests/test_golden.py pins the hand-set searches the same
way; this covers the learned default.

    PYTHONPATH=. python3 bench/search_digest.py
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import jaipur_ai as jp  # noqa: E402


def searches() -> list[list[Any]]:
    out: list[list[Any]] = []
    for seed in (3, 5, 11, 17):
        s = jp.GameState.new(seed=seed, starter=seed % 2)
        history = []
        for k in range(12 + seed % 5):
            m = jp.Engine("greedy").best_move(s, seed=k)
            history.append((s, m))
            s = s.apply(m)
            if s.is_round_over:
                break
        if s.is_round_over:
            continue
        v = s.view(s.to_move)
        engines = [jp.Engine(seed=3), jp.Engine(seed=3, threads=2),
                   jp.Engine("expectimax", seed=3)]
        shown = jp.Engine(seed=3)
        for pos, m in history:
            shown.see_move(pos.view(s.to_move), m)
        for e in engines + [shown]:
            a = e.analyse(v, iterations=3000, top=100)
            out.append([str(a.best)] + [[str(c.move), c.visits,
                                         round(c.win_probability or 0, 9)] for c in a])
    return out


def main() -> None:
    found = searches()
    print(hashlib.sha256(json.dumps(found).encode()).hexdigest(), len(found))


if __name__ == "__main__":
    main()
