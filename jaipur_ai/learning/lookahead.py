"""Lookahead targets for the learned evaluation: each stored position valued by a short
expectimax over the next moves and draws (docs/search.md, "Raw inputs and lookahead
targets").

A value fitted to the round's result learns what the moves that followed made of a
position, luck and both players' slips included; one fitted to the search's own root
value learns the search's bias.  ``lookahead(folder)`` gives each position of a
self-play run a third target: the mover's value by a ``depth``-ply expectimax of the
*full* state (training data may see everything; the hidden cards are the draw pile's
order, enumerated as chance), its leaves valued by the evaluation of the time.  It
is what the evaluation would say after looking ``depth`` plies ahead, so a fit to it
(``jaipur-ai train --target lookahead``, mixed with the result) teaches the
evaluation a little of what a search finds.

The values go beside the shards, ``FOLDER/lookahead/shard-NNNNN.npz`` (one float64
array ``value``, the shard's rows in order; NaN where a row has no stored state or
the round is over), written whole, so a run stopped half-way resumes where it was;
``FOLDER/lookahead/lookahead.json`` records the settings and a rerun with others is
refused.  :func:`jaipur_ai.learning.train.load_shards` reads them as ``lookahead``.

>>> import tempfile
>>> from jaipur_ai.learning.selfplay import selfplay
>>> with tempfile.TemporaryDirectory() as d:
...     _ = selfplay(d, rounds=1, engine="ismcts:iterations=30", seed=3, shard_rounds=1,
...                  workers=1, progress=False)
...     summary = lookahead(d, depth=1, workers=1, progress=False)
...     summary["shards"], summary["valued"] > 0
(1, True)
"""
from __future__ import annotations

import json
import os
import sys
import time
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Optional

import numpy as np

from jaipur_ai.errors import InvalidDataError, InvalidOptionError
from jaipur_ai.learning._selfplay import state_of_bytes
from jaipur_ai.matches.spec import derive_seed
from jaipur_ai.search._search import ExpectimaxSearcher
from jaipur_ai.search.drive import decisive_means
from jaipur_ai.search.evaluation import (DEFAULT_WEIGHTS, cached_evaluation,
                                         default_evaluation, fingerprint)

__all__ = ["lookahead", "position_value", "SUBFOLDER", "MAX_DEPTH", "CHANCE_TOP"]

#: Where the values go, inside the self-play folder (not a shard: ``*.npz`` of the
#: folder itself are shards).
SUBFOLDER = "lookahead"
_SETTINGS = "lookahead.json"
FORMAT = "jaipur-ai-lookahead/1"
#: The deepest lookahead: each ply costs about 15 times the one before (depth 2 about
#: 1.5 ms a position, 3 about 20 ms).
MAX_DEPTH = 4
#: A camel take's likeliest draws searched exactly (the rest sampled).
CHANCE_TOP = 8


def position_value(state: Any, depth: int, evaluation: Any, seed: int) -> float:
    """The mover's value of a full state (a CoreState whose round is running) by a
    ``depth``-ply perfect-information expectimax: its best move's value (a move that
    ends the round by its result)."""
    x = ExpectimaxSearcher(state, seed=seed, samples=1, evaluation=evaluation,
                           chance_top=CHANCE_TOP)
    x.run_depth(depth)
    best = 0.0
    for c in x.summary()["children"]:
        st = c["decisive_stats"]
        v = decisive_means(st)[0] if st else c["win"]
        best = max(best, v)
    return best


