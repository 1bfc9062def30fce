"""Driving the page of ``jaipur-ai web`` in a headless Chromium (selenium): what the
browser tests (tests/test_web_browser.py) and the screenshots of docs/web.md
(bench/web_screenshots.py) share.

A :class:`Page` clicks what a player clicks: cards of the market, the hand and the
herd, then Confirm; it reads what the page shows.  The server runs in a thread of
this process (:func:`serve`), on a free port.
"""
from __future__ import annotations

import json
import shutil
import threading
import urllib.request
from contextlib import contextmanager
from typing import Any, Iterator, Optional

from jaipur_ai.rules.move import Move
from jaipur_ai.doors.web import WebApp, make_server, url_of

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")


def missing() -> Optional[str]:
    """Why the browser tests cannot run here (``None``: they can)."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    if CHROMIUM is None or CHROMEDRIVER is None:
        return "chromium and chromium-driver are not installed (apt-get install chromium " \
               "chromium-driver)"
    return None


@contextmanager
def serve(level: str, hint: str) -> Iterator[str]:
    """A web server of a :class:`WebApp` on a free port of 127.0.0.1; yields its URL."""
    server = make_server(WebApp(level=level, hint=hint), port=0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    try:
        yield url_of(server)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@contextmanager
def browser(width: int = 1200, height: int = 1300) -> Iterator[Any]:
    """A headless Chromium driven by chromedriver."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--disable-extensions", "--no-first-run", f"--window-size={width},{height}"):
        opts.add_argument(a)
    if CHROMIUM:
        opts.binary_location = CHROMIUM
    driver = webdriver.Chrome(options=opts, service=Service(CHROMEDRIVER))
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def kind(move: str) -> str:
    """``take``, ``camels``, ``sell`` or ``swap``."""
    return move.split()[0]


def choose(legal: list, used: set) -> str:
    """Every kind of move once (exchange, camels, sale, take), then whatever ends the
    round soonest: the biggest sale, else the camels (they empty the deck), else a take."""
    by_kind: dict = {}
    for m in legal:
        by_kind.setdefault(kind(m), []).append(m)
    for k in ("swap", "camels", "sell", "take"):
        if k not in used and by_kind.get(k):
            return by_kind[k][0]
    if by_kind.get("sell"):
        return max(by_kind["sell"], key=lambda m: int(m.split()[1][:-1]))
    return (by_kind.get("camels") or by_kind.get("take") or legal)[0]


