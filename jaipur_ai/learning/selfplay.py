"""Self-play records for training the learned evaluation.

``selfplay(folder, rounds, engine)`` plays ``rounds`` seeded rounds and writes them as
numpy shards, ``shard-NNNNN.npz``, one per ``shard_rounds`` rounds: shard k holds rounds
``k*shard_rounds ...``, so a shard's content depends only on the seed, the engine (and
league) and its number.  Shards are written whole (to a temporary name, then renamed):
after Ctrl-C or a crash, running the same command again skips the finished shards and
plays the rest.
``selfplay.json`` in the folder records the settings, and a rerun with other settings is
refused.

Each row of a shard is a position before a move, seen from the player to move:

=================  =====================================================================
``features``       float32 (N_FEATURES,): the features of the *full* state (training
                   data may see everything; the search only ever evaluates sampled worlds)
``result``         1 / 0.5 / 0: the round's result for the mover
``margin``         the mover's points minus the opponent's at the end of the round
``mover``          0 or 1
``ply``            plies played before this position
``round``          the round's number in the run (0-based)
``action``         the move played (action id)
``value``          the search's win probability of the move played (NaN without search)
``visits``         the search's visits of the move played (0 without search)
``iterations``     iterations the search ran (0 without search)
``child_action``   int32 (CHILDREN,): the search's most visited root moves (-1: none) ...
``child_visits``   int32 (CHILDREN,): ... and their visits (the move policy's targets)
``state``          uint8 (STATE_BYTES,): the full state, for the move policy's training
                   rows (``learning._selfplay.policy_rows``; zeros without search)
``player``         int8: who played the move: 0 the engine, k >= 1 the league's k-th
                   opponent (``league[k - 1]``)
=================  =====================================================================

Engines: ``"policy"`` plays every move by the informed playout policy in compiled code
(thousands of rounds a second: generation 0); any engine spec (``"ismcts:iterations=400"``)
plays each move by that engine's search from the mover's view only, its belief shown the
round's moves before it (the ``history`` a player at the table has seen).

A **league** (``league=[spec, ...]``) makes the data less the engine's own habits, in the
manner of fictitious play: a ``league_share`` of the rounds (drawn from the seed and the
round's number) is played by the engine against one of the league's engines (earlier
weights, pimc, greedy...), in a seat drawn the same way.  Both players' positions are
value rows; only the engine's own moves carry the move policy's targets (the league's rows
have no root visits), so the policy learns the engine's search, the value the game.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as d:
...     summary = selfplay(d, rounds=4, engine="ismcts:iterations=50", seed=1,
...                        shard_rounds=2, workers=1, progress=False)
...     summary["shards"], summary["rounds"]
(2, 4)
"""
from __future__ import annotations

import json
import math
import os
import sys
import time
from contextlib import closing
from pathlib import Path
from typing import Any, Optional, Sequence, Union

import numpy as np

from jaipur_ai.search._features import N_FEATURES_PY as N_FEATURES, features_of
from jaipur_ai.search.belief import MAX_HISTORY
from jaipur_ai.learning._selfplay import STATE_BYTES, policy_rounds, state_bytes
from jaipur_ai.matches.backends import Backend, make_backend
from jaipur_ai.errors import InvalidDataError, InvalidOptionError
from jaipur_ai.matches.spec import EngineSpec, derive_seed
from jaipur_ai.rules.position import GameState

__all__ = ["selfplay", "play_shard", "SHARD_KEYS", "make_folder", "league_round",
           "check_league_specs", "check_share", "MAX_LEAGUE"]

SHARD_KEYS = ("features", "result", "margin", "mover", "ply", "round", "action", "value",
              "visits", "iterations", "child_action", "child_visits", "state", "player")
#: Root moves kept per searched position, the most visited first: more than the
#: informed policy's candidates that ever get visits in practice.
CHILDREN = 32
_SETTINGS = "selfplay.json"


def _shard_path(folder: Path, k: int) -> Path:
    return folder / f"shard-{k:05d}.npz"


#: The most engines a league may hold (the ``player`` column is an int8).
MAX_LEAGUE = 100


def check_league_specs(league: Any) -> list[str]:
    """``league`` (engine specs: a list, or one spec as a string) checked before any
    work: each a valid spec that searches by ``iterations`` (a shard must not depend on
    the machine's speed), its weights found; else a typed error naming it."""
    if isinstance(league, str):
        league = [league]
    if not isinstance(league, (list, tuple)) or not all(isinstance(s, str) for s in league):
        raise InvalidOptionError("league", f"expected a list of engine specs, got "
                                           f"{type(league).__name__}")
    if len(league) > MAX_LEAGUE:
        raise InvalidOptionError("league", f"at most {MAX_LEAGUE} engines, got {len(league)}")
    for s in league:
        spec = EngineSpec.parse(s)
        spec.fixed_limits("a league engine")
        if spec.searches and (spec.iterations is None or spec.time is not None):
            raise InvalidOptionError("league", f"{s}: give iterations=N and no time, so that "
                                               "the shards do not depend on the machine's "
                                               "speed")
        spec.make_engine()                      # (its weights found and checked now)
    return list(league)


