// The position editor: the fields of a view (what you see at a real table) and its
// one-line text form (docs/notation.md, "View"), kept in step: the fields write the text
// as you type; the server reads it (the page has no parser of the notation) and checks it.
import { api } from "./api.js";
import { GOODS, el } from "./cards.js";

const $ = (id) => document.getElementById(id);
const EXAMPLE = "V 1.0.1.00.- 1 GSCLL 36 PP 555759 765 4/0/G/-.-.-.-.53.-/0.0.0 "
  + "SCPP/4/-/-.-.-.-.-.-/-.-.-";
const KINDS = ["3", "4", "5"];

function grid(id, keys, prefix, attrs) {
  const box = $(id);
  for (const k of keys) {
    box.append(el("label", {}, `${k} `, el("input", {
      id: `${id}-${k}`, dataset: { field: `${prefix}${k}` }, ...attrs,
    })));
  }
}

// Draws the grids of the editor and fills it with the example (read by the server).
export async function setupEditor() {
  grid("ed-stacks", [...GOODS], "tokens.", { type: "number", min: 0, max: 9 });
  grid("ed-bonus-left", KINDS, "bonus_left.", { type: "number", min: 0, max: 7 });
  grid("ed-tokens", [...GOODS], "tokens.", { placeholder: "-" });
  grid("ed-bonus", KINDS, "bonus.", { placeholder: "-" });
  grid("ed-opp-tokens", [...GOODS], "tokens.", { placeholder: "-" });
  grid("ed-opp-bonus", KINDS, "bonus.", { type: "number", min: 0, max: 7 });
  for (const input of document.querySelectorAll("#editor input, #editor select")) {
    if (input.id !== "ed-text") input.addEventListener("input", () => { $("ed-text").value = fieldsToText(); });
  }
  example = await api("POST", "/api/position", { position: EXAMPLE });
  showExample();
}

const val = (id) => $(id).value.trim();
const dash = (s) => s.replace(/\s+/g, "").toUpperCase() || "-";
const num = (id) => val(id) || "0";

// The one-line text of the fields.
export function fieldsToText() {
  const observer = val("ed-observer");
  const head = `${num("ed-round")}.${val("ed-starter")}.${val("ed-to-move")}.`
    + `${num("ed-seals0")}${num("ed-seals1")}.-`;
  const stacks = [...GOODS].map((g) => num(`ed-stacks-${g}`)).join("");
  const left = KINDS.map((k) => num(`ed-bonus-left-${k}`)).join("");
  const tokens = (id) => [...GOODS].map((g) => dash(val(`${id}-${g}`))).join(".");
  const mine = [dash(val("ed-hand")), num("ed-herd"), dash(val("ed-known")), tokens("ed-tokens"),
    KINDS.map((k) => dash(val(`ed-bonus-${k}`))).join(".")].join("/");
  const theirs = [num("ed-opp-hand"), num("ed-opp-herd"), dash(val("ed-opp-known")),
    tokens("ed-opp-tokens"), KINDS.map((k) => num(`ed-opp-bonus-${k}`)).join(".")].join("/");
  const players = observer === "0" ? [mine, theirs] : [theirs, mine];
  return ["V", head, observer, dash(val("ed-market")), num("ed-deck"), dash(val("ed-discard")),
    stacks, left, ...players].join(" ");
}

function set(id, value) {
  $(id).value = String(value);
}

// Token values as the text writes them (10: T).
const values = (list) => list.map((v) => (v === 10 ? "T" : String(v))).join("");

// Fills the fields from a view as the server read it: `view` its JSON form, `text` its
// one-line text (docs/notation.md).  The notation is read by the server only.
export function showView(view, text) {
  set("ed-round", view.round); set("ed-starter", view.starter); set("ed-to-move", view.to_move);
  set("ed-seals0", view.seals[0]); set("ed-seals1", view.seals[1]);
  set("ed-observer", view.observer); set("ed-market", view.market);
  set("ed-deck", view.deck_size); set("ed-discard", view.discard);
  for (const g of GOODS) set(`ed-stacks-${g}`, view.tokens[g].length);
  for (const k of KINDS) set(`ed-bonus-left-${k}`, view.bonus_left[k]);
  const mine = view.players[view.observer], theirs = view.players[1 - view.observer];
  set("ed-hand", mine.hand); set("ed-herd", mine.herd); set("ed-known", mine.known);
  for (const g of GOODS) set(`ed-tokens-${g}`, values(mine.tokens[g]));
  for (const k of KINDS) set(`ed-bonus-${k}`, values(mine.bonus[k]));
  set("ed-opp-hand", theirs.hand_size); set("ed-opp-herd", theirs.herd);
  set("ed-opp-known", theirs.known);
  for (const g of GOODS) set(`ed-opp-tokens-${g}`, values(theirs.tokens[g]));
  for (const k of KINDS) set(`ed-opp-bonus-${k}`, theirs.bonus[k]);
  $("ed-text").value = text;
}

let example = null;          // the server's reading of EXAMPLE

// Fills the fields with the example position.
export function showExample() {
  showView(example.json, example.position);
}

function result(ok, message) {
  $("ed-result").textContent = message;
  $("ed-result").className = ok ? "ok" : "bad";
}

// The inputs a server error's field names ("position.players[1].hand", "market", ...).
function inputsOf(field) {
  let f = (field || "").replace(/^position\.?/, "");
  if (!f) return [$("ed-text")];
  let boxes = ["#ed-game", "#ed-table"];
  const m = f.match(/^players\[(\d|\*)\]\.(.*)$/);
  if (m) {
    boxes = m[1] === "*" ? ["#ed-you", "#ed-opp"] : [m[1] === val("ed-observer") ? "#ed-you" : "#ed-opp"];
    f = m[2];
  }
  const found = boxes.flatMap((b) => [...document.querySelectorAll(`${b} [data-field]`)])
    .filter((e) => e.dataset.field === f || e.dataset.field === f.replace(/[.[].*$/, ""));
  return found.length ? found : [$("ed-text")];
}

// Asks the server to read the text; shows what it read (in the fields too, for a view),
// or the error on the field it names.
export async function checkPosition() {
  for (const e of document.querySelectorAll("#editor .invalid")) e.classList.remove("invalid");
  try {
    const p = await api("POST", "/api/position", { position: $("ed-text").value });
    const v = p.json;
    const who = p.kind === "view" ? `player ${v.observer}'s view` : "a full state";
    const moves = p.round_over ? "the round is over"
      : p.legal_moves.length ? `${p.legal_moves.length} legal moves` : `player ${p.to_move} to move`;
    result(true, `OK: ${who}, round ${v.round}, player ${p.to_move} to move: ${moves}.`);
    if (p.kind === "view") showView(v, p.position);
    else result(false, "The editor's fields are those of a view; this is a full state (docs/notation.md).");
    return p;
  } catch (e) {
    for (const input of inputsOf(e.field)) input.classList.add("invalid");
    result(false, e.message);
    return null;
  }
}
