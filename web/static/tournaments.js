// The tournaments: their list (running, then finished, each paged; an account's alone with ?account=) and
// one tournament's page (its standings, crosstable and games by round), read again every few seconds while
// it runs.

import { call, showProblem } from "./api.js";
import { $, accountLink, capitalised, cell, element, gameLink, setPager, when } from "./dom.js";

const PAGE = 20;
const REFRESH_MS = 3000; // (while a tournament runs: its games end and its rounds are made as it is watched)
const FORMATS = { round_robin: "round robin", swiss: "Swiss" };

const tournamentLink = (entry) => element("a", `${capitalised(entry.game)} ${FORMATS[entry.format] || entry.format}`,
  { href: `/tournaments/${encodeURIComponent(entry.id)}` });
const points = (value) => (Number.isInteger(value) ? String(value) : value.toFixed(2));

/** A page of ``status`` tournaments from ``cursor`` on. A page the server read to its bound holds fewer, or
 * none: the next ones are read until some are found or none are left. */
async function listed(status, account, cursor) {
  let page = { tournaments: [], next: cursor };
  do {
    const query = new URLSearchParams({ status, limit: PAGE, ...(account ? { account } : {}),
      ...(page.next ? { cursor: page.next } : {}) });
    const more = await call(`/tournaments?${query}`);
    page = { tournaments: [...page.tournaments, ...more.tournaments], next: more.next };
  } while (page.tournaments.length === 0 && page.next);
  return page;
}

async function showList(section, account, cursors) {
  const table = section.querySelector("table");
  const page = await listed(section.dataset.status, account, cursors[cursors.length - 1]);
  const rows = page.tournaments.map((entry) => {
    const row = element("tr");
    row.dataset.tournament = entry.id;
    cell(row, table, tournamentLink(entry), "names");
    cell(row, table, entry.accounts.join(", "), "names");
    cell(row, table, `${entry.round} of ${entry.rounds}`);
    cell(row, table, accountLink(entry.creator), "names");
    cell(row, table, when(entry.created_at));
    return row;
  });
  section.querySelector("tbody").replaceChildren(...rows);
  section.querySelector(".none").hidden = rows.length > 0;
  setPager([section.querySelector(".first-page"), cursors.length === 1], [section.querySelector(".next-page"), !page.next]);
  return page.next;
}

async function list(root) {
  const account = root.dataset.account;
  await Promise.all([...root.querySelectorAll("section[data-status]")].map(async (section) => {
    const cursors = [null];
    let next = await showList(section, account, cursors);
    section.querySelector(".next-page").addEventListener("click", async () => {
      cursors.push(next);
      next = await showList(section, account, cursors);
    });
    section.querySelector(".first-page").addEventListener("click", async () => {
      cursors.length = 1;
      next = await showList(section, account, cursors);
    });
  }));
}

function facts(tournament) {
  $("tournament-title").textContent = `${capitalised(tournament.game)} ${FORMATS[tournament.format] || tournament.format}, `
    + `${tournament.accounts.length} accounts`;
  // (the rules' link alone in its fact: on a touch screen it is a finger wide, and words after it stood apart)
  $("tournament-game").replaceChildren(element("a", tournament.game,
    { href: `/rules/${encodeURIComponent(tournament.game)}` }));
  $("tournament-table").textContent = `${tournament.players_per_table} accounts`
    + `${tournament.duplicate ? ", each deal played once from every seat" : ""}`;
  $("tournament-format").textContent = FORMATS[tournament.format] || tournament.format;
  $("tournament-status").textContent = tournament.status;
  $("tournament-round").textContent = `${tournament.round} of ${tournament.rounds}`;
  $("tournament-clock").textContent = `${tournament.move_seconds} s a move`;
  $("tournament-creator").replaceChildren(accountLink(tournament.creator));
  $("tournament-created").textContent = when(tournament.created_at);
  const replayed = $("tournament-replay-of");
  replayed.hidden = replayed.previousElementSibling.hidden = !tournament.replay_of;
  if (tournament.replay_of) {
    replayed.replaceChildren(element("a", "the same deals as another tournament",
      { href: `/tournaments/${encodeURIComponent(tournament.replay_of)}` }));
  }
  $("tournament-note").textContent = tournament.status === "running"
    ? "Running: this page follows its games as they end." : "Finished: every game is over.";
}

