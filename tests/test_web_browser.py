"""The page of ``jaipur-ai web`` in a real headless Chromium (selenium): a full round
played by clicking cards, a hint, a streamed analysis, the position editor, the
review.  Skipped, with the reason, where chromium or chromium-driver is missing.

The engine is a tiny iteration-limited ISMCTS so that a round takes seconds; every
assertion reads what the page shows (the API is asked only which move to click).
"""
from __future__ import annotations

import json
import math
import random
import re
from pathlib import Path

import pytest

import webpage
from jaipur_ai import GameState
from strategies import play_randomly

pytestmark = pytest.mark.skipif(webpage.missing() is not None,
                                reason=str(webpage.missing()))

LEVEL = "ismcts:iterations=60"
HINT = "ismcts:iterations=200"


@pytest.fixture(scope="module")
def page():
    with webpage.serve(LEVEL, HINT) as url, webpage.browser() as driver:
        p = webpage.Page(driver, url)
        p.load()
        yield p


def test_a_full_round_played_by_clicking_then_reviewed(page):
    game = page.new_game(seed=11, you="0")
    assert page.text("#engine-name") == f"({LEVEL}, player 1)"
    used: set[str] = set()
    plies = 0
    shown = page.table()
    while not shown["round_over"]:
        view = game["view"]
        # the table as drawn: market, deck, hand, herds, the opponent's hand size
        assert shown["market"] == view["market"] and shown["deck"] == str(view["deck_size"])
        assert shown["hand"] == view["players"][0]["hand"]
        assert shown["herd"] == view["players"][0]["herd"]
        assert shown["opp_herd"] == view["players"][1]["herd"]
        assert shown["opp_hand"] == view["players"][1]["hand_size"]
        assert shown["turn"] == "your move"
        move = webpage.choose(game["legal_moves"], used)
        used.add(webpage.kind(move))
        page.play(move)
        shown = page.table()
        game = page.game()
        assert f"you: {move}" in shown["history"]
        if game["last_engine_move"] is not None and not game["round_over"]:
            assert shown["engine_move"] == game["last_engine_move"]
            assert shown["history"][-1] == f"engine: {game['last_engine_move']}"
        plies += 1
        assert plies < 200
    assert page.error() == ""
    assert used == {"swap", "camels", "sell", "take"}
    end = game["round_end"]
    assert page.text("#turn") == "round over"
    title = page.text("#round-end-title")
    assert title.startswith({"you": "You win", "engine": "The engine wins",
                             "draw": "The round is drawn"}[end["winner"]])
    assert page.text("#round-end-reason") == f"The round ended: {end['reason']}."
    totals = page.find_all("#round-end-table tr")[-1].text.split()
    assert totals == ["total", str(end["totals"]["you"]), str(end["totals"]["engine"])]
    hand = end["engine_hand"] or "empty"
    assert page.text("#round-end-hand") == f"The engine's hand was: {hand}."
    seals = game["seals"]
    assert page.text("#round-end-seals").startswith(
        f"Seals: you {seals['you']}, engine {seals['engine']}.")
    assert page.text("#seals") == f"Seals: you {seals['you']}, engine {seals['engine']}"
    link = page.find("#record-link")
    assert link.get_attribute("href").endswith(f"/api/games/{game['id']}/record")
    assert page.api(f"/api/games/{game['id']}/record")["format"] == "jaipur-record/1"
    # the review of the round: a row per move, the graph with a mark per labelled move
    moves = [h["move"] for h in game["history"]]
    page.screen("review")
    page.type_into("#review-iterations", "40")
    page.screen("play")
    page.find("#review-game").click()
    assert page.shown("#screen-review")
    page.wait.until(lambda d: page.find("#review-status").get_attribute("data-state")
                    in ("done", "error"))
    assert page.error() == ""
    assert page.text("#review-status") == f"{len(moves)} moves reviewed, 40 iterations each"
    rows = page.find_all("#review-table tr")[1:]
    assert [r.find_elements("css selector", "td")[3].text for r in rows] == moves
    labelled = [r.get_attribute("data-label") for r in rows if r.get_attribute("data-label")]
    assert set(labelled) <= {"inaccuracy", "mistake", "blunder"}
    assert len(page.find_all("#review-graph svg circle.mark")) == len(labelled)
    assert len(page.find_all("#review-graph svg polyline.curve")) == 2
    mine = sum(h["by"] == "you" for h in game["history"])
    assert page.text("#review-summary li[data-player='0']").startswith(f"you: {mine} moves")
    page.screen("play")
    # the next round is dealt; the table is drawn again
    page.find("#next-round").click()
    page.idle()
    assert not page.shown("#round-end")
    assert page.text("#status").startswith("Round 2")


