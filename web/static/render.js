// A view drawn on the page: seats, the middle of the table, the viewer's hand. Everything shown
// comes from the view the server sent; a hand the view hides is drawn face down.

import { back, card, cardName, emptySlot, suitName, suitSymbol } from "./cards.js";
import { $, element, plural } from "./dom.js";

const MAX_BACKS = 10; // more face-down cards than this are drawn as this many, with the count beside

function backs(count, whose) {
  const row = element("div", undefined, { className: "cards backs" });
  for (let i = 0; i < Math.min(count, MAX_BACKS); i += 1) row.append(back(`${whose}: face-down card`));
  if (count > MAX_BACKS) row.append(element("span", `+${count - MAX_BACKS}`, { className: "more" }));
  return row;
}

function faceUp(codes, label) {
  const row = element("div", undefined, { className: "cards", role: "group", "aria-label": label });
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
  if ((state.county || []).includes(seat)) badges.push("on the county");
  if (view.result && view.result.winners.includes(seat)) badges.push("winner");
  return badges;
}

function seatPanel(view, seat, name, mine) {
  const state = view.state || {}; // (null while the game waits for players)
  const panel = element("article", undefined, { className: "seat" });
  panel.dataset.seat = seat;
  if (view.to_act.includes(seat)) panel.classList.add("acting");
  if (seat === mine) panel.classList.add("mine");
  panel.setAttribute("aria-label", `Seat ${seat}: ${name(seat)}`);
  const head = element("h2", name(seat) + (seat === mine ? " (you)" : ""), { className: "seat-name" });
  const facts = element("p", undefined, { className: "facts" });
  const size = (state.hand_sizes || [])[seat] ?? 0;
  facts.append(element("span", plural(size, "card", "cards"), { className: "hand-size" }));
  facts.lastChild.dataset.count = size;
  if (state.scores) facts.append(element("span", `score ${state.scores[seat]}`, { className: "score" }));
  if (state.lives) facts.append(element("span", plural(state.lives[seat], "life", "lives"), { className: "lives" }));
  if ((state.county || []).includes(seat)) facts.append(element("span", "on the county, still in", { className: "county" }));
  const value = (state.hand_values || [])[seat];
  if (value !== null && value !== undefined) facts.append(element("span", `worth ${value}`, { className: "value" }));
  const badges = element("p", undefined, { className: "seat-badges" });
  badges.append(...seatBadges(state, seat, view)
    .map((text) => element("span", text, { className: `badge ${text.replace(/ /g, "-")}` })));
  const hand = (state.hands || [])[seat];
  // The viewer's own cards are drawn once, below, where they can be played.
  const cards = seat === mine ? element("div", undefined, { className: "cards" })
    : hand ? faceUp(hand, `${name(seat)}'s hand`) : backs(size, name(seat));
  panel.append(head, facts, badges, cards, element("div", undefined, { className: "seat-moves" }));
  return panel;
}

function pile(label, count, top) {
  const box = element("div", undefined, { className: "pile", role: "group", "aria-label": label });
  box.append(top ? card(top, `top of the discard pile: ${cardName(top)}`) : count ? back(`${label}: ${plural(count, "card", "cards")}`) : emptySlot(`${label}: empty`));
  box.append(element("span", `${label}: ${plural(count, "card", "cards")}`, { className: "pile-label" }));
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
  const box = element("div", undefined, { className: "middle-inner" });
  if (!state) {
    box.append(element("p", "Waiting for players: the game starts when every seat is taken.", { className: "waiting" }));
    return box;
  }
  const remaining = state.draw_pile ?? state.stock;
  if (remaining !== undefined) box.append(pile(state.stock !== undefined ? "stock" : "draw pile", remaining));
  box.append(pile("discard pile", (state.discard || []).length, state.top_card));
  const list = element("ul", undefined, { className: "table-facts" });
  list.append(...facts(state).map((line) => element("li", line)));
  if (view.to_act.length) {
    list.append(element("li", `to act: ${view.to_act.map(name).join(", ")}`, { className: "turn" }));
  }
  box.append(list);
  if (view.result) box.append(result(view.result, name));
  return box;
}

function result(outcome, name) {
  const box = element("p", undefined, { className: "result" });
  const totals = outcome.scores ? outcome.scores.map((s, seat) => `${name(seat)} ${s}`) : (outcome.lives || []).map((l, seat) => `${name(seat)} ${plural(l, "life", "lives")}`);
  box.textContent = `Game over — ${outcome.winners.map(name).join(" and ")} won. ${totals.join(", ")}.`;
  return box;
}

