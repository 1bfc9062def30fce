"""The results file of a match (``jaipur-ai match --out``): one JSON line per finished
game, appended as it finishes, so that a rerun with the same file resumes the match."""
from __future__ import annotations

import gzip
import json
import os
import zlib
import stat
from typing import Any, Optional

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

from jaipur_ai.errors import JaipurError
from jaipur_ai.matches.games import GameRecord

__all__ = ["RESULTS_FORMAT", "ResultsFile", "ResultsFileError", "read_results"]


# ------------------------------------------------------------------ results file
RESULTS_FORMAT = "jaipur-match-results/1"


class ResultsFileError(JaipurError):
    """A results file that cannot be used for this match (field ``out``)."""


class ResultsFile:
    """``--out FILE``: the results of a match, one JSON line per finished game.

    The first line is a header, ``{"format": "jaipur-match-results/1", "settings":
    {...}}`` with what fixes the games (A, B, the match seed, the unit); each later
    line is one game: :meth:`GameRecord.to_dict` plus ``"match_seed"`` and
    ``"game_seed"`` (the seed its searches derive from).  Lines are appended,
    each in one piece, and synced as each game finishes, so a crash loses at most the
    games being played.  Opening an existing file reads its games back (a torn last
    line, from a crash while writing, is cut off); a header with other settings is
    refused (:class:`ResultsFileError`).  A deal and seat found twice count once.
    The file is locked (``flock``) from opening to :meth:`close`: a second match on it
    is refused rather than interleaving its lines with this one's."""

    def __init__(self, path: str, settings: dict[str, Any]) -> None:
        self.path = os.fspath(path)
        self.settings = settings
        self.records: dict[tuple[int, int], GameRecord] = {}
        self._fh: Any = None
        self._end = 0                  # bytes of whole lines: where the next line goes
        self._load()

    @staticmethod
    def check_path(path: str) -> None:
        """ResultsFileError unless ``path`` is a regular file or names none yet: a folder,
        a device (``/dev/zero`` would be read for ever), a FIFO or a socket is refused,
        as ``analyse`` refuses them."""
        try:
            st = os.stat(path)
        except FileNotFoundError:
            return
        except OSError as e:
            raise ResultsFileError("out", f"cannot read {path}: {e.strerror}") from None
        if stat.S_ISDIR(st.st_mode):
            raise ResultsFileError("out", f"{path} is a folder, not a file")
        if not stat.S_ISREG(st.st_mode):
            raise ResultsFileError("out", f"{path} is not a regular file (a FIFO, device or "
                                          "socket): give a file")

    @staticmethod
    def read_settings(path: str) -> Optional[dict[str, Any]]:
        """The settings in the header of ``path`` (None: no file, or no header yet)."""
        ResultsFile.check_path(path)
        try:
            with open(path, "rb") as fh:
                first = fh.readline()
        except FileNotFoundError:
            return None
        except OSError as e:
            raise ResultsFileError("out", f"cannot read {path}: {e.strerror}") from None
        if not first.endswith(b"\n"):
            return None
        try:
            head = json.loads(first)
            return dict(head["settings"]) if head.get("format") == RESULTS_FORMAT else None
        except (ValueError, KeyError, TypeError, AttributeError):
            return None

    def _load(self) -> None:
        self.check_path(self.path)
        try:                 # (made if missing, never emptied: another match may hold it)
            fh = os.fdopen(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666), "r+b",
                           buffering=0)
        except OSError as e:
            raise ResultsFileError("out", f"cannot write {self.path}: {e.strerror}") from None
        try:
            _lock(fh, self.path)
            self._read(fh)
        except BaseException:
            fh.close()
            raise

    def _read(self, fh: Any) -> None:
        """The games of the locked file ``fh`` read back; a torn last line cut off."""
        try:
            data = fh.readall()
        except OSError as e:
            raise ResultsFileError("out", f"cannot read {self.path}: {e.strerror}") from None
        lines = data.split(b"\n")
        good = 0                       # bytes of whole, readable lines
        if data:
            head_ok = len(lines) > 1
            try:
                head = json.loads(lines[0]) if head_ok else None
            except ValueError:
                head = None
            if not isinstance(head, dict) or head.get("format") != RESULTS_FORMAT:
                if head_ok or data.lstrip()[:1] not in (b"{", b""):
                    raise ResultsFileError("out", f"{self.path} is not a match results file "
                                                  f"({RESULTS_FORMAT})")
                head = None            # a header torn while it was written: start again
            if head is not None:
                if head.get("settings") != self.settings:
                    raise ResultsFileError(
                        "out", f"{self.path} holds a match with other settings "
                               f"({_settings_text(head.get('settings'))}; this match: "
                               f"{_settings_text(self.settings)}): use another file")
                good = len(lines[0]) + 1
                # every line but the last ends in a newline; the last one, after the
                # final newline, is empty or a game torn while it was written (cut off)
                for i, line in enumerate(lines[1:-1]):
                    try:
                        rec = GameRecord.from_dict(json.loads(line))
                    except (ValueError, KeyError, TypeError) as e:
                        raise ResultsFileError("out", f"{self.path}: line {i + 2} is not a "
                                                      f"game ({type(e).__name__})") from None
                    self.records.setdefault((rec.deal, rec.a_seat), rec)
                    good += len(line) + 1
        self._fh, self._end = fh, good
        try:
            fh.truncate(good)
        except OSError as e:
            raise ResultsFileError("out", f"cannot write {self.path}: {e.strerror}") from None
        if not good:
            self._write({"format": RESULTS_FORMAT, "settings": self.settings})

    def _write(self, obj: dict[str, Any]) -> None:
        """One line, written whole at the end of the file and synced; a write that fails
        part way is cut off again, so the file never holds a torn line of its own
        making (ResultsFileError)."""
        line = json.dumps(obj, separators=(",", ":")).encode() + b"\n"
        fd = self._fh.fileno()
        try:
            done = 0
            while done < len(line):
                done += os.pwrite(fd, line[done:], self._end + done)
        except OSError as e:
            try:
                os.ftruncate(fd, self._end)
            except OSError:  # pragma: no cover - the file is cut at resume anyway
                pass
            raise ResultsFileError("out", f"cannot write {self.path}: {e.strerror}") from None
        self._end += len(line)
        try:
            os.fsync(fd)
        except OSError:  # pragma: no cover - a file system without fsync
            pass

    def add(self, rec: GameRecord, game_seed: int) -> None:
        key = (rec.deal, rec.a_seat)
        if key in self.records:
            return
        self.records[key] = rec
        self._write({**rec.to_dict(), "match_seed": self.settings["seed"],
                     "game_seed": game_seed})

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