def test_the_composer_reads_clicks_as_moves(page):
    game = page.new_game(seed=5, you="0")
    goods = [c for c in game["view"]["market"] if c != "M"]
    if len(goods) >= 2:                    # an exchange half chosen: nothing to confirm
        page.click_card("market", goods[0])
        page.click_card("market", goods[1])
        assert page.text("#move-note") == "exchange: take 2, give as many (0 selected)"
        assert not page.find("#confirm").is_enabled()
    page.find("#clear").click()
    assert page.text("#move-text") == "click cards"
    page.click_card("market", goods[0])
    assert page.text("#move-text") == f"take {goods[0]}"
    assert page.find("#confirm").is_enabled()


@pytest.mark.parametrize("seed", [5, 23])
def test_every_legal_move_can_be_clicked(page, seed):
    """Each legal move of a position, clicked card by card, reads as that move (every
    take, the camels, every sale, every exchange, camels of the herd included)."""
    game = page.new_game(seed=seed, you="0")
    if seed == 23:    # (this deal has an exchange giving a camel of the herd)
        assert any(m.startswith("swap") and "M" in m.split(" for ")[1]
                   for m in game["legal_moves"])
    for move in game["legal_moves"][:60]:
        page.select(move)
        assert page.text("#move-text") == move
        assert page.text("#move-note") == "legal"
        page.find("#clear").click()
    assert page.text("#move-text") == "click cards"


def test_hint(page):
    game = page.new_game(seed=2, you="1")
    page.find("#hint-button").click()
    page.idle()
    page.wait.until(lambda d: page.shown("#hint"))
    assert page.text("#hint").startswith(f"Hint ({HINT}):")
    hinted = [e.text for e in page.find_all("#hint .hint-move")]
    assert hinted and set(hinted) <= set(game["legal_moves"])


def _analysis_rows(page) -> list[list[str]]:
    return [[td.text for td in tr.find_elements("css selector", "td")]
            for tr in page.find_all("#analysis tbody tr")]


def test_analysis_streams_while_the_engine_thinks(page):
    game = page.new_game(seed=4, you="0")
    page.screen("analyse")
    page.type_into("#analyse-time", "1")
    page.screen("play")
    page.find("#analyse-here").click()
    assert page.shown("#screen-analyse")
    assert page.find("#analyse-position").get_attribute("value") == game["position"]
    page.wait.until(lambda d: page.find("#analyse-status").get_attribute("data-state") == "final")
    # partial answers came before the final one (a 1 s search, reports every 0.25 s)
    assert int(page.find("#analysis").get_attribute("data-updates")) >= 2
    assert page.text("#analyse-status").startswith("done: ")
    rows = _analysis_rows(page)
    assert rows and {r[1] for r in rows} <= set(game["legal_moves"])
    for r in rows:
        assert 0 <= float(r[2]) <= 100                      # win %
        assert re.fullmatch(r"[+-]\d+\.\d", r[3])           # margin
        assert r[5] == "–"                                  # no rollouts asked for
        assert r[6].split(", ")[0] == r[1]                  # the line starts with the move


