// jaipur_ai web: the screens and what their buttons do.
import { api, apiText, withRecord, withSeed } from "./api.js";
import { analyse, showHint, stopAnalysis } from "./analysis.js";
import { checkPosition, setupEditor, showExample, showView } from "./editor.js";
import { liveEval, setLiveEvalLimit, stopLiveEval } from "./evalbar.js";
import { reviewGame, setupReviewWalk } from "./review.js";
import { clearSelection, currentTable, renderTable, setWaiting } from "./table.js";

const $ = (id) => document.getElementById(id);

function showError(e) {
  $("error").textContent = e && e.message ? e.message : String(e);
  $("error").hidden = false;
}

function clearError() {
  $("error").hidden = true;
  $("error").textContent = "";
}

let pending = 0;              // actions in flight (body's data-busy while any is)

// Runs an action with its button disabled; errors are shown.
async function busy(button, fn) {
  clearError();
  if (button) button.disabled = true;
  pending += 1;
  document.body.dataset.busy = "1";
  try {
    return await fn();
  } catch (e) {
    showError(e);
    return null;
  } finally {
    if (button) button.disabled = false;
    pending -= 1;
    if (pending === 0) delete document.body.dataset.busy;
  }
}

// An answer about game `t` is drawn only while `t` is the game on the table: a game
// started or opened meanwhile keeps the table (and the address and storage).
function stillShown(t) {
  const c = currentTable();
  return Boolean(c && t && c.id === t.id);
}

export function showScreen(name) {
  for (const b of document.querySelectorAll("#tabs button")) {
    b.classList.toggle("active", b.dataset.screen === name);
  }
  for (const s of document.querySelectorAll(".screen")) s.hidden = s.id !== `screen-${name}`;
  document.body.dataset.screen = name;
}

// The game shown is kept: its id in the address (#game=ID, a link to it) and in this
// browser's storage with its record, so that a reload, or a server that forgot it,
// shows it again.
const SAVED_ID = "jaipur-ai.game", SAVED_RECORD = "jaipur-ai.record", SAVED_YOU = "jaipur-ai.you";
// A record is kept only if none asked for after it has been kept: one answering late
// (after a move or a game that came since) would overwrite a newer record.
let recordAsked = 0, recordKept = 0;

function play(table) {
  $("table").hidden = false;
  $("hint").hidden = true;
  renderTable(table);
  liveEval(table);
  if (location.hash !== `#game=${table.id}`) history.replaceState(null, "", `#game=${table.id}`);
  try {
    // (another game's record never stays beside this game's id)
    if (localStorage.getItem(SAVED_ID) !== table.id) localStorage.removeItem(SAVED_RECORD);
    localStorage.setItem(SAVED_ID, table.id);
    localStorage.setItem(SAVED_YOU, String(table.you));
  } catch (e) { /* storage refused (private mode): the address still names the game */ }
  const asked = ++recordAsked;
  apiText(`/api/games/${table.id}/record`).then((record) => {
    if (asked < recordKept || !stillShown(table)) return;
    recordKept = asked;
    try { localStorage.setItem(SAVED_RECORD, record); } catch (e) { /* full */ }
  }).catch(() => {});
}

// On load: the game named by the address, else the last one of this browser; a game the
// server no longer has is opened again from its saved record.
async function restore() {
  const m = location.hash.match(/game=([0-9a-f]{1,40})/);
  const gid = m ? m[1] : localStorage.getItem(SAVED_ID);
  if (!gid) return;
  try {
    play(await api("GET", `/api/games/${gid}`));
    return;
  } catch (e) {
    if (e.type !== "NotFoundError") throw e;
  }
  const saved = localStorage.getItem(SAVED_RECORD);
  if (!saved || localStorage.getItem(SAVED_ID) !== gid) {
    $("restored").textContent = `The server no longer has game ${gid}: start a new one.`;
    $("restored").hidden = false;
    return;
  }
  const you = Number(localStorage.getItem(SAVED_YOU) || "0");
  play(await api("POST", "/api/games", withRecord(saved, { you })));
  $("restored").textContent = "The server no longer had this game: it was opened again "
    + "from the record this browser kept.";
  $("restored").hidden = false;
}

// A record file (picked or dropped) opened as a game at the chosen move.
async function openRecord(file) {
  const text = await file.text();
  try {
    JSON.parse(text);           // (only to say so here: the text itself is sent)
  } catch (e) {
    throw new Error(`${file.name}: not a JSON game record (jaipur-record/1)`);
  }
  const fields = {};
  if ($("open-ply").value !== "") fields.ply = Number($("open-ply").value);
  if ($("open-round").value !== "") fields.round = Number($("open-round").value);
  showScreen("play");
  play(await api("POST", "/api/games", withRecord(text, fields)));
}