def check_share(share: Any) -> float:
    """``share`` (of the rounds played against a league) as a number from 0 to 1, or an
    InvalidOptionError naming ``league_share``."""
    if isinstance(share, bool) or not (isinstance(share, (int, float)) and 0.0 <= share <= 1.0):
        raise InvalidOptionError("league_share", f"expected a share from 0 to 1, got {share!r}")
    return float(share)


def league_round(seed: int, r: int, league_size: int,
                 share: float) -> tuple[int, int]:
    """(opponent, seat) of round ``r``: ``opponent`` 0 for self-play, k >= 1 for the
    league's k-th engine, which then plays seat ``seat``; drawn from the seed and the
    round's number alone, so a shard's rounds do not depend on the others."""
    if league_size == 0 or share <= 0.0:
        return 0, 0
    rng = np.random.default_rng(derive_seed(seed, 4, r))
    u, k, seat = rng.random(), int(rng.integers(league_size)), int(rng.integers(2))
    return (1 + k, seat) if u < share else (0, 0)


def play_shard(engine: str, seed: int, first: int, count: int,
               league: Sequence[str] = (), share: float = 0.0) -> dict[str, Any]:
    """Play rounds first .. first+count-1 of a run; returns the shard's arrays."""
    if engine == "policy":
        d = policy_rounds(derive_seed(seed, 7, first), count)
        n = len(d["result"])
        d["round"] = d["round"].astype(np.int64) + first
        d.update(value=np.full(n, np.nan, np.float32), visits=np.zeros(n, np.int32),
                 iterations=np.zeros(n, np.int32),
                 child_action=np.full((n, CHILDREN), -1, np.int32),
                 child_visits=np.zeros((n, CHILDREN), np.int32),
                 state=np.zeros((n, STATE_BYTES), np.uint8), player=np.zeros(n, np.int8))
        return d
    specs = [EngineSpec.parse(engine)] + [EngineSpec.parse(s) for s in league]
    engines = [sp.make_engine() for sp in specs]
    limits = [sp.fixed_limits("self-play") for sp in specs]
    rows: dict[str, list[Any]] = {k: [] for k in SHARD_KEYS}
    for r in range(first, first + count):
        state = GameState.new(seed=derive_seed(seed, 1, r), starter=r % 2)
        opponent, seat = league_round(seed, r, len(league), share)
        who = [0, 0]
        who[seat] = opponent
        start = len(rows["result"])
        ply = 0
        history: list[tuple[GameState, Any]] = []
        while not state.is_round_over:
            p = state.to_move
            k = who[p]
            eng, lim = engines[k], limits[k]
            view = state.view(p)
            a = eng.analyse(view, time=lim["time"], iterations=lim["iterations"],
                            seed=derive_seed(seed, 2, r, ply), top=CHILDREN,
                            history=history if len(history) <= MAX_HISTORY else None)
            best = a.candidates[0] if a.candidates else None
            move = best.move if best is not None else eng.best_move(
                view, iterations=1, seed=derive_seed(seed, 3, r, ply))
            rows["features"].append(features_of(state._core, p).astype(np.float32))
            rows["mover"].append(p)
            rows["ply"].append(ply)
            rows["round"].append(r)
            rows["action"].append(move.action_id)
            rows["player"].append(k)
            kids = np.full((2, CHILDREN), -1, np.int32)
            if k == 0:       # (the league's moves are value rows only)
                wp = best.win_probability if best is not None else None
                rows["value"].append(np.nan if wp is None else wp)
                rows["visits"].append(best.visits if best is not None else 0)
                rows["iterations"].append(a.iterations)
                for j, c in enumerate(a.candidates):
                    kids[0, j], kids[1, j] = c.move.action_id, c.visits
            else:
                rows["value"].append(np.nan)
                rows["visits"].append(0)
                rows["iterations"].append(0)
            rows["child_action"].append(kids[0])
            rows["child_visits"].append(np.maximum(kids[1], 0))
            rows["state"].append(np.frombuffer(state_bytes(state._core), np.uint8))
            history.append((state, move))
            state = state.apply(move)
            ply += 1
        t = state.round_totals()
        w = state.result
        for i in range(start, len(rows["mover"])):
            p = rows["mover"][i]
            rows["result"].append(0.5 if w == "draw" else float(w == p))
            rows["margin"].append(t[p] - t[1 - p])
    types = {"features": np.float32, "result": np.float32, "margin": np.float32,
             "mover": np.int8, "ply": np.int16, "round": np.int64, "action": np.int32,
             "value": np.float32, "visits": np.int32, "iterations": np.int32,
             "child_action": np.int32, "child_visits": np.int32, "state": np.uint8,
             "player": np.int8}
    out = {k: np.asarray(v, types[k]) for k, v in rows.items()}
    if not len(out["features"]):
        out["features"] = np.zeros((0, N_FEATURES), np.float32)
        out["child_action"] = np.zeros((0, CHILDREN), np.int32)
        out["child_visits"] = np.zeros((0, CHILDREN), np.int32)
        out["state"] = np.zeros((0, STATE_BYTES), np.uint8)
    return out


