// The review of a game (POST /api/games/ID/review: progress events, then the review)
// and its win-probability graph, an inline SVG drawn here.
import { api, stream } from "./api.js";
import { drawBoard } from "./board.js";
import { el, pct } from "./cards.js";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const COLOURS = ["#1f6feb", "#2f8a3e"];

function svg(tag, attrs = {}, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

function who(review, player) {
  return player === review.you ? "you" : "engine";
}

// Each player's win % before each of their moves, and at each round's end (a dashed
// line between rounds); the labelled moves marked where they left the mover's curve.
export function drawGraph(review) {
  const W = 900, H = 300, L = 44, R = 12, T = 14, B = 34;
  const rounds = review.rounds.filter((r) => review.plies.some((p) => p.round === r.round));
  let x0 = 0;
  const spans = rounds.map((r) => {
    const plies = review.plies.filter((p) => p.round === r.round);
    const span = { round: r, plies, x0, width: plies[plies.length - 1].ply + 1 };
    x0 += span.width;
    return span;
  });
  const total = Math.max(x0, 1);
  const X = (x) => L + (W - L - R) * (x / total);
  const Y = (p) => T + (H - T - B) * (1 - p);
  const g = svg("svg", { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img",
    "aria-label": "win probability over the game" });
  for (const p of [0, 0.25, 0.5, 0.75, 1]) {
    g.append(svg("line", { class: "grid-line", x1: L, x2: W - R, y1: Y(p), y2: Y(p) }));
    g.append(svg("text", { x: L - 6, y: Y(p) + 4, "text-anchor": "end" }, `${100 * p}%`));
  }
  g.append(svg("line", { class: "axis", x1: L, x2: L, y1: T, y2: H - B }));
  g.append(svg("line", { class: "axis", x1: L, x2: W - R, y1: H - B, y2: H - B }));
  for (const s of spans) {
    if (s.x0 > 0) {
      g.append(svg("line", { class: "axis", x1: X(s.x0), x2: X(s.x0), y1: T, y2: H - B,
        "stroke-dasharray": "4 3" }));
    }
    g.append(svg("text", { x: X(s.x0 + s.width / 2), y: H - 12, "text-anchor": "middle" },
      `round ${s.round.round}`));
    const result = s.round.result;
    for (const p of [0, 1]) {
      const pts = s.plies.filter((q) => q.mover === p).map((q) => [s.x0 + q.ply, q.win_best]);
      if (result === 0 || result === 1 || result === "draw") {
        pts.push([s.x0 + s.width, result === "draw" ? 0.5 : Number(result === p)]);
      }
      if (!pts.length) continue;
      g.append(svg("polyline", { class: `curve player-${p}`, stroke: COLOURS[p],
        points: pts.map(([x, y]) => `${X(x).toFixed(1)},${Y(y).toFixed(1)}`).join(" ") }));
    }
    for (const q of s.plies) {          // a point per move: click it to see the table
      const dot = svg("circle", { cx: X(s.x0 + q.ply), cy: Y(q.win_best), r: 5,
        class: "ply-point", "data-index": review.plies.indexOf(q), tabindex: -1 });
      dot.append(svg("title", {}, `round ${q.round} ply ${q.ply}: ${q.move}`));
      g.append(dot);
    }
    for (const q of s.plies.filter((x) => x.label)) {
      const x = X(s.x0 + q.ply);
      g.append(svg("line", { x1: x, x2: x, y1: Y(q.win_best), y2: Y(q.win_played),
        class: `mark-${q.label}`, stroke: "currentColor" }));
      const c = svg("circle", { cx: x, cy: Y(q.win_played), r: q.label === "blunder" ? 6 : 4.5,
        class: `mark mark-${q.label}` });
      c.append(svg("title", {}, `round ${q.round} ply ${q.ply}, ${who(review, q.mover)}: `
        + `${q.move} (${q.label}, -${q.loss.toFixed(1)} points; best ${q.best})`));
      g.append(c);
    }
  }
  let ly = T + 4;
  for (const p of [0, 1]) {
    g.append(svg("rect", { x: W - R - 150, y: ly, width: 12, height: 4, fill: COLOURS[p] }));
    g.append(svg("text", { x: W - R - 132, y: ly + 6 }, `${who(review, p)} (player ${p})`));
    ly += 16;
  }
  return g;
}

function summary(review) {
  const rows = review.summary.map((s) => {
    const c = s.counts;
    return el("li", { dataset: { player: String(s.player) }, text:
      `${who(review, s.player)}: ${s.moves} moves, mean loss ${s.mean_loss.toFixed(1)} points, `
      + `${c.inaccuracy} inaccurac${c.inaccuracy === 1 ? "y" : "ies"}, `
      + `${c.mistake} mistake${c.mistake === 1 ? "" : "s"}, ${c.blunder} blunder${c.blunder === 1 ? "" : "s"}` });
  });
  const turns = review.rounds.filter((r) => r.turning_ply).map((r) =>
    el("li", { text: `round ${r.round} turned at ply ${r.turning_ply}` }));
  const t = review.thresholds;
  const labels = el("li", { class: "muted", text: `labels: a loss of ${t.inaccuracy} points or more `
    + `is an inaccuracy, ${t.mistake} a mistake, ${t.blunder} a blunder` });
  return el("ul", {}, ...rows, ...turns, labels);
}

function table(review) {
  const head = el("tr", {}, ...["round", "ply", "who", "move", "win %", "best", "best win %",
    "loss", "label", "best line"].map((h) => el("th", { text: h })));
  const rows = review.plies.map((p, i) => el("tr", { class: p.label || "", tabindex: 0,
    dataset: { label: p.label || "", index: String(i) } },
    el("td", { class: "num", text: String(p.round) }), el("td", { class: "num", text: String(p.ply) }),
    el("td", { text: who(review, p.mover) }), el("td", { text: p.move }),
    el("td", { class: "num", text: pct(p.win_played) }),
    el("td", { text: p.best === p.move ? "=" : p.best }),
    el("td", { class: "num", text: pct(p.win_best) }),
    el("td", { class: "num", text: p.loss.toFixed(1) }), el("td", { text: p.label || "" }),
    el("td", { class: "line", text: p.label ? p.line.join(", ") : "" })));
  return [head, ...rows];
}

// Walking the review: the table of one ply as its mover saw it, the move played and the
// best move marked; a row or a point of the graph chooses it, and the keys step.
let shown = null;            // the review on the screen
let gameId = null;           // the reviewed game's id (its lines are asked of the server)
let line = null;             // the best line of the ply shown: {views, stopped, at, ply}
let asking = null;           // the line being asked for: {p, answer} (p: its ply's entry)
let drawn = 0;               // bumped each time a ply is drawn: a click made before is stale
let at = -1;                 // the ply whose table is drawn (an index into shown.plies)
const views = new Map();     // view text -> its JSON form (asked of the server once)

export async function showPly(i) {
  if (!shown || i < 0 || i >= shown.plies.length) return;
  at = i;
  const p = shown.plies[i];
  for (const tr of document.querySelectorAll("#review-table tr.current")) tr.classList.remove("current");
  const row = document.querySelector(`#review-table tr[data-index="${i}"]`);
  if (row) row.classList.add("current");
  for (const c of document.querySelectorAll("#review-graph .ply-point.current")) c.classList.remove("current");
  const dot = document.querySelector(`#review-graph .ply-point[data-index="${i}"]`);
  if (dot) dot.classList.add("current");
  if (!views.has(p.view)) views.set(p.view, (await api("POST", "/api/position", { position: p.view })).json);
  if (at !== i) return;                 // another ply was chosen meanwhile
  const box = $("review-board");
  box.hidden = false;
  $("review-ply").textContent = `Round ${p.round}, move ${p.ply}: ${who(shown, p.mover)} `
    + `played ${p.move} (${pct(p.win_played)} %)`
    + (p.best === p.move ? ", the best move found" : `; best ${p.best} (${pct(p.win_best)} %)`)
    + (p.label ? `: ${p.label}` : "") + (p.why ? `. Why: ${p.why}` : "");
  drawBoard($("review-position"), views.get(p.view),
    [[p.move, "played"], [p.best === p.move ? null : p.best, "best"]]);
  box.dataset.index = String(i);
  drawn += 1;
  delete $("review-position").dataset.line;
  line = null;
  $("review-line").textContent = p.line.length ? `best line: ${p.line.join(", ")}` : "";
  $("review-line-next").disabled = !p.line.length;
  $("review-line-back").disabled = true;
}

// Plays the shown ply's best line out on the board, a move at a time, on the cards as
// they really were (the server replays the game's record); a move the real cards do
// not allow (the line's opponent moves come from sampled hands) ends it.
async function lineStep(delta) {
  if (!shown || at < 0) return;
  const i = at, p = shown.plies[i], when = drawn;
  if (!line || line.ply !== i) {
    // clicks made while the line is asked for share the one answer, and each steps
    if (!asking || asking.p !== p) {
      asking = { p, answer: api("POST", `/api/games/${gameId}/line`,
        { round: p.round, ply: p.ply, moves: p.line }) };
    }
    const ask = asking;
    let got;
    try { got = await ask.answer; } finally { if (asking === ask) asking = null; }
    if (when !== drawn) return;         // another ply (or this one again) was drawn since
    if (!line || line.ply !== i) line = { ...got, at: 0, ply: i };
  }
  line.at = Math.max(0, Math.min(line.views.length, line.at + delta));
  const k = line.at;
  const view = k === 0 ? views.get(p.view) : line.views[k - 1];
  const next = k < p.line.length && k < line.views.length ? p.line[k] : null;
  drawBoard($("review-position"), view, k === 0
    ? [[p.move, "played"], [p.best === p.move ? null : p.best, "best"]] : [[next, "best"]]);
  let text = k === 0 ? `best line: ${p.line.join(", ")}`
    : `best line, after ${p.line.slice(0, k).join(", ")}` + (next ? `; next ${next}` : "");
  if (k === line.views.length && line.stopped) text += ` (stops: ${line.stopped.reason})`;
  $("review-line").textContent = text;
  $("review-line-back").disabled = k === 0;
  $("review-line-next").disabled = k >= line.views.length;
  $("review-position").dataset.line = String(k);
}

function step(ev) {
  if (!shown || document.body.dataset.screen !== "review") return;
  if (ev.target && ["INPUT", "SELECT", "TEXTAREA"].includes(ev.target.tagName)) return;
  const last = shown.plies.length - 1;
  const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: last }[ev.key];
  if (to === undefined) return;
  ev.preventDefault();
  showPly(Math.max(0, Math.min(last, to))).catch(reportStepError);
}

