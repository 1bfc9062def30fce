"""``jaipur-ai web``'s server and JSON API, without a browser (tests/test_web_browser.py
drives the page): games, moves, the engine's replies from its own view, records,
hints, positions, streamed analyses, and bad requests of every kind, through
:meth:`WebApp.handle` and over real sockets.  Nothing asserts on clocks.
"""
from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jaipur_ai as jp
from jaipur_ai.doors import cli
from jaipur_ai.doors import web
from jaipur_ai.doors import webapi
from jaipur_ai.search.engine import Engine
from jaipur_ai.matches.record import GameRecord
from jaipur_ai.doors.webapi import PAGE_DIR, WebApp
from processes import default_sigint

ROOT = Path(__file__).resolve().parent.parent
LEVEL = "ismcts:iterations=40"
SAMPLE = "V 1.0.1.00.- 1 GSCLL 36 PP 555759 765 4/0/G/-.-.-.-.53.-/0.0.0 " \
         "SCPP/4/-/-.-.-.-.-.-/-.-.-"
TIMEOUT = 30.0     # a guard against a hung server, never a timing assertion


def post(app: WebApp, path: str, body) -> webapi.Response:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return app.handle("POST", path, raw)


@pytest.fixture(scope="module")
def app():
    return WebApp(level=LEVEL, hint="ismcts:iterations=100")


def new_game(app, **fields):
    r = post(app, "/api/games", fields)
    assert r.status == 200, r.body
    return r.json()


def play_first_moves(app, table, n):
    for _ in range(n):
        if table["round_over"]:
            break
        r = post(app, f"/api/games/{table['id']}/move", {"move": table["legal_moves"][0]})
        assert r.status == 200, r.body
        table = r.json()
    return table


# --------------------------------------------------------------------------- games
def test_a_game_is_the_players_view_and_the_engine_replies(app):
    t = new_game(app, seed=5, you=1)
    assert t["you"] == 1 and t["engine"] == LEVEL and t["turn"] == "you"
    v = t["view"]
    assert v["format"] == "jaipur-view/1" and v["observer"] == 1
    assert "hand" in v["players"][1] and "hand" not in v["players"][0]   # fair: no peeking
    assert jp.View.from_text(t["position"]).to_dict() == v
    assert t["legal_moves"] == [str(m) for m in jp.View.from_text(t["position"]).legal_moves()]
    before = len(t["history"])
    t2 = post(app, f"/api/games/{t['id']}/move", {"move": t["legal_moves"][0]}).json()
    assert t2["history"][before] == {"ply": before + 1, "by": "you", "move": t["legal_moves"][0],
                                     "position": t["position"]}       # your view before it
    assert all(jp.View.from_text(h["position"]).observer == 1 for h in t2["history"])
    if not t2["round_over"]:
        assert t2["history"][-1]["by"] == "engine"
        assert t2["last_engine_move"] == t2["history"][-1]["move"]
        assert t2["turn"] == "you"
    assert app.handle("GET", f"/api/games/{t['id']}").json() == t2


def test_moves_are_read_forgivingly_and_checked(app):
    t = new_game(app, seed=8, you=0)
    gid = t["id"]
    take = next(m for m in t["legal_moves"] if m.startswith("take "))
    name = {"D": "diamond", "G": "gold", "S": "silver", "C": "cloth", "P": "spice",
            "L": "leather"}[take[-1]]
    r = post(app, f"/api/games/{gid}/move", {"move": f"  TAKE {name} "})
    assert r.status == 200 and r.json()["history"][len(t["history"])]["move"] == take


def test_the_engine_sees_only_its_own_view(monkeypatch):
    seen = []
    real = Engine.best_move

    def spy(self, position, *a, **k):
        seen.append(position)
        return real(self, position, *a, **k)

    monkeypatch.setattr(Engine, "best_move", spy)
    app = WebApp(level=LEVEL, hint="greedy")
    t = new_game(app, seed=21, you=0)
    t = play_first_moves(app, t, 12)
    assert seen and all(isinstance(p, jp.View) and p.observer == 1 for p in seen)


def test_same_seed_same_game_in_the_terminal_and_in_the_browser(capsys, monkeypatch):
    app = WebApp(level=LEVEL, hint="greedy")
    t = new_game(app, seed=9, you=0)
    mine = []
    for _ in range(6):
        mine.append(t["legal_moves"][-1])
        t = post(app, f"/api/games/{t['id']}/move", {"move": mine[-1]}).json()
        if t["round_over"]:
            break
    web_engine = [h["move"] for h in t["history"] if h["by"] == "engine"]
    import io
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(mine) + "\nquit\n"))
    assert cli.main(["play", "--level", LEVEL, "--seed", "9", "--you", "0"]) == 0
    out = capsys.readouterr().out
    played = re.findall(r"engine plays: (.*?)   \(", out)
    assert played[:len(web_engine)] == web_engine


def test_the_record_replays_what_was_played(app):
    t = play_first_moves(app, new_game(app, seed=3, you=0), 8)
    r = app.handle("GET", f"/api/games/{t['id']}/record")
    rec = GameRecord.from_dict(r.json())          # replayed and checked
    assert rec.source == "web" and rec.players == {"human": "human", "engine": LEVEL}
    assert rec.games[0]["rounds"][0]["moves"] == [h["move"] for h in t["history"]]


def test_the_engines_last_move_says_where_its_cards_went(app):
    seen = set()
    for seed in range(12):
        t = new_game(app, seed=seed, you=0)
        for _ in range(6):
            if t["round_over"] or t["last_engine_cards"] is None:
                break
            moved, move = t["last_engine_cards"], jp.Move.parse(t["last_engine_move"])
            seen.add(move.kind)
            letter = str(move).split()[-1][-1]       # take X / sell nX: the good's letter
            if move.kind == "take":
                assert moved["hand"] == letter and len(moved["market"]) == 1
                assert moved["herd"] == 0 and moved["discard"] == ""
            elif move.kind == "camels":
                assert moved["herd"] == len(moved["market"]) >= 1 and moved["hand"] == ""
            elif move.kind == "sell":
                assert moved["discard"] == letter * move.count and moved["market"] == ""
            else:                        # an exchange: the market gets what it gave
                given = str(move).split(" for ")[1]
                assert sorted(moved["market"]) == sorted(given)
                assert moved["herd"] == 0
            t = post(app, f"/api/games/{t['id']}/move", {"move": t["legal_moves"][0]}).json()
    assert {"take", "camels"} <= seen


