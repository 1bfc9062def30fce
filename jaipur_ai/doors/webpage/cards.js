// Drawing cards and tokens: plain DOM elements, styled by style.css.

export const LETTERS = "DGSCPLM";
export const GOODS = "DGSCPL";
export const NAMES = { D: "diamond", G: "gold", S: "silver", C: "cloth", P: "spice",
                       L: "leather", M: "camel" };

export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(e.dataset, v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

// A card face: a <button> when onclick is given, else a <div>.
export function card(letter, { onclick, selected, known, zone, index, disabled } = {}) {
  const tag = onclick ? "button" : "div";
  const e = el(tag, {
    class: `card ${letter}${selected ? " selected" : ""}${known ? " known" : ""}`,
    title: NAMES[letter] + (known ? " (known to the other player)" : ""),
    type: onclick ? "button" : null, onclick, disabled: onclick && disabled,
    dataset: { card: letter, zone: zone || "", index: index === undefined ? "" : String(index) },
  }, el("span", { class: "letter", text: letter }), el("span", { class: "name", text: NAMES[letter] }));
  return e;
}

export function cardBack() {
  return el("div", { class: "card back", title: "a hidden card", dataset: { card: "?" } });
}

// "DDGL" with a known sub-multiset "D": [[D, true], [D, false], [G, false], [L, false]]
export function markKnown(cards, known) {
  const left = {};
  for (const c of known) left[c] = (left[c] || 0) + 1;
  return [...cards].map((c) => {
    const k = (left[c] || 0) > 0;
    if (k) left[c] -= 1;
    return [c, k];
  });
}

export function token(value, good, next) {
  return el("div", { class: `token ${good}${next ? " next" : ""}`, text: String(value) });
}

// Canonical order of a multiset of letters (docs/notation.md): D G S C P L M.
export function canonical(letters) {
  return [...letters].sort((a, b) => LETTERS.indexOf(a) - LETTERS.indexOf(b)).join("");
}

export function pct(p) {
  return p === null || p === undefined ? "–" : (100 * p).toFixed(1);
}

export function signed(x, digits = 1) {
  if (x === null || x === undefined) return "–";
  return (x >= 0 ? "+" : "") + x.toFixed(digits);
}