const REASONS = { showdown: "showdown after a knock", throw_down: "thrown down", thirty_one: "31 declared" };

/** The last hand's (or round's) results, as a list: each seat's round score and total (Craits), or the
 * hands shown, their values and the lives lost and left (Scat); ``settled``: the event that ended it. */
function results(state, name, settled) {
  const box = element("section", undefined, { className: "results", "aria-label": "The last hand's results" });
  const list = element("ul", undefined, { className: "results-list" });
  if (settled.type === "HandVoided") {
    box.append(element("h2", `Hand ${state.hand_number}: the stock ran out, nobody lost a life`,
      { className: "results-title" }));
    return box;
  }
  if (state.round_scores) {
    const round = state.round_scores.length;
    box.append(element("h2", `Round ${round} of ${state.rounds}: the scores`, { className: "results-title" }));
    list.append(...state.round_scores[round - 1].map((points, seat) =>
      element("li", `${name(seat)}: ${points} this round, ${state.scores[seat]} in all`)));
  } else if (state.last_settlement) {
    const settlement = state.last_settlement;
    box.append(element("h2", `Hand ${settlement.hand_number}: ${REASONS[settlement.reason] || settlement.reason}`,
      { className: "results-title" }));
    list.append(...settlement.lost.map((lost, seat) => {
      const item = element("li");
      const worth = settlement.values[seat] === null ? "" : ` worth ${settlement.values[seat]}`;
      const left = (state.out || []).includes(seat) ? "out of the game"
        : (state.county || []).includes(seat) ? "on the county, still in" : `${plural(state.lives[seat], "life", "lives")} left`;
      item.append(element("span", `${name(seat)}${worth}: ${lost ? `lost ${plural(lost, "life", "lives")}` : "lost nothing"}, ${left}`));
      // The words lead and the cards follow (beside them, or below on a narrow screen): a line wrapped never
      // leaves a player's cards looking like the end of the line above.
      const hand = settlement.hands[seat];
      if (hand) item.append(faceUp(hand, `${name(seat)}'s hand`));
      return item;
    }));
  }
  box.append(list);
  return box;
}

/** The draw for the first dealer, card by card (each draw of a tie again): who drew what, and who deals. */
function dealerDraw(state, name) {
  const box = element("section", undefined, { className: "dealer-draw", "aria-label": "The draw for the first dealer" });
  box.append(element("h2", "The draw for the first dealer", { className: "results-title" }));
  state.dealer_draws.forEach((draw, round) => {
    const row = element("div", undefined, { className: "cards draw-row" });
    if (round) row.append(element("span", "a tie, drawn again:"));
    for (const [seat, code] of draw) {
      const drawn = element("figure", undefined, { className: "drawn" });
      drawn.append(card(code, `${name(seat)} drew ${cardName(code)}`), element("figcaption", name(seat)));
      row.append(drawn);
    }
    box.append(row);
  });
  box.append(element("p", `${name(state.dealer)} deals.`));
  return box;
}

/** Draw ``view`` of a game of ``players``: ``name(seat)`` names seats, ``mine`` is the viewer's seat or null;
 * ``moment`` says what was shown last: ``settled`` (the event that ended the last hand or round, while no move
 * came since) and ``beforeFirstMove`` (nobody has moved yet: the first dealer's draw is shown). */
export function drawView(view, players, name, mine, moment = {}) {
  const seats = $("seats");
  seats.replaceChildren(...Array.from({ length: players }, (_, seat) => seatPanel(view, seat, name, mine)));
  $("middle").replaceChildren(middle(view, name));
  // The last hand's results and the first dealer's draw: below the table's middle (on a phone held upright, below
  // the player's hand and moves, cardhall.css).
  const recap = [];
  if (view.state && moment.settled) recap.push(results(view.state, name, moment.settled));
  if (view.state && moment.beforeFirstMove && (view.state.dealer_draws || []).length) recap.push(dealerDraw(view.state, name));
  const box = $("recap");
  if (box) {
    box.replaceChildren(...recap);
    box.hidden = !recap.length;
  }
  const hand = $("hand");
  const cards = view.state && view.state.hand;
  hand.replaceChildren(...(cards ? [element("h2", "Your hand", { className: "hand-title" }), faceUp(cards, "your hand")] : []));
  $("you").hidden = mine === null || mine === undefined;
}