def test_the_hint_says_why_its_best_move_beats_the_runner_up(app):
    from test_review import check_why
    said = 0
    for seed in range(4):
        t = new_game(app, seed=seed, you=0)
        h = post(app, f"/api/games/{t['id']}/hint", {}).json()
        c = h["candidates"]
        if len(c) < 2:
            assert h["why"] is None
            continue
        check_why(h["why"], jp.Move.parse(c[0]["move"]), c[0]["win_probability"],
                  [jp.Move.parse(m) for m in c[0]["pv"]], jp.Move.parse(c[1]["move"]),
                  c[1]["win_probability"], (c[0]["expected_margin"], c[1]["expected_margin"]))
        said += 1
    assert said >= 3


def test_a_line_is_played_out_on_the_cards_as_they_were(app):
    t = play_first_moves(app, new_game(app, seed=13, you=0), 300)
    assert t["round_over"]
    gid = t["id"]
    rec = GameRecord.from_dict(app.handle("GET", f"/api/games/{gid}/record").json())
    moves = rec.games[0]["rounds"][0]["moves"]
    # the moves really played, from before move 3: the mover's views of the real game
    r = post(app, f"/api/games/{gid}/line", {"round": 1, "ply": 3, "moves": moves[2:6]}).json()
    states = [s for _, _, _, s, _ in rec.replay()]
    mover = states[2].to_move
    assert r["stopped"] is None
    assert r["views"] == [states[k].view(mover).to_dict() for k in range(3, 7)]
    # an illegal move ends the line, saying why
    r = post(app, f"/api/games/{gid}/line", {"round": 1, "ply": 3,
                                             "moves": [moves[2], "sell 5D"]}).json()
    assert len(r["views"]) == 1 and r["stopped"]["index"] == 1
    for fields, field in [({"round": 2, "ply": 1, "moves": []}, "round"),
                          ({"round": 1, "ply": 0, "moves": []}, "ply"),
                          ({"round": 1, "ply": 1, "moves": "take D"}, "moves")]:
        assert post(app, f"/api/games/{gid}/line", fields).json()["error"]["field"] == field
    # once the next round is dealt, the finished round's lines still play; the round
    # being played shows none (its real draws are still to come)
    t = post(app, f"/api/games/{gid}/next", {}).json()
    assert t["round"] == 2 and not t["round_over"]
    r = post(app, f"/api/games/{gid}/line", {"round": 1, "ply": 3, "moves": moves[2:6]}).json()
    assert r["views"] == [states[k].view(mover).to_dict() for k in range(3, 7)]
    t = play_first_moves(app, t, 2)
    err = post(app, f"/api/games/{gid}/line", {"round": 2, "ply": 1, "moves": []}).json()["error"]
    assert err["field"] == "round" and err["type"] == "ConflictError"


def test_a_record_opens_at_any_ply_and_plays_on(app):
    t = play_first_moves(app, new_game(app, seed=3, you=1), 6)
    record = app.handle("GET", f"/api/games/{t['id']}/record").json()
    moves = record["games"][0]["rounds"][0]["moves"]
    # at its end: the same table, another id
    o = new_game(app, record=record)
    assert o["id"] != t["id"] and o["you"] == 1 and o["seed"] == t["seed"]
    assert o["position"] == t["position"]
    assert [(h["by"], h["move"]) for h in o["history"]] == \
        [(h["by"], h["move"]) for h in t["history"]]
    # before move 3: the three moves replayed, then the engine replies if it is to move
    o = new_game(app, record=record, ply=3)
    assert [h["move"] for h in o["history"]][:3] == moves[:3]
    assert o["turn"] == "you"
    # played on, its record is the record's first moves and what followed
    o2 = post(app, f"/api/games/{o['id']}/move", {"move": o["legal_moves"][-1]}).json()
    again = GameRecord.from_dict(app.handle("GET", f"/api/games/{o2['id']}/record").json())
    assert again.games[0]["rounds"][0]["moves"][:3] == moves[:3]
    # any record: the sample match record, as player 0
    sample = json.loads((Path(jp.__file__).parent / "data" / "sample-record.json").read_text())
    s = new_game(app, record=sample, you=0, ply=4)
    assert len(s["history"]) >= 4 and s["you"] == 0


@pytest.mark.parametrize("fields, field", [
    ({"record": {"format": "jaipur-record/1", "games": []}}, "games"),
    ({"record": "not a record"}, "record"),
    ({"ply": 3}, "ply"),
    ({"record": "R", "ply": -1}, "ply"),
    ({"record": "R", "ply": 999}, "ply"),
    ({"record": "R", "round": 5}, "round"),
    ({"record": "R", "round": 0}, "round"),
    ({"record": "R", "game": 2}, "game"),
    ({"record": "R", "seed": 2}, "seed"),
])
def test_a_bad_record_or_ply_is_refused_by_name(app, fields, field):
    record = app.handle("GET", f"/api/games/{new_game(app, seed=5, you=0)['id']}/record").json()
    fields = {k: (record if v == "R" else v) for k, v in fields.items()}
    before = len(app.games)
    r = post(app, "/api/games", fields)
    assert r.status in (400, 404) and r.json()["error"]["field"] == field, r.body
    assert len(app.games) == before          # nothing half made


