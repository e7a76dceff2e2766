// The table page: a game turn by turn. A timeline over every version (slider, ←/→, Home/End,
// play/pause, ?v=N), live over Server-Sent Events at the latest version, and, for a seat taken
// in this browser, that seat's legal moves as things to click.

import { Notice, Problem, call, seatName, seats, showProblem } from "./api.js";
import { offerMoves } from "./moves.js";
import { drawView } from "./render.js";
import { describe, headline } from "./words.js";
import { showChanceFixed, showClock, showVerified } from "./extras.js";
import { offerSeating } from "./seating.js";
import { $, element } from "./dom.js";

const gameId = $("table").dataset.game;
let mine = seats.get(gameId);
let token = mine ? mine.token : null;

/** Call the API as this browser's seat; a token the server no longer knows (a revoked key) is forgotten, and the
 * game shown as anyone sees it, saying why (the table was empty but for the refusal). */
async function callAsSeat(path) {
  try {
    return await call(path, { token });
  } catch (error) {
    if (!token || !(error instanceof Problem) || error.status !== 401) throw error;
    seats.forget(gameId);
    mine = null;
    token = null;
    showProblem($("problem"), new Notice("The server no longer accepts the seat this browser kept for this game (its "
      + "token or key was revoked): the game is shown as anyone watching sees it."));
    return call(path);
  }
}

const game = { summary: null, events: [], shown: 0, following: true, player: null };
let showing = 0; // a counter: only the latest request to show a version draws its answer
let syncing = null;
let again = false;
let wanted = 0; // the newest version heard of (a move's answer, the stream): catch-ups run until the page has it

/** Whether the game is over (finished, or aborted before it began): its log never changes again. */
const over = () => ["finished", "aborted"].includes(game.summary.status);
const name = (seat) => (game.summary ? seatName(game.summary, seat, game.shown) : `seat ${seat}`);
const last = () => game.events.length;
let working = 1; // loads and moves under way (the page opens busy, loading)
const busy = (delta) => {
  working += delta;
  document.body.dataset.busy = String(working > 0);
};

async function loadEvents() {
  for (;;) {
    const page = await callAsSeat(`/games/${gameId}/events?after=${last()}&limit=1000`);
    game.events.push(...page.events);
    if (!page.events.length || last() >= page.last_version) return loadCalls();
  }
}

const calls = new Map(); // the version a webhook bot's turn was played at (by its answer or the clock) -> its call
let callsRead = false;

/** The calls of the game's webhook bots, once the game is over and if accounts sit at it: the log shows each
 * one's outcome and latency beside the move it made (GET /games/{id}/webhook-calls, read once: a finished game's
 * calls never change, and a live game's catch-ups do not read the whole list again each event; a call for the
 * turn at version v played version v + 1). */
async function loadCalls() {
  if (callsRead || !over() || !game.summary.seats.some((seat) => seat.account)) return;
  const answer = await call(`/games/${gameId}/webhook-calls`).catch(() => null);
  if (!answer) return;
  callsRead = true;
  for (const made of answer.calls) if (made.kind === "move" && made.outcome) calls.set(made.version + 1, made);
}

/** A webhook bot's call in words: "bot answered in 52 ms", "bot late (512 ms): the clock's move". */
function callSaid(made) {
  const took = made.latency_ms === null || made.latency_ms === undefined ? "" : ` in ${made.latency_ms} ms`;
  return made.outcome === "played" ? `bot answered${took}` : `bot ${made.outcome}${took}: the clock's move`;
}

/** An event in words, its seats named as they were when it happened (a takeover from its version on). */
const said = (event) => describe(event, (seat) => seatName(game.summary, seat, event.version - 1), game.summary.game);

const LOG_WINDOW = 100; // the log lists this many events up to the version shown, newest first: a long game's
// thousands of entries, all in the page, would make every step lay them all out again

