// The play screen: the table drawn from the player's view, and the move composer
// (cards clicked become a move in the notation; Confirm sends it).
import { GOODS, NAMES, canonical, card, cardBack, el, markKnown, token } from "./cards.js";

const $ = (id) => document.getElementById(id);

// What is selected: indices into the market, the hand and the herd.
const selection = { market: new Set(), hand: new Set(), herd: new Set() };
let current = null;          // the game's table (GET /api/games/ID)
let waiting = null;          // the game whose move of yours is with the server, if any

// While your move is sent and the engine answers, that game's table takes no second
// move: its cards and Confirm stay off even when a click on a card redraws the table.
export function setWaiting(gameId) {
  waiting = gameId;
  if (current) renderTable(current);
}

export function clearSelection() {
  selection.market.clear(); selection.hand.clear(); selection.herd.clear();
}

function toggle(set, i) {
  if (set.has(i)) set.delete(i); else set.add(i);
}

// The move the selection stands for: {text} or {note} saying what is missing.
export function composeMove(table, sel) {
  const v = table.view;
  const me = v.players[table.you];
  const taken = [...sel.market].map((i) => v.market[i]);
  const given = [...sel.hand].map((i) => me.hand[i]).concat([...sel.herd].map(() => "M"));
  if (!taken.length && !given.length) return { note: "" };
  if (taken.includes("M")) {
    if (taken.some((c) => c !== "M") || given.length) {
      return { note: "camels are taken all together, on their own" };
    }
    return { text: "camels" };
  }
  if (!taken.length) {
    if (sel.herd.size) return { note: "camels of the herd are only given in an exchange" };
    const good = given[0];
    if (given.some((c) => c !== good)) return { note: "a sale is of one good only" };
    return { text: `sell ${given.length}${good}` };
  }
  if (taken.length === 1 && !given.length) return { text: `take ${taken[0]}` };
  if (taken.length === 1) return { note: "an exchange takes two or more goods" };
  if (given.length !== taken.length) {
    return { note: `exchange: take ${taken.length}, give as many (${given.length} selected)` };
  }
  return { text: `swap ${canonical(taken.join(""))} for ${canonical(given.join(""))}` };
}

// Why a well-formed move text is not legal here, in one line (the rules of docs/rules.md).
export function illegalReason(table, text) {
  const me = table.view.players[table.you];
  const goodsInHand = me.hand.length;
  const parts = text.split(" ");
  if (parts[0] === "take" && goodsInHand >= 7) {
    return "your hand already holds 7 goods, the most it may";
  }
  if (parts[0] === "sell") {
    const n = Number(parts[1].slice(0, -1)), good = parts[1].slice(-1);
    if ("DGS".includes(good) && n < 2) return `${NAMES[good]} is sold two or more cards at a time`;
  }
  if (parts[0] === "swap") {
    const taken = parts[1], given = parts[3];
    if ([...taken].some((c) => given.includes(c))) {
      return "an exchange may not give back a good of a type it takes";
    }
    const after = goodsInHand + taken.length - [...given].filter((c) => c !== "M").length;
    if (after > 7) return `after it your hand would hold ${after} goods, more than 7`;
  }
  return "not among the legal moves";
}

function renderComposer() {
  const m = current ? composeMove(current, selection) : { note: "" };
  const legal = Boolean(current && m.text && current.legal_moves.includes(m.text));
  $("move-text").textContent = m.text || "click cards";
  $("move-note").textContent = m.text ? (legal ? "legal" : `not legal: ${illegalReason(current, m.text)}`)
    : (m.note || "");
  // Confirm only ever sends a legal move: an illegal selection says why instead
  const yours = Boolean(current && current.turn === "you" && waiting !== current.id);
  $("confirm").disabled = !(yours && legal);
  $("confirm").dataset.move = m.text || "";
  $("hint-button").disabled = !yours;
  $("analyse-here").disabled = !yours;
}