def test_analysis_rolls_out_the_best_moves_when_asked(page):
    game = page.new_game(seed=4, you="0")
    page.screen("analyse")
    page.type_into("#analyse-time", "0.6")
    page.type_into("#analyse-rollouts", "2")
    page.screen("play")
    page.find("#analyse-here").click()
    page.wait.until(lambda d: page.find("#analyse-status").get_attribute("data-state") == "final")
    assert "rolled out in " in page.text("#analyse-status")
    rows = _analysis_rows(page)
    assert len(rows) >= 3 and {r[1] for r in rows} <= set(game["legal_moves"])
    # the first row: its result; the second: its result and its difference from the
    # first's; the rest were not rolled out
    assert re.fullmatch(r"\d+\.\d ±\d+\.\d", rows[0][5])
    assert re.fullmatch(r"\d+\.\d ±\d+\.\d \([+-]\d+\.\d ±\d+\.\d\)", rows[1][5])
    assert all(r[5] == "–" for r in rows[2:])


def test_position_editor(page):
    page.screen("analyse")
    page.type_into("#analyse-time", "0.5")
    page.screen("editor")
    page.find("#ed-sample").click()
    page.find("#ed-check").click()
    page.idle()
    assert page.text("#ed-result").startswith("OK: player 1's view, round 1, player 1 to move")
    # a card that does not exist: the error names the market, and the field is marked
    market = page.type_into("#ed-market", "GSCLX")
    assert " GSCLX " in page.find("#ed-text").get_attribute("value")   # fields -> text
    page.find("#ed-check").click()
    page.idle()
    assert page.text("#ed-result").startswith("position.market: unknown card letter 'X'")
    assert "invalid" in market.get_attribute("class")
    market.clear()
    market.send_keys("GSCLL")
    # one card too many in the deck: the error names the deck size
    deck = page.type_into("#ed-deck", "37")
    page.find("#ed-check").click()
    page.idle()
    assert page.text("#ed-result").startswith("position.deck_size: ")
    assert "invalid" in deck.get_attribute("class")
    deck.clear()
    deck.send_keys("36")
    # the text -> fields: the herd of the example is 4
    assert page.find("#ed-herd").get_attribute("value") == "4"
    page.find("#ed-analyse").click()
    page.wait.until(lambda d: page.shown("#screen-analyse"))
    page.wait.until(lambda d: page.find("#analyse-status").get_attribute("data-state") == "final")
    assert _analysis_rows(page)


def test_the_editor_fields_write_back_the_text_the_server_read(page):
    """Text to fields (the server reads the text; the page fills the fields from its
    JSON form), then the fields write the text again: the same text."""
    texts = ["V 1.1.0.00.- 0 DDDLM 19 GGCCCCPPPPPLLLL 535325 764 "      # a bonus 10 (T)
             "GGSC/5/GGSC/-.66.-.-.53322.43/-.-.T 7/0/SSSCLLL/-.-.-.5332.-.21/0.0.0"]
    for seed in range(6):
        rng = random.Random(seed)
        s = play_randomly(GameState.new(seed), rng, 20 * seed)
        if not s.is_round_over:
            texts.append(s.view(seed % 2).to_text())
    page.screen("editor")
    for text in texts:
        page.type_into("#ed-text", text)
        page.find("#ed-read").click()
        page.idle()
        assert page.text("#ed-result").startswith("OK: ")
        page.d.execute_script("document.getElementById('ed-herd')"
                              ".dispatchEvent(new Event('input'))")      # fields -> text
        assert page.find("#ed-text").get_attribute("value") == text


def test_an_illegal_selection_disables_confirm_and_says_why(page):
    for seed in range(1, 40):
        game = page.new_game(seed=seed, you="0")
        premium = [c for c in game["view"]["players"][0]["hand"] if c in "DGS"]
        if premium:
            break
    else:
        pytest.skip("no deal of seeds 1-39 gives player 0 a diamond, gold or silver")
    good = premium[0]
    page.click_card("hand", good)
    assert page.text("#move-text") == f"sell 1{good}"
    name = {"D": "diamond", "G": "gold", "S": "silver"}[good]
    assert page.text("#move-note") == f"not legal: {name} is sold two or more cards at a time"
    assert not page.find("#confirm").is_enabled()
    page.find("#clear").click()


