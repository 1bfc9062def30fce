// The analysis panel: ranked moves with win %, margin and line, updating while the
// engine thinks (server-sent events from POST /api/analyse), and the hint.
import { api, stream } from "./api.js";
import { drawBoard } from "./board.js";
import { el, pct, signed } from "./cards.js";

const $ = (id) => document.getElementById(id);
// The AbortController of the latest analysis started, kept after it ends (aborting an
// ended one does nothing): answers of any other are stale.
let latest = null;

export function candidateRows(candidates) {
  return candidates.map((c, i) => el("tr", { dataset: { move: c.move } },
    el("td", { class: "num", text: String(i + 1) }),
    el("td", { class: "move", text: c.move }),
    el("td", { class: "num win", text: pct(c.win_probability) }),
    el("td", { class: "num", text: signed(c.expected_margin) }),
    el("td", { class: "num", text: String(c.visits) }),
    el("td", { class: "num rollout", text: rolloutText(c.rollout) }),
    el("td", { class: "line", text: c.pv.join(", ") })));
}

// A rolled-out move's result (win % with its standard error) and, below the first
// row, its difference from the first move's with that difference's standard error.
function rolloutText(r) {
  if (!r) return "–";
  const se = (x) => (100 * x).toFixed(1);
  return `${pct(r.win_probability)} ±${se(r.se)}`
    + (r.diff_se ? ` (${signed(100 * r.diff)} ±${se(r.diff_se)})` : "");
}

let board = null;             // the analysed position as a view's JSON form, once read
let best = null;              // the best move of the latest answer, marked when the board comes

// A full state is drawn as its player to move sees it, the other hand face up.
function viewOf(kind, json) {
  if (kind === "view") return json;
  const me = json.to_move;
  const players = json.players.map((p, i) => (i === me ? { ...p, known: p.known || "" }
    : { ...p, hand_size: p.hand.length, known: p.hand }));
  return { ...json, observer: me, players };
}

// The position and the analysis are fetched side by side and either may come first,
// so whichever arrives last draws the board with the best move known so far.
function drawAnalysed() {
  if (board) drawBoard($("analyse-board"), board, best ? [[best, "best"]] : []);
}

function show(a) {
  $("analysis").tBodies[0].replaceChildren(...candidateRows(a.candidates));
  if (a.candidates.length) {
    best = a.candidates[0].move;
    drawAnalysed();
  }
  const what = a.final ? (a.terminated ? "stopped" : "done") : "thinking";
  $("analyse-status").textContent = `${what}: ${a.iterations.toLocaleString("en")} iterations, `
    + `${a.elapsed.toFixed(1)} s, ${a.algorithm}, seed ${a.seed}`
    + (a.rollouts ? `, rolled out in ${a.rollouts.worlds.toLocaleString("en")} worlds`
       + (a.rollouts.settled ? " (settled)" : "") : "");
  $("analyse-status").dataset.state = a.final ? "final" : "partial";
  const t = $("analysis");
  t.dataset.updates = String(Number(t.dataset.updates || 0) + 1);   // answers shown so far
}

export function stopAnalysis() {
  if (latest) latest.abort();
}

// Analyse `position` (the one-line text or JSON of a view or a state).
export async function analyse(position, reportError) {
  stopAnalysis();
  const body = { position, report_every: 0.25, top: 8 };
  const t = parseFloat($("analyse-time").value);
  const n = parseInt($("analyse-iterations").value, 10);
  const r = parseInt($("analyse-rollouts").value, 10);
  if (!Number.isNaN(t)) body.time = t;
  if (!Number.isNaN(n)) body.iterations = n;
  if (!Number.isNaN(r)) body.rollouts = r;
  const control = new AbortController();
  latest = control;
  $("analyse-stop").disabled = false;
  $("analyse-status").textContent = "starting ...";
  $("analyse-status").dataset.state = "starting";
  $("analysis").tBodies[0].replaceChildren();
  $("analysis").dataset.updates = "0";
  board = null;
  best = null;
  $("analyse-board").replaceChildren();
  api("POST", "/api/position", { position }).then((p) => {
    if (latest !== control) return;    // a later analysis took the board
    board = viewOf(p.kind, p.json);
    drawAnalysed();
  }).catch(() => {});         // (a position the server refuses: the analysis says why)
  try {
    await stream("/api/analyse", body, (name, data) => {
      if (latest !== control) return;
      if (data.error) throw new Error(data.error.message);
      show(data);
    }, control.signal);
  } catch (e) {
    // an analysis replaced by a newer one ends here after the newer one began: the
    // status and the Stop button are the newer one's
    if (latest !== control) return;
    if (e.name !== "AbortError") {
      $("analyse-status").textContent = "";
      reportError(e);
    } else {
      $("analyse-status").textContent += " (stopped)";
    }
  } finally {
    if (latest === control) $("analyse-stop").disabled = true;
  }
}

// The hint panel of the play screen.
export function showHint(report) {
  const rows = report.candidates.map((c, i) => el("li", {},
    el("strong", { class: "hint-move", text: c.move }),
    // the line starts with the move, as in the Analyse table and the command line
    document.createTextNode(`  win ${pct(c.win_probability)} %, margin ${signed(c.expected_margin)}`
      + (c.pv.length ? `, line ${c.pv.slice(0, 4).join(", ")}` : ""))));
  $("hint").replaceChildren(el("span", { text: `Hint (${report.engine}):` }), el("ol", {}, ...rows),
    ...(report.why ? [el("p", { class: "why", text: `Why: ${report.why}` })] : []));
  $("hint").hidden = false;
}
