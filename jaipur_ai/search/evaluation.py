"""Learned-evaluation weights: the file format, loading with checks, saving.

A weights file is a numpy ``.npz`` archive with these arrays:

==================  =====================================================
``format``          the string ``"jaipur-ai-evaluation"``
``version``         format version (1)
``features_version`` the feature set the weights were trained on
``feature_names``   the feature names, in order (checked against this build)
``lin``             (F,) linear weights of the win logit
``margin``          (F,) linear weights of the expected margin, in points
``hidden_w``        (H, F) hidden layer (H may be 0: a linear model)
``hidden_b``        (H,) hidden biases
``out_w``           (H,) output weights of the hidden units
``prior_lin``       (F,) optional: a linear win logit that the tree's priors read in
                    place of the full value (a hidden layer's cost is paid at the
                    leaves only; docs/search.md, "A hidden layer in the search");
                    absent, the priors read the full value
``calibration``     (2,) ``a, b`` or (4,) ``a, b, c, d``: the map from the search's win
                    estimate ``p`` after ``n`` iterations to the reported win probability,
                    ``1 / (1 + exp(-((a + c x) logit(p) + b + d x)))`` with
                    ``x = ln(n / 1000)`` (optional; absent: ``1, 0``, no change)
``calibration_moves`` the same map for a search whose belief read the round's moves
                    (given a history, or shown the moves: it is less optimistic than a
                    search of the position alone; optional, absent: ``calibration``)
``meta``            a JSON string: how the weights were made (data, command, scores)
==================  =====================================================

optionally, a network over raw inputs beside the features (docs/search.md, "Raw
inputs"), which adds ``g(raw(s, p)) - g(raw(s, o))`` to the win logit:

========================  ===============================================================
``raw_w``                 (R, N) its hidden layer over the N raw inputs (R at most 128)
``raw_b``                 (R,) its biases
``raw_out``               (R,) its output weights
``raw_version``           the raw inputs it was trained on
``raw_names``             their names, in order (checked against this build)
========================  ===============================================================

and, optionally, a learned move policy (docs/search.md, "The learned move policy"):

========================  ===============================================================
``prior_scale``           () the weight of the tree's prior score (with ``prior_w``)
``prior_w``               (M,) the tree priors' weights of the move features
``playout_w``             (M,) points added to a playout move's score, per move feature
``move_features_version`` the move feature set they were trained on
``move_feature_names``    its names, in order (checked against this build)
========================  ===============================================================

The features are those of ``jaipur_ai.search._features`` (docs/search.md, "Learned
evaluation"); features and weights are versioned together, and a file made for
another feature set is refused. Version 2 of the features begins with version 1's 29,
unchanged, so a file of version 1 still loads: its weights read those 29 only.  The shipped weights (``data/evaluation.npz``) are
loaded once, on first use.

>>> ev = default_evaluation()
>>> ev.source.endswith("evaluation.npz")
True
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import tokenize
import zipfile
import zlib
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence, Union

import numpy as np

from jaipur_ai.search._evaluation import Evaluation
from jaipur_ai.search._features import FEATURE_NAMES, FEATURES_VERSION_PY, N_FEATURES_PY, N_FEATURES_V1_PY
from jaipur_ai.search._movefeatures import MOVE_FEATURE_NAMES, MOVE_FEATURES_VERSION_PY
from jaipur_ai.search._rawinputs import N_RAW_PY, RAW_NAMES, RAW_VERSION_PY
from jaipur_ai.errors import InvalidWeightsError, JaipurError

__all__ = ["FORMAT", "VERSION", "DEFAULT_WEIGHTS", "load_evaluation", "default_evaluation",
           "save_weights", "read_meta", "calibrated", "uncalibrated", "map_coefficients",
           "with_calibration", "fingerprint", "MOVES_MAP",
           "VALUE_ARRAYS", "POLICY_ARRAYS", "PRIOR_LIN", "RAW_ARRAYS", "read_weights", "evaluation_of",
           "read_npz", "SHIPPED_WEIGHTS", "LINEAR_WEIGHTS", "cached_evaluation",
           "named_evaluation"]

FORMAT = "jaipur-ai-evaluation"
VERSION = 1
DEFAULT_WEIGHTS = Path(__file__).resolve().parents[1] / "data" / "evaluation.npz"
#: The value's arrays, which a fit makes (``train.fit``).
VALUE_ARRAYS = ("lin", "margin", "hidden_w", "hidden_b", "out_w")
#: The move policy's arrays (all optional; ``prior_scale`` and ``prior_w`` together).
POLICY_ARRAYS = ("prior_scale", "prior_w", "playout_w")
#: The priors' own linear value (optional).
PRIOR_LIN = "prior_lin"
#: The map of the reported win probability for a search that read the round's moves
#: (optional; absent, ``calibration`` serves both).
MOVES_MAP = "calibration_moves"
#: The raw-input network's arrays (optional, all three together).
RAW_ARRAYS = ("raw_w", "raw_b", "raw_out")
MAX_RAW_HIDDEN = 128
#: Every array of a file that the search reads (all but the calibration map): what a
#: copy of the weights keeps and what their fingerprint hashes.
SEARCH_ARRAYS = VALUE_ARRAYS + POLICY_ARRAYS + (PRIOR_LIN,) + RAW_ARRAYS
MAX_HIDDEN = 64
#: The iterations at which a map of four numbers reduces to ``a, b`` (``calibrated``).
CALIBRATION_BUDGET = 1000.0
#: The smallest slope a map of four numbers takes at any budget.
MIN_SLOPE = 0.05

PathLike = Union[str, "os.PathLike[str]"]

#: The feature sets this build evaluates, by version: their names, in order.
FEATURE_SETS: dict[int, tuple[str, ...]] = {1: tuple(FEATURE_NAMES[:N_FEATURES_V1_PY]),
                                            FEATURES_VERSION_PY: tuple(FEATURE_NAMES)}


def save_weights(path: PathLike, weights: Mapping[str, Any], meta: Mapping[str, Any]) -> None:
    """Write a weights file (atomically: a partial file never replaces a good one)."""
    path = Path(path)
    arrays: dict[str, Any] = {k: np.asarray(weights[k], np.float64) for k in VALUE_ARRAYS}
    arrays["calibration"] = np.asarray(weights.get("calibration", (1.0, 0.0)), np.float64)
    if weights.get(MOVES_MAP) is not None:
        arrays[MOVES_MAP] = np.asarray(weights[MOVES_MAP], np.float64)
    policy = {k: np.asarray(weights[k], np.float64) for k in POLICY_ARRAYS
              if weights.get(k) is not None}
    if weights.get(PRIOR_LIN) is not None:
        arrays[PRIOR_LIN] = np.asarray(weights[PRIOR_LIN], np.float64)
    if weights.get("raw_w") is not None:
        arrays.update({k: np.asarray(weights[k], np.float64) for k in RAW_ARRAYS},
                      raw_version=np.array(RAW_VERSION_PY), raw_names=np.array(RAW_NAMES))
    if policy:
        arrays.update(policy, move_features_version=np.array(MOVE_FEATURES_VERSION_PY),
                      move_feature_names=np.array(MOVE_FEATURE_NAMES))
    # the feature set is the one the weights' length names (this build's, or version 1)
    n = len(arrays["lin"])
    version = next((v for v, names in FEATURE_SETS.items() if len(names) == n), None)
    if version is None:
        raise ValueError(f"weights of {n} features; this build's feature sets have "
                         f"{', '.join(str(len(x)) for x in FEATURE_SETS.values())}")
    arrays.update(format=np.array(FORMAT), version=np.array(VERSION),
                  features_version=np.array(version),
                  feature_names=np.array(FEATURE_SETS[version]),
                  meta=np.array(json.dumps(dict(meta))))
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "wb") as fh:
            np.savez(fh, **arrays)
        os.replace(tmp, path)
    except BaseException:                # (no stray FILE.tmp left behind)
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


#: The arrays a weights file may hold, and the most bytes any one of them may take
#: unpacked (a hidden layer of MAX_HIDDEN units over this build's features is far less):
#: checked before an array is read, so a file cannot make the loader spend memory.
KNOWN_ARRAYS = ("format", "version", "features_version", "feature_names", "meta",
                "calibration", MOVES_MAP, "move_features_version", "move_feature_names", "raw_version",
                "raw_names") + SEARCH_ARRAYS
MAX_ARRAY_BYTES = 1 << 20
#: The largest magnitude of a weight: beyond it sums overflow to nan in the search.
MAX_WEIGHT = 1e6


def _read(path: Path) -> dict[str, Any]:
    name = str(path)
    if path.is_dir():
        raise InvalidWeightsError(name, "a folder, not a weights file")
    if not path.is_file():
        raise InvalidWeightsError(name, "no such file")
    try:
        archive_like = zipfile.is_zipfile(path)
    except OSError as e:
        raise InvalidWeightsError(name, f"cannot read it ({e.strerror or e})") from None
    if not archive_like:
        raise InvalidWeightsError(name, "not a readable weights file: not an .npz archive")
    return read_npz(path, InvalidWeightsError, MAX_ARRAY_BYTES, KNOWN_ARRAYS, "weights file")


def read_npz(path: PathLike, error: type[JaipurError], max_bytes: int,
             known: Sequence[str] = (), what: str = ".npz archive") -> dict[str, Any]:
    """The arrays of the ``.npz`` archive ``path``, every member checked before any array
    is made: each name once, with ``known`` (when given) holding it; an ``.npy`` header
    numpy reads, of numbers or text (no objects); the array its shape and dtype claim
    at most ``max_bytes``, and exactly the data that follow the header in the member.
    So a header that claims more than the file holds costs nothing; ``error(path,
    reason)`` naming the member otherwise (the weights' and the shards' loaders)."""
    name = str(path)
    try:
        with zipfile.ZipFile(path) as archive:
            seen: set[str] = set()
            for info in archive.infolist():
                member = info.filename
                k = member[:-4] if member.endswith(".npy") else member
                if member in seen:
                    raise error(name, f"{k}: the archive holds two members of that name")
                seen.add(member)
                if not member.endswith(".npy"):
                    raise error(name, f"{member}: not an array (.npy) member")
                if known and k not in known:
                    raise error(name, f"unknown arrays: {k}")
                _check_member(archive, info, k, name, error, max_bytes)
        with np.load(path, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except JaipurError:
        raise
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, NotImplementedError,
            zlib.error) as e:
        raise error(name, f"not a readable {what} ({e})") from None


def _check_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, k: str, name: str,
                  error: type[JaipurError], max_bytes: int) -> None:
    """One member's header against its data, streamed through (nothing kept)."""
    with archive.open(info) as fh:
        version = np.lib.format.read_magic(fh)
        if version not in ((1, 0), (2, 0)):
            raise error(name, f"{k}: .npy format version {version[0]}.{version[1]}, "
                              "this build reads 1.0 and 2.0")
        read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                       else np.lib.format.read_array_header_2_0)
        try:
            shape, fortran, dtype = read_header(fh)
        except (SyntaxError, TypeError, tokenize.TokenError, RecursionError) as e:
            # (numpy reads the header as a Python literal, and an old one token by token)
            raise error(name, f"{k}: an .npy header numpy cannot read ({e})") from None
        if dtype.hasobject or dtype.kind not in "biufUS":
            raise error(name, f"{k}: an array of {dtype}, not of numbers or text")
        if any(d < 0 for d in shape):
            raise error(name, f"{k}: its header claims shape {shape}")
        nbytes = math.prod(shape) * dtype.itemsize
        if nbytes > max_bytes:
            raise error(name, f"{k}: its header claims shape {shape} of {dtype}, "
                              f"{nbytes:,} bytes, at most {max_bytes:,}")
        held = info.file_size - fh.tell()
        if held != nbytes:
            raise error(name, f"{k}: its header claims shape {shape} of {dtype}, "
                              f"{nbytes:,} bytes, but the member holds {held:,}")
        left = nbytes
        while left > 0:                   # the data really there (a zip can lie too)
            chunk = fh.read(min(left, 1 << 20))
            if not chunk:
                raise error(name, f"{k}: the member ends {left:,} bytes short of its "
                                  "header's shape")
            left -= len(chunk)