function stack(good, values) {
  return el("div", { class: "stack", dataset: { good } },
    el("span", { class: "label", text: NAMES[good] }),
    ...(values.length ? values.map((x, i) => token(x, good, i === 0))
      : [el("span", { class: "empty", text: "empty" })]));
}

function scoreBox(main, small) {
  return [document.createTextNode(String(main)), el("small", { text: small })];
}

// Draws the whole table (again after every click on a card).
export function renderTable(table) {
  const changed = !current || current.id !== table.id || current.history.length !== table.history.length
    || current.round !== table.round;
  current = table;
  if (changed) clearSelection();
  $("table").dataset.game = table.id;
  for (const id of ["record-link", "record-link-now"]) $(id).href = `/api/games/${table.id}/record`;
  const v = table.view;
  const you = table.you, bot = 1 - you;
  const me = v.players[you], opp = v.players[bot];
  const playing = table.turn === "you" && waiting !== table.id;

  const turn = table.round_over ? "round over" : playing ? "your move" : "engine to move";
  $("status").replaceChildren(
    el("span", { text: `Round ${table.round}` }),
    el("span", { id: "seals", text: `Seals: you ${table.seals.you}, engine ${table.seals.engine}` }),
    el("span", { class: "turn", id: "turn", text: turn }),
    el("span", { class: "muted", text: `seed ${table.seed}` }));
  $("engine-name").textContent = `(${table.engine}, player ${bot})`;
  $("you-number").textContent = `(player ${you})`;

  // the opponent: hand size, the cards known to be in it, herd, score
  $("opp-hand-size").textContent = `${opp.hand_size} card${opp.hand_size === 1 ? "" : "s"}`;
  const known = [...opp.known].map((c) => card(c, { known: true, zone: "opp-hand" }));
  const backs = Array.from({ length: opp.hand_size - opp.known.length }, cardBack);
  $("opp-hand").replaceChildren(...known, ...backs);
  $("opp-herd-size").textContent = String(opp.herd);
  $("opp-herd").replaceChildren(...Array.from({ length: opp.herd }, () => card("M", { zone: "opp-herd" })));
  const nb = table.score.engine_bonus_tokens;
  $("opp-score").replaceChildren(...scoreBox(table.score.engine_goods,
    `goods tokens, + ${nb} hidden bonus token${nb === 1 ? "" : "s"}`));

  // the market, the deck, the discard
  $("market").replaceChildren(...[...v.market].map((c, i) => card(c, {
    zone: "market", index: i, selected: selection.market.has(i), disabled: !playing,
    onclick: () => {
      if (c === "M") {          // the camels go together
        const camels = [...v.market].map((x, j) => (x === "M" ? j : -1)).filter((j) => j >= 0);
        const on = !selection.market.has(i);
        selection.market.clear();
        if (on) camels.forEach((j) => selection.market.add(j));
        selection.hand.clear(); selection.herd.clear();
      } else {
        for (const j of [...selection.market]) if (v.market[j] === "M") selection.market.delete(j);
        toggle(selection.market, i);
      }
      renderTable(current);
    },
  })));
  $("deck").textContent = String(v.deck_size);
  $("deck").title = `${v.deck_size} cards in the deck`;
  $("discard").replaceChildren(...[...v.discard].map((c) => card(c, { zone: "discard" })));

  // token stacks and bonus stacks
  $("tokens").replaceChildren(...[...GOODS].map((g) => stack(g, v.tokens[g])));
  $("bonus").replaceChildren(...["3", "4", "5"].map((k) => el("div", { class: "stack", dataset: { bonus: k } },
    el("span", { class: "label", text: `${k === "5" ? "5+" : k} cards` }),
    el("div", { class: "token bonus", text: `×${v.bonus_left[k]}` }))));

  // you: hand (the cards the engine knows are marked), herd, score
  $("my-hand-size").textContent = `${me.hand.length}/7`;
  $("my-hand").replaceChildren(...markKnown(me.hand, me.known).map(([c, k], i) => card(c, {
    zone: "hand", index: i, known: k, selected: selection.hand.has(i), disabled: !playing,
    onclick: () => { toggle(selection.hand, i); renderTable(current); },
  })));
  $("my-herd-size").textContent = String(me.herd);
  $("my-herd").replaceChildren(...Array.from({ length: me.herd }, (_, i) => card("M", {
    zone: "herd", index: i, selected: selection.herd.has(i), disabled: !playing,
    onclick: () => { toggle(selection.herd, i); renderTable(current); },
  })));
  $("my-score").replaceChildren(...scoreBox(table.score.you,
    `goods ${table.score.you_goods} + bonus ${table.score.you_bonus}`));

  // the engine's last move and this round's moves
  const last = table.last_engine_move;
  $("last-move").replaceChildren(...(last
    ? [document.createTextNode("The engine played "), el("strong", { id: "engine-move", text: last })]
    : [document.createTextNode(table.history.length ? "" : "A new round: nothing played yet.")]));
  $("history").replaceChildren(...table.history.map((h) =>
    el("li", { text: `${h.by === "you" ? "you" : "engine"}: ${h.move}` })));

  markEngineCards(table.last_engine_cards);
  renderRoundEnd(table);
  renderComposer();
  if (changed) announce(table);
}