def test_a_round_to_its_end_then_the_next(app):
    t = new_game(app, seed=13, you=0)
    gid = t["id"]
    assert post(app, f"/api/games/{gid}/next", {}).json()["error"]["field"] == "round"
    t = play_first_moves(app, t, 300)
    assert t["round_over"] and t["turn"] is None and t["legal_moves"] == []
    end = t["round_end"]
    assert end["winner"] in ("you", "engine", "draw")
    assert end["totals"]["you"] == end["goods"]["you"] + end["bonus"]["you"] + \
        end["camel_token"]["you"]
    assert end["reason"].startswith(("three goods token stacks", "the deck ran out"))
    assert sum(t["seals"].values()) == (0 if end["winner"] == "draw" else 1)
    r = post(app, f"/api/games/{gid}/move", {"move": "camels"})
    assert r.status == 409 and r.json()["error"]["field"] == "move"
    assert post(app, f"/api/games/{gid}/hint", {}).status == 409
    t2 = post(app, f"/api/games/{gid}/next", {}).json()
    assert t2["round"] == 2 and not t2["round_over"] and t2["turn"] == "you"
    assert [h["by"] for h in t2["history"]] in ([], ["engine"])     # a fresh round
    rec = GameRecord.from_dict(app.handle("GET", f"/api/games/{gid}/record").json())
    assert len(rec.games[0]["rounds"]) == 2


@settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), you=st.sampled_from([0, 1]),
       picks=st.lists(st.integers(0, 10**6), min_size=1, max_size=60))
def test_the_table_is_the_players_view_after_any_moves(seed, you, picks):
    """Invariants of a game played by any moves: the table is the player's view of the
    server's state, its legal moves are the view's, the moves alternate, the record
    replays to the same state."""
    app = WebApp(level="greedy", hint="greedy")
    t = new_game(app, seed=seed, you=you)
    game = app.games.get(t["id"])
    for pick in picks:
        if t["round_over"]:
            break
        t = post(app, f"/api/games/{t['id']}/move",
                 {"move": t["legal_moves"][pick % len(t["legal_moves"])]}).json()
        view = game.state.view(you)
        assert t["view"] == view.to_dict() and t["position"] == view.to_text()
        assert t["legal_moves"] == ([] if t["round_over"] else
                                    [str(m) for m in view.legal_moves()])
        by = [h["by"] for h in t["history"]]
        assert all(a != b for a, b in zip(by, by[1:]))
        assert t["turn"] in ((None,) if t["round_over"] else ("you",))
    final = GameRecord.from_dict(game.record().to_dict()).final_states()[0]
    assert final == game.state


def test_a_match_to_two_seals():
    app = WebApp(level="greedy", hint="greedy")
    t = new_game(app, seed=31, you=0)
    for _ in range(3):
        t = play_first_moves(app, t, 300)
        assert t["round_over"]
        if t["match_over"]:
            break
        t = post(app, f"/api/games/{t['id']}/next", {}).json()
    assert t["match_over"] and t["match_winner"] in ("you", "engine")
    assert t["seals"][t["match_winner"]] == 2
    r = post(app, f"/api/games/{t['id']}/next", {})
    assert r.status == 409 and "the match is over" in r.json()["error"]["reason"]
    rec = GameRecord.from_dict(app.handle("GET", f"/api/games/{t['id']}/record").json())
    assert rec.games[0]["winner"] == ("human" if t["match_winner"] == "you" else "engine")


def test_the_default_port_is_the_documented_one():
    for doc in ("docs/web.md", "docs/cli.md"):
        assert f"127.0.0.1:{web.DEFAULT_PORT}/" in (ROOT / doc).read_text()


def test_hint(app):
    t = new_game(app, seed=6, you=0)
    r = post(app, f"/api/games/{t['id']}/hint", {})
    assert r.status == 200
    h = r.json()
    assert h["engine"] == "ismcts:iterations=100" and h["iterations"] == 100
    assert len(h["candidates"]) == 3 and {c["move"] for c in h["candidates"]} <= \
        set(t["legal_moves"])
    again = post(app, f"/api/games/{t['id']}/hint", {}).json()       # seeded: the same
    assert again["candidates"] == h["candidates"] and again["seed"] == h["seed"]


def test_the_store_forgets_the_oldest_game():
    app = WebApp(level="greedy", hint="greedy")
    app.games.limit = 3
    ids = [new_game(app, seed=i)["id"] for i in range(4)]
    assert app.handle("GET", f"/api/games/{ids[0]}").status == 404
    assert app.handle("GET", f"/api/games/{ids[3]}").status == 200


def review_events(resp):
    out = []
    for block in b"".join(resp.stream).decode().split("\n\n"):
        lines = [ln for ln in block.split("\n") if ln and not ln.startswith(":")]
        if lines:
            out.append((lines[0][len("event: "):], json.loads(lines[1][len("data: "):])))
    return out


def test_the_review_streams_progress_then_the_library_review(app):
    from jaipur_ai.doors.review import GameReview, review_game
    t = new_game(app, seed=17, you=1)
    gid = t["id"]
    r = post(app, f"/api/games/{gid}/review", {})
    assert r.status == 409 and r.json()["error"]["field"] == "review"
    t = play_first_moves(app, t, 300)
    r = post(app, f"/api/games/{gid}/review", {"iterations": 30, "seed": 5})
    assert r.status == 200 and r.content_type == "text/event-stream"
    evs = review_events(r)
    names = [e[0] for e in evs]
    assert names == ["progress"] * (len(evs) - 1) + ["review"]
    done = [e[1]["done"] for e in evs[:-1]]
    n = len(t["history"])
    assert done == list(range(n + 1)) and all(e[1]["total"] == n for e in evs[:-1])
    got = evs[-1][1]
    assert got.pop("you") == 1
    record = GameRecord.from_dict(app.handle("GET", f"/api/games/{gid}/record").json())
    # (the server's reviews grow their trees to --limit-nodes at most, as its analyses)
    assert GameReview.from_dict(got) == review_game(record, iterations=30, seed=5,
                                                    max_nodes=app.limits.max_nodes)
    assert [p["move"] for p in got["plies"]] == [h["move"] for h in t["history"]]
    assert got["players"] == ["engine", "human"]
    for p in got["plies"]:                            # each ply from its mover's view
        assert jp.View.from_text(p["view"]).observer == p["mover"]