function standings(tournament) {
  const table = $("standings");
  $("standing-rows").replaceChildren(...tournament.standings.map((row) => {
    const tr = element("tr");
    cell(tr, table, String(row.rank));
    cell(tr, table, accountLink(row.account), "names");
    cell(tr, table, points(row.points));
    cell(tr, table, String(row.games));
    cell(tr, table, String(row.byes));
    cell(tr, table, `${row.mean.toFixed(2)} (${row.interval[0].toFixed(2)}–${row.interval[1].toFixed(2)})`);
    return tr;
  }));
}

function crosstable(tournament) {
  const names = tournament.standings.map((row) => row.account);
  const head = element("tr");
  head.append(element("th", "", { scope: "col" }), ...names.map((name) => element("th", name, { scope: "col" })));
  const rows = names.map((name) => {
    const tr = element("tr");
    tr.append(element("th", name, { scope: "row" }));
    for (const other of names) {
      const scored = (tournament.crosstable[name] || {})[other];
      tr.append(element("td", other === name ? "—" : scored === undefined ? "" : points(scored)));
    }
    return tr;
  });
  const thead = element("thead");
  thead.append(head);
  const tbody = element("tbody");
  tbody.append(...rows);
  $("crosstable").replaceChildren(thead, tbody);
}

function roundOf(tournament, number) {
  const section = element("section", undefined, { className: "round" });
  section.dataset.round = number;
  section.append(element("h3", `Round ${number}`));
  const table = element("table", undefined, { className: "games" });
  table.createTHead().append(...[["Table", "Rotation", "Seats", "Status", "Game"]].map((heads) => {
    const tr = element("tr");
    tr.append(...heads.map((text) => element("th", text, { scope: "col" })));
    return tr;
  }));
  const body = table.createTBody();
  for (const game of tournament.games.filter((entry) => entry.round === number)) {
    const tr = element("tr");
    tr.dataset.game = game.game_id;
    body.append(tr); // (in the table first: each cell reads its column's head)
    cell(tr, table, String(game.table + 1));
    cell(tr, table, String(game.turn + 1));
    cell(tr, table, game.seats.join(", "), "names");
    cell(tr, table, game.status);
    cell(tr, table, gameLink(game.game_id));
  }
  section.append(table);
  const byes = tournament.byes.filter((bye) => bye.round === number);
  if (byes.length) {
    section.append(element("p", `Sat out (a bye, ${points(byes[0].points)} point${byes[0].points === 1 ? "" : "s"}): `
      + byes.map((bye) => bye.account).join(", "), { className: "byes" }));
  }
  return section;
}

/** The tournament drawn anew if it changed since last read; a link that had the keyboard's focus keeps it. */
async function tournamentPage(root) {
  const tournament = await call(`/tournaments/${encodeURIComponent(root.dataset.tournament)}`);
  const read = JSON.stringify(tournament);
  if (read === root.dataset.read) return tournament.status;
  root.dataset.read = read;
  const focused = root.contains(document.activeElement) ? document.activeElement.getAttribute("href") : null;
  facts(tournament);
  standings(tournament);
  crosstable(tournament);
  $("rounds").replaceChildren(...Array.from({ length: tournament.round }, (_, at) => roundOf(tournament, at + 1)));
  root.dataset.status = tournament.status;
  if (focused) [...root.querySelectorAll("a[href]")].find((link) => link.getAttribute("href") === focused)?.focus();
  return tournament.status;
}

/** The tournament's page, read again every few seconds until it is finished. */
async function follow(root) {
  try {
    const status = await tournamentPage(root);
    showProblem($("problem"), null);
    if (status === "running") setTimeout(() => follow(root), REFRESH_MS);
  } catch (error) {
    showProblem($("problem"), error);
    setTimeout(() => follow(root), REFRESH_MS); // (a moment's outage: tried again)
  } finally {
    document.body.dataset.busy = "false";
  }
}

async function start() {
  if ($("tournament")) {
    await follow($("tournament"));
    return;
  }
  try {
    await list($("tournaments"));
  } catch (error) {
    showProblem($("problem"), error);
  } finally {
    document.body.dataset.busy = "false";
  }
}

start();