// Marks the cards the engine's last move moved: what came into the market, the cards
// of its hand you saw it take, the camels that joined its herd, what it sold.
function markEngineCards(moved) {
  if (!moved) return;
  const mark = (zoneId, letters, fromEnd) => {
    const cards = [...$(zoneId).querySelectorAll(".card")];
    if (fromEnd) cards.reverse();
    for (const c of letters) {
      const hit = cards.find((e) => e.dataset.card === c && !e.classList.contains("moved"));
      if (hit) hit.classList.add("moved");
    }
  };
  mark("market", moved.market, false);
  mark("opp-hand", moved.hand, false);
  mark("opp-herd", "M".repeat(moved.herd), true);
  mark("discard", moved.discard, true);
}

// Says what changed to screen readers (the #announce live region): the engine's move,
// whose turn it is, the end of the round.
function announce(table) {
  const parts = [];
  if (table.last_engine_move) parts.push(`The engine played ${table.last_engine_move}.`);
  if (table.round_over) {
    const w = table.round_end.winner;
    parts.push(w === "draw" ? "The round is drawn." : w === "you" ? "You win the round." : "The engine wins the round.");
  } else {
    parts.push(table.turn === "you" ? "Your move." : "The engine is thinking.");
  }
  $("announce").textContent = parts.join(" ");
}

function renderRoundEnd(table) {
  const box = $("round-end");
  box.hidden = !table.round_over;
  if (!table.round_over) return;
  const e = table.round_end;
  const won = { you: "You win the round", engine: "The engine wins the round", draw: "The round is drawn" };
  $("round-end-title").textContent = won[e.winner] + (e.winner === "draw" ? "" : " and takes a seal");
  $("round-end-reason").textContent = `The round ended: ${e.reason}.`;
  const row = (name, k) => el("tr", {}, el("th", { text: name }),
    el("td", { text: String(e[k].you) }), el("td", { text: String(e[k].engine) }));
  $("round-end-table").replaceChildren(
    el("tr", {}, el("th"), el("th", { text: "you" }), el("th", { text: "engine" })),
    row("goods", "goods"), row("bonus", "bonus"), row("camel token", "camel_token"),
    row("total", "totals"));
  $("round-end-hand").textContent = `The engine's hand was: ${e.engine_hand || "empty"}.`;
  let seals = `Seals: you ${table.seals.you}, engine ${table.seals.engine}.`;
  if (table.match_over) {
    seals += table.match_winner === "you" ? " You win the match!" : " The engine wins the match.";
  }
  $("round-end-seals").textContent = seals;
  $("next-round").hidden = table.match_over;
}

export function currentTable() {
  return current;
}
