// Events in words: "Ana played 7♠", "Bo drew 2 cards". Only what the event says; no rules.

import { short, suitName } from "./cards.js";

const cards = (count) => (count === 1 ? "a card" : `${count} cards`);
const list = (codes) => codes.map(short).join(" ");

// What a card does when played, in words, by game and rank (the rules documents' ability tables: Craits C10).
const EFFECTS = {
  craits: {
    2: "2: starts a crank — the next player answers with a 2 or an ace, or draws the count",
    4: "4: the next player is skipped",
    5: "5: every other player draws a card",
    6: "6: plays again",
    7: "7: the next player draws a card",
    8: "8: wild, names the suit",
    9: "9: may switch to the other suit of its colour",
    T: "10: reverses the direction",
  },
};

function effect(game, card) {
  const said = (EFFECTS[game] || {})[card[0]];
  return said ? ` (${said})` : "";
}

// name(seat) gives a seat's name, game the game's name; each entry says what one event type did.
const SENTENCES = {
  GameCreated: (d) => `A ${d.players}-player game of ${d.game} was created`,
  SeatTaken: (d, who) => `${who} sat down`,
  DealerDrawShuffled: () => "The deck was shuffled to draw for the first dealer",
  RoundDealt: () => "The cards were dealt",
  DeckShuffled: () => "The deck was shuffled and dealt",
  PileReshuffled: () => "The discard pile became the new draw pile",
  CardPlayed: (d, who, name, game) => `${who} played ${short(d.card)}`
    + (d.suit && d.suit !== d.card[1] ? ` and named ${suitName(d.suit)}` : "")
    + (d.announced ? ", announcing one card" : "") + effect(game, d.card),
  CardsDrawn: (d, who) => `${who} drew ${cards(d.count)}`,
  SuitChosen: (d, who) => `${who} chose ${suitName(d.suit)}`,
  OneCardAnnounced: (d, who) => `${who} announced one card`,
  PlayerCalledOut: (d, who, name) => `${who} called out ${name(d.target)}`,
  CardDrawn: (d, who) => `${who} drew ${d.card ? short(d.card) : "a card"} from the ${d.source}`,
  CardDiscarded: (d, who) => `${who} discarded ${short(d.card)}`,
  Knocked: (d, who) => `${who} knocked`,
  ThrewDown: (d, who) => `${who} threw down`,
  ThirtyOneDeclared: (d, who) => `${who} declared 31${d.cards ? ` with ${list(d.cards)}` : ""}`,
  HandSettled: (d, who, name) => {
    const losers = (d.lost || []).flatMap((lives, seat) => (lives ? [`${name(seat)} lost ${lives === 1 ? "a life" : `${lives} lives`}`] : []));
    return `The hand was settled (${String(d.reason).replace(/_/g, " ")}): ${losers.join(", ") || "nobody lost a life"}`;
  },
  HandVoided: () => "The stock ran out: nobody lost a life",
  TurnTimedOut: (d, who) => `${who} ran out of time: the server played for them`,
  SeatAbandoned: (d, who) => `${who} was handed to the ${d.bot} bot, which plays the seat from now on`,
  SeatResigned: (d, who) => `${who} resigned: the ${d.bot} bot plays the seat from now on`,
  GameAborted: (d, who) => (d.reason === "expired" ? "Nobody joined in time: the game was called off"
    : `${who} called the game off before it began`),
};

/** The event in words; ``name(seat)`` names a seat, ``game`` is the game's name. Event types this page does
 * not know are named as they are. */
export function describe(event, name, game) {
  const who = event.seat === null || event.seat === undefined ? "" : name(event.seat);
  const sentence = SENTENCES[event.type];
  if (sentence) return sentence(event.data || {}, who, name, game);
  const words = event.type.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
  return who ? `${who}: ${words}` : words[0].toUpperCase() + words.slice(1);
}

/** What the last events did, in one line: of ``events`` (the last few up to the version shown), those
 * written together with the one at the end (a move and what it set off, at most three), each said by ``say(event)``,
 * e.g. "Ana played 7♠ — Bo drew a card". */
export function headline(events, say) {
  if (!events.length) return "";
  const last = events[events.length - 1];
  const batch = [];
  for (let i = events.length - 1; i >= 0 && batch.length < 3 && events[i].recorded_at === last.recorded_at; i -= 1) {
    batch.unshift(events[i]);
  }
  return batch.map(say).join(" — ");
}
