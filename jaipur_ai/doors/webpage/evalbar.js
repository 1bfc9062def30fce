// The live evaluation of the play screen: while it is your move, the server analyses your
// view (POST /api/analyse, the round's moves given for the belief) and the bar shows
// your chance to win and the expected margin of the best move found, updated as the
// search goes on; it stops when you move.  A switch turns it off.
import { stream } from "./api.js";
import { pct, signed } from "./cards.js";

const $ = (id) => document.getElementById(id);
let seconds = 30;            // the longest it searches one position (within --limit-time)

// The server's --limit-time (GET /api's max_time): the live evaluation asks no more.
export function setLiveEvalLimit(maxTime) {
  if (Number.isFinite(maxTime) && maxTime > 0) seconds = Math.min(30, maxTime);
}
let running = null;          // the AbortController of the evaluation in flight
let position = null;         // the position it evaluates

export function stopLiveEval() {
  if (running) running.abort();
  running = null;
  position = null;
}

function show(c) {
  const bar = $("eval-bar");
  const win = c.win_probability;
  bar.querySelector(".fill").style.width = `${(100 * win).toFixed(1)}%`;
  bar.setAttribute("aria-valuenow", (100 * win).toFixed(0));
  bar.setAttribute("aria-valuetext", `${pct(win)} % to win`);
  $("eval-text").textContent = `you: ${pct(win)} % to win, margin ${signed(c.expected_margin)}`;
  bar.dataset.win = String(win);
  bar.dataset.updates = String(Number(bar.dataset.updates || 0) + 1);
}

// Evaluate the table's position if it is your move (and the switch is on).
export function liveEval(table) {
  const bar = $("eval-bar");
  const on = $("live-eval").checked;
  bar.hidden = !on;
  if (!on || !table || table.round_over || table.turn !== "you") {
    stopLiveEval();
    if (table && table.round_over) $("eval-text").textContent = "round over";
    return;
  }
  if (running && position === table.position) return;     // already on it
  stopLiveEval();
  const control = new AbortController();
  running = control;
  position = table.position;
  bar.dataset.position = table.position;
  bar.dataset.updates = "0";
  $("eval-text").textContent = "evaluating ...";
  const body = { position: table.position,
    history: table.history.map((h) => ({ position: h.position, move: h.move })),
    time: seconds, report_every: 0.5, top: 1 };
  stream("/api/analyse", body, (name, a) => {
    if (running !== control) return;
    if (a.error) throw new Error(a.error.message);
    if (a.candidates.length) show(a.candidates[0]);
  }, control.signal).catch((e) => {
    if (e.name !== "AbortError" && running === control) {
      $("eval-text").textContent = `no evaluation: ${e.message}`;
    }
  }).finally(() => {
    if (running === control) running = null;
  });
}
