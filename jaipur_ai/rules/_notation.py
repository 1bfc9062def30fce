"""The written forms of positions: a state's or a view's JSON form read into the core's
raw fields (every field checked, docs/notation.md), and the one-line text form of both,
written from and read into the JSON form."""
from __future__ import annotations

from typing import Any

from jaipur_ai.errors import safe_repr
from jaipur_ai.rules import _fields as F
from jaipur_ai.rules._cards import (BONUS_KINDS, BONUS_SET_IDS, BONUS_SETS, CAMEL, CARD_TOTALS,
                                    GOODS, HAND_LIMIT, LETTERS, MAX_ROUND, SEALS_TO_WIN, TOKENS,
                                    TYPES)

__all__ = ["STATE_FORMAT", "VIEW_FORMAT", "RESULT_CORE", "read_state_dict", "read_view_dict",
           "state_text", "state_dict_of_text", "view_text", "view_dict_of_text"]

STATE_FORMAT = "jaipur-state/1"
VIEW_FORMAT = "jaipur-view/1"
RESULT_CORE = {None: -1, 0: 0, 1: 1, "draw": 2}     # result as stored in the core


# ---------------------------------------------------------------- JSON form

def read_state_dict(d: Any) -> tuple[dict[str, Any], Any]:
    """The raw fields of a full state's JSON form, and its result; InvalidPositionError
    naming the field and the reason for anything that cannot occur in a game (the
    round's status against its totals is checked on the state, by the caller)."""
    F.check_nesting(d)
    fmt = F.get(d, "format", "")
    if fmt != STATE_FORMAT:
        raise F.fail("format", f"expected {safe_repr(STATE_FORMAT)}, got {safe_repr(fmt)}")
    bonus_set = F.bonus_set_name(F.get(d, "bonus_set", ""))
    players_in = F.get(d, "players", "")
    if not isinstance(players_in, list) or len(players_in) != 2:
        raise F.fail("players", "expected a list of two players")
    hands, herds, knowns, held_tok, held_bonus = [], [], [], [], []
    for p, pl in enumerate(players_in):
        f = f"players[{p}]"
        hand = F.cards(F.get(pl, "hand", f), f"{f}.hand", allow_camels=False)
        F.check_hand(hand, f"{f}.hand")
        known = F.cards(F.get(pl, "known", f), f"{f}.known", allow_camels=False)
        F.check_known(known, hand, f"{f}.known")
        hands.append(hand)
        knowns.append(known)
        herds.append(F.as_int(F.get(pl, "herd", f), f"{f}.herd", 0, 11))
        held_tok.append(F.held_tokens(F.get(pl, "tokens", f), f"{f}.tokens"))
        bmap = F.kind_map(F.get(pl, "bonus", f), f"{f}.bonus")
        held_bonus.append([F.int_list(bmap[k], f"{f}.bonus.{BONUS_KINDS[k]}", 10)
                           for k in range(3)])
    market = F.cards(F.get(d, "market", ""), "market")
    deck = F.card_list(F.get(d, "deck", ""), "deck")
    discard = F.cards(F.get(d, "discard", ""), "discard", allow_camels=False)
    total = [market[t] + discard[t] + hands[0][t] + hands[1][t] for t in range(7)]
    for c in deck:
        total[c] += 1
    total[CAMEL] += herds[0] + herds[1]
    F.check_card_totals(total, "cards", exact=True)
    taken = F.remaining_tokens(F.get(d, "tokens", ""), "tokens")
    owners = F.token_owners(taken, held_tok, "players[*].tokens")
    F.check_sold(taken, discard)
    bmap = F.kind_map(F.get(d, "bonus", ""), "bonus")
    bonus_stacks, bonus_pos, bonus_owner = [], [], []
    for k in range(3):
        rest = F.int_list(bmap[k], f"bonus.{BONUS_KINDS[k]}", 10)
        stack = held_bonus[0][k] + held_bonus[1][k] + rest
        F.check_bonus_multiset(bonus_set, k, stack, f"bonus.{BONUS_KINDS[k]}", exact=True)
        bonus_stacks.append(stack)
        n0, n1 = len(held_bonus[0][k]), len(held_bonus[1][k])
        bonus_pos.append(n0 + n1)
        bonus_owner.append(((1 << n1) - 1) << n0)
    result = F.result_value(F.get(d, "result", ""))
    raw = {
        "market": market,
        "hand": [h[:GOODS] for h in hands],
        "herd": herds,
        "known": [k[:GOODS] for k in knowns],
        "discard": discard[:GOODS],
        "deck": list(reversed(deck)),
        "tok_pos": taken,
        "tok_owner": owners,
        "bonus": bonus_stacks,
        "bonus_pos": bonus_pos,
        "bonus_owner": bonus_owner,
        "to_move": F.as_int(F.get(d, "to_move", ""), "to_move", 0, 1),
        "starter": F.as_int(F.get(d, "starter", ""), "starter", 0, 1),
        "round_no": F.as_int(F.get(d, "round", ""), "round", 1, MAX_ROUND),
        "seals": [F.as_int(s, f"seals[{i}]", 0, SEALS_TO_WIN)
                  for i, s in enumerate(_pair(F.get(d, "seals", ""), "seals"))],
        "bonus_set": BONUS_SET_IDS[bonus_set],
        "result": RESULT_CORE[result],
    }
    return raw, result


