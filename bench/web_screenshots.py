"""The screenshots of docs/web.md: each screen of ``jaipur-ai web``, driven in headless
Chromium by the same code as the browser tests (tests/webpage.py).

    PYTHONPATH=. python3 bench/web_screenshots.py [--out docs/img] [--only desktop|phone]

The desktop shots are 1100 px wide (the whole page); the phone shots are a 390 x 844
phone's first screen (web-phone-play.png) and its whole review (web-phone-review.png).

Needs chromium, chromium-driver and selenium (the ``test`` extra).  The games are
seeded and the engines iteration-limited, so the pictures come out the same each run
(the analysis timings aside).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import webpage  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

LEVEL = "ismcts:iterations=300"
HINT = "ismcts:iterations=2000"


def shoot(page: webpage.Page, out: Path, name: str) -> None:
    page.d.execute_script("window.scrollTo(0, 0)")
    height = page.d.execute_script("return document.body.scrollHeight")
    page.d.set_window_size(1100, min(max(height + 20, 600), 2200))
    path = out / f"web-{name}.png"
    page.d.save_screenshot(str(path))
    print(path)


def three_moves_in(page: webpage.Page) -> dict:
    """A seeded game, three moves of the player in (a take each time: the table full)."""
    game = page.new_game(seed=11, you="0")
    for _ in range(3):
        page.play(webpage.choose(game["legal_moves"], {"swap", "camels", "sell"}))
        game = page.game()
    return game


def phone(out: Path) -> None:
    """The play screen as a 390 x 844 phone shows it, and a review."""
    sample = Path(__file__).resolve().parent.parent / "jaipur_ai" / "data" / "sample-record.json"
    with webpage.serve(LEVEL, HINT) as url, webpage.browser(390, 844) as driver:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
        page = webpage.Page(driver, url)
        page.load()
        three_moves_in(page)
        page.d.execute_script("window.scrollTo(0, 0)")
        page.d.save_screenshot(str(out / "web-phone-play.png"))
        print(out / "web-phone-play.png")
        page.find("#open-record").send_keys(str(sample))
        page.idle()
        page.screen("review")
        page.type_into("#review-iterations", "300")
        page.find("#review-start").click()
        WebDriverWait(driver, 600).until(
            lambda d: page.find("#review-status").get_attribute("data-state") in ("done", "error"))
        height = page.d.execute_script("return document.documentElement.scrollHeight")
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": 390, "height": min(height, 2400), "deviceScaleFactor": 1, "mobile": True})
        page.d.save_screenshot(str(out / "web-phone-review.png"))
        print(out / "web-phone-review.png")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="docs/img", help="folder of the PNG files")
    ap.add_argument("--only", choices=("desktop", "phone"), default=None)
    args = ap.parse_args()
    why = webpage.missing()
    if why:
        print(f"web_screenshots: {why}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.only != "desktop":
        phone(out)
    if args.only == "phone":
        return 0
    with webpage.serve(LEVEL, HINT) as url, webpage.browser(1100, 1300) as driver:
        page = webpage.Page(driver, url)
        page.load()
        # play: a few moves in, a hint asked, an exchange being chosen
        game = three_moves_in(page)
        page.find("#hint-button").click()
        page.idle()
        goods = [c for c in game["view"]["market"] if c != "M"]
        hand = game["view"]["players"][0]["hand"]
        if len(goods) >= 2 and hand:
            page.click_card("market", goods[0])
            page.click_card("market", goods[1])
            page.click_card("hand", hand[0])
        shoot(page, out, "play")
        # the end of the round
        page.find("#clear").click()
        page.play_round()
        shoot(page, out, "round-end")
        # the review of the round just played
        page.screen("review")
        page.type_into("#review-iterations", "1000")
        page.find("#review-start").click()
        WebDriverWait(driver, 600).until(
            lambda d: page.find("#review-status").get_attribute("data-state") in ("done", "error"))
        shoot(page, out, "review")
        page.screen("play")
        # the analysis of a position of the next round
        page.find("#next-round").click()
        page.idle()
        page.screen("analyse")
        page.type_into("#analyse-time", "2")
        page.screen("play")
        page.find("#analyse-here").click()
        page.wait.until(lambda d: page.find("#analyse-status").get_attribute("data-state")
                        == "final")
        shoot(page, out, "analyse")
        # the editor, with an error on the field it names
        page.screen("editor")
        page.find("#ed-sample").click()
        page.type_into("#ed-deck", "37")
        page.find("#ed-check").click()
        page.idle()
        shoot(page, out, "editor")
    return 0


if __name__ == "__main__":
    sys.exit(main())
