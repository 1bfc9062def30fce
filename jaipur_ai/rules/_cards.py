"""The figures of the game (docs/rules.md, section 1, "Components") and the card letters.

Card types are numbered as in the compiled core: 0 diamond, 1 gold, 2 silver,
3 cloth, 4 spice, 5 leather (goods) and 6 camel.
"""
from __future__ import annotations

from typing import Sequence

GOODS = 6
CAMEL = 6
TYPES = 7
LETTERS = "DGSCPLM"                     # canonical one-letter names, in type order
NAMES = ("diamond", "gold", "silver", "cloth", "spice", "leather", "camel")
PRECIOUS = (0, 1, 2)                    # need a sale of at least 2
CARD_TOTALS = (6, 6, 6, 8, 8, 10, 11)   # 55 cards
HAND_LIMIT = 7
MARKET_SIZE = 5
CAMEL_TOKEN = 5
SEALS_TO_WIN = 2
MAX_ROUND = 255                         # the core numbers rounds in one byte

TOKENS = (                              # goods-token stacks, top first
    (7, 7, 5, 5, 5),
    (6, 6, 5, 5, 5),
    (5, 5, 5, 5, 5),
    (5, 3, 3, 2, 2, 1, 1),
    (5, 3, 3, 2, 2, 1, 1),
    (4, 3, 2, 1, 1, 1, 1, 1, 1),
)

BONUS_KINDS = ("3", "4", "5")           # bonus for a sale of 3, 4, 5 or more
BONUS_SETS = {                          # rules option fixed at the start of a round
    "standard": ((1, 1, 2, 2, 2, 3, 3), (4, 4, 5, 5, 6, 6), (8, 8, 9, 10, 10)),
    "pairs": ((1, 1, 2, 2, 3, 3), (4, 4, 5, 5, 6, 6), (8, 8, 9, 9, 10, 10)),
}
BONUS_SET_IDS = {"standard": 0, "pairs": 1}


def cards_to_str(counts: Sequence[int]) -> str:
    """Counts by type -> canonical letters, e.g. ``(1, 0, 0, 0, 0, 2, 1) -> 'DLLM'``."""
    return "".join(LETTERS[t] * int(n) for t, n in enumerate(counts))


def empty_stacks(tok_pos: Sequence[int]) -> int:
    """How many goods-token stacks are empty, from the tokens taken from each
    (``tok_pos`` of the core's state): the round ends when three are."""
    return sum(1 for g in range(GOODS) if tok_pos[g] >= len(TOKENS[g]))