def read_view_dict(d: Any) -> tuple[dict[str, Any], int, int]:
    """The raw fields of a view's JSON form, its observer and the opponent's hand size;
    InvalidPositionError naming the field and the reason."""
    F.check_nesting(d)
    fmt = F.get(d, "format", "")
    if fmt != VIEW_FORMAT:
        raise F.fail("format", f"expected {safe_repr(VIEW_FORMAT)}, got {safe_repr(fmt)}")
    obs = F.as_int(F.get(d, "observer", ""), "observer", 0, 1)
    opp = 1 - obs
    bonus_set = F.bonus_set_name(F.get(d, "bonus_set", ""))
    players_in = F.get(d, "players", "")
    if not isinstance(players_in, list) or len(players_in) != 2:
        raise F.fail("players", "expected a list of two players")
    fo, fp = f"players[{obs}]", f"players[{opp}]"
    me, them = players_in[obs], players_in[opp]
    hand = F.cards(F.get(me, "hand", fo), f"{fo}.hand", allow_camels=False)
    F.check_hand(hand, f"{fo}.hand")
    my_known = F.cards(F.get(me, "known", fo), f"{fo}.known", allow_camels=False)
    F.check_known(my_known, hand, f"{fo}.known")
    opp_n = F.as_int(F.get(them, "hand_size", fp), f"{fp}.hand_size", 0, HAND_LIMIT)
    opp_known = F.cards(F.get(them, "known", fp), f"{fp}.known", allow_camels=False)
    if sum(opp_known) > opp_n:
        raise F.fail(f"{fp}.known", f"{sum(opp_known)} known cards in a hand of {opp_n}")
    herds = [0, 0]
    herds[obs] = F.as_int(F.get(me, "herd", fo), f"{fo}.herd", 0, 11)
    herds[opp] = F.as_int(F.get(them, "herd", fp), f"{fp}.herd", 0, 11)
    held_tok = [F.held_tokens(F.get(players_in[p], "tokens", f"players[{p}]"),
                              f"players[{p}].tokens") for p in range(2)]
    my_bonus_map = F.kind_map(F.get(me, "bonus", fo), f"{fo}.bonus")
    my_bonus = [F.int_list(my_bonus_map[k], f"{fo}.bonus.{BONUS_KINDS[k]}", 10)
                for k in range(3)]
    their_map = F.kind_map(F.get(them, "bonus", fp), f"{fp}.bonus")
    their_bonus = [F.as_int(their_map[k], f"{fp}.bonus.{BONUS_KINDS[k]}", 0, 7)
                   for k in range(3)]
    left_map = F.kind_map(F.get(d, "bonus_left", ""), "bonus_left")
    left = [F.as_int(left_map[k], f"bonus_left.{BONUS_KINDS[k]}", 0, 7) for k in range(3)]

    market = F.cards(F.get(d, "market", ""), "market")
    discard = F.cards(F.get(d, "discard", ""), "discard", allow_camels=False)
    deck_size = F.as_int(F.get(d, "deck_size", ""), "deck_size", 0, 55)
    seen = [market[t] + discard[t] + hand[t] + opp_known[t] for t in range(TYPES)]
    seen[CAMEL] += herds[0] + herds[1]
    F.check_card_totals(seen, "cards", exact=False)
    unseen = [CARD_TOTALS[t] - seen[t] for t in range(TYPES)]
    unknown_slots = opp_n - sum(opp_known)
    if sum(unseen[:GOODS]) < unknown_slots:
        raise F.fail(f"{fp}.hand_size",
                     f"{unknown_slots} unknown cards in the opponent's hand but only "
                     f"{sum(unseen[:GOODS])} goods are unseen")
    if sum(unseen) != unknown_slots + deck_size:
        raise F.fail("deck_size",
                     f"{sum(unseen)} cards are unseen ({F.letters(unseen) or 'none'}): the deck "
                     f"and the opponent's {unknown_slots} unknown hand cards must hold "
                     f"exactly them, so the deck holds {sum(unseen) - unknown_slots}, "
                     f"not {deck_size}")
    taken = F.remaining_tokens(F.get(d, "tokens", ""), "tokens")
    owners = F.token_owners(taken, held_tok, "players[*].tokens")
    F.check_sold(taken, discard)
    stacks, pos, owner_bits = [], [], []
    for k in range(3):
        name = BONUS_KINDS[k]
        F.check_bonus_multiset(bonus_set, k, my_bonus[k], f"{fo}.bonus.{name}", exact=False)
        size = len(BONUS_SETS[bonus_set][k])
        if len(my_bonus[k]) + their_bonus[k] + left[k] != size:
            raise F.fail(f"bonus_left.{name}",
                         f"{len(my_bonus[k])} + {their_bonus[k]} held and {left[k]} left "
                         f"make {len(my_bonus[k]) + their_bonus[k] + left[k]}, the "
                         f"{name}-card set has {size}")
        n = [0, 0]
        n[obs], n[opp] = len(my_bonus[k]), their_bonus[k]
        # Player 0's tokens first, then player 1's, then the stack (values
        # the observer cannot see are 0).
        vals = {obs: my_bonus[k], opp: [0] * their_bonus[k]}
        stacks.append(vals[0] + vals[1] + [0] * left[k])
        pos.append(n[0] + n[1])
        owner_bits.append(((1 << n[1]) - 1) << n[0])
    result = F.result_value(F.get(d, "result", ""))
    seals = d.get("seals")
    if not isinstance(seals, list) or len(seals) != 2:
        raise F.fail("seals", f"expected a pair, got {safe_repr(seals)}")
    hands = [[0] * GOODS, [0] * GOODS]
    hands[obs], hands[opp] = hand[:GOODS], opp_known[:GOODS]
    knowns = [[0] * GOODS, [0] * GOODS]
    knowns[obs], knowns[opp] = my_known[:GOODS], opp_known[:GOODS]
    raw: dict[str, Any] = {
        "market": market, "hand": hands, "herd": herds, "known": knowns,
        "discard": discard[:GOODS], "deck": [0] * deck_size,
        "tok_pos": taken, "tok_owner": owners,
        "bonus": stacks, "bonus_pos": pos, "bonus_owner": owner_bits,
        "to_move": F.as_int(F.get(d, "to_move", ""), "to_move", 0, 1),
        "starter": F.as_int(F.get(d, "starter", ""), "starter", 0, 1),
        "round_no": F.as_int(F.get(d, "round", ""), "round", 1, MAX_ROUND),
        "seals": [F.as_int(s, f"seals[{i}]", 0, SEALS_TO_WIN) for i, s in enumerate(seals)],
        "bonus_set": BONUS_SET_IDS[bonus_set],
        "result": RESULT_CORE[result],
    }
    empty = sum(1 for g in range(GOODS) if taken[g] == len(TOKENS[g]))
    F.check_round_end(result, market, deck_size, empty)
    F.check_seals(raw["seals"], raw["round_no"], result)
    return raw, obs, opp_n


