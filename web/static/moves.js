// The moves a view lists, as things to click: cards in the hand, a picker for a card's variants,
// action buttons, call-out buttons by the seats. Only moves the server listed; nothing else.

import { cardButton, cardName, short, suitName } from "./cards.js";
import { element } from "./dom.js";

/** A legal move in words, e.g. "Play 8♠ and name hearts". */
export function moveLabel(move, name, topCard) {
  switch (move.type) {
    case "play":
      return `Play ${short(move.card)}${move.suit ? ` and name ${suitName(move.suit)}` : ""}`
        + `${move.announce ? " and announce one card" : ""}`;
    case "discard": return `Discard ${short(move.card)}`;
    case "draw":
      if (move.source === "discard") return topCard ? `Take ${short(topCard)} from the discard pile` : "Take the discard";
      return move.source ? `Draw from the ${move.source}` : "Draw";
    case "choose_suit": // (a 9 turned up keeps its suit or switches to the other of its colour: C6, C10)
      if (topCard && topCard[0] === "9") return `${move.suit === topCard[1] ? "Keep" : "Switch to"} ${suitName(move.suit)}`;
      return `Choose ${suitName(move.suit)}`;
    case "announce": return "Announce one card";
    case "call": return `Call out ${name(move.target)}`;
    case "knock": return "Knock";
    case "declare_31": return "Declare 31";
    case "throw_down": return "Throw down";
    default: return move.type.replace(/_/g, " ");
  }
}

function button(text, label, onClick) {
  const made = element("button", text, { type: "button", ...(label !== text ? { "aria-label": label } : {}) });
  made.addEventListener("click", onClick);
  return made;
}

/** The length of the words all ``labels`` begin with, each keeping words of its own: "Play 8♠ and name " of an 8's;
 * none if one word ("Play " would cut a card from its play). */
function shared(labels) {
  let cut = 0;
  for (let at = labels[0].indexOf(" ") + 1; at && labels.every((label) => label.length > at
    && label.startsWith(labels[0].slice(0, at))); at = labels[0].indexOf(" ", at) + 1) cut = at;
  return labels[0].slice(0, cut).trim().includes(" ") ? cut : 0;
}

/** Fill the hand, actions and seats' call buttons with the moves in ``moves``; ``submit(move)`` makes one. */
export function offerMoves({ hand, moves, actions, picker, seatsBox, name, topCard, submit }) {
  const byCard = new Map();
  const others = [];
  for (const move of moves) {
    if (move.card) byCard.set(move.card, [...(byCard.get(move.card) || []), move]);
    else others.push(move);
  }
  const pick = (variants, card) => {
    const close = () => {
      picker.hidden = true;
      card.focus(); // (back where the keyboard was: the picker's buttons are gone)
    };
    // Each choice with and without announcing one card (C12): each once, and a box to tick (twice, they ran off a phone).
    const plain = variants.filter((move) => !move.announce);
    const twin = (move) => variants.find((other) => other.announce && other.suit === move.suit);
    const tick = plain.length > 1 && plain.length * 2 === variants.length && plain.every(twin)
      ? element("input", undefined, { type: "checkbox", name: "announce" }) : null;
    const choices = tick ? plain : variants;
    // A 9 keeps its suit or switches to the other of its colour (C10): "Play 9♠ and" "keep spades", "switch to clubs".
    const keeping = choices.some((move) => move.suit) && choices.some((move) => !move.suit);
    const kept = (move) => `Play ${short(move.card)} and ${move.suit ? `switch to ${suitName(move.suit)}` : `keep ${suitName(move.card[1])}`}`
      + `${move.announce ? " and announce one card" : ""}`;
    const labels = choices.map((move) => (keeping ? kept(move) : moveLabel(move, name, topCard)));
    const cut = shared(labels);
    picker.dataset.said = labels[0].slice(0, cut); // (a phone says it once, each button the rest: cardhall.css)
    const buttons = choices.map((move, i) => {
      const made = button(labels[i].slice(cut), labels[i], () => submit(tick && tick.checked ? twin(move) : move));
      made.prepend(element("span", picker.dataset.said, { className: "said" }));
      return made;
    });
    const parts = [...buttons];
    if (tick) {
      tick.addEventListener("change", () => buttons.forEach((made, i) => {
        made.setAttribute("aria-label", `${labels[i]}${tick.checked ? " and announce one card" : ""}`);
      }));
      const box = element("label", undefined, { className: "check announce" });
      box.append(tick, "Also announce one card");
      parts.push(box);
    }
    picker.replaceChildren(...parts, button("Cancel", "Cancel", close));
    // (Escape cancels too, from the choice or the hand beside it)
    picker.parentElement.onkeydown = (pressed) => {
      if (pressed.key !== "Escape" || picker.hidden) return;
      pressed.preventDefault();
      close();
    };
    picker.hidden = false;
    picker.querySelector("button").focus();
  };
  // The hand is drawn already: each card this seat may move becomes a button.
  for (const shown of hand.querySelectorAll("[data-card]")) {
    const code = shown.dataset.card;
    const variants = byCard.get(code);
    if (!variants) continue;
    const label = variants.length === 1 ? moveLabel(variants[0], name, topCard) : `${cardName(code)}: choose how to play it`;
    const element = cardButton(code, label);
    element.addEventListener("click", () => (variants.length === 1 ? submit(variants[0]) : pick(variants, element)));
    shown.replaceWith(element);
  }
  picker.hidden = true;
  // What to do with the cards raised, in words (a Scat player who drew saw four cards raised and nothing more).
  const verbs = new Set([...byCard.values()].flat().map((move) => move.type));
  const title = hand.querySelector(".hand-title");
  if (title && verbs.size === 1 && (verbs.has("play") || verbs.has("discard"))) title.append(`: choose a card to ${[...verbs][0]}`);
  const calls = others.filter((move) => move.type === "call");
  actions.replaceChildren(...others.filter((move) => move.type !== "call").map((move) => {
    const text = moveLabel(move, name, topCard);
    const from = move.type === "draw" && move.source ? text.indexOf(" from the ") : -1;
    if (from < 0) return button(text, text, () => submit(move));
    // "Draw" and "Take 10♦", the pile each comes from said beside it where there is room: on a phone a Scat
    // player's three moves ran to two rows or three, kept at the foot of the screen, over the hand (cardhall.css).
    const made = button(text.slice(0, from), text, () => submit(move));
    made.append(element("span", text.slice(from), { className: "aside" }));
    return made;
  }));
  for (const move of calls) {
    const slot = seatsBox.querySelector(`[data-seat="${move.target}"] .seat-moves`);
    if (slot) slot.append(button("Call out", moveLabel(move, name, topCard), () => submit(move)));
  }
}