@pytest.mark.parametrize("body,status,field", [
    ({"iterations": 0}, 400, "iterations"),
    ({"iterations": -1}, 400, "iterations"),
    ({"seed": "x"}, 400, "seed"),
    ({"depth": 2}, 400, "depth"),
])
def test_bad_review_requests(app, body, status, field):
    t = play_first_moves(app, new_game(app, seed=2, you=0), 300)
    r = post(app, f"/api/games/{t['id']}/review", body)
    assert r.status == status and r.json()["error"]["field"] == field


def test_an_abandoned_review_stops():
    app = WebApp(level=LEVEL, hint="greedy")
    t = play_first_moves(app, new_game(app, seed=2, you=0), 300)
    r = post(app, f"/api/games/{t['id']}/review", {"iterations": 10**9})
    assert r.status == 400 and r.json()["error"]["type"] == "LimitError"   # past the limit
    r = post(app, f"/api/games/{t['id']}/review", {"iterations": 10**7})
    assert next(r.stream).startswith(b"event: progress")
    r.stream.close()                    # what the server does when the page goes away
    assert not [th for th in threading.enumerate() if th.name == "jaipur-review"]


def test_reviews_count_against_the_servers_searches_and_memory_as_analyses_do():
    from jaipur_ai.doors.limits import Limits
    app = WebApp(level=LEVEL, hint="greedy",
                 limits=Limits(max_searches=1, max_nodes=4096, memory_mb=16))
    t = play_first_moves(app, new_game(app, seed=2, you=0), 300)
    first = post(app, f"/api/games/{t['id']}/review", {"iterations": 10**6})
    try:
        assert next(first.stream).startswith(b"event: progress")     # running: the slot
        for path, body in ((f"/api/games/{t['id']}/review", {"iterations": 10**6}),
                           ("/api/analyse", {"position": SAMPLE, "iterations": 50})):
            r = post(app, path, body)
            assert r.status == 400, path
            assert (r.json()["error"]["type"], r.json()["error"]["field"]) == \
                ("LimitError", "search")
        assert app.budget.reserved == 4096 * 250     # its tree: --limit-nodes, not 4M
    finally:
        first.stream.close()                          # the page went away: the slot is free
    assert (app.budget.running, app.budget.reserved) == (0, 0)
    r = post(app, f"/api/games/{t['id']}/review", {"iterations": 20, "seed": 1})
    got = review_events(r)[-1]
    assert got[0] == "review" and got[1]["settings"]["options"]["max_nodes"] == 4096


def test_a_review_stops_at_the_servers_time_limit():
    # 10^6 iterations a ply is an hour's review; --limit-time 0.5 ends it, and the
    # page gets the plies reviewed so far (read for 30 s at most: a guard, not a timing)
    from jaipur_ai.doors.limits import Limits
    app = WebApp(level=LEVEL, hint="greedy", limits=Limits(max_time=0.5))
    t = play_first_moves(app, new_game(app, seed=2, you=0), 300)
    r = post(app, f"/api/games/{t['id']}/review", {"iterations": 10**6})
    chunks, deadline = [], time.monotonic() + TIMEOUT
    try:
        for chunk in r.stream:      # (a chunk at least every second: the keep-alive)
            chunks.append(chunk)
            if chunk.startswith(b"event: review") or time.monotonic() > deadline:
                break
    finally:
        r.stream.close()
    assert chunks[-1].startswith(b"event: review"), "the review was not stopped"
    got = json.loads(chunks[-1].split(b"data: ", 1)[1])
    assert got["capped"] is True and got["complete"] is False
    assert (app.budget.running, app.budget.reserved) == (0, 0)


# --------------------------------------------------------------------------- positions, analyses
def test_position_reads_views_and_states(app):
    p = post(app, "/api/position", {"position": SAMPLE}).json()
    assert p["kind"] == "view" and p["position"] == SAMPLE and p["to_move"] == 1
    assert p["legal_moves"] == [str(m) for m in jp.View.from_text(SAMPLE).legal_moves()]
    s = jp.GameState.new(seed=1)
    p = post(app, "/api/position", {"position": s.to_dict()}).json()
    assert p["kind"] == "state" and p["position"] == s.to_text()


def events(resp):
    out = []
    buf = b"".join(resp.stream)
    for block in buf.decode().split("\n\n"):
        lines = [ln for ln in block.split("\n") if ln and not ln.startswith(":")]
        if lines:
            assert lines[0] == "event: analysis"
            out.append(json.loads(lines[1][len("data: "):]))
    return out


def test_analysis_streams_the_serve_protocols_answers(app):
    r = post(app, "/api/analyse", {"position": SAMPLE, "iterations": 10**9, "time": 1.0,
                                   "report_every": 0.05, "seed": 4})
    assert r.status == 200 and r.content_type == "text/event-stream"
    answers = events(r)
    assert len(answers) >= 2 and not answers[0]["final"] and answers[-1]["final"]
    assert all(not a["final"] for a in answers[:-1])
    final = answers[-1]
    assert final["action"] == "analyse" and final["candidates"]
    legal = {str(m) for m in jp.View.from_text(SAMPLE).legal_moves()}
    assert {c["move"] for c in final["candidates"]} <= legal


def test_analysis_is_reproducible_for_a_seed(app):
    def best():
        r = post(app, "/api/analyse", {"position": SAMPLE, "iterations": 300, "seed": 2})
        final = events(r)[-1]
        return [(c["move"], c["visits"]) for c in final["candidates"]]
    assert best() == best()


def test_an_abandoned_analysis_stops_its_search():
    def searching():
        return [t for t in threading.enumerate() if t.name.startswith("jaipur-search")]
    assert not searching()
    app = WebApp(level="greedy", hint="greedy")
    r = post(app, "/api/analyse", {"position": SAMPLE, "time": 60, "report_every": 0.05})
    first = next(r.stream)
    assert first.startswith(b"event: analysis")
    assert searching()
    r.stream.close()                    # what the server does when the page goes away
    assert not searching()


