// The position editor: the fields of a view (what you see at a real table) and its
// one-line text form (docs/notation.md, "View"), kept in step; the server checks it.
import { api } from "./api.js";
import { GOODS, el } from "./cards.js";

const $ = (id) => document.getElementById(id);
export const EXAMPLE = "V 1.0.1.00.- 1 GSCLL 36 PP 555759 765 4/0/G/-.-.-.-.53.-/0.0.0 "
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

export function setupEditor() {
  grid("ed-stacks", [...GOODS], "tokens.", { type: "number", min: 0, max: 9 });
  grid("ed-bonus-left", KINDS, "bonus_left.", { type: "number", min: 0, max: 7 });
  grid("ed-tokens", [...GOODS], "tokens.", { placeholder: "-" });
  grid("ed-bonus", KINDS, "bonus.", { placeholder: "-" });
  grid("ed-opp-tokens", [...GOODS], "tokens.", { placeholder: "-" });
  grid("ed-opp-bonus", KINDS, "bonus.", { type: "number", min: 0, max: 7 });
  for (const input of document.querySelectorAll("#editor input, #editor select")) {
    if (input.id !== "ed-text") input.addEventListener("input", () => { $("ed-text").value = fieldsToText(); });
  }
  textToFields(EXAMPLE);
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
  $(id).value = value === "-" ? "" : value;
}

// Fills the fields from a view's one-line text; false (and a message) when it is not one.
export function textToFields(text) {
  const f = text.trim().split(/\s+/);
  if (f[0] !== "V" || f.length < 10) {
    result(false, "The editor takes the one-line text of a view: 'V' and 9 fields (docs/notation.md).");
    return false;
  }
  const [round, starter, toMove, seals] = f[1].split(".");
  set("ed-round", round); set("ed-starter", starter); set("ed-to-move", toMove);
  set("ed-seals0", (seals || "00")[0]); set("ed-seals1", (seals || "00")[1]);
  set("ed-observer", f[2]); set("ed-market", f[3]); set("ed-deck", f[4]); set("ed-discard", f[5]);
  [...GOODS].forEach((g, i) => set(`ed-stacks-${g}`, f[6][i] || ""));
  KINDS.forEach((k, i) => set(`ed-bonus-left-${k}`, f[7][i] || ""));
  const obs = f[2] === "1" ? 1 : 0;
  const mine = f[8 + obs].split("/"), theirs = f[9 - obs].split("/");
  set("ed-hand", mine[0] || ""); set("ed-herd", mine[1] || ""); set("ed-known", mine[2] || "");
  (mine[3] || "").split(".").forEach((t, i) => GOODS[i] && set(`ed-tokens-${GOODS[i]}`, t));
  (mine[4] || "").split(".").forEach((t, i) => KINDS[i] && set(`ed-bonus-${KINDS[i]}`, t));
  set("ed-opp-hand", theirs[0] || ""); set("ed-opp-herd", theirs[1] || ""); set("ed-opp-known", theirs[2] || "");
  (theirs[3] || "").split(".").forEach((t, i) => GOODS[i] && set(`ed-opp-tokens-${GOODS[i]}`, t));
  (theirs[4] || "").split(".").forEach((t, i) => KINDS[i] && set(`ed-opp-bonus-${KINDS[i]}`, t));
  $("ed-text").value = text.trim();
  return true;
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

// Asks the server; shows what it read, or the error on the field it names.
export async function checkPosition() {
  for (const e of document.querySelectorAll("#editor .invalid")) e.classList.remove("invalid");
  try {
    const p = await api("POST", "/api/position", { position: $("ed-text").value });
    const v = p.json;
    const who = p.kind === "view" ? `player ${v.observer}'s view` : "a full state";
    const moves = p.round_over ? "the round is over"
      : p.legal_moves.length ? `${p.legal_moves.length} legal moves` : `player ${p.to_move} to move`;
    result(true, `OK: ${who}, round ${v.round}, player ${p.to_move} to move: ${moves}.`);
    textToFields(p.position);
    return p;
  } catch (e) {
    for (const input of inputsOf(e.field)) input.classList.add("invalid");
    result(false, e.message);
    return null;
  }
}