def _check(name: str, z: dict[str, Any]) -> dict[str, Any]:
    """The evaluation's arrays of a file's contents, checked; InvalidWeightsError naming
    the file for anything malformed (a scalar that is an array, text for numbers)."""
    try:
        return _check_contents(name, z)
    except InvalidWeightsError:
        raise
    except (TypeError, ValueError, IndexError) as e:
        raise InvalidWeightsError(name, f"malformed contents ({e})") from None


def _check_contents(name: str, z: dict[str, Any]) -> dict[str, Any]:
    missing = [k for k in ("format", "version", "features_version", "feature_names") + VALUE_ARRAYS
               if k not in z]
    if missing:
        raise InvalidWeightsError(name, f"missing arrays: {', '.join(missing)}")
    if str(z["format"]) != FORMAT:
        raise InvalidWeightsError(name, f"format is {str(z['format'])!r}, expected {FORMAT!r}")
    if int(z["version"]) != VERSION:
        raise InvalidWeightsError(name, f"format version {int(z['version'])}, this build "
                                  f"reads version {VERSION}")
    names = tuple(str(x) for x in z["feature_names"])
    version = int(z["features_version"])
    if FEATURE_SETS.get(version) != names:
        raise InvalidWeightsError(
            name, f"made for features version {version} ({len(names)} features); this "
            f"build computes version {FEATURES_VERSION_PY} ({N_FEATURES_PY} features) and "
            "reads version 1 too: retrain with 'jaipur-ai train'")
    n = len(names)
    a = {k: np.asarray(z[k], np.float64) for k in VALUE_ARRAYS}
    nh = a["hidden_w"].shape[0] if a["hidden_w"].ndim == 2 else -1
    shapes_ok = (a["lin"].shape == (n,) and a["margin"].shape == (n,)
                 and a["hidden_w"].ndim == 2 and a["hidden_w"].shape[1] == n
                 and a["hidden_b"].shape == (nh,) and a["out_w"].shape == (nh,))
    if not shapes_ok:
        raise InvalidWeightsError(name, "array shapes do not match the features "
                                  f"(lin and margin ({n},), hidden_w (H, {n}), hidden_b "
                                  "and out_w (H,))")
    if nh > MAX_HIDDEN:
        raise InvalidWeightsError(name, f"{nh} hidden units, at most {MAX_HIDDEN}")
    if PRIOR_LIN in z:
        a[PRIOR_LIN] = np.asarray(z[PRIOR_LIN], np.float64)
        if a[PRIOR_LIN].shape != (n,):
            raise InvalidWeightsError(name, f"{PRIOR_LIN} must have {n} entries, as lin")
    for k in ("calibration",) + ((MOVES_MAP,) if MOVES_MAP in z else ()):
        a[k] = np.asarray(z.get(k, (1.0, 0.0)), np.float64)
        if a[k].shape not in ((2,), (4,)) or not a[k][0] > 0:
            raise InvalidWeightsError(name, f"{k} must be two numbers a > 0 and b, or "
                                            "four, a > 0, b, c and d")
    a.update(_check_policy(name, z))
    a.update(_check_raw(name, z))
    for k, v in a.items():
        if not np.all(np.isfinite(v)):
            raise InvalidWeightsError(name, f"{k} holds a value that is not finite")
        if np.any(np.abs(v) > MAX_WEIGHT):
            raise InvalidWeightsError(name, f"{k} holds a value beyond ±{MAX_WEIGHT:g}")
    return a


