// A compact board of one player's view (the JSON form of docs/notation.md), drawn into a
// container: the other player's hand and herd, the market, the deck and the discard, the
// viewer's hand and herd.  The review and the Analyse screen draw the positions they
// show with it; moves can be marked on it (the cards a move takes, sells or gives).
import { card, cardBack, el, markKnown } from "./cards.js";

// The cards a move touches: {market: letters, hand: letters, herd: camels}.
export function moveCards(text) {
  const w = text.split(" ");
  if (w[0] === "take") return { market: w[1], hand: "", herd: 0 };
  if (w[0] === "camels") return { market: "M*", hand: "", herd: 0 };
  if (w[0] === "sell") return { market: "", hand: w[1].slice(-1).repeat(Number(w[1].slice(0, -1))), herd: 0 };
  if (w[0] === "swap") {
    const given = w[3];
    return { market: w[1], hand: given.replace(/M/g, ""), herd: (given.match(/M/g) || []).length };
  }
  return { market: "", hand: "", herd: 0 };
}

function markCards(cards, letters, cls) {
  if (letters === "M*") {
    cards.filter((e) => e.dataset.card === "M").forEach((e) => e.classList.add(cls));
    return;
  }
  for (const c of letters) {
    const hit = cards.find((e) => e.dataset.card === c && !e.classList.contains(cls));
    if (hit) hit.classList.add(cls);
  }
}

// Draws `view` into `box`; `marks` is a list of [move text, class] (e.g. played, best).
export function drawBoard(box, view, marks = []) {
  const me = view.players[view.observer], opp = view.players[1 - view.observer];
  const zone = (title, ...cards) => el("div", { class: "zone" }, el("h3", { text: title }),
    el("div", { class: "cards small" }, ...cards));
  const market = [...view.market].map((c) => card(c, { zone: "market" }));
  const hand = markKnown(me.hand, me.known).map(([c, k]) => card(c, { known: k, zone: "hand" }));
  const herd = Array.from({ length: me.herd }, () => card("M", { zone: "herd" }));
  const oppHand = [...[...opp.known].map((c) => card(c, { known: true })),
    ...Array.from({ length: opp.hand_size - opp.known.length }, cardBack)];
  const oppHerd = Array.from({ length: opp.herd }, () => card("M"));
  for (const [text, cls] of marks) {
    if (!text) continue;
    const m = moveCards(text);
    markCards(market, m.market, cls);
    markCards(hand, m.hand, cls);
    herd.slice(0, m.herd).forEach((e) => e.classList.add(cls));
  }
  box.replaceChildren(
    el("div", { class: "row" },
      zone(`Player ${1 - view.observer}: hand ${opp.hand_size}`, ...oppHand),
      zone(`herd ${opp.herd}`, ...oppHerd)),
    el("div", { class: "row" },
      zone("Market", ...market),
      el("div", { class: "zone" }, el("h3", { text: "Deck" }),
        el("div", { class: "pile", text: String(view.deck_size) })),
      zone("Discard", ...[...view.discard].map((c) => card(c)))),
    el("div", { class: "row" },
      zone(`Player ${view.observer} (to move): hand`, ...hand),
      zone(`herd ${me.herd}`, ...herd)));
  box.dataset.position = JSON.stringify([view.market, me.hand, me.herd, opp.hand_size]);
}
