// The public API as the pages use it: JSON calls, problems as errors, seat tokens kept in this browser.

/** An answer that is not 2xx: the problem+json's detail, code and rule (if any). */
export class Problem extends Error {
  constructor(status, body) {
    super(body.detail || body.title || `HTTP ${status}`);
    this.status = status;
    this.code = body.code || null;
    this.rule = body.rule || null;
  }

  /** The problem in words, with the rule it cites. */
  describe() {
    return this.rule ? `${this.message} (rule ${this.rule})` : this.message;
  }
}

/** Call the API: ``path`` under /v1, an optional JSON body and bearer token; the JSON answer. */
export async function call(path, { method = "GET", body, token, signal } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(`/v1${path}`, {
    method, headers, signal, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Problem(response.status, data);
  return data;
}

const PREFIX = "cardhall.seat.";

/** Seats taken in this browser, by game id: {seat, token, name}. Tokens never go into a URL. */
export const seats = {
  get(gameId) {
    try {
      return JSON.parse(localStorage.getItem(PREFIX + gameId)) || null;
    } catch {
      return null;
    }
  },
  put(gameId, seat, token, name) {
    localStorage.setItem(PREFIX + gameId, JSON.stringify({ seat, token, name }));
  },
  forget(gameId) {
    localStorage.removeItem(PREFIX + gameId);
  },
};

/** A seat's name for people: the player's name, or which house bot sits there; a seat a house bot took
 * over (its player resigned, timed out or went idle) says so from that version on: "Ana → random bot since #14".
 * Two players may sit under one name: then each says its seat too, "bea (seat 2)". */
export function seatName(summary, seat, version = Infinity) {
  const named = sitterName(summary, seat, version);
  const twin = summary.seats.some((other, at) => at !== seat && other && other.taken && sitterName(summary, at, version) === named);
  return twin ? `${named} (seat ${seat})` : named;
}

function sitterName(summary, seat, version) {
  const sitter = summary.seats[seat];
  if (!sitter || !sitter.taken) return `seat ${seat} (open)`;
  if (sitter.name && sitter.bot_since && version >= sitter.bot_since) return `${sitter.name} → ${sitter.bot} bot since #${sitter.bot_since}`;
  if (sitter.account) return sitter.bot === true ? `${sitter.account} (bot)` : sitter.account;
  return sitter.name || `${sitter.bot} bot ${seat}`;
}

/** A problem the page found itself, in words meant for people (no "Something went wrong"). */
export class Notice extends Error {}

/** Show ``error`` (a Problem, a Notice or any failure) in the alert element ``where``; hide it for null. */
export function showProblem(where, error) {
  where.hidden = !error;
  where.textContent = !error ? "" : error instanceof Problem ? error.describe() : error instanceof Notice ? error.message
    : `Something went wrong: ${error.message}`;
}

/** 32 random bytes from this browser's cryptographic source, as 64 hex characters: the entropy a seat adds
 * to the game's shuffles when it is taken here (see the API's "Fairness"). */
export function newEntropy() {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** What a game's creator fixed of its chance, in words, for badges: "seeded", "stacked". */
export function chanceFixed(summary) {
  return ["seeded", "stacked"].filter((mark) => summary[mark]);
}

/** What each badge about a game's cards means, said in words beside the badges (a title shows only to a mouse). */
export const MEANING = {
  seeded: "its creator fixed the shuffles with a seed (or it replays another game's deal): they may know the cards",
  stacked: "its creator stacked the decks: they know the cards",
  verified: "every shuffle matches the commitment published before it was used",
};

/** Say in ``notes`` (a paragraph shown once it holds one) what the badge ``mark`` means, once. */
export function sayMeaning(notes, mark) {
  if (!notes || notes.querySelector(`[data-mark="${mark}"]`)) return;
  const said = document.createElement("span");
  said.dataset.mark = mark;
  said.textContent = `${mark[0].toUpperCase()}${mark.slice(1)}: ${MEANING[mark]}.`;
  notes.append(...(notes.childElementCount ? [" "] : []), said);
  notes.hidden = false;
}
