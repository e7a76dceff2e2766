// What a visitor can do about a seat at the table: join a waiting game (and copy its invite link), abort it
// while it waits, resign from it while it runs. Each control shows its own problem beside it.

import { call, newEntropy, seats, showProblem } from "./api.js";
import { element } from "./dom.js";

function problemBeside() {
  return element("p", undefined, { className: "problem", hidden: true, role: "alert" });
}

/** A control's action, with its problem shown beside it (``where``) rather than anywhere else. */
async function attempt(where, action) {
  showProblem(where, null);
  try {
    await action();
  } catch (error) {
    showProblem(where, error);
  }
}

/** The link to give others so they can join: this table's address. */
export function inviteLink(gameId) {
  return new URL(`/games/${gameId}`, window.location.origin).href;
}

/** A read-only field with the invite link and a button that copies it. */
export function invite(gameId) {
  const box = element("div", undefined, { className: "invite" });
  const field = element("input", undefined, { type: "text", readOnly: true, value: inviteLink(gameId), className: "invite-link" });
  field.setAttribute("aria-label", "Invite link: send it to the players you want");
  const copy = element("button", "Copy invite link", { type: "button" });
  const said = element("span", "", { className: "copied" });
  said.setAttribute("aria-live", "polite");
  copy.addEventListener("click", async () => {
    field.select();
    try {
      await navigator.clipboard.writeText(field.value);
      said.textContent = "copied";
    } catch {
      said.textContent = "select the link and copy it";
    }
  });
  box.append(field, copy, said);
  return box;
}

/** The form to take a seat; ``typed``: what the visitor had typed in the form it replaces (drawn anew as others
 * join), kept, else the name last used in this browser. */
function joinForm(gameId, joined, typed) {
  const form = element("form", undefined, { className: "join" });
  const name = element("input", undefined, { type: "text", name: "name", required: true, maxLength: 64, placeholder: "your name",
    autocomplete: "nickname", value: typed ?? (localStorage.getItem("cardhall.name") || "") });
  name.setAttribute("aria-label", "Your name, to join this game");
  const problem = problemBeside();
  form.append(name, element("button", "Join", { type: "submit" }), problem);
  form.addEventListener("submit", (submitted) => {
    submitted.preventDefault();
    attempt(problem, async () => {
      const taken = await call(`/games/${gameId}/seats`, { method: "POST", body: { name: name.value, entropy: newEntropy() } });
      seats.put(gameId, taken.seat, taken.token, name.value);
      localStorage.setItem("cardhall.name", name.value);
      joined(seats.get(gameId));
    });
  });
  return form;
}

function leaveButton(text, gameId, path, token, confirmText, left) {
  const box = element("div", undefined, { className: "leave" });
  const button = element("button", text, { type: "button" });
  const problem = problemBeside();
  button.addEventListener("click", () => {
    if (!window.confirm(confirmText)) return;
    attempt(problem, async () => {
      await call(`/games/${gameId}/${path}`, { method: "POST", token });
      left();
    });
  });
  box.append(button, problem);
  return box;
}

/** Fill ``where`` with what this visitor can do about a seat of the game ``summary`` describes: ``mine`` is
 * the seat taken in this browser (or null); ``changed()`` is called once something was done, ``joined(kept)`` once
 * a seat was taken here (``kept``: as ``seats`` keeps it). */
export function offerSeating(where, gameId, summary, mine, changed, joined) {
  const offered = [];
  const typed = where.querySelector("form.join input[name=name]")?.value;
  const handedOver = mine && summary.seats[mine.seat] && summary.seats[mine.seat].bot_since;
  if (summary.status === "waiting") {
    if (!mine) offered.push(joinForm(gameId, joined, typed));
    offered.push(invite(gameId));
    if (mine) {
      offered.push(leaveButton("Abort the game", gameId, "abort", mine.token,
        "Call the game off for everyone? It ends before it begins.", changed));
    }
  } else if (summary.status === "active" && mine && !handedOver) {
    offered.push(leaveButton("Resign", gameId, "resign", mine.token,
      "Leave the game? The random house bot plays your seat from now on.", changed));
  }
  where.replaceChildren(...offered);
  where.hidden = offered.length === 0;
}