class Page:
    """The page at ``url`` in ``driver``."""

    def __init__(self, driver: Any, url: str, timeout: float = 30.0) -> None:
        from selenium.webdriver.support.ui import WebDriverWait
        self.d = driver
        self.url = url
        self.wait = WebDriverWait(driver, timeout, poll_frequency=0.02)

    # ------------------------------------------------------------ reading
    def find(self, css: str) -> Any:
        from selenium.webdriver.common.by import By
        return self.d.find_element(By.CSS_SELECTOR, css)

    def find_all(self, css: str) -> list:
        from selenium.webdriver.common.by import By
        return self.d.find_elements(By.CSS_SELECTOR, css)

    def text(self, css: str) -> str:
        return self.find(css).text

    def shown(self, css: str) -> bool:
        found = self.find_all(css)
        return bool(found) and found[0].is_displayed()

    @contextmanager
    def held_back(self, suffix: str, ms: int = 1500, first: Optional[int] = None,
                  answer: bool = False) -> Iterator[None]:
        """Within it, the page's requests to a path ending in ``suffix`` (only the
        ``first`` so many of them, if given) leave ``ms`` ms late, or with ``answer``
        leave at once and their answer reaches the page ``ms`` ms late (so it tells what
        was true when it was asked); ``answered()`` counts their answers (each counted a
        little after it came, once the page has read it).  The page's own fetch is put
        back at the end: the page is shared by the module's tests."""
        self.d.execute_script("""
            const [suffix, ms, first, answer] = arguments;
            const real = window.fetch;
            const wait = (x) => new Promise((ok) => setTimeout(() => ok(x), ms));
            let held = 0;
            window.unheldFetch = real;
            window.heldAnswered = 0;
            window.fetch = (path, init) => String(path).endsWith(suffix)
                && (first === null || held++ < first)
              ? (answer ? real(path, init).then(wait) : wait().then(() => real(path, init)))
                  .then((r) => { setTimeout(() => { window.heldAnswered += 1; }, 300); return r; })
              : real(path, init);""", suffix, ms, first, answer)
        try:
            yield
        finally:
            self.d.execute_script("if (window.unheldFetch) { window.fetch = window.unheldFetch;"
                                  " delete window.unheldFetch; }")

    def answered(self) -> int:
        """How many held-back requests have been answered (:meth:`held_back`)."""
        return int(self.d.execute_script("return window.heldAnswered || 0"))

    def idle(self) -> None:
        """Wait until no request of the page is in flight."""
        self.wait.until(lambda d: d.execute_script("return !document.body.dataset.busy"))

    def table(self) -> dict:
        """What the play screen shows, read in one round trip: the cards of the market,
        the hand and the herds, the sizes, whose turn, the round's moves."""
        return self.d.execute_script("""
            const all = (sel) => [...document.querySelectorAll(sel)];
            const cards = (sel) => all(sel).map((e) => e.dataset.card).join("");
            const text = (sel) => {
                const e = document.querySelector(sel);
                return e ? e.textContent : null;
            };
            return {market: cards("#market .card"), hand: cards("#my-hand .card"),
                    herd: cards("#my-herd .card").length,
                    opp_hand: cards("#opp-hand .card").length,
                    opp_herd: cards("#opp-herd .card").length, deck: text("#deck"),
                    turn: text("#turn"), engine_move: text("#engine-move"),
                    history: all("#history li").map((e) => e.textContent),
                    round_over: !document.getElementById("round-end").hidden};""")

    def error(self) -> str:
        return self.text("#error") if self.shown("#error") else ""

    def api(self, path: str) -> Any:
        """What the server says (for choosing moves; assertions read the page)."""
        with urllib.request.urlopen(self.url.rstrip("/") + path, timeout=30) as r:
            return json.loads(r.read())

    def game(self) -> dict:
        return self.api(f"/api/games/{self.find('#table').get_attribute('data-game')}")

    # ------------------------------------------------------------ acting
    def type_into(self, css: str, text: str) -> Any:
        box = self.find(css)
        box.clear()
        box.send_keys(text)
        return box

    def load(self) -> None:
        self.d.get(self.url)
        self.wait.until(lambda d: d.execute_script("return document.body.dataset.ready === '1'"))

    def screen(self, name: str) -> None:
        self.find(f"#tabs button[data-screen={name}]").click()

    def new_game(self, seed: Optional[int] = None, you: str = "0",
                 level: Optional[str] = None) -> dict:
        from selenium.webdriver.support.ui import Select
        self.screen("play")
        Select(self.find("#level")).select_by_index(0) if level is None else \
            Select(self.find("#level")).select_by_value(level)
        seed_box = self.find("#seed")
        seed_box.clear()
        if seed is not None:
            seed_box.send_keys(str(seed))
        Select(self.find("#you")).select_by_value(you)
        self.find("#new-game-button").click()
        self.idle()
        self.wait.until(lambda d: self.shown("#table"))
        return self.game()

    def click_card(self, zone: str, letter: str) -> None:
        """Click an unselected card of ``letter`` in ``zone`` (market, hand, herd)."""
        self.find(f'#table button.card[data-zone="{zone}"][data-card="{letter}"]'
                  ":not(.selected)").click()

    def select(self, move: str) -> None:
        """Click the cards of ``move`` (canonical text)."""
        m = Move.parse(move)
        text = str(m)
        if text == "camels":
            self.click_card("market", "M")
        elif text.startswith("take "):
            self.click_card("market", text[5])
        elif text.startswith("sell "):
            for _ in range(int(text[5:-1])):
                self.click_card("hand", text[-1])
        else:
            taken, given = text[5:].split(" for ")
            for c in taken:
                self.click_card("market", c)
            for c in given:
                self.click_card("herd" if c == "M" else "hand", c)

    def play_round(self) -> list:
        """Play the round to its end by clicking (:func:`choose`); the moves played."""
        used: set = set()
        played = []
        while not self.shown("#round-end"):
            move = choose(self.game()["legal_moves"], used)
            used.add(kind(move))
            self.play(move)
            played.append(move)
        return played

    def play(self, move: str) -> None:
        """Click the cards of ``move``, check that the page reads them as that move,
        and Confirm."""
        self.select(move)
        shown = self.text("#move-text")
        if shown != move:
            raise AssertionError(f"the page reads the clicks of {move!r} as {shown!r}")
        self.find("#confirm").click()
        self.idle()
