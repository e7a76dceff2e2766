// The leaderboard of a game (paged), and the ratings on an account's page (account.js draws the rest):
// each game's rating history drawn (chart.js) and its recent rated games linked to their tables.

import { call } from "./api.js";
import { ratingChart } from "./chart.js";
import { $, accountLink, cell, element, gameLink, setPager, when } from "./dom.js";

const PAGE = 50;
const PLACES = { 1: "won", 2: "lost", 3: "left" };

async function showBoard(root, cursors) {
  const game = root.dataset.game;
  const cursor = cursors[cursors.length - 1];
  const query = new URLSearchParams({ limit: PAGE, ...(cursor ? { cursor } : {}) });
  const board = await call(`/leaderboards/${encodeURIComponent(game)}?${query}`);
  const table = $("board-rows").closest("table");
  $("board-note").textContent = `Accounts with at least ${board.min_games} rated games, by ordinal (μ − 3σ).`;
  const rows = board.entries.map((entry) => {
    const row = element("tr");
    cell(row, table, String(entry.rank));
    cell(row, table, accountLink(entry.account), "names");
    cell(row, table, entry.ordinal.toFixed(2));
    cell(row, table, entry.mu.toFixed(2));
    cell(row, table, entry.sigma.toFixed(2));
    cell(row, table, String(entry.games));
    cell(row, table, String(entry.wins));
    cell(row, table, gameLink(entry.last_game_id, when(entry.last_played)));
    return row;
  });
  $("board-rows").replaceChildren(...rows);
  $("no-entries").hidden = rows.length > 0;
  setPager([$("first-page"), cursors.length === 1], [$("next-page"), !board.next]);
  return board.next;
}

async function leaderboard(root) {
  const cursors = [null];
  let next = await showBoard(root, cursors);
  $("next-page").addEventListener("click", async () => { cursors.push(next); next = await showBoard(root, cursors); });
  $("first-page").addEventListener("click", async () => { cursors.length = 1; next = await showBoard(root, cursors); });
}

function ratingSection(rating, room) {
  const section = element("section", undefined, { className: "rating" });
  section.append(element("h3", `${rating.game}: ordinal ${rating.ordinal.toFixed(2)}`));
  section.append(element("p", `μ ${rating.mu.toFixed(2)}, σ ${rating.sigma.toFixed(2)}; ${rating.games} rated games, `
    + `${rating.wins} won`, { className: "muted" }));
  section.append(ratingChart(rating.history, `${rating.game} rating after each rated game`, room));
  const board = element("a", `${rating.game} leaderboard`, { href: `/leaderboards/${encodeURIComponent(rating.game)}` });
  const boardLine = element("p");
  boardLine.append(board);
  section.append(boardLine);
  const recent = element("ol", undefined, { className: "recent", reversed: true });
  for (const change of rating.history.slice(-10).reverse()) {
    const item = element("li");
    item.append(gameLink(change.game_id, `${PLACES[change.place]} — ${when(change.at)}`),
      ` (ordinal ${change.ordinal.toFixed(2)})`);
    recent.append(item);
  }
  section.append(element("h4", "Recent rated games"), recent);
  return section;
}

async function account(root) {
  const ratings = await call(`/accounts/${encodeURIComponent(root.dataset.name)}/ratings`);
  root.replaceChildren(...ratings.ratings.map((rating) => ratingSection(rating, root.clientWidth)));
  $("no-ratings").hidden = ratings.ratings.length > 0;
  root.dataset.loaded = "true";
}

async function start() {
  try {
    if ($("leaderboard")) await leaderboard($("leaderboard"));
    if ($("account-ratings")) await account($("account-ratings"));
  } catch (problem) {
    const main = document.querySelector("main");
    main.prepend(element("p", problem.message || String(problem), { className: "problem", role: "alert" }));
  } finally {
    if ($("leaderboard")) document.body.dataset.busy = "false"; // (the account page's own script says when it is done)
  }
}

start();