def test_turns_and_moves_are_announced(page):
    game = page.new_game(seed=7, you="1")          # the engine starts: its move is told
    live = page.find("#announce")
    assert live.get_attribute("aria-live") == "polite"
    said = live.get_attribute("textContent")
    assert said == f"The engine played {game['last_engine_move']}. Your move."
    page.play(webpage.choose(game["legal_moves"], set()))
    game = page.game()
    said = page.find("#announce").get_attribute("textContent")
    if game["round_over"]:
        assert "round" in said
    else:
        assert said == f"The engine played {game['last_engine_move']}. Your move."


def test_a_reload_keeps_the_game_and_its_address_names_it(page):
    game = page.new_game(seed=9, you="0")
    page.play(webpage.choose(game["legal_moves"], set()))
    before = page.table()
    gid = page.find("#table").get_attribute("data-game")
    assert page.d.current_url.endswith(f"#game={gid}")
    page.d.refresh()
    page.wait.until(lambda d: d.execute_script("return document.body.dataset.ready === '1'"))
    page.wait.until(lambda d: page.shown("#table"))
    assert page.find("#table").get_attribute("data-game") == gid
    assert page.table() == before
    assert page.error() == ""


def test_a_game_the_server_forgot_is_opened_again_from_the_saved_record(page):
    game = page.new_game(seed=21, you="1")
    record = page.api(f"/api/games/{game['id']}/record")
    before = page.table()
    # as if the server had restarted: the browser still holds the id and the record
    page.d.execute_script("""
        localStorage.setItem("jaipur-ai.game", "0123456789ab");
        localStorage.setItem("jaipur-ai.record", arguments[0]);
        localStorage.setItem("jaipur-ai.you", "1");""", json.dumps(record))
    page.d.get(page.url.rstrip("/") + "/#game=0123456789ab")
    page.d.refresh()
    page.wait.until(lambda d: d.execute_script("return document.body.dataset.ready === '1'"))
    page.wait.until(lambda d: page.shown("#table"))
    assert page.text("#restored").startswith("The server no longer had this game")
    assert page.table() == before
    assert page.find("#table").get_attribute("data-game") != game["id"]


def test_a_record_file_opens_is_reviewed_and_downloads_with_its_review(page, tmp_path):
    from jaipur_ai.matches.record import GameRecord
    sample = Path(__file__).resolve().parents[1] / "jaipur_ai" / "data" / "sample-record.json"
    rec = GameRecord.load(str(sample))
    moves = rec.games[0]["rounds"][-1]["moves"]
    page.screen("play")
    page.type_into("#open-ply", "")
    page.find("#open-record").send_keys(str(sample))
    page.idle()
    page.wait.until(lambda d: page.error() or (page.shown("#table")
                                               and page.table()["round_over"]))
    assert page.error() == ""
    assert page.table()["history"][-1].endswith(moves[-1])
    run_review(page, "30")
    assert page.error() == ""
    assert len(page.find_all("#review-table tr")) - 1 == sum(
        len(r["moves"]) for r in rec.games[0]["rounds"])
    link = page.find("#review-download")
    assert link.is_displayed() and link.get_attribute("href").startswith("blob:")
    saved = page.d.execute_script("return arguments[0].record", link)
    annotated = GameRecord.from_json(saved)          # replayed and checked
    notes = annotated.games[0]["rounds"][0].get("notes")
    assert notes and all(n is None or "label" in n or "eval" in n or "comment" in n
                         for n in notes)
    # and at a move: played on from there
    page.screen("play")
    page.type_into("#open-ply", "3")
    page.find("#open-record").clear()
    page.find("#open-record").send_keys(str(sample))
    page.idle()
    page.wait.until(lambda d: not page.table()["round_over"])
    starter = rec.games[0]["rounds"][-1]["starter"]
    movers = [starter if i % 2 == 0 else 1 - starter for i in range(3)]
    assert page.table()["history"][:3] == [
        f"{'you' if p == 0 else 'engine'}: {m}" for p, m in zip(movers, moves[:3])]
    assert page.error() == ""