def read_results(path: str) -> tuple[dict[str, Any], list[GameRecord]]:
    """The settings and the games of a results file, read only (no lock: a match may be
    writing it): a torn line is passed over, a deal and seat found twice count once, the
    games in (deal, seat) order.  A name ending in ``.gz`` is read through gzip (as
    bench/results keeps them).  A file that is not one is a :class:`ResultsFileError`."""
    try:
        with (gzip.open if str(path).endswith(".gz") else open)(path, "rb") as fh:
            lines = fh.read().split(b"\n")
    except (OSError, EOFError, zlib.error) as e:
        raise ResultsFileError("results", f"cannot read {path}: "
                                          f"{getattr(e, 'strerror', None) or e}") from None
    try:
        head = json.loads(lines[0])
        if head.get("format") != RESULTS_FORMAT:
            raise ValueError
        settings = dict(head["settings"])
        str(settings["a"]), str(settings["b"])
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
        raise ResultsFileError("results", f"{path} is not a match results file "
                                          f"({RESULTS_FORMAT})") from None
    games: dict[tuple[int, int], GameRecord] = {}
    for line in lines[1:]:
        if not line.strip():
            continue
        try:
            rec = GameRecord.from_dict(json.loads(line))
        except (ValueError, KeyError, TypeError):
            continue              # a torn last line: the game is played again on resume
        games.setdefault((rec.deal, rec.a_seat), rec)
    return settings, [games[k] for k in sorted(games)]


def _lock(fh: Any, path: str) -> None:
    """An exclusive lock on the open results file, held until it is closed: a second
    match writing the same file would interleave its lines with this one's, so it is
    refused (ResultsFileError).  A file system without locks is used unlocked."""
    if fcntl is None:  # pragma: no cover - Windows: no flock
        return
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise ResultsFileError("out", f"{path} is being written by another match (it is "
                                      "locked): wait for that one to end, or use another "
                                      "file") from None
    except OSError:  # pragma: no cover - e.g. ENOLCK on a file system without locks
        pass


def _settings_text(st: Any) -> str:
    if not isinstance(st, dict):
        return "unreadable"
    return ", ".join(f"{k}={st.get(k)}" for k in ("a", "b", "seed", "unit"))
