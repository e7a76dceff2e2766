// Cards as elements: CSS faces with a text label each, for screen readers and tests.

import { element } from "./dom.js";

const SUITS = { S: ["♠", "spades"], H: ["♥", "hearts"], D: ["♦", "diamonds"], C: ["♣", "clubs"] };
const RANKS = { A: "ace", K: "king", Q: "queen", J: "jack", T: "10" };

export function suitSymbol(suit) {
  return SUITS[suit][0];
}

export function suitName(suit) {
  return SUITS[suit][1];
}

/** "7♠", "10♥": a card's short label. */
export function short(code) {
  const rank = code[0] === "T" ? "10" : code[0];
  return rank + suitSymbol(code[1]);
}

/** "7 of spades", "ace of hearts": a card's name. */
export function cardName(code) {
  return `${RANKS[code[0]] || code[0]} of ${suitName(code[1])}`;
}

function face(node, code) {
  node.className = `card ${"HD".includes(code[1]) ? "red" : "black"}`;
  node.dataset.card = code;
  node.append(element("span", short(code), { className: "corner", "aria-hidden": "true" }),
    element("span", suitSymbol(code[1]), { className: "pip", "aria-hidden": "true" }));
  return node;
}

/** A face-up card; ``label`` (default: its name) is what assistive technology reads. */
export function card(code, label = cardName(code)) {
  return face(element("span", undefined, { role: "img", "aria-label": label }), code);
}

/** A face-up card that makes a move when clicked. */
export function cardButton(code, label) {
  const button = face(element("button", undefined, { type: "button", "aria-label": label }), code);
  button.classList.add("playable");
  return button;
}

/** A face-down card. */
export function back(label = "face-down card") {
  return element("span", undefined, { className: "card back", role: "img", "aria-label": label });
}

/** Where a card would lie, empty (an empty pile): named too, as every card is. */
export function emptySlot(label) {
  return element("span", undefined, { className: "card empty", role: "img", "aria-label": label });
}