let reportStepError = () => {};

export function setupReviewWalk(reportError) {
  reportStepError = reportError;
  document.addEventListener("keydown", step);
  const pick = (ev) => {
    const hit = ev.target.closest("[data-index]");
    if (hit && hit.closest("#review-table, #review-graph")) {
      showPly(Number(hit.dataset.index)).catch(reportError);
    }
  };
  $("review-table").addEventListener("click", pick);
  $("review-graph").addEventListener("click", pick);
  $("review-table").addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" || ev.key === " ") pick(ev);
  });
  $("review-line-next").addEventListener("click", () => lineStep(1).catch(reportError));
  $("review-line-back").addEventListener("click", () => lineStep(-1).catch(reportError));
}

// The reviewed game as one file: the record with the review as notes (jaipur-record/1,
// JSON text as the server wrote it), which the page and jaipur-ai review open again.
function offerDownload(recordText) {
  const link = $("review-download");
  if (!recordText) return;
  if (link.href.startsWith("blob:")) URL.revokeObjectURL(link.href);
  link.href = URL.createObjectURL(new Blob([recordText], { type: "application/json" }));
  link.record = recordText;      // (what the file holds, for scripts that drive the page)
  link.hidden = false;
}

let reviewing = null;         // the AbortController of the review in flight