def test_an_analysis_closed_before_its_first_event_stops_its_search():
    """The page may go away before the headers are sent: the stream is closed unread."""
    app = WebApp(level="greedy", hint="greedy")
    r = post(app, "/api/analyse", {"position": SAMPLE, "time": 60, "report_every": 0.05})
    assert [t for t in threading.enumerate() if t.name.startswith("jaipur-search")]
    r.stream.close()
    assert not [t for t in threading.enumerate() if t.name.startswith("jaipur-search")]


# --------------------------------------------------------------------------- bad requests
BAD = [
    ("POST", "/api/games", {"level": "foo"}, 400, "level"),
    ("POST", "/api/games", {"level": "ismcts:iterations=-1"}, 400, "level"),
    ("POST", "/api/games", {"level": "ismcts:perfect_information=true"}, 400, "level"),
    ("POST", "/api/games", {"level": 3}, 400, "level"),
    ("POST", "/api/games", {"seed": -1}, 400, "seed"),
    ("POST", "/api/games", {"seed": "x"}, 400, "seed"),
    ("POST", "/api/games", {"you": 2}, 400, "you"),
    ("POST", "/api/games", {"you": True}, 400, "you"),
    ("POST", "/api/games", {"colour": "red"}, 400, "colour"),
    ("POST", "/api/games", b"{not json", 400, "body"),
    ("POST", "/api/games", b"[1, 2]", 400, "body"),
    ("POST", "/api/games", b'{"seed": NaN}', 400, "body"),
    ("POST", "/api/games", b"\xff\xfe", 400, "body"),
    ("POST", "/api/games", b"[" * 100000, 400, "body"),
    ("GET", "/api/games/nosuchgame", None, 404, "id"),
    ("POST", "/api/games/nosuchgame/move", {"move": "camels"}, 404, "id"),
    ("GET", "/api/games", None, 405, "method"),
    ("DELETE", "/api/position", None, 405, "method"),
    ("GET", "/api/nothing", None, 404, "path"),
    ("GET", "/api/games/x/y/z", None, 404, "path"),
    ("GET", "/../../etc/passwd", None, 404, "path"),
    ("GET", "/webpage/index.html", None, 404, "path"),
    ("POST", "/api/position", {}, 400, "position"),
    ("POST", "/api/position", {"position": 7}, 400, "position"),
    ("POST", "/api/position", {"position": "V 1"}, 400, "position"),
    ("POST", "/api/position", {"position": SAMPLE.replace("GSCLL", "GSCLX")}, 400,
     "position.market"),
    ("POST", "/api/position", {"position": SAMPLE.replace(" 36 ", " 37 ")}, 400,
     "position.deck_size"),
    ("POST", "/api/analyse", {"position": SAMPLE, "iterations": "many"}, 400, "iterations"),
    ("POST", "/api/analyse", {"position": SAMPLE, "threads": 0}, 400, "threads"),
    ("POST", "/api/analyse", {"position": SAMPLE, "report_every": 0}, 400, "report_every"),
    ("POST", "/api/analyse", {"position": SAMPLE, "playout": "magic"}, 400, "playout"),
    ("POST", "/api/analyse", {"position": SAMPLE, "hint": 1}, 400, "hint"),
    ("POST", "/api/analyse", {}, 400, "position"),
    ("POST", "/api/analyse", {"position": SAMPLE.replace("1.0.1.00.- 1", "1.0.0.00.- 1"),
                              "iterations": 5}, 400, "position.to_move"),
]


@pytest.mark.parametrize("method,path,body,status,field", BAD,
                         ids=[f"{b[0]} {b[1][:20]} {str(b[2])[:30]}" for b in BAD])
def test_bad_requests_get_json_errors_naming_the_field(app, method, path, body, status, field):
    raw = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    r = app.handle(method, path, raw or b"")
    assert r.status == status, r.body
    err = r.json()["error"]
    assert err["field"] == field
    assert err["message"].startswith(f"{field}: ") and err["reason"]
    assert err["type"] != "InternalError"


def test_bad_moves_name_the_move(app):
    t = new_game(app, seed=1, you=0)
    gid = t["id"]
    for body, kind in (({"move": "sell 9Z"}, "InvalidMoveError"),
                       ({"move": 5}, "InvalidRequestError"),
                       ({}, "InvalidRequestError"),
                       ({"move": "swap DDDDD for MMMMM"}, "IllegalMoveError")):
        r = post(app, f"/api/games/{gid}/move", body)
        assert r.status == 400 and r.json()["error"]["field"] == "move"
        assert r.json()["error"]["type"] == kind, r.body
    assert app.handle("GET", f"/api/games/{gid}").json()["history"] == t["history"]


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                    | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=10), inner, max_size=4), max_leaves=12)
PATHS = st.sampled_from(["/api", "/api/games", "/api/position", "/api/analyse",
                         "/api/games/{id}", "/api/games/{id}/move", "/api/games/{id}/next",
                         "/api/games/{id}/hint", "/api/games/{id}/record", "/", "/main.js"]) \
    | st.text(max_size=30).map(lambda s: "/" + s)
FIELDS = st.sampled_from(["move", "position", "level", "seed", "you", "iterations", "time",
                          "top", "threads", "x"])