@pytest.mark.parametrize("width, height", [(390, 844), (1280, 800)])
def test_no_screen_scrolls_sideways_and_a_phone_shows_the_table(width, height):
    """At a phone's 390 x 844 and a laptop's 1280 x 800: no screen is wider than the window
    (a review done, an analysis shown, the editor filled); on the phone the play screen
    shows the market, the hand and the move buttons without scrolling, and every button
    of it is at least 44 px each way."""
    phone = width < 600
    sample = Path(__file__).resolve().parents[1] / "jaipur_ai" / "data" / "sample-record.json"
    with webpage.serve(LEVEL, HINT) as url, webpage.browser(width, height) as driver:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": phone})
        page = webpage.Page(driver, url)
        page.load()

        def fits(where: str) -> None:
            sw, iw = driver.execute_script("return [document.documentElement.scrollWidth, "
                                           "window.innerWidth]")
            assert sw <= iw, f"{where}: {sw} px wide in a {iw} px window"

        page.new_game(seed=11, you="0")
        fits("play")
        if phone:
            driver.execute_script("window.scrollTo(0, 0)")
            seen = driver.execute_script("""
                const b = (id) => document.getElementById(id).getBoundingClientRect().bottom;
                return [b("market"), b("my-hand"), b("confirm"), window.innerHeight];""")
            assert max(seen[:3]) <= seen[3], seen
            small = driver.execute_script("""
                return [...document.querySelectorAll("#screen-play button, nav button")]
                  .filter((e) => e.offsetParent !== null)
                  .map((e) => [e.id || e.textContent, e.getBoundingClientRect()])
                  .filter(([_, r]) => r.width < 43.5 || r.height < 43.5)
                  .map(([n, r]) => `${n} ${r.width}x${r.height}`);""")
            assert small == []
        page.find("#open-record").send_keys(str(sample))
        page.idle()
        page.wait.until(lambda d: page.error() or page.table()["round_over"])
        fits("round end")
        run_review(page, "20")
        assert page.error() == ""
        fits("review")
        page.screen("editor")
        page.find("#ed-sample").click()
        fits("editor")
        page.screen("analyse")
        page.type_into("#analyse-position", "sample")
        page.type_into("#analyse-iterations", "300")
        page.find("#analyse-start").click()
        page.wait.until(lambda d: len(page.find_all("#analysis tbody tr")) > 0)
        fits("analyse")


def test_the_live_evaluation_follows_the_game(page):
    """On by default: while it is your move the bar shows the search's win chance and
    margin for your view, and after a move it evaluates the new position; the switch
    turns it off."""
    game = page.new_game(seed=13, you="0")
    bar = "#eval-bar"

    def updated_for(position: str) -> bool:
        e = page.find(bar)
        return e.get_attribute("data-position") == position and \
            int(e.get_attribute("data-updates") or 0) > 0

    page.wait.until(lambda d: updated_for(game["position"]))
    win = float(page.find(bar).get_attribute("data-win"))
    assert 0.0 <= win <= 1.0
    assert page.text("#eval-text").startswith(f"you: {100 * win:.1f}"[:7])
    assert page.find(bar).get_attribute("aria-valuenow") == f"{100 * win:.0f}"
    page.play(webpage.choose(game["legal_moves"], set()))
    game = page.game()
    if not game["round_over"]:
        page.wait.until(lambda d: updated_for(game["position"]))
    page.find("#live-eval").click()
    assert not page.shown(bar)
    page.find("#live-eval").click()
    assert page.shown(bar)


def test_the_engines_last_move_is_marked_and_the_turn_stays_in_view(page):
    for seed in range(11, 30):
        game = page.new_game(seed=seed, you="1")
        if game["history"]:                          # the engine started, and has moved
            break
    moved = game["last_engine_cards"]
    assert moved is not None
    count = lambda zone: len(page.find_all(f"#{zone} .card.moved"))   # noqa: E731
    assert count("market") == len(moved["market"])
    assert count("opp-hand") == len(moved["hand"])
    assert count("opp-herd") == moved["herd"]
    assert count("discard") == len(moved["discard"])
    assert count("market") + count("opp-hand") + count("opp-herd") + count("discard") > 0
    assert page.d.execute_script(
        "return getComputedStyle(document.getElementById('status')).position") == "sticky"