def _job(args: tuple[Any, ...]) -> tuple[int, dict[str, Any]]:
    """One shard, played wherever the backend runs it; written by the caller."""
    engine, seed, k, first, count, league, share = args
    return k, play_shard(engine, seed, first, count, league, share)


def _write_shard(folder: Path, k: int, d: dict[str, Any]) -> None:
    path = _shard_path(folder, k)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        np.savez_compressed(fh, round_offset=np.array(0), **d)
    os.replace(tmp, path)


class _Progress:
    """A one-line progress bar on stderr: shards done, positions, rate, time left."""

    def __init__(self, total: int, done: int, enabled: bool) -> None:
        self.total, self.done, self.enabled = total, done, enabled
        self.start_done, self.t0, self.positions = done, time.monotonic(), 0

    def update(self, positions: int) -> None:
        self.done += 1
        self.positions += positions
        if not self.enabled:
            return
        el = time.monotonic() - self.t0
        rate = (self.done - self.start_done) / el if el > 0 else 0.0
        left = (self.total - self.done) / rate if rate > 0 else math.inf
        width = 30
        fill = int(width * self.done / max(1, self.total))
        eta = "--" if math.isinf(left) else f"{left:,.0f} s"
        sys.stderr.write(f"\r[{'#' * fill}{'.' * (width - fill)}] {self.done}/{self.total} "
                         f"shards, {self.positions:,} positions, {eta} left ")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")


def make_folder(folder: Union[str, Path]) -> Path:
    """The output folder ``folder``, made if missing, before any work: a path that is a
    file (``/dev/null``) or a folder that cannot be made is an InvalidDataError naming it."""
    path = Path(folder)
    if path.exists() and not path.is_dir():
        raise InvalidDataError(str(path), "not a folder (the output is a folder of files)")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InvalidDataError(str(path), f"cannot make the folder: {e.strerror or e}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise InvalidDataError(str(path), "the folder is not writable")
    return path


def selfplay(folder: str, rounds: int, engine: str = "ismcts:iterations=400", *,
             seed: int = 0, shard_rounds: int = 100, workers: Optional[int] = None,
             progress: bool = False, backend: Union[str, Backend] = "local",
             address: Optional[str] = None, league: Sequence[str] = (),
             league_share: float = 0.5) -> dict[str, Any]:
    """Play and write the shards that are missing; returns a summary dict.

    ``league``: engine specs the engine meets in ``league_share`` of the rounds (the
    module's docstring); each needs fixed limits, as the engine does.

    ``workers`` shards are played at once (default 1) by ``backend``: ``"local"``
    processes, or Ray tasks (``"ray"``, on the cluster at ``address``; ``workers``
    defaults to its CPUs), see :mod:`jaipur_ai.matches.backends`.  A shard's rows depend only
    on the seed, the engine, the league and its share, and the shard's number, so every
    backend writes the same shards; they are written here, in this process, as each comes back."""
    if engine != "policy":
        EngineSpec.parse(engine)            # a bad spec fails here, before any work
    if rounds < 1 or shard_rounds < 1:
        raise ValueError("rounds and shard_rounds must be >= 1")
    league = check_league_specs(league)
    if league and engine == "policy":
        raise InvalidOptionError("league", "the 'policy' engine plays whole rounds in "
                                           "compiled code; a league needs an engine spec")
    check_share(league_share)
    share = float(league_share) if league else 0.0
    runner = make_backend(backend, workers, address)
    path = make_folder(folder)
    # (format 2: the belief is shown the round's moves, and the league)
    settings = {"format": "jaipur-ai-selfplay/2", "engine": engine, "seed": int(seed),
                "rounds": int(rounds), "shard_rounds": int(shard_rounds),
                "n_features": N_FEATURES, "league": league, "league_share": share}
    sfile = path / _SETTINGS
    if sfile.exists():
        old = json.loads(sfile.read_text())
        if {k: old.get(k) for k in settings if k != "rounds"} != {
                k: v for k, v in settings.items() if k != "rounds"}:
            raise InvalidDataError(str(sfile), f"made with other settings ({old}); use "
                                               "another folder")
    sfile.write_text(json.dumps(settings, indent=1) + "\n")
    n_shards = (rounds + shard_rounds - 1) // shard_rounds
    todo = [(engine, seed, k, k * shard_rounds, min(shard_rounds, rounds - k * shard_rounds),
             league, share) for k in range(n_shards) if not _shard_path(path, k).exists()]
    runner = runner.for_tasks(len(todo))
    bar = _Progress(n_shards, n_shards - len(todo), progress)
    t0 = time.monotonic()
    try:
        if todo:
            runner.start()
            with closing(runner.map(_job, todo)) as played:
                for k, d in played:
                    _write_shard(path, k, d)
                    bar.update(len(d["result"]))
    finally:
        bar.close()
    return {"folder": str(path), "shards": n_shards, "rounds": rounds,
            "played_shards": len(todo), "positions_played": bar.positions,
            "seconds": time.monotonic() - t0, "backend": runner.name,
            "workers": runner.workers}