def _pair(x: Any, field: str) -> list[Any]:
    if not isinstance(x, (list, tuple)) or len(x) != 2:
        raise F.fail(field, f"expected a pair, got {safe_repr(x)}")
    return list(x)


# ---------------------------------------------------------------- one-line text
# Fields that the one-line forms of a state and of a view share (docs/notation.md).

def text_head(d: dict[str, Any]) -> str:
    return (f"{d['round']}.{d['starter']}.{d['to_move']}.{d['seals'][0]}{d['seals'][1]}"
            f".{F.RESULT_TEXT[d['result']]}")


def parse_text_head(text: str, d: dict[str, Any]) -> None:
    rnd, starter, to_move, seals, result = F.split(text, ".", 5, "round.starter.to_move.seals.result")
    d["round"] = F.parse_int(rnd, "round", 1, MAX_ROUND)
    d["starter"] = F.parse_int(starter, "starter", 0, 1)
    d["to_move"] = F.parse_int(to_move, "to_move", 0, 1)
    if len(seals) != 2 or not F.is_digits(seals):
        raise F.fail("seals", f"expected two digits, got {safe_repr(seals)}")
    d["seals"] = [int(seals[0]), int(seals[1])]
    if result not in F.TEXT_RESULT:
        raise F.fail("result", f"expected '-', '0', '1' or '=', got {safe_repr(result)}")
    d["result"] = F.TEXT_RESULT[result]


