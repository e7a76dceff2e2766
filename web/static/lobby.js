// The lobby: games to watch or join (paged), and a form to start one.

import { Notice, call, chanceFixed, newEntropy, sayMeaning, seatName, seats, showProblem } from "./api.js";
import { $, cell, element, gameLink, setPager, when } from "./dom.js";
import { inviteLink } from "./seating.js";

const PAGE = 20;
let types = [];
let cursors = [null]; // the cursor of each page shown so far (null: the first page)
function joinForm(game) {
  const form = element("form", undefined, { className: "join" });
  const name = element("input", undefined, { type: "text", name: "name", required: true, maxLength: 64, placeholder: "your name" });
  name.setAttribute("aria-label", `Your name, to join game ${game.id.slice(0, 8)}`);
  const problem = element("p", undefined, { className: "problem", hidden: true, role: "alert" });
  form.append(name, element("button", "Join", { type: "submit" }), problem);
  form.addEventListener("submit", async (submitted) => {
    submitted.preventDefault();
    await run(problem, async () => {
      const taken = await call(`/games/${game.id}/seats`, { method: "POST", body: { name: name.value, entropy: newEntropy() } });
      seats.put(game.id, taken.seat, taken.token, name.value);
      window.location.assign(`/games/${game.id}`);
    });
  });
  return form;
}

/** The button that copies a game's invite link, and what became of it beside it, said as a status. */
function copyInvite(game) {
  const button = element("button", "Copy invite link", { type: "button", className: "link-button" });
  button.setAttribute("aria-label", `Copy the invite link of game ${game.id.slice(0, 8)}`);
  const said = element("span", "", { className: "copied", role: "status" });
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(inviteLink(game.id));
      said.textContent = "Invite link copied";
    } catch {
      window.prompt("The invite link:", inviteLink(game.id));
    }
  });
  return [button, said];
}

/** A game's name as its rules write it ("Craits"), from the game types the server lists. */
const gameTitle = (game) => (types.find((type) => type.game === game) || { title: game }).title;

function row(game) {
  const table = $("game-rows").closest("table");
  const tr = element("tr");
  tr.dataset.game = game.id;
  const mine = seats.get(game.id);
  const names = game.seats.map((seat) => seatName(game, seat.seat)).join(", ");
  const status = game.status === "finished" && game.result ? `finished: ${game.result.winners.map((s) => seatName(game, s)).join(", ")} won` : game.status;
  cell(tr, table, gameTitle(game.game));
  cell(tr, table, names + (mine ? ` — you: seat ${mine.seat}` : ""), "names"); // ("names": players' names wrap anywhere)
  cell(tr, table, status, "names"); // (a finished game's says who won)
  cell(tr, table, String(game.version));
  cell(tr, table, when(game.created_at, { dateStyle: "short", timeStyle: "short" }));
  for (const mark of chanceFixed(game)) {
    tr.firstChild.append(" ", element("span", mark, { className: `badge ${mark}` }));
    sayMeaning($("marks-legend"), mark);
  }
  const last = element("td"); // (the actions say what they are: no label)
  const actions = element("div", undefined, { className: "row-actions" });
  last.append(actions);
  const watch = gameLink(game.id, mine ? "Open" : "Watch");
  watch.setAttribute("aria-label", `${mine ? "Open" : "Watch"} ${gameTitle(game.game)} game ${game.id.slice(0, 8)}`);
  actions.append(watch);
  if (game.status === "waiting") actions.append(...copyInvite(game));
  if (game.status === "waiting" && !mine) actions.append(joinForm(game));
  tr.append(last);
  return tr;
}

let shownPage = 0;

async function showGames(page = cursors.length - 1) {
  const filters = new FormData($("filters"));
  const query = new URLSearchParams({ limit: PAGE });
  // Finished and aborted games (an arena's hundreds among them) are listed only when asked for.
  const status = filters.get("status");
  for (const shown of status === "any" ? [] : status ? [status] : ["waiting", "active"]) query.append("status", shown);
  if (filters.get("game")) query.set("game", filters.get("game"));
  if (cursors[page]) query.set("cursor", cursors[page]);
  const listed = await call(`/games?${query}`);
  $("marks-legend").replaceChildren();
  $("marks-legend").hidden = true;
  $("game-rows").replaceChildren(...listed.games.map(row));
  $("no-games").hidden = listed.games.length > 0;
  cursors = cursors.slice(0, page + 1);
  shownPage = page;
  if (listed.next_cursor) cursors.push(listed.next_cursor);
  setPager([$("first-page"), page === 0], [$("next-page"), !listed.next_cursor]);
}

/** What an option does, under its field and as its description (a title showed it to a mouse alone). */
function described(label, field, name, option) {
  const hint = element("p", option.description, { className: "hint", id: `hint-${name}` });
  field.setAttribute("aria-describedby", hint.id);
  return [label, hint];
}

function optionInput(name, option) {
  const label = element("label", `${name.replace(/_/g, " ")} `);
  const input = element("input", undefined, { name: `option.${name}` });
  if (option.type === "bool") {
    input.type = "checkbox";
    input.checked = Boolean(option.default);
    label.prepend(input);
    label.classList.add("check");
    return described(label, input, name, option);
  }
  input.type = "number";
  if (option.minimum !== undefined) input.min = option.minimum;
  if (option.maximum !== undefined) input.max = option.maximum;
  if (option.default !== null && option.default !== undefined) input.value = option.default;
  else input.placeholder = "none";
  label.append(input);
  return described(label, input, name, option);
}