SAMPLE_RECORD = Path(__file__).resolve().parents[1] / "jaipur_ai" / "data" / "sample-record.json"


def run_review(page, iterations: str) -> None:
    """Review the game on the table at ``iterations`` a move and wait for the end."""
    page.screen("review")
    page.type_into("#review-iterations", iterations)
    page.find("#review-start").click()
    page.wait.until(lambda d: page.find("#review-status").get_attribute("data-state")
                    in ("done", "error"))


def review_the_sample(page, iterations: str = "20") -> None:
    """Open the sample record at its end and review it (a few iterations a move)."""
    page.screen("play")
    page.type_into("#open-ply", "")
    page.type_into("#open-round", "")
    page.find("#open-record").send_keys(str(SAMPLE_RECORD))
    page.idle()
    page.wait.until(lambda d: page.error() or page.table()["round_over"])
    run_review(page, iterations)
    assert page.error() == ""


def test_a_review_is_walked_by_click_and_by_keys(page):
    from selenium.webdriver.common.keys import Keys
    review_the_sample(page)
    rows = page.find_all("#review-table tr")[1:]
    n = len(rows)

    def at(i: int) -> None:
        page.wait.until(lambda d: page.find("#review-board").get_attribute("data-index")
                        == str(i))
        move = rows[i].find_elements("css selector", "td")[3].text
        assert f"played {move} " in page.text("#review-ply")
        assert len(page.find_all("#review-position .card.played")) >= 1
        assert "current" in rows[i].get_attribute("class")

    at(0)
    first = page.find("#review-position").get_attribute("data-position")
    body = page.find("body")
    body.send_keys(Keys.ARROW_RIGHT)
    at(1)
    assert page.find("#review-position").get_attribute("data-position") != first
    body.send_keys(Keys.END)
    at(n - 1)
    body.send_keys(Keys.HOME)
    at(0)
    rows[5].click()
    at(5)
    page.d.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))",
                          page.find('#review-graph .ply-point[data-index="7"]'))
    at(7)
    # the Analyse screen draws the position it analyses, its best move marked
    page.screen("analyse")
    page.type_into("#analyse-position", "sample")
    page.type_into("#analyse-iterations", "300")
    page.find("#analyse-start").click()
    page.wait.until(lambda d: page.find("#analyse-status").get_attribute("data-state") == "final")
    page.wait.until(lambda d: len(page.find_all("#analyse-board .card.best")) >= 1)
    assert len(page.find_all("#analyse-board .card")) >= 5


def test_a_best_line_asked_for_then_left_is_not_drawn_on_another_ply(page):
    # The line's answer is held back while the user walks on to another ply: it must
    # not be played out on that ply's board, and that ply's own line must still play.
    review_the_sample(page)
    page.wait.until(lambda d: page.find("#review-board").get_attribute("data-index") == "0")
    with page.held_back("/line"):
        page.find("#review-line-next").click()
        rows = page.find_all("#review-table tr")[1:]
        rows[5].click()
        page.wait.until(lambda d: page.find("#review-board").get_attribute("data-index") == "5")
        fifth = page.find("#review-position").get_attribute("data-position")
        page.wait.until(lambda d: page.answered() == 1)
    assert page.find("#review-position").get_attribute("data-position") == fifth
    assert page.find("#review-position").get_attribute("data-line") in (None, "0")
    page.find("#review-line-next").click()
    page.wait.until(lambda d: page.find("#review-position").get_attribute("data-line") == "1")
    assert page.text("#review-line").startswith("best line, after ")
    assert page.error() == ""