function drawLog(version) {
  const items = game.events.slice(Math.max(0, version - LOG_WINDOW), version).map((event) => {
    const item = element("li", undefined, { value: event.version });
    item.dataset.version = event.version;
    item.append(element("a", `#${event.version}`, { href: `?v=${event.version}`, "aria-label": `version ${event.version}` }),
      ` ${said(event)}`);
    const made = calls.get(event.version);
    if (made) item.append(element("span", ` · ${callSaid(made)}`, { className: "latency" }));
    return item;
  });
  items.at(-1)?.classList.add("current");
  // Newest first: the version shown heads the list with no scrolling (which would lay the page out
  // once more on every step).
  $("log").replaceChildren(...items.reverse());
}

let urlTimer = null;

/** Keep ``?v=N`` in the address (none at the latest version), at most four times a second: browsers
 * throttle a page that rewrites its address on every step. */
function url(version) {
  clearTimeout(urlTimer);
  urlTimer = setTimeout(() => {
    const query = new URLSearchParams(window.location.search);
    if (version === last()) query.delete("v");
    else query.set("v", version);
    const search = query.toString();
    window.history.replaceState(null, "", search ? `?${search}` : window.location.pathname);
  }, 250);
}

const KEPT_VIEWS = 2000; // views of a finished game kept in the page, the oldest fetched dropped first
const views = new Map(); // version -> the view's promise

/** The view after event ``version``. A finished game's views never change: each is fetched once
 * (the browser's cache keeps it too, but asking it costs a round trip between processes). */
function viewAt(version) {
  const path = `/games/${gameId}/state?at=${version}`;
  if (!over()) return callAsSeat(path);
  if (!views.has(version)) {
    views.set(version, callAsSeat(path).catch((error) => {
      views.delete(version);
      throw error;
    }));
    if (views.size > KEPT_VIEWS) views.delete(views.keys().next().value);
  }
  return views.get(version);
}

/** Show the game as it stood after event ``version``; the latest version of a running game shows the
 * live view, with the moves. Stepping through a finished game fetches the next views on the way. */
async function show(version) {
  const ticket = ++showing;
  const latest = version === last();
  const live = latest && !over();
  const view = await (live ? callAsSeat(`/games/${gameId}/state`) : viewAt(version));
  if (ticket !== showing) return;
  const direction = Math.sign(version - game.shown);
  game.shown = version;
  game.following = latest;
  draw(view);
  url(version);
  if (!live) readAhead(version, direction);
}

const READ_AHEAD = 8; // views fetched ahead of a step through a finished game, in the step's direction

function readAhead(version, direction) {
  for (let next = version + direction, n = 0; direction && n < READ_AHEAD && next >= 1 && next <= last(); next += direction, n += 1) {
    viewAt(next).catch(() => {}); // (a failure is met again, and shown, when that version is stepped to)
  }
}

// The events that end a hand or a round (Craits has none of its own: the next round's deal ends the last),
// and the events with a seat that are no move of it.
const SETTLING = { craits: new Set(["RoundDealt"]), scat: new Set(["HandSettled", "HandVoided"]) };
const NOT_MOVES = new Set(["SeatTaken", "SeatResigned", "SeatAbandoned", "TurnTimedOut", "GameCreated"]);

/** What the events up to ``version`` leave to say: the event that ended the last hand or round if no move
 * came since, and whether nobody has moved yet. */
function moment(version) {
  const settling = SETTLING[game.summary.game] || new Set();
  const isMove = (event) => event.seat !== null && event.seat !== undefined && !NOT_MOVES.has(event.type);
  const first = firstDeal();
  let settled = null;
  let i = version - 1;
  for (; i >= 0 && !isMove(game.events[i]); i -= 1) {
    const event = game.events[i];
    if (!settled && settling.has(event.type) && event.version !== first) settled = event;
  }
  return { settled, beforeFirstMove: i < 0 };
}

const firstDeal = () => (game.events.find((event) => event.type === "RoundDealt") || {}).version;

// The parts of the table drawn anew with each view that hold controls (each focusable itself, tabindex -1).
const REDRAWN = ["you", "seats", "seating", "log"];

/** Run ``redraw`` keeping the keyboard's place: a control that had the focus and was drawn anew (a card played, a
 * move made, a log entry followed) hands it to its new self (the same card, button or link), else to the part of
 * the table it was in, else (that part hidden) to the first part shown; the focus never falls back to the page's start, which would send a keyboard or screen
 * reader user through the whole table again after each move. */