def _check_made_for(name: str, z: dict[str, Any], keys: tuple[str, str], version_now: int,
                    names_now: tuple[str, ...], part: str, what: str) -> None:
    """That a part of a weights file (the move policy, the raw network) was made for the
    inputs this build computes: its version and names (``keys``) are this build's."""
    names = tuple(str(x) for x in z.get(keys[1], ()))
    version = int(z[keys[0]]) if keys[0] in z else None
    if version != version_now or names != names_now:
        raise InvalidWeightsError(
            name, f"{part} was made for {what} version {version} ({len(names)} of them); "
            f"this build computes version {version_now} ({len(names_now)}): retrain it")


def _check_policy(name: str, z: dict[str, Any]) -> dict[str, Any]:
    """The move policy's arrays of a file's contents, checked (none: {})."""
    present = [k for k in POLICY_ARRAYS if k in z]
    if not present:
        return {}
    _check_made_for(name, z, ("move_features_version", "move_feature_names"),
                    MOVE_FEATURES_VERSION_PY, MOVE_FEATURE_NAMES, "its move policy",
                    "move features")
    if ("prior_scale" in z) != ("prior_w" in z):
        raise InvalidWeightsError(name, "prior_scale and prior_w go together")
    a = {k: np.asarray(z[k], np.float64) for k in present}
    m = (len(MOVE_FEATURE_NAMES),)
    for k in present:
        if a[k].shape != (() if k == "prior_scale" else m):
            raise InvalidWeightsError(name, f"{k} must be {'one number' if k == 'prior_scale' else f'{m[0]} numbers'}")
    if "prior_scale" in a and not a["prior_scale"] >= 0:
        raise InvalidWeightsError(name, "prior_scale must be at least 0")
    return a


