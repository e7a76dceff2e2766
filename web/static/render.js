// A view drawn on the page: seats, the middle of the table, the viewer's hand. Everything shown
// comes from the view the server sent; a hand the view hides is drawn face down.

import { back, card, cardName, emptySlot, suitName, suitSymbol } from "./cards.js";

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

const plural = (count, one, many) => `${count} ${count === 1 ? one : many}`;
const MAX_BACKS = 10; // more face-down cards than this are drawn as this many, with the count beside

function backs(count, whose) {
  const row = element("div", "cards backs");
  for (let i = 0; i < Math.min(count, MAX_BACKS); i += 1) row.append(back(`${whose}: face-down card`));
  if (count > MAX_BACKS) row.append(element("span", "more", `+${count - MAX_BACKS}`));
  return row;
}

function faceUp(codes, label) {
  const row = element("div", "cards");
  row.setAttribute("role", "group");
  row.setAttribute("aria-label", label);
  row.append(...codes.map((code) => card(code)));
  return row;
}

function seatBadges(state, seat, view) {
  const badges = [];
  if (state.dealer === seat) badges.push("dealer");
  if (view.to_act.includes(seat)) badges.push("to act");
  if ((state.announced || []).includes(seat)) badges.push("announced one card");
  if ((state.skip_next || []).includes(seat)) badges.push("loses next turn");
  if (state.knocker === seat) badges.push("knocked");
  if ((state.out || []).includes(seat)) badges.push("out");
  if (view.result && view.result.winners.includes(seat)) badges.push("winner");
  return badges;
}

function seatPanel(view, seat, name, mine) {
  const state = view.state || {}; // (null while the game waits for players)
  const panel = element("article", "seat");
  panel.dataset.seat = seat;
  if (view.to_act.includes(seat)) panel.classList.add("acting");
  if (seat === mine) panel.classList.add("mine");
  panel.setAttribute("aria-label", `Seat ${seat}: ${name(seat)}`);
  const head = element("h2", "seat-name", name(seat) + (seat === mine ? " (you)" : ""));
  const facts = element("p", "facts");
  const size = (state.hand_sizes || [])[seat] ?? 0;
  facts.append(element("span", "hand-size", plural(size, "card", "cards")));
  facts.lastChild.dataset.count = size;
  if (state.scores) facts.append(element("span", "score", `score ${state.scores[seat]}`));
  if (state.lives) facts.append(element("span", "lives", `${plural(state.lives[seat], "life", "lives")}`));
  const value = (state.hand_values || [])[seat];
  if (value !== null && value !== undefined) facts.append(element("span", "value", `worth ${value}`));
  const badges = element("p", "seat-badges");
  badges.append(...seatBadges(state, seat, view).map((text) => element("span", `badge ${text.replace(/ /g, "-")}`, text)));
  const hand = (state.hands || [])[seat];
  // The viewer's own cards are drawn once, below, where they can be played.
  const cards = seat === mine ? element("div", "cards") : hand ? faceUp(hand, `${name(seat)}'s hand`) : backs(size, name(seat));
  panel.append(head, facts, badges, cards, element("div", "seat-moves"));
  return panel;
}

function pile(label, count, top) {
  const box = element("div", "pile");
  box.setAttribute("role", "group");
  box.setAttribute("aria-label", label);
  box.append(top ? card(top, `top of the discard pile: ${cardName(top)}`) : count ? back(`${label}: ${plural(count, "card", "cards")}`) : emptySlot(`${label}: empty`));
  box.append(element("span", "pile-label", `${label}: ${plural(count, "card", "cards")}`));
  return box;
}

function facts(state) {
  const lines = [];
  if (state.round) lines.push(`round ${state.round} of ${state.rounds}`);
  if (state.hand_number) lines.push(`hand ${state.hand_number}`);
  if (state.active_suit) lines.push(`active suit ${suitSymbol(state.active_suit)} ${suitName(state.active_suit)}`);
  if (state.direction) lines.push(state.direction === 1 ? "clockwise ↻" : "counter-clockwise ↺");
  if (state.crank) lines.push(`crank ${state.crank}`);
  return lines;
}

function middle(view, name) {
  const state = view.state;
  const box = element("div", "middle-inner");
  if (!state) {
    box.append(element("p", "waiting", "Waiting for players: the game starts when every seat is taken."));
    return box;
  }
  const remaining = state.draw_pile ?? state.stock;
  if (remaining !== undefined) box.append(pile(state.stock !== undefined ? "stock" : "draw pile", remaining));
  box.append(pile("discard pile", (state.discard || []).length, state.top_card));
  const list = element("ul", "table-facts");
  list.append(...facts(state).map((line) => element("li", "", line)));
  if (view.to_act.length) list.append(element("li", "turn", `to act: ${view.to_act.map(name).join(", ")}`));
  box.append(list);
  if (view.result) box.append(result(view.result, name));
  return box;
}

function result(outcome, name) {
  const box = element("p", "result");
  const totals = outcome.scores ? outcome.scores.map((s, seat) => `${name(seat)} ${s}`) : (outcome.lives || []).map((l, seat) => `${name(seat)} ${plural(l, "life", "lives")}`);
  box.textContent = `Game over — ${outcome.winners.map(name).join(" and ")} won. ${totals.join(", ")}.`;
  return box;
}

/** Draw ``view`` of a game of ``players``: ``name(seat)`` names seats, ``mine`` is the viewer's seat or null. */
export function drawView(view, players, name, mine) {
  const seats = document.getElementById("seats");
  seats.replaceChildren(...Array.from({ length: players }, (_, seat) => seatPanel(view, seat, name, mine)));
  document.getElementById("middle").replaceChildren(middle(view, name));
  const hand = document.getElementById("hand");
  const cards = view.state && view.state.hand;
  hand.replaceChildren(...(cards ? [element("h2", "hand-title", "Your hand"), faceUp(cards, "your hand")] : []));
  document.getElementById("you").hidden = mine === null || mine === undefined;
}
