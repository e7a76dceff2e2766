// Accounts in the pages: sign in by pasting an API key (kept in this browser, never in a URL),
// the lobby's open challenges with an Accept button, and an account's page.

import { Notice, Problem, call, newEntropy, seats, showProblem } from "./api.js";
import { $, element, gameLink, plural, when } from "./dom.js";

const KEY = "cardhall.account";

/** The signed-in account in this browser: {name, kind, key}, or null. */
export const signedIn = {
  get() {
    try {
      return JSON.parse(localStorage.getItem(KEY)) || null;
    } catch {
      return null;
    }
  },
  put(account) {
    localStorage.setItem(KEY, JSON.stringify(account));
  },
  clear() {
    localStorage.removeItem(KEY);
  },
};

function showAccount() {
  const account = signedIn.get();
  $("sign-in").hidden = Boolean(account);
  $("signed-in").hidden = !account;
  if (account) {
    const link = $("account-link");
    link.textContent = `${account.name}${account.kind === "bot" ? " (bot)" : ""}`;
    link.href = `/accounts/${encodeURIComponent(account.name)}`;
  }
}

async function signIn(submitted) {
  submitted.preventDefault();
  const key = $("account-key").value.trim();
  try {
    const account = await call("/account", { token: key });
    signedIn.put({ name: account.name, kind: account.kind, key });
    $("account-key").value = "";
    showProblem($("account-problem"), null);
    showAccount();
    await showChallenges();
  } catch (error) {
    showProblem($("account-problem"), error instanceof Problem && error.status === 401
      ? new Notice("That key is not valid: it was revoked, or never given out. Paste an account's API key (chk_…).")
      : error);
  }
}

function challengeRow(challenge) {
  const item = element("li", undefined, { className: "challenge" });
  item.dataset.challenge = challenge.id;
  const seatsLeft = challenge.players - challenge.accepted.length;
  const options = Object.entries(challenge.options).map(([name, value]) => `${name} ${value}`).join(", ");
  item.append(element("span", `${challenge.challenger}: ${challenge.game} for ${challenge.players}` +
    `${options ? ` (${options})` : ""}${challenge.rated ? ", rated" : ""} — ${plural(seatsLeft, "seat", "seats")} open`));
  const account = signedIn.get();
  const accept = element("button", "Accept", { type: "button", disabled: !account });
  accept.setAttribute("aria-label", `Accept ${challenge.challenger}'s challenge to ${challenge.game}`);
  if (!account) accept.title = "Sign in with an API key to accept";
  accept.addEventListener("click", () => acceptChallenge(challenge, account));
  item.append(accept);
  return item;
}

async function acceptChallenge(challenge, account) {
  try {
    const taken = await call(`/challenges/${challenge.id}/accept`,
      { method: "POST", token: account.key, body: { entropy: newEntropy() } });
    if (taken.game_id) {
      // The account's key moves for its seat: the table uses it as this browser's seat token.
      const seat = taken.accepted.findIndex((name) => name.toLowerCase() === account.name.toLowerCase());
      seats.put(taken.game_id, seat, account.key, account.name);
      window.location.assign(`/games/${taken.game_id}`);
      return;
    }
    await showChallenges();
  } catch (error) {
    showProblem($("account-problem"), error);
    await showChallenges();
  }
}

async function showChallenges() {
  const list = $("challenge-rows");
  try {
    // (signed in, the challenges naming the account are listed too, first: they are listed to it alone)
    const { challenges } = await call("/challenges", { token: signedIn.get()?.key });
    list.replaceChildren(...challenges.map(challengeRow));
    $("no-challenges").hidden = challenges.length > 0;
  } catch (error) {
    showProblem($("account-problem"), error instanceof Problem && error.status === 401
      ? new Notice("That key is not valid: it was revoked, or never given out. Paste an account's API key (chk_…).")
      : error);
  }
}

/** The lobby's account panel and open challenges. */
export async function lobby() {
  $("sign-in").addEventListener("submit", signIn);
  $("sign-out").addEventListener("click", async () => {
    signedIn.clear();
    showAccount();
    await showChallenges();
  });
  showAccount();
  await showChallenges();
}

/** An account's page: its kind, since when, its games. */
export async function page(name) {
  try {
    const account = await call(`/accounts/${encodeURIComponent(name)}`);
    $("account-name").textContent = account.name;
    $("account-kind").textContent = account.kind === "bot" ? "a bot" : "a person";
    $("account-created").textContent = when(account.created_at, { dateStyle: "medium" });
    $("account-played").textContent = String(account.games.played);
    $("account-description").textContent = account.description || "";
    $("current-games").replaceChildren(...account.games.current.map((id) => {
      const item = element("li");
      item.append(gameLink(id));
      return item;
    }));
    $("no-current").hidden = account.games.current.length > 0;
  } catch (error) {
    showProblem($("problem"), error);
  }
}

if (document.body.classList.contains("account")) {
  page(decodeURIComponent(window.location.pathname.split("/").pop())).finally(() => { document.body.dataset.busy = "false"; });
} else {
  lobby();
}