def _check_raw(name: str, z: dict[str, Any]) -> dict[str, Any]:
    """The raw-input network's arrays of a file's contents, checked (none: {})."""
    present = [k for k in RAW_ARRAYS if k in z]
    if not present:
        return {}
    if len(present) != len(RAW_ARRAYS):
        raise InvalidWeightsError(name, "raw_w, raw_b and raw_out go together")
    _check_made_for(name, z, ("raw_version", "raw_names"), RAW_VERSION_PY, RAW_NAMES,
                    "its raw-input network", "raw inputs")
    a = {k: np.asarray(z[k], np.float64) for k in RAW_ARRAYS}
    nr = a["raw_w"].shape[0] if a["raw_w"].ndim == 2 else -1
    if not (a["raw_w"].ndim == 2 and a["raw_w"].shape[1] == N_RAW_PY
            and a["raw_b"].shape == (nr,) and a["raw_out"].shape == (nr,)):
        raise InvalidWeightsError(name, f"raw network shapes: raw_w (R, {N_RAW_PY}), raw_b "
                                        "and raw_out (R,)")
    if nr > MAX_RAW_HIDDEN:
        raise InvalidWeightsError(name, f"{nr} raw-network units, at most {MAX_RAW_HIDDEN}")
    return a


def read_weights(path: PathLike) -> dict[str, Any]:
    """The checked arrays of a weights file (the value's, the calibration and, where it
    has one, the move policy's), as ``save_weights`` takes them."""
    return _check(str(path), _read(Path(path)))


