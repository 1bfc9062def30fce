"""Re-record the outputs of the docs' console sessions and protocol transcripts from
the current build (after a change that moves the engine's answers, such as new
weights), keeping every line that still matches and every ``...`` marker.

    python tests/update_docs.py            # rewrite README.md and docs/*.md in place
    python tests/update_docs.py --check    # only list the examples that no longer match

An expected line that holds ``...`` and no longer matches is not guessed at: it is
listed for a person to mend, as is an example whose line count changed around a
``...`` line.  tests/test_docs.py is the judge; run it afterwards.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_docs import (DOCS, FENCE, is_time_limited, matches, run_command,  # noqa: E402
                       serve_lines)


def _line_ok(expected: str, actual: str) -> bool:
    return matches([expected], actual + "\n")


def realign(expected: list[str], actual: list[str]) -> tuple[list[str], list[str]]:
    """The expected lines mended from the actual ones: the part before the first
    standalone ``...`` is aligned with the top of the output, the part after the last
    one with its bottom, line by line; returns (new lines, problems)."""
    while expected and expected[-1] == "":
        expected = expected[:-1]
    marks = [i for i, e in enumerate(expected) if e.strip() == "..."]
    problems: list[str] = []
    if not marks:
        if len(expected) != len(actual):
            if any("..." in e for e in expected):
                return expected, ["line count changed and the example has ... markers"]
            return list(actual), []
        heads, tails = list(range(len(expected))), []
    else:
        heads = list(range(marks[0]))
        tails = list(range(marks[-1] + 1, len(expected)))
        if len(heads) + len(tails) > len(actual):
            return expected, ["fewer output lines than the example keeps"]
    new = list(expected)
    for i in heads:
        _mend(new, i, actual[i], problems)
    for k, i in enumerate(reversed(tails)):
        _mend(new, i, actual[len(actual) - 1 - k], problems)
    return new, problems


def _mend(new: list[str], i: int, actual: str, problems: list[str]) -> None:
    if _line_ok(new[i], actual):
        return
    if "..." in new[i]:
        mended = _elide_like(new[i], actual)
        if mended is None:
            problems.append(f"line with ...: {new[i]!r} / now {actual!r}")
            return
        new[i] = mended
        return
    new[i] = actual


def _elide_like(expected: str, actual: str, context: int = 12) -> "str | None":
    """``actual`` with ``...`` where ``expected`` has them, each found between the same
    few characters of context (``"elapsed": ...,`` in a JSON answer); None when a
    context is not in ``actual``."""
    parts = expected.split("...")
    out, pos = [], 0
    for left, right in zip(parts, parts[1:]):
        a = actual.find(left[-context:], pos) if left else pos
        if a < 0:
            return None
        a += len(left[-context:])
        if right:
            b = actual.find(right[:context], a)
            if b < 0:
                return None
        else:
            b = len(actual)
        out.append(actual[pos:a] + "...")
        pos = b
    out.append(actual[pos:])
    mended = "".join(out)
    return mended if _line_ok(mended, actual) else None


def update_block(block: str) -> tuple[str, list[str]]:
    """A fenced block's text with its outputs re-recorded; (text, problems)."""
    rows = block.splitlines()
    problems: list[str] = []
    if rows and rows[0].startswith("$ "):
        out: list[str] = []
        k = 0
        while k < len(rows):
            command = rows[k][2:]
            j = k + 1
            while j < len(rows) and not rows[j].startswith("$ "):
                j += 1
            expected = rows[k + 1:j]
            actual = run_command(command)
            if not matches(expected, actual):
                lines = [r.rstrip() for r in actual.splitlines()]
                trailing = len(expected) - len("\n".join(expected).rstrip("\n").split("\n"))
                expected, p = realign(expected, lines)
                expected += [""] * trailing
                problems += [f"$ {command}: {x}" for x in p]
            out += [rows[k], *expected]
            k = j
        return "\n".join(out) + "\n", problems
    if rows and rows[0].startswith("> "):
        requests = [r[2:] for r in rows if r.startswith("> ")]
        answers = [r[2:] for r in rows if r.startswith("< ")]
        if any(is_time_limited(r) for r in requests) or matches(answers,
                                                               "\n".join(serve_lines(requests))):
            return block, []
        actual = serve_lines(requests)
        new, p = realign(answers, actual)
        if p:
            return block, p
        it = iter(new)
        return "\n".join(r if not r.startswith("< ") else "< " + next(it)
                         for r in rows) + "\n", []
    return block, []


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="list, do not rewrite")
    a = ap.parse_args(argv)
    left = 0
    for path in DOCS:
        text = path.read_text()
        pieces, pos, changed = [], 0, False
        for m in FENCE.finditer(text):
            block = m.group(1)
            new, problems = update_block(block)
            line = text.count("\n", 0, m.start(1)) + 1
            if new != block:
                changed = True
                print(f"{path.name}:{line}: re-recorded")
            for p in problems:
                left += 1
                print(f"{path.name}:{line}: to mend by hand: {p}")
            pieces += [text[pos:m.start(1)], new]
            pos = m.end(1)
        pieces.append(text[pos:])
        if changed and not a.check:
            path.write_text("".join(pieces))
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