@settings(max_examples=int(os.environ.get("JAIPUR_AI_FUZZ_EXAMPLES", 120)),
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(method=st.sampled_from(["GET", "POST", "PUT", "DELETE"]), path=PATHS,
       body=st.one_of(st.binary(max_size=40), JSON.map(lambda x: json.dumps(x).encode()),
                      st.dictionaries(FIELDS, JSON, max_size=3).map(
                          lambda d: json.dumps(d).encode())))
def test_fuzz_the_api_never_fails_inside(method, path, body):
    app = FUZZ_APP
    r = app.handle(method, path.replace("{id}", FUZZ_GAME), body)
    if r.stream is not None:
        for _ in r.stream:               # a search that was asked for: let it finish
            pass
        return
    if r.content_type == "application/json":
        data = r.json()
        if r.status >= 400:
            err = data["error"]
            assert err["type"] != "InternalError", err
            assert isinstance(err["message"], str) and err["message"]


FUZZ_APP = WebApp(level="greedy", hint="greedy")
FUZZ_GAME = new_game(FUZZ_APP, seed=1)["id"]


# --------------------------------------------------------------------------- sockets
def _serving(**kw):
    """A server of a greedy app on a free loopback port, serving in a thread."""
    srv = web.make_server(WebApp(level="greedy", hint="greedy"), port=0, **kw)
    th = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    th.start()
    yield srv
    srv.shutdown()
    srv.server_close()
    th.join()


@pytest.fixture(scope="module")
def server():
    yield from _serving()


@pytest.fixture
def quick_server():
    """A server that closes a silent connection after half a second."""
    yield from _serving(idle_timeout=0.5)


def test_a_burst_of_200_connections_is_served(server):
    """200 clients at once (socketserver's own listen queue held 5): every one answered.
    Bounded: each client waits at most TIMEOUT seconds, a guard, not a timing check."""
    assert server.request_queue_size >= 128
    url = web.url_of(server) + "api"
    answers: list = []

    def get() -> None:
        try:
            with urllib.request.urlopen(url, timeout=TIMEOUT) as r:
                answers.append(r.status)
        except OSError as e:                       # recorded: the assertion names it
            answers.append(repr(e))

    threads = [threading.Thread(target=get) for _ in range(200)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(TIMEOUT * 2)
    assert answers.count(200) == 200, [a for a in answers if a != 200][:3]


def test_silent_and_half_sent_connections_are_closed(quick_server):
    """500 clients that connect and send nothing, or half a request, are hung up on by the
    server (its idle timeout), and the server still answers others meanwhile."""
    host, port = quick_server.server_address[:2]
    socks = [socket.create_connection((host, port), timeout=TIMEOUT) for _ in range(500)]
    for i, s in enumerate(socks):
        if i % 2:
            s.sendall(b"GET /api HTTP/1.1\r\nHost: 127.0.0.1\r\n")   # no end of headers
    with urllib.request.urlopen(web.url_of(quick_server) + "api", timeout=TIMEOUT) as r:
        assert r.status == 200
    for s in socks:          # the server ends each connection (a hung one times out here)
        with s:
            while s.recv(65536):
                pass


def test_a_client_that_leaves_mid_search_stops_the_search(server):
    """Over a real socket: the page reads the first event of a 60 s analysis and goes
    away; the server's next write fails, and the search is stopped (waited for with a
    bound, a guard, not a timing check)."""
    def searching():
        return [t for t in threading.enumerate() if t.name.startswith("jaipur-search")]
    host, port = server.server_address[:2]
    body = json.dumps({"position": SAMPLE, "time": 60, "report_every": 0.05}).encode()
    s = socket.create_connection((host, port), timeout=TIMEOUT)
    s.sendall(b"POST /api/analyse HTTP/1.1\r\nHost: 127.0.0.1\r\n"
              b"Content-Type: application/json\r\nContent-Length: " +
              str(len(body)).encode() + b"\r\n\r\n" + body)
    assert b"event: analysis" in s.recv(65536) or b"event: analysis" in s.recv(65536)
    assert searching()
    s.close()
    deadline = time.monotonic() + TIMEOUT
    while searching() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not searching()


def raw_exchange(srv, data: bytes, half_close: bool = True) -> bytes:
    host, port = srv.server_address[:2]
    with socket.create_connection((host, port), timeout=TIMEOUT) as s:
        s.sendall(data)
        if half_close:
            s.shutdown(socket.SHUT_WR)
        chunks = []
        while True:
            b = s.recv(65536)
            if not b:
                break
            chunks.append(b)
    return b"".join(chunks)


def get_json(srv, path: str):
    url = web.url_of(srv).rstrip("/") + path
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


GARBAGE = [
    b"",
    b"\x00\x01\x02\xff" * 50,
    b"GARBAGE\r\n\r\n",
    b"GET\r\n\r\n",
    b"GET / HTTP/9.9\r\n\r\n",
    b"BREW /pot HTTP/1.1\r\n\r\n",
    b"HEAD /api HTTP/1.1\r\n\r\n",
    b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\n\r\n",
    b"POST /api/games HTTP/1.1\r\nContent-Length: lots\r\n\r\n{}",
    b"POST /api/games HTTP/1.1\r\nContent-Length: -5\r\n\r\n{}",
    b"POST /api/games HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n{}",
    b"POST /api/games HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 100"
    b"\r\n\r\n{\"se",
    b"POST /api/analyse HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 12"
    b"\r\n\r\n{\"position\":",
    b"POST /api/games HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 5"
    b"\r\n\r\n[1,2]",
    b"GET /api HTTP/1.1\r\n" + b"X-Long: " + b"b" * 70000 + b"\r\n\r\n",
    b"GET /api HTTP/1.1\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(200)) + b"\r\n",
]


@pytest.mark.parametrize("data", GARBAGE, ids=[repr(g[:24]) for g in GARBAGE])
def test_garbage_on_the_socket_gets_an_answer_and_the_server_serves_on(server, data):
    answer = raw_exchange(server, data)
    head, _, body = answer.partition(b"\r\n\r\n")
    if answer.startswith(b"HTTP/"):
        status = int(head.split()[1])
        if body:
            assert status >= 400 and "error" in json.loads(body)
    status, info = get_json(server, "/api")
    assert status == 200 and info["name"] == "jaipur_ai"


def test_a_body_over_the_limit_is_refused_with_413(server):
    answer = raw_exchange(server, b"POST /api/games HTTP/1.1\r\nContent-Length: %d\r\n\r\n"
                          % (web.MAX_BODY + 1))
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.split()[1] == b"413"
    assert json.loads(body)["error"]["field"] == "body"


def http(srv, request: bytes) -> tuple[int, dict]:
    head, _, body = raw_exchange(srv, request).partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


def test_only_json_is_posted_and_only_to_this_host(server):
    port = server.server_address[1]
    ok = b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json; " \
         b"charset=utf-8\r\nContent-Length: 2\r\n\r\n{}" % port
    status, data = http(server, ok)
    assert status == 200 and data["turn"] in ("you", "engine")
    # what a page of another site can send without asking: a form or text/plain
    status, data = http(server, ok.replace(b"application/json", b"text/plain"))
    assert status == 415 and data["error"]["field"] == "Content-Type"
    status, data = http(server, b"POST /api/games HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}")
    assert status == 415
    # a name that is not this machine's (DNS rebinding)
    status, data = http(server, ok.replace(b"127.0.0.1:%d" % port, b"evil.example:%d" % port))
    assert status == 403 and data["error"]["field"] == "Host"
    status, data = http(server, b"GET /api HTTP/1.1\r\nHost: localhost:%d\r\n\r\n" % port)
    assert status == 200


@pytest.mark.parametrize("headers,status,field", [
    (b"Content-Length: 22", 200, None),
    (b"Content-Length:  22 ", 200, None),              # the whitespace around a value
    (b"Content-Length: 22\r\nContent-Length: 22", 200, None),   # the same, twice
    (b"Content-Length: +22", 400, "Content-Length"),
    (b"Content-Length: 2_2", 400, "Content-Length"),
    (b"Content-Length: 0x16", 400, "Content-Length"),
    (b"Content-Length: 22.0", 400, "Content-Length"),
    (b"Content-Length: 2 2", 400, "Content-Length"),
    ("Content-Length: \uff12\uff12".encode(), 400, "Content-Length"),  # fullwidth digits
    (b"Content-Length: 22\r\nContent-Length: 23", 400, "Content-Length"),
    (b"Content-Length: 22\r\nHost: 127.0.0.1", 400, "Host"),    # a second Host
    (b"Content-Length: 22\r\nHost: evil.example", 400, "Host"),
])
def test_content_length_is_digits_and_duplicates_that_disagree_are_refused(
        server, headers, status, field):
    # RFC 9110 8.6 (Content-Length = 1*DIGIT), RFC 9112 3.2 (one Host) and 6.3
    body = b'{"position": "sample"}'
    assert len(body) == 22
    got, data = http(server, b"POST /api/position HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                             b"Content-Type: application/json\r\n" + headers +
                     b"\r\nConnection: close\r\n\r\n" + body)
    assert got == status, data
    if field is None:
        assert data["kind"] == "view"
    else:
        assert data["error"]["field"] == field and data["error"]["type"] == \
            "InvalidRequestError"


def test_errors_over_http_are_json(server):
    status, data = get_json(server, "/api/games/nope")
    assert status == 404 and data["error"]["field"] == "id"


def test_the_page_ships_in_the_package_and_fetches_nothing_from_the_network(server):
    url = web.url_of(server)
    with urllib.request.urlopen(url, timeout=TIMEOUT) as r:
        html = r.read().decode()
        assert r.headers["Content-Type"].startswith("text/html")
        assert "default-src 'self'" in r.headers["Content-Security-Policy"]
    refs = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert refs
    texts = {p.name: p.read_text() for p in PAGE_DIR.iterdir()}
    for p in PAGE_DIR.glob("*.js"):
        refs += re.findall(r'from "\./([^"]+)"', texts[p.name])
    for ref in refs:
        assert "://" not in ref and ref.lstrip("./") in texts, ref
        with urllib.request.urlopen(url + ref.lstrip("./"), timeout=TIMEOUT) as r:
            assert r.status == 200
    for name, text in texts.items():      # no address outside the page (SVG's xmlns aside)
        assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", text), name
    package_data = re.search(r'\[tool\.setuptools\.package-data\](.*?)\n\n',
                             (ROOT / "pyproject.toml").read_text() + "\n\n", re.S).group(1)
    assert '"jaipur_ai.doors" = ["webpage/*"]' in package_data    # the page is in the wheel too


# --------------------------------------------------------------------------- the command
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT and preexec_fn are POSIX")
def test_the_command_prints_its_address_and_stops_on_ctrl_c():
    proc = subprocess.Popen([sys.executable, "-m", "jaipur_ai", "web", "--port", "0",
                             "--level", "greedy"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            preexec_fn=default_sigint)
    try:
        line = proc.stdout.readline()
        m = re.match(r"jaipur-ai web: serving on (http://127\.0\.0\.1:(\d+)/) \(Ctrl-C stops\)",
                     line)
        assert m, line
        with urllib.request.urlopen(m.group(1) + "api", timeout=TIMEOUT) as r:
            assert json.loads(r.read())["level"] == "greedy"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=TIMEOUT)
        assert proc.returncode == 130 and "stopped" in out and err == ""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_ctrl_c_while_a_request_thread_starts_stops_the_server(monkeypatch):
    # Ctrl-C can cut Thread.start() short after the thread began (it waits for the
    # thread to say so): the thread and the accept loop then both free the connection's
    # slot, and a second release of the pool's semaphore used to raise ValueError, which
    # the accept loop took for a failed request, serving on through the Ctrl-C (the
    # command then ignored Ctrl-C now and then on a loaded machine)
    srv = web.make_server(WebApp(level="greedy", hint="greedy"), port=0, idle_timeout=5)
    start = threading.Thread.start

    def start_then_ctrl_c(thread):
        start(thread)
        thread.join(10)             # the thread has served and freed its slot
        raise KeyboardInterrupt

    ours, theirs = socket.socketpair()
    try:
        theirs.close()              # the request thread reads end of input at once
        monkeypatch.setattr(threading.Thread, "start", start_then_ctrl_c)
        with pytest.raises(KeyboardInterrupt):
            srv.process_request(ours, ("127.0.0.1", 0))
        monkeypatch.undo()
        # every slot free again, each freed once
        for _ in range(web.MAX_CONNECTIONS):
            assert srv._slots.acquire(blocking=False)
        assert not srv._slots.acquire(blocking=False)
    finally:
        ours.close()
        srv.server_close()


@pytest.mark.parametrize("args,message", [
    (["--port", "70000"], "--port: expected a port number 0..65535"),
    (["--port", "x"], "--port: expected a port number"),
    (["--level", "foo"], "--level: 'foo' is not a level"),
    (["--level", "ismcts:threads=0"], "--level: 'ismcts:threads=0': threads: must be"),
    (["--hint", "ismcts:perfect_information=true"], "--hint: perfect_information: "),
    (["--threads", "0"], "--threads: must be a whole number"),
    (["--host", "256.1.1.1", "--port", "0"], "--host: cannot listen on 256.1.1.1:0"),
])
def test_the_commands_errors_are_one_line(capsys, args, message):
    assert cli.main(["web", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"jaipur-ai: error: {message}"), err
    assert err.count("\n") == 1


def test_a_port_in_use_is_named(capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert cli.main(["web", "--port", str(port)]) == 2
    assert capsys.readouterr().err.startswith(f"jaipur-ai: error: --port: cannot listen on "
                                              f"127.0.0.1:{port}: ")


def test_a_browser_chooses_a_games_engine_among_the_levels_only():
    app = WebApp(level="greedy", hint="greedy")
    r = post(app, "/api/games", {"level": "ismcts:time=25,threads=4"})
    assert r.status == 400 and json.loads(r.body)["error"]["field"] == "level"
    r = post(app, "/api/games", {"level": "easy", "seed": 3})
    assert r.status == 200
    default = json.loads(app.handle("GET", "/api", b"").body)["level"]
    r = post(app, "/api/games", {"level": default, "seed": 3})    # the page's "default"
    assert r.status == 200
    r = post(app, "/api/analyse", {"position": SAMPLE, "time": 1000})
    assert json.loads(r.body)["error"]["type"] == "LimitError"


def test_a_level_whose_weights_cannot_be_read_stops_the_server_at_start(tmp_path):
    from jaipur_ai.doors.requests import RequestError
    for field in ("level", "hint"):
        with pytest.raises(RequestError) as e:
            WebApp(**{"level": "greedy", "hint": "greedy",
                      field: f"ismcts:weights={tmp_path / 'none.npz'}"})
        assert e.value.field == field and "no such file" in e.value.reason


def test_a_body_with_a_byte_order_mark_reads(app):
    body = b"\xef\xbb\xbf" + json.dumps({"seed": 3, "you": 0}).encode()
    r = app.handle("POST", "/api/games", body)
    assert r.status == 200 and r.json()["seed"] == 3


def test_the_server_says_its_time_limit_and_a_search_within_it_runs():
    # the page's live evaluation asks at most GET /api's max_time (--limit-time)
    from jaipur_ai.doors.limits import Limits
    app = WebApp(level="greedy", hint="greedy", limits=Limits(max_time=0.5))
    limit = json.loads(app.handle("GET", "/api", b"").body)["max_time"]
    assert limit == 0.5
    assert post(app, "/api/analyse", {"position": SAMPLE, "time": 0.6}).status == 400
    r = post(app, "/api/analyse", {"position": SAMPLE, "time": min(30, limit),
                                   "iterations": 50, "top": 1})
    assert r.status == 200 and events(r)[-1]["final"] is True


def test_a_games_table_is_readable_while_its_engine_thinks():
    """GET /api/games/ID answers at once while the engine's move is being searched,
    with the table as of the human's move ("turn": "engine")."""
    from jaipur_ai.matches.spec import EngineSpec
    app = WebApp(level="greedy", hint="greedy")
    t = json.loads(post(app, "/api/games", {"level": "easy", "seed": 5, "you": 0}).body)
    game = app.games.get(t["id"])
    game.spec = EngineSpec.parse("ismcts:time=2")       # an engine that thinks a while
    game.engine = game.spec.make_engine()
    move = t["legal_moves"][0]
    mover = threading.Thread(target=post, args=(app, f"/api/games/{t['id']}/move",
                                                {"move": move}))
    mover.start()
    deadline = time.monotonic() + TIMEOUT
    while not game.lock.locked() and time.monotonic() < deadline:
        time.sleep(0.01)
    seen = None
    while game.lock.locked() and time.monotonic() < deadline:
        r = app.handle("GET", f"/api/games/{t['id']}", b"")
        seen = json.loads(r.body)
        if seen["turn"] == "engine":
            break
        time.sleep(0.01)
    mover.join(TIMEOUT)
    assert seen is not None and seen["turn"] == "engine" and seen["history"][-1]["move"] == move


def test_a_request_that_trickles_in_is_cut_off_and_others_are_answered(monkeypatch):
    """More clients than the server's connection threads (8 here), each sending a byte of
    its headers every 0.2 s (well within the idle timeout): each is cut off once its
    request has taken the request timeout (1 s here), so the threads come free and a
    normal request is answered meanwhile.  Bounded: 12 clients, each trickling for
    TIMEOUT + 10 seconds at most (longer than the answer is waited for: TIMEOUT seconds,
    a guard)."""
    import select
    monkeypatch.setattr(web, "MAX_CONNECTIONS", 8)
    gen = _serving(request_timeout=1.0)
    srv = next(gen)
    host, port = srv.server_address[:2]
    cut: list = []

    def trickle() -> None:
        s = socket.create_connection((host, port), timeout=TIMEOUT)
        deadline = time.monotonic() + TIMEOUT + 10
        try:
            for b in (b"GET /api HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X-A: b\r\n" * 1000):
                if time.monotonic() > deadline:
                    return
                if select.select([s], [], [], 0)[0] and not s.recv(65536):
                    break                        # the server hung up
                s.sendall(bytes([b]))
                time.sleep(0.2)
            cut.append(True)
        except OSError:
            cut.append(True)                     # the server hung up
        finally:
            s.close()

    clients = [threading.Thread(target=trickle, daemon=True) for _ in range(12)]
    try:
        for c in clients:
            c.start()
        time.sleep(0.5)                          # they hold every thread now
        with urllib.request.urlopen(web.url_of(srv) + "api", timeout=TIMEOUT) as r:
            assert r.status == 200
        for c in clients:
            c.join(TIMEOUT + 11)
    finally:
        next(gen, None)
    assert len(cut) == 12                        # every one was cut off