def evaluation_of(weights: Mapping[str, Any], source: str = "<arrays>") -> Evaluation:
    """The search's Evaluation of weight arrays (as ``read_weights`` gives them, or a
    fit's): the value, the calibration map and, where present, the move policy and the
    priors' own linear value."""
    policy = {k: (float(weights[k]) if k == "prior_scale" else weights[k])
              for k in POLICY_ARRAYS if weights.get(k) is not None}
    moves = weights.get(MOVES_MAP)
    return Evaluation(weights["lin"], weights["margin"], weights["hidden_w"],
                      weights["hidden_b"], weights["out_w"], source=source,
                      calibration=tuple(float(x) for x in weights.get("calibration", (1.0, 0.0))),
                      calibration_moves=None if moves is None else tuple(float(x) for x in moves),
                      prior_lin=weights.get(PRIOR_LIN), raw_w=weights.get("raw_w"),
                      raw_b=weights.get("raw_b"), raw_out=weights.get("raw_out"), **policy)


def load_evaluation(path: PathLike) -> Evaluation:
    """Load and check a weights file; raises InvalidWeightsError naming the file."""
    return evaluation_of(_check(str(path), _read(Path(path))), source=str(Path(path)))


def calibrated(p: float, calibration: Sequence[float], iterations: float = CALIBRATION_BUDGET) -> float:
    """The reported win probability for the search's estimate ``p`` after ``iterations``:
    the search's value of its best move is biased upwards (it is the maximum of noisy
    estimates, the more so the shorter the search), and this map, fitted on self-play
    (``train.fit_calibration``), removes the bias.  ``calibration`` is ``(a, b)``, the
    same map at every budget, or ``(a, b, c, d)``: slope ``a + c x`` and offset
    ``b + d x`` with ``x = ln(iterations / 1000)``.

    >>> round(calibrated(0.8, (1.0, 0.0)), 6), round(calibrated(0.8, (0.5, 0.0)), 4)
    (0.8, 0.6667)
    >>> round(calibrated(0.8, (0.5, 0.0, 0.5 / math.log(10), 0.0), 10_000), 6)
    0.8
    """
    a, b = map_coefficients(calibration, iterations)
    q = min(max(p, 1e-9), 1.0 - 1e-9)
    return _sigmoid(a * math.log(q / (1.0 - q)) + b)