def parse_stacks(text: str) -> dict[str, list[int]]:
    if len(text) != GOODS or not F.is_digits(text):
        raise F.fail("tokens", f"expected six digits (tokens left in each stack), got {safe_repr(text)}")
    out = {}
    for g in range(GOODS):
        n = int(text[g])
        if n > len(TOKENS[g]):
            raise F.fail(f"tokens.{LETTERS[g]}", f"{n} tokens left, the stack has {len(TOKENS[g])}")
        out[LETTERS[g]] = list(TOKENS[g][len(TOKENS[g]) - n:])
    return out


def parse_held_tokens(text: str, field: str) -> dict[str, list[int]]:
    groups = F.split(text, ".", GOODS, field)
    return {LETTERS[g]: F.parse_digits(groups[g], f"{field}.{LETTERS[g]}") for g in range(GOODS)}


def parse_held_bonus(text: str, field: str) -> dict[str, list[int]]:
    groups = F.split(text, ".", 3, field)
    return {k: F.parse_digits(groups[i], f"{field}.{k}") for i, k in enumerate(BONUS_KINDS)}


def state_text(d: dict[str, Any]) -> str:
    """The one-line text form of a state's JSON form (docs/notation.md, like chess's FEN)."""
    head = text_head(d)
    stacks = "".join(str(len(d["tokens"][g])) for g in LETTERS[:GOODS])
    bonus = ".".join(F.digits(d["bonus"][k]) for k in BONUS_KINDS)
    players = [
        "/".join([F.dash(pl["hand"]), str(pl["herd"]), F.dash(pl["known"]),
                  ".".join(F.digits(pl["tokens"][g]) for g in LETTERS[:GOODS]),
                  ".".join(F.digits(pl["bonus"][k]) for k in BONUS_KINDS)])
        for pl in d["players"]
    ]
    parts = ["S", head, F.dash(d["market"]), F.dash(d["deck"]), F.dash(d["discard"]),
             stacks, bonus, *players]
    if d["bonus_set"] != "standard":
        parts.append(d["bonus_set"])
    return " ".join(parts)


