// Cards as elements: CSS faces with a text label each, for screen readers and tests.

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

function face(element, code) {
  element.className = `card ${"HD".includes(code[1]) ? "red" : "black"}`;
  element.dataset.card = code;
  const corner = document.createElement("span");
  corner.className = "corner";
  corner.textContent = short(code);
  const pip = document.createElement("span");
  pip.className = "pip";
  pip.textContent = suitSymbol(code[1]);
  element.append(corner, pip);
  corner.setAttribute("aria-hidden", "true");
  pip.setAttribute("aria-hidden", "true");
  return element;
}

/** A face-up card; ``label`` (default: its name) is what assistive technology reads. */
export function card(code, label = cardName(code)) {
  const element = face(document.createElement("span"), code);
  element.setAttribute("role", "img");
  element.setAttribute("aria-label", label);
  return element;
}

/** A face-up card that makes a move when clicked. */
export function cardButton(code, label) {
  const element = face(document.createElement("button"), code);
  element.type = "button";
  element.classList.add("playable");
  element.setAttribute("aria-label", label);
  return element;
}

/** A face-down card. */
export function back(label = "face-down card") {
  const element = document.createElement("span");
  element.className = "card back";
  element.setAttribute("role", "img");
  element.setAttribute("aria-label", label);
  return element;
}

/** Where a card would lie, empty (an empty pile): named too, as every card is. */
export function emptySlot(label) {
  const element = document.createElement("span");
  element.className = "card empty";
  element.setAttribute("role", "img");
  element.setAttribute("aria-label", label);
  return element;
}