def uncalibrated(p: float, calibration: Sequence[float],
                 iterations: float = CALIBRATION_BUDGET) -> float:
    """The search's estimate that ``calibrated`` maps to ``p`` (its inverse), for
    re-scoring win probabilities reported under another map.

    >>> round(uncalibrated(calibrated(0.8, (1.2, -0.3, 0.1, 0.02), 5000), (1.2, -0.3, 0.1, 0.02), 5000), 9)
    0.8
    """
    a, b = map_coefficients(calibration, iterations)
    q = min(max(p, 1e-12), 1.0 - 1e-12)
    return _sigmoid((math.log(q / (1.0 - q)) - b) / a)


def map_coefficients(calibration: Sequence[float],
                     iterations: float = CALIBRATION_BUDGET) -> tuple[float, float]:
    """The slope and offset of the calibration map on the logit after ``iterations``:
    ``(a, b)`` itself, or ``(a + c x, b + d x)`` with ``x = ln(iterations / 1000)``."""
    a, b = float(calibration[0]), float(calibration[1])
    if len(calibration) == 4:
        x = math.log(max(float(iterations), 1.0) / CALIBRATION_BUDGET)
        # (beyond the budgets it was fitted on, the slope never turns over)
        a, b = max(a + calibration[2] * x, MIN_SLOPE), b + calibration[3] * x
    return a, b