function showOptions() {
  const type = types.find((t) => t.game === $("new-game-type").value);
  const players = $("new-players");
  players.min = type.min_players;
  players.max = type.max_players;
  players.value = Math.min(Math.max(Number(players.value) || 2, type.min_players), type.max_players);
  // Stacked decks are for tests and bots over the API; the form offers the options a person picks.
  const offered = Object.entries(type.options).filter(([, option]) => ["bool", "int"].includes(option.type));
  $("new-options").replaceChildren(element("legend", "Options"), ...offered.flatMap(([name, option]) => optionInput(name, option)));
  showSeats();
}

const SITTERS = [["me", "me"], ["open", "open: someone joins"], ["random", "random bot"], ["greedy", "greedy bot"]];

function showSeats() {
  const count = Number($("new-players").value) || 0;
  const fields = [element("legend", "Seats")];
  for (let seat = 0; seat < count; seat += 1) {
    const select = element("select", undefined, { name: `seat.${seat}` });
    for (const [value, text] of SITTERS) select.append(element("option", text, { value }));
    select.value = seat === 0 ? "me" : "greedy";
    const label = element("label", `Seat ${seat} `);
    label.append(select);
    fields.push(label);
  }
  const type = types.find((t) => t.game === $("new-game-type").value);
  // A seat option (the first dealer) is picked from the seats, or left to the game's draw.
  for (const [optionName, option] of Object.entries(type.options).filter(([, o]) => o.type === "seat")) {
    const select = element("select", undefined, { name: `option.${optionName}` });
    select.append(element("option", "drawn by cards", { value: "" }));
    for (let seat = 0; seat < count; seat += 1) select.append(element("option", `seat ${seat}`, { value: String(seat) }));
    const label = element("label", `${optionName.replace(/_/g, " ")} `);
    label.append(select);
    fields.push(...described(label, select, optionName, option));
  }
  $("new-seats").replaceChildren(...fields);
}

function options(form) {
  const type = types.find((t) => t.game === form.get("game"));
  const chosen = {};
  for (const [name, option] of Object.entries(type.options)) {
    const value = form.get(`option.${name}`);
    if (option.type === "bool") chosen[name] = value === "on";
    else if (value !== null && value !== "") chosen[name] = Number(value);
  }
  return chosen;
}

async function startGame(submitted) {
  submitted.preventDefault();
  const form = new FormData($("new-game"));
  const players = Number(form.get("players"));
  const sitters = Array.from({ length: players }, (_, seat) => form.get(`seat.${seat}`));
  // Seats are taken in order: an open seat can only be followed by more open seats.
  const firstOpen = sitters.indexOf("open");
  if (firstOpen >= 0 && sitters.slice(firstOpen).some((s) => s !== "open")) {
    showProblem($("problem"), new Notice("open seats must come last: seats are taken in order"));
    return;
  }
  if (sitters.includes("me") && !form.get("name")) {
    showProblem($("problem"), new Notice("give your name to take a seat"));
    return;
  }
  await run($("problem"), async () => {
    const game = await call("/games", { method: "POST", body: { game: form.get("game"), players, options: options(form) } });
    for (const sitter of sitters) {
      if (sitter === "open") break;
      const body = sitter === "me" ? { name: form.get("name"), entropy: newEntropy() } : { bot: sitter };
      const taken = await call(`/games/${game.id}/seats`, { method: "POST", body });
      if (sitter === "me") seats.put(game.id, taken.seat, taken.token, form.get("name"));
    }
    window.location.assign(`/games/${game.id}`);
  });
}

/** Run ``action`` with the page busy; a failure is shown in ``where``, beside the control that caused it. */
async function run(where, action) {
  document.body.dataset.busy = "true";
  try {
    showProblem(where, null);
    await action();
  } catch (error) {
    showProblem(where, error);
  } finally {
    document.body.dataset.busy = "false";
  }
}

const REFRESH_MS = 3000; // how often the list is read again while the page is in sight

/** Keep the list current: read the page shown again every few seconds while the page is visible, unless
 * someone is typing in it (a Join name). */
function keepFresh() {
  setInterval(() => {
    const typing = document.activeElement && document.activeElement.closest("#game-rows");
    if (document.hidden || typing || document.body.dataset.busy === "true") return;
    showGames(shownPage).then(() => showProblem($("list-problem"), null), (error) => showProblem($("list-problem"), error));
  }, REFRESH_MS);
}

async function start() {
  types = (await call("/game-types")).game_types;
  for (const type of types) {
    $("new-game-type").append(element("option", type.title, { value: type.game }));
    $("filters").elements.game.append(element("option", type.title, { value: type.game }));
  }
  $("new-name").value = localStorage.getItem("cardhall.name") || "";
  $("new-name").addEventListener("change", () => localStorage.setItem("cardhall.name", $("new-name").value));
  $("new-game-type").addEventListener("change", showOptions);
  $("new-players").addEventListener("input", showSeats);
  $("new-game").addEventListener("submit", startGame);
  // (a problem said of the form's last submission is gone once the form is changed: it no longer says what is wrong)
  $("new-game").addEventListener("input", () => showProblem($("problem"), null));
  $("filters").addEventListener("change", () => run($("list-problem"), () => { cursors = [null]; return showGames(0); }));
  $("next-page").addEventListener("click", () => run($("list-problem"), () => showGames(cursors.length - 1)));
  $("first-page").addEventListener("click", () => run($("list-problem"), () => showGames(0)));
  showOptions();
  await showGames(0);
  keepFresh();
}

run($("list-problem"), start);