function keepingFocus(redraw) {
  const had = document.activeElement;
  const part = REDRAWN.map($).find((box) => box !== had && box.contains(had));
  redraw();
  if (!part || (had.isConnected && had.checkVisibility())) return;
  const same = [...part.querySelectorAll(had.tagName)].find((drawn) => drawn.checkVisibility()
    && drawn.textContent === had.textContent && drawn.getAttribute("aria-label") === had.getAttribute("aria-label"));
  if (same) same.focus({ preventScroll: true });
  // (the part hidden too, as the seating after Resign: the first part shown)
  else [part, ...REDRAWN.map($)].find((box) => box.checkVisibility())?.focus({ preventScroll: true });
}

function draw(view) {
  keepingFocus(() => drawTable(view));
}

function drawTable(view) {
  const mySeat = view.seat;
  drawView(view, game.summary.players, name, mySeat, moment(game.shown));
  $("headline").textContent = headline(game.events.slice(Math.max(0, game.shown - 3), game.shown), said);
  drawLog(game.shown);
  const status = view.version === last() ? game.summary.status : "replay";
  const title = $("title");
  if (title) title.textContent = `${game.summary.game[0].toUpperCase()}${game.summary.game.slice(1)} — ${game.summary.players} players — ${status}`;
  const rules = $("rules-link");
  rules.href = `/rules/${game.summary.game}`;
  rules.textContent = `Rules of ${game.summary.game[0].toUpperCase()}${game.summary.game.slice(1)}`;
  rules.hidden = !$("table").dataset.rules.split(" ").includes(game.summary.game);
  document.body.dataset.version = game.shown;
  document.body.dataset.status = game.summary.status;
  const top = view.state && view.state.top_card;
  offerMoves({
    hand: $("hand"), moves: view.legal_moves, actions: $("actions"), picker: $("picker"),
    seatsBox: $("seats"), name, topCard: top, submit: move,
  });
  showPosition();
  showClock($("clock"), view.deadline, name, view.to_act);
  if (game.following) offerSeating($("seating"), gameId, game.summary, mine, () => sync(), joined);
  else $("seating").hidden = true;
}

/** A seat taken in this page: the table drawn anew as its (a reload sent the focus to the page's start). */
function joined(kept) {
  mine = kept;
  token = kept.token;
  sync();
}

function showPosition() {
  $("slider").max = last();
  $("slider").value = game.shown;
  const live = game.following && !over();
  $("position").textContent = `version ${game.shown} of ${last()}${live ? " · live" : ""}`;
  document.body.dataset.last = last();
}

async function move(chosen) {
  busy(1);
  try {
    showProblem($("problem"), null);
    const answer = await call(`/games/${gameId}/moves`, { method: "POST", token, body: { ...chosen, expected_version: game.shown } });
    await sync(answer.version);
  } catch (error) {
    showProblem($("problem"), error);
    await sync();
  }
  busy(-1);
}

/** Catch up with the log; at the latest version, follow it. Given ``version`` (one the server has
 * written), it catches up only if the page has not read that far; called while a catch-up runs, it runs
 * once more after it unless that one brought the version (a catch-up in flight may have read the log
 * before the version was written, so a version heard is never missed). */
function sync(version) {
  if (version !== undefined) {
    wanted = Math.max(wanted, version);
    if (!syncing && last() >= version) return Promise.resolve();
  }
  if (syncing) {
    again ||= version === undefined;
    return syncing;
  }
  busy(1);
  syncing = (async () => {
    try {
      do {
        again = false;
        await catchUp();
      } while (again || last() < wanted);
    } catch (error) {
      showProblem($("problem"), error);
    } finally {
      syncing = null;
      busy(-1);
    }
  })();
  return syncing;
}

async function catchUp() {
  game.summary = await call(`/games/${gameId}`);
  await loadEvents();
  if (game.following) await show(last());
  else showPosition();
  if (over()) finish();
}

/** Follow the game over its event stream (Server-Sent Events, read with fetch so the seat's token
 * goes along): each event that arrives brings the page up to date. Reconnects until the game is over. */