def _check(folder: Path, depth: Any, workers: Any) -> None:
    if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH:
        raise InvalidOptionError("depth", f"expected 1 to {MAX_DEPTH} plies, got {depth!r}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or workers < 1):
        raise InvalidOptionError("workers", f"expected a positive number, got {workers!r}")
    shards = sorted(folder.glob("shard-*.npz")) if folder.is_dir() else []
    if not shards:
        raise InvalidDataError(str(folder), "no self-play shards (shard-NNNNN.npz) in it")
    try:
        with np.load(shards[0]) as z:
            stored = "state" in z.files and bool(np.asarray(z["state"]).any())
    except (OSError, ValueError) as e:
        raise InvalidDataError(str(shards[0]), f"not a readable shard ({e})") from None
    if not stored:
        raise InvalidDataError(str(folder), "its shards store no states (self-play by the "
                                            "policy engine): lookahead values the states "
                                            "of searched self-play (--engine ismcts:...)")


def _settings(out: Path, want: dict[str, Any]) -> None:
    """Record the settings, or refuse a rerun with other settings."""
    path = out / _SETTINGS
    if path.exists():
        try:
            have = json.loads(path.read_text())
        except (OSError, ValueError) as e:
            raise InvalidDataError(str(path), f"unreadable ({e})") from None
        if have != want:
            diff = ", ".join(k for k in want if have.get(k) != want[k])
            raise InvalidOptionError("lookahead", f"{out} was made with other settings "
                                                  f"({diff}); use another folder's copy "
                                                  "or remove it")
        return
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(want, indent=1) + "\n")


def _one_shard(task: tuple[str, str, int, Optional[str]]) -> int:
    """Value one shard's positions and write its file; returns the rows valued."""
    shard, target, depth, weights = task
    ev = default_evaluation() if weights is None else cached_evaluation(weights)
    with np.load(shard) as z:
        states = np.asarray(z["state"]) if "state" in z.files else None
        n = len(z["result"])
    value = np.full(n, np.nan)
    k = int(Path(shard).stem.split("-")[-1])
    if states is not None:
        for i in range(n):
            if not states[i].any():              # (no stored state: the policy engine's)
                continue
            st = state_of_bytes(states[i].tobytes())
            if st.raw()["result"] != -1:
                continue
            value[i] = position_value(st, depth, ev, derive_seed(k, i))
    tmp = target + ".tmp.npz"
    np.savez(tmp, value=value)
    os.replace(tmp, target)
    return int(np.isfinite(value).sum())


def lookahead(folder: str, *, depth: int = 2, weights: Optional[str] = None,
              workers: Optional[int] = None, progress: bool = True) -> dict[str, Any]:
    """Give each position of the self-play run in ``folder`` its lookahead value (see
    the module); ``weights``: the evaluation at the leaves (default: the shipped one).
    Finished shards are kept.  Returns a summary: shards, positions valued, seconds."""
    root = Path(folder)
    _check(root, depth, workers)
    out = root / SUBFOLDER            # (the fingerprint checks the weights before any work)
    _settings(out, {"format": FORMAT, "depth": depth, "chance_top": CHANCE_TOP,
                    "evaluation": fingerprint(DEFAULT_WEIGHTS if weights is None else weights)})
    shards = sorted(root.glob("shard-*.npz"))
    todo = [(str(s), str(out / s.name), depth, weights) for s in shards
            if not (out / s.name).exists()]
    t0 = time.time()
    done = len(shards) - len(todo)
    w = max(1, min(workers or os.cpu_count() or 1, len(todo) or 1))
    if todo:
        if w == 1:
            results = map(_one_shard, todo)
            _report(results, done, len(shards), t0, progress)
        else:
            with get_context("spawn").Pool(w) as pool:
                _report(pool.imap_unordered(_one_shard, todo), done, len(shards), t0,
                        progress)
    valued = 0
    for s in shards:
        with np.load(out / s.name) as z:
            valued += int(np.isfinite(z["value"]).sum())
    return {"folder": str(root), "shards": len(shards), "valued": valued, "depth": depth,
            "seconds": round(time.time() - t0, 1)}


def _report(results: Any, done: int, total: int, t0: float, progress: bool) -> None:
    for _ in results:
        done += 1
        if progress:
            print(f"\rlookahead: {done}/{total} shards, {time.time() - t0:.0f} s",
                  end="", file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr)