def _sigmoid(z: float) -> float:
    if z >= 0.0:                            # (the two forms keep exp from overflowing)
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def with_calibration(path: PathLike, calibration: Sequence[float], out: PathLike,
                     meta: Mapping[str, Any],
                     calibration_moves: Optional[Sequence[float]] = None) -> None:
    """Write to ``out`` the weights of ``path`` (checked) with other calibration maps
    (``calibration_moves`` None: ``calibration`` serves searches that read the round's
    moves too) and ``meta`` merged into its meta record; ``out`` may be ``path``."""
    z = _read(Path(path))
    a = _check(str(path), z)
    record = _meta(str(path), z)
    record.update(meta)
    weights = {k: a[k] for k in SEARCH_ARRAYS if k in a}
    weights["calibration"] = tuple(float(x) for x in calibration)
    if calibration_moves is not None:
        weights[MOVES_MAP] = tuple(float(x) for x in calibration_moves)
    save_weights(out, weights, record)


def fingerprint(path: PathLike) -> str:
    """Twelve hex digits of a SHA-256 of the weights file's evaluation (its arrays, not
    its calibration map nor its meta record): two files that evaluate alike share it."""
    a = _check(str(path), _read(Path(path)))
    h = hashlib.sha256()
    for k in SEARCH_ARRAYS:
        if k in a:          # (a file without a policy or prior_lin keeps its fingerprint)
            h.update(k.encode() + np.ascontiguousarray(a[k], np.float64).tobytes())
    return h.hexdigest()[:12]


def read_meta(path: PathLike) -> dict[str, Any]:
    """The ``meta`` record of a weights file (how it was made), or {} if it has none."""
    return _meta(str(path), _read(Path(path)))


def _meta(name: str, z: dict[str, Any]) -> dict[str, Any]:
    try:
        record = json.loads(str(z["meta"])) if "meta" in z else {}
    except ValueError:
        record = None
    if not isinstance(record, dict):
        raise InvalidWeightsError(name, "meta is not a JSON object")
    return record


@lru_cache(maxsize=None)
def _cached(path: str, mtime: float) -> Evaluation:
    return load_evaluation(path)


def default_evaluation() -> Evaluation:
    """The shipped weights, loaded once."""
    return cached_evaluation(DEFAULT_WEIGHTS)


#: Earlier defaults' weights, shipped so that an engine spec can name them (the
#: gauntlet of ``jaipur-ai rate``): ``weights=2026-12-04`` is the default of 4 December
#: 2026, before the learned move policy; ``2026-12-06`` the default of 6 December 2026
#: (the move-quality benchmark's rollouts read its move policy).  A file of that name in the working folder
#: would be shadowed: a path with a folder (``./2026-12-04``) names the file.
SHIPPED_WEIGHTS = {"2026-12-04": DEFAULT_WEIGHTS.parent / "weights-2026-12-04.npz",
                   "2026-12-06": DEFAULT_WEIGHTS.parent / "weights-2026-12-06.npz"}
#: The learned linear model that ``evaluation="linear"`` names (shipped weights' name).
LINEAR_WEIGHTS = "2026-12-06"


def named_evaluation(evaluation: str, weights: Optional[PathLike] = None) -> Optional[Evaluation]:
    """The weights an engine's options ``evaluation`` and ``weights`` name, loaded once:
    ``"learned"``, the file ``weights`` or else the shipped weights; ``"linear"``, the
    learned linear model (:data:`LINEAR_WEIGHTS`); ``"heuristic"``, None (the hand-set
    evaluation, in the core)."""
    if evaluation == "heuristic":
        return None
    if evaluation == "linear":
        return cached_evaluation(LINEAR_WEIGHTS)
    return default_evaluation() if weights is None else cached_evaluation(weights)


def cached_evaluation(path: PathLike) -> Evaluation:
    """load_evaluation(path), loaded once per file version (reused across searches);
    ``path`` may be the name of shipped weights (:data:`SHIPPED_WEIGHTS`).

    >>> cached_evaluation("2026-12-04").source.endswith("weights-2026-12-04.npz")
    True
    """
    p = SHIPPED_WEIGHTS.get(str(path), Path(path))
    try:
        mtime = p.stat().st_mtime
    except OSError:
        raise InvalidWeightsError(str(path), "no such file") from None
    return _cached(str(p.resolve()), mtime)