def test_two_quick_clicks_step_the_best_line_twice(page):
    # Both clicks come while the line is still asked for (held back): each is a step.
    review_the_sample(page)

    def show(i):
        page.find_all("#review-table tr")[1 + i].click()
        page.wait.until(lambda d: page.find("#review-board").get_attribute("data-index")
                        == str(i))

    def line_at():
        return page.find("#review-position").get_attribute("data-line")

    # a ply whose line plays two moves on the real cards (clicked one at a time)
    for i in range(len(page.find_all("#review-table tr")) - 1):
        show(i)
        if page.find("#review-line-next").get_attribute("disabled") is not None:
            continue
        page.find("#review-line-next").click()
        page.wait.until(lambda d: line_at() == "1")
        if page.find("#review-line-next").get_attribute("disabled") is None:
            break
    else:
        pytest.skip("no line of the sample plays two moves")
    show(i + 1 if i == 0 else 0)
    show(i)                                  # (its line asked for again)
    with page.held_back("/line"):
        page.find("#review-line-next").click()
        page.find("#review-line-next").click()
        page.wait.until(lambda d: page.answered() == 1)
    page.wait.until(lambda d: line_at() == "2")
    page.find("#review-line-back").click()
    page.wait.until(lambda d: line_at() == "1")
    assert page.error() == ""


def test_a_record_answering_late_does_not_overwrite_a_newer_one(page):
    # The browser keeps the game's record after every move. The first move's record is
    # held back until the second move's has been kept: the newer record stays.
    game = page.new_game(seed=5, you="0")
    used: set = set()
    with page.held_back("/record", ms=4000, first=1, answer=True):
        for _ in range(2):
            move = webpage.choose(game["legal_moves"], used)
            used.add(webpage.kind(move))
            page.play(move)
            game = page.game()
            assert game["turn"] == "you" and not game["round_over"]
        page.wait.until(lambda d: page.answered() == 1)
    kept = json.loads(page.d.execute_script('return localStorage.getItem("jaipur-ai.record")'))
    assert kept == page.api(f"/api/games/{game['id']}/record")
    assert len(kept["games"][0]["rounds"][0]["moves"]) == 4      # both moves and replies


def test_no_second_move_while_the_first_is_with_the_server(page):
    # While a move is sent (held back here) the cards and Confirm stay off, even after
    # a click that redraws the table; the move's answer turns them on again.
    game = page.new_game(seed=5, you="0")
    move = webpage.choose(game["legal_moves"], set())
    page.select(move)
    with page.held_back("/move", ms=3000):
        page.find("#confirm").click()
        assert page.find("#confirm").get_attribute("disabled") is not None
        page.find("#clear").click()             # (redraws the table)
        assert page.find("#confirm").get_attribute("disabled") is not None
        assert page.find_all("#table button.card:not([disabled])") == []
        page.wait.until(lambda d: page.answered() == 1)
    page.idle()
    shown = page.game()
    assert move in [h["move"] for h in shown["history"]]
    if shown["turn"] == "you":
        assert page.find_all("#table button.card:not([disabled])") != []


def test_a_new_analysis_keeps_its_stop_button(page):
    # The analysis it replaces ends after the new one began: the Stop button and the
    # status stay the new one's.
    page.screen("analyse")
    page.type_into("#analyse-position", "sample")
    page.type_into("#analyse-iterations", "")
    page.type_into("#analyse-time", "20")
    page.find("#analyse-start").click()
    page.wait.until(lambda d: page.find("#analyse-status").get_attribute("data-state")
                    == "partial")
    page.find("#analyse-start").click()
    page.wait.until(lambda d: page.find("#analyse-status").get_attribute("data-state")
                    == "partial")
    assert page.find("#analyse-stop").get_attribute("disabled") is None
    assert "(stopped)" not in page.text("#analyse-status")
    page.find("#analyse-stop").click()
    page.wait.until(lambda d: "(stopped)" in page.text("#analyse-status"))
    assert page.find("#analyse-stop").get_attribute("disabled") is not None
    page.type_into("#analyse-time", "3")


def test_a_63_bit_seed_is_sent_and_shown_exactly(page):
    # Seeds are 63-bit and JavaScript's numbers hold 53: a seed the page rounded would
    # deal another game than the terminal's with the seed the user typed.
    seed = 7234025085353714657
    assert float(seed) != seed
    game = page.new_game(seed=seed, you="0")
    assert game["seed"] == seed
    assert f"seed {seed}" in page.text("#status")