async function follow() {
  while (!over()) {
    const auth = token ? { Authorization: `Bearer ${token}` } : {};
    try {
      const response = await fetch(`/v1/games/${gameId}/events/stream?after=${last()}`, { headers: auth });
      if (!response.ok) throw new Error(`the stream answered ${response.status}`);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        const ids = [...chunk.value.matchAll(/^id: (\d+)$/gm)].map((found) => Number(found[1]));
        if (ids.length) sync(Math.max(...ids));
      }
    } catch {
      // The server went away or refused for now: try again in a moment, as EventSource would.
    }
    await new Promise((resolve) => { setTimeout(resolve, 1000); });
  }
}

function finish() {
  showVerified($("badges"), gameId);
}

async function step(to) {
  const version = Math.min(Math.max(to, 1), last());
  if (version === game.shown) return;
  busy(1);
  try {
    await show(version);
  } catch (error) {
    showProblem($("problem"), error);
  } finally {
    busy(-1);
  }
}

const STEP_MS = 400; // a version's time on screen at 1×: the speed control divides it (0.25× to 8×)

function togglePlay() {
  if (game.player) {
    clearInterval(game.player);
    game.player = null;
  } else {
    if (game.shown === last()) step(1);
    game.player = setInterval(() => {
      if (game.shown >= last()) togglePlay();
      else step(game.shown + 1);
    }, STEP_MS / Number($("speed").value));
  }
  $("play").textContent = game.player ? "Pause" : "Play";
}

function changeSpeed() {
  if (!game.player) return;
  togglePlay();
  togglePlay(); // (playing on from where it is, at the new speed)
}

const KEYS = { ArrowLeft: () => game.shown - 1, ArrowRight: () => game.shown + 1, Home: () => 1, End: () => last() };

/** In the player's hand and moves, ←/→ go to the control before or after, Home/End to the first or last (they
 * stepped the timeline from under the hand). */
function among(part, from, key) {
  const all = [...part.querySelectorAll("button, input")].filter((control) => control.checkVisibility());
  const at = all.indexOf(from);
  const to = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: all.length - 1 }[key];
  all[Math.min(Math.max(to, 0), all.length - 1)]?.focus();
}

function controls() {
  $("to-start").addEventListener("click", () => step(1));
  $("back").addEventListener("click", () => step(game.shown - 1));
  $("forward").addEventListener("click", () => step(game.shown + 1));
  $("to-end").addEventListener("click", () => step(last()));
  $("play").addEventListener("click", togglePlay);
  $("speed").addEventListener("change", changeSpeed);
  $("slider").addEventListener("input", () => step(Number($("slider").value)));
  $("log").addEventListener("click", (clicked) => {
    const link = clicked.target.closest("a");
    if (!link) return;
    clicked.preventDefault();
    step(Number(link.closest("li").dataset.version));
  });
  document.addEventListener("keydown", (pressed) => {
    const target = pressed.target;
    const typing = ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName) && target.type !== "range" && target.type !== "checkbox";
    if (typing || !KEYS[pressed.key] || pressed.altKey || pressed.ctrlKey || pressed.metaKey) return;
    pressed.preventDefault();
    if ($("you").contains(target)) among($("you"), target, pressed.key);
    else step(KEYS[pressed.key]());
  });
}

/** The version ``?v=`` asks for; if it names none of this game's, the latest, and the page says so. */
function askedVersion() {
  const asked = new URLSearchParams(window.location.search).get("v");
  if (asked === null) return last();
  if (/^[0-9]+$/.test(asked) && Number(asked) >= 1 && Number(asked) <= last()) return Number(asked);
  showProblem($("problem"), new Notice(`?v=${asked} is no version of this game: it has versions 1 to ${last()}. Showing the latest.`));
  return last();
}

async function start() {
  controls();
  try {
    game.summary = await call(`/games/${gameId}`);
    showChanceFixed($("badges"), game.summary);
    await loadEvents();
    const version = askedVersion();
    await show(version);
    if (over()) finish();
    else follow();
  } catch (error) {
    showProblem($("problem"), error);
  } finally {
    busy(-1);
  }
}

start();
