"""The options table (:data:`jaipur_ai.options.OPTIONS`) as docs/protocol.md shows it:
one Markdown row an option, its accepted values, default and meaning.  A test keeps the
page's table equal to :func:`markdown_table`; ``python -m jaipur_ai.doors.options_doc``
prints it."""
from __future__ import annotations

from typing import Iterable, Optional

from jaipur_ai.options import LATE_SEARCH_OPTIONS, OPTIONS, Option, number_text

__all__ = ["DOC_BEGIN", "DOC_END", "markdown_table", "values_text", "default_text",
           "readers_text"]

DOC_BEGIN = ("<!-- the options table: python -m jaipur_ai.doors.options_doc prints it; "
             "a test compares -->")
DOC_END = "<!-- end of the options table -->"


def values_text(o: Option) -> str:
    """The values ``o`` accepts, in the table's words."""
    if o.kind == "bool":
        return "true, false"
    if o.kind == "choice":
        return ", ".join(f"`{c}`" for c in o.choices)
    if o.kind == "path":
        return "a file"
    lo, hi = number_text(o.lo), number_text(o.hi)
    return f"{'>' if o.lo_open else '≥'} {lo}, ≤ {hi}"


def default_text(o: Option) -> str:
    """``o``'s default, in the table's words."""
    if o.default is None:
        return "none"
    if isinstance(o.default, bool):
        return "true" if o.default else "false"
    if isinstance(o.default, str):
        return f"`{o.default}`"
    if isinstance(o.default, (int, float)):
        return number_text(o.default)
    return str(o.default)


def readers_text(o: Option) -> str:
    """The algorithms that read ``o`` (the others refuse it), in the table's words."""
    if not o.algorithms:
        return "all"
    late = " (ismcts with late_search=expectimax)" if o.name in LATE_SEARCH_OPTIONS else ""
    return ", ".join(o.algorithms) + late


def markdown_table(names: Optional[Iterable[str]] = None) -> str:
    """The table as Markdown (docs/protocol.md holds it between DOC_BEGIN and DOC_END),
    the match, review and server settings left out unless named."""
    if names is None:
        names = [o.name for o in OPTIONS if o.scope not in ("match", "review", "serve")]
    wanted = set(names)
    rows = ["| option | values | default | read by | meaning |",
            "| --- | --- | --- | --- | --- |"]
    rows += [f"| `{o.name}` | {values_text(o)} | {default_text(o)} | {readers_text(o)} | "
             f"{o.doc} |" for o in OPTIONS if o.name in wanted]
    return "\n".join(rows)


if __name__ == "__main__":  # pragma: no cover
    print(markdown_table())