def test_the_best_move_is_marked_when_the_position_comes_after_the_analysis(page):
    # The Analyse screen fetches the position and the analysis side by side; here the
    # position's answer is held back until the analysis has ended, the order a loaded
    # server can give, and the board must still come with the best move marked.
    page.screen("analyse")
    page.type_into("#analyse-position", "sample")
    page.type_into("#analyse-iterations", "300")
    with page.held_back("/api/position", ms=3000):
        page.find("#analyse-start").click()
        page.wait.until(lambda d: page.find("#analyse-status").get_attribute("data-state")
                        == "final")
        assert page.answered() == 0 and page.find_all("#analyse-board .card") == []
        page.wait.until(lambda d: page.answered() == 1)
    page.wait.until(lambda d: len(page.find_all("#analyse-board .card.best")) >= 1)
    assert page.error() == ""


def test_the_best_line_is_played_out_on_the_board(page):
    review_the_sample(page)
    page.wait.until(lambda d: page.find("#review-board").get_attribute("data-index") == "0")
    before = page.find("#review-position").get_attribute("data-position")
    page.find("#review-line-next").click()
    page.wait.until(lambda d: page.find("#review-position").get_attribute("data-line") == "1")
    assert page.find("#review-position").get_attribute("data-position") != before
    assert page.text("#review-line").startswith("best line, after ")
    page.find("#review-line-back").click()
    page.wait.until(lambda d: page.find("#review-position").get_attribute("data-line") == "0")
    assert page.find("#review-position").get_attribute("data-position") == before
    assert page.error() == ""


@pytest.mark.parametrize("width, height", [(390, 844), (1280, 800)])
def test_the_hint_is_in_view_with_the_hand_and_the_move_bar(width, height):
    """Issue 51, item 16: on a laptop's 1280 x 800 the hint came below the window, the
    hand and the move bar at its bottom edge; now the hint sits beside the table. On a
    phone it comes under the move bar, its first lines in view. Each hint line's
    line of play starts with the move, as in the Analyse table and the command line."""
    phone = width < 600
    with webpage.serve(LEVEL, HINT) as url, webpage.browser(width, height) as driver:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": phone})
        page = webpage.Page(driver, url)
        page.load()
        page.new_game(seed=2, you="1")
        page.find("#hint-button").click()
        page.idle()
        page.wait.until(lambda d: page.shown("#hint"))
        box = driver.execute_script("""
            const r = (s) => document.querySelector(s).getBoundingClientRect();
            return {hint: [r("#hint").top, r("#hint").bottom],
                    first: [r("#hint li").top, r("#hint li").bottom],
                    hand: [r("#my-hand").top, r("#my-hand").bottom],
                    bar: [r("#composer").top, r("#composer").bottom],
                    height: window.innerHeight};""")
        inside = lambda top, bottom: 0 <= top and bottom <= box["height"]  # noqa: E731
        assert inside(*box["hand"]) and inside(*box["bar"]), box
        assert inside(*box["first"]), box                 # the best move's line
        if not phone:
            assert inside(*box["hint"]), box              # the whole hint
        for li in page.find_all("#hint li"):
            move = li.find_element("css selector", ".hint-move").text
            assert f", line {move}" in li.text, li.text


def test_the_level_picker_lists_the_ladder_with_ratings_and_a_level_plays(page):
    from jaipur_ai.search.levels import levels
    page.screen("play")
    options = page.find_all("#level option")
    values = [o.get_attribute("value") for o in options]
    assert values[1:] == [lv.name for lv in levels()]          # after the server's default
    for o, lv in zip(options[1:], levels()):
        shown = math.floor(lv.elo + 0.5)                 # (JavaScript's Math.round)
        assert f"level {lv.name}: rating {shown}" in o.text
    game = page.new_game(seed=4, you="0", level="2")
    assert game["engine"] == levels()[1].spec
    page.new_game(seed=4, you="0")                      # (the others play the default)