def state_dict_of_text(text: str) -> dict[str, Any]:
    """The JSON form (not yet checked) of a state's one-line text form."""
    parts, bonus_set = F.text_fields(text, "S", 9)
    d: dict[str, Any] = {"format": STATE_FORMAT, "bonus_set": bonus_set}
    parse_text_head(parts[1], d)
    d["market"], d["deck"], d["discard"] = parts[2], parts[3], parts[4]
    d["tokens"] = parse_stacks(parts[5])
    groups = F.split(parts[6], ".", 3, "bonus")
    d["bonus"] = {k: F.parse_digits(groups[i], f"bonus.{k}") for i, k in enumerate(BONUS_KINDS)}
    d["players"] = []
    for p in range(2):
        f = f"players[{p}]"
        hand, herd, known, toks, bonus = F.split(parts[7 + p], "/", 5, f)
        d["players"].append({
            "hand": hand, "known": known,
            "herd": F.parse_int(herd, f"{f}.herd", 0, 11),
            "tokens": parse_held_tokens(toks, f"{f}.tokens"),
            "bonus": parse_held_bonus(bonus, f"{f}.bonus"),
        })
    return d


def view_text(d: dict[str, Any]) -> str:
    """The one-line text form of a view's JSON form: ``V <round.starter.to_move.seals.result>
    <observer> <market> <deck size> <discard> <stacks> <bonus left> <player0> <player1>``."""
    obs = d["observer"]
    stacks = "".join(str(len(d["tokens"][g])) for g in LETTERS[:GOODS])
    left = "".join(str(d["bonus_left"][k]) for k in BONUS_KINDS)
    players = []
    for p, pl in enumerate(d["players"]):
        toks = ".".join(F.digits(pl["tokens"][g]) for g in LETTERS[:GOODS])
        if p == obs:
            first = F.dash(pl["hand"])
            bonus = ".".join(F.digits(pl["bonus"][k]) for k in BONUS_KINDS)
        else:
            first = str(pl["hand_size"])
            bonus = ".".join(str(pl["bonus"][k]) for k in BONUS_KINDS)
        players.append("/".join([first, str(pl["herd"]), F.dash(pl["known"]), toks, bonus]))
    parts = ["V", text_head(d), str(obs), F.dash(d["market"]), str(d["deck_size"]),
             F.dash(d["discard"]), stacks, left, *players]
    if d["bonus_set"] != "standard":
        parts.append(d["bonus_set"])
    return " ".join(parts)


def view_dict_of_text(text: str) -> dict[str, Any]:
    """The JSON form (not yet checked) of a view's one-line text form."""
    parts, bonus_set = F.text_fields(text, "V", 10)
    d: dict[str, Any] = {"format": VIEW_FORMAT, "bonus_set": bonus_set}
    parse_text_head(parts[1], d)
    obs = d["observer"] = F.parse_int(parts[2], "observer", 0, 1)
    d["market"] = parts[3]
    d["deck_size"] = F.parse_int(parts[4], "deck_size", 0, 55)
    d["discard"] = parts[5]
    d["tokens"] = parse_stacks(parts[6])
    if len(parts[7]) != 3 or not F.is_digits(parts[7]):
        raise F.fail("bonus_left", f"expected three digits, got {safe_repr(parts[7])}")
    d["bonus_left"] = {k: int(parts[7][i]) for i, k in enumerate(BONUS_KINDS)}
    d["players"] = []
    for p in range(2):
        f = f"players[{p}]"
        first, herd, known, toks, bonus = F.split(parts[8 + p], "/", 5, f)
        pl: dict[str, Any] = {"herd": F.parse_int(herd, f"{f}.herd", 0, 11), "known": known,
                              "tokens": parse_held_tokens(toks, f"{f}.tokens")}
        if p == obs:
            pl["hand"] = first
            pl["bonus"] = parse_held_bonus(bonus, f"{f}.bonus")
        else:
            pl["hand_size"] = F.parse_int(first, f"{f}.hand_size", 0, HAND_LIMIT)
            groups = F.split(bonus, ".", 3, f"{f}.bonus")
            pl["bonus"] = {k: F.parse_int(groups[i], f"{f}.bonus.{k}", 0, 7)
                           for i, k in enumerate(BONUS_KINDS)}
        d["players"].append(pl)
    return d