async function start() {
  for (const b of document.querySelectorAll("#tabs button")) {
    b.addEventListener("click", () => showScreen(b.dataset.screen));
  }
  const info = await api("GET", "/api");
  $("version").textContent = `jaipur_ai ${info.version}`;
  $("review-iterations").value = String(info.review_iterations);
  setLiveEvalLimit(info.max_time);
  // the rated ladder, weakest first, each with its rating (GET /api's "ladder")
  const levels = [[info.level, `default (${info.level})`],
    ...info.ladder.map((lv) => [lv.name,
      `level ${lv.name}: rating ${Math.round(lv.elo)}` +
      (lv.ms === null ? "" : `, ${lv.ms < 10 ? lv.ms.toFixed(1) : Math.round(lv.ms)} ms a move`)])];
  $("level").replaceChildren(...levels.map(([value, label]) => {
    const o = document.createElement("option");
    o.value = value; o.textContent = label;
    return o;
  }));

  $("new-game").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const body = withSeed({ level: $("level").value,
      you: $("you").value === "random" ? "random" : Number($("you").value) }, $("seed").value);
    busy($("new-game-button"), async () => play(await api("POST", "/api/games", body)));
  });
  $("open-record").addEventListener("change", () => {
    const file = $("open-record").files[0];
    $("open-record").value = "";        // (so that the same file can be opened again)
    if (file) busy(null, () => openRecord(file));
  });
  document.addEventListener("dragover", (ev) => ev.preventDefault());
  document.addEventListener("drop", (ev) => {
    ev.preventDefault();
    const file = ev.dataTransfer && ev.dataTransfer.files[0];
    if (file) busy(null, () => openRecord(file));
  });
  $("clear").addEventListener("click", () => { clearSelection(); renderTable(currentTable()); });
  $("live-eval").addEventListener("change", () => liveEval(currentTable()));
  $("confirm").addEventListener("click", () => {
    const t = currentTable();
    const move = $("confirm").dataset.move;
    stopLiveEval();
    setWaiting(t.id);
    busy($("confirm"), async () => {
      $("move-note").textContent = "the engine is thinking ...";
      const answer = await api("POST", `/api/games/${t.id}/move`, { move });
      if (stillShown(t)) play(answer);
    }).finally(() => {
      setWaiting(null);
      if (stillShown(t)) liveEval(currentTable());    // (again, if the move failed)
    });
  });
  $("hint-button").addEventListener("click", () => {
    const t = currentTable();
    busy($("hint-button"), async () => {
      const hint = await api("POST", `/api/games/${t.id}/hint`, {});
      if (stillShown(t)) showHint(hint);
    });
  });
  $("next-round").addEventListener("click", () => {
    const t = currentTable();
    busy($("next-round"), async () => {
      const table = await api("POST", `/api/games/${t.id}/next`, {});
      if (stillShown(t)) play(table);
    });
  });
  $("analyse-here").addEventListener("click", () => {
    $("analyse-position").value = currentTable().position;
    showScreen("analyse");
    analyse($("analyse-position").value, showError);
  });
  $("review-game").addEventListener("click", () => {
    showScreen("review");
    reviewGame(currentTable(), showError);
  });

  $("analyse-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    clearError();
    analyse($("analyse-position").value, showError);
  });
  $("analyse-stop").addEventListener("click", stopAnalysis);

  await setupEditor();
  $("ed-read").addEventListener("click", () => busy($("ed-read"), checkPosition));
  $("ed-from-game").addEventListener("click", () => {
    const t = currentTable();
    if (t) showView(t.view, t.position); else showError(new Error("no game yet: start one on the Play screen"));
  });
  $("ed-sample").addEventListener("click", showExample);
  $("ed-check").addEventListener("click", () => busy($("ed-check"), checkPosition));
  $("ed-analyse").addEventListener("click", () => busy($("ed-analyse"), async () => {
    const p = await checkPosition();
    if (!p) return;
    $("analyse-position").value = p.position;
    showScreen("analyse");
    analyse(p.position, showError);
  }));
  $("review-start").addEventListener("click", () => reviewGame(currentTable(), showError));
  setupReviewWalk(showError);
  await busy(null, restore);
  document.body.dataset.ready = "1";
}

start().catch(showError);