export async function reviewGame(game, reportError) {
  const status = $("review-status");
  if (!game) {
    reportError(new Error("no game yet: play one on the Play screen"));
    return;
  }
  // one review at a time: a new one stops the one in flight (and the server's work)
  if (reviewing) reviewing.abort();
  const control = new AbortController();
  reviewing = control;
  const body = {};
  const n = parseInt($("review-iterations").value, 10);
  if (!Number.isNaN(n)) body.iterations = n;
  $("review-graph").replaceChildren();
  $("review-summary").replaceChildren();
  $("review-table").replaceChildren();
  $("review-download").hidden = true;
  $("review-board").hidden = true;
  shown = null;
  at = -1;
  const bar = $("review-progress");
  bar.hidden = false; bar.value = 0;
  status.textContent = "reviewing ...";
  status.dataset.state = "running";
  $("review-start").disabled = true;
  try {
    await stream(`/api/games/${game.id}/review`, body, (name, data) => {
      if (reviewing !== control) return;
      if (name === "error") throw new Error(data.error.message);
      if (name === "progress") {
        bar.max = Math.max(data.total, 1); bar.value = data.done;
        status.textContent = `reviewing: ${data.done} of ${data.total} moves`;
      } else if (name === "review") {
        $("review-graph").replaceChildren(drawGraph(data));
        $("review-summary").replaceChildren(summary(data));
        $("review-table").replaceChildren(...table(data));
        status.textContent = `${data.plies.length} moves reviewed, ${data.settings.iterations} iterations each`;
        status.dataset.state = "done";
        offerDownload(data.annotated_record);
        shown = data;
        gameId = game.id;
        showPly(0).catch(reportError);
      }
    }, control.signal);
  } catch (e) {
    if (reviewing !== control) return;      // replaced by a newer review
    status.textContent = "";
    status.dataset.state = "error";
    reportError(e);
  } finally {
    if (reviewing === control) {
      reviewing = null;
      bar.hidden = true;
      $("review-start").disabled = false;
    }
  }
}
