// Small things a view may carry: a turn clock's countdown and a finished game's verified shuffles.

import { call, chanceFixed, sayMeaning } from "./api.js";
import { element } from "./dom.js";

let ticking = null;

/** Count down to ``deadline`` (RFC 3339, or null: no clock) for the seats in ``toAct``. */
export function showClock(where, deadline, name, toAct) {
  clearInterval(ticking);
  where.hidden = !deadline;
  if (!deadline) return;
  const end = Date.parse(deadline);
  const tick = () => {
    const seconds = Math.max(0, Math.ceil((end - Date.now()) / 1000));
    where.textContent = `${toAct.map(name).join(", ")}: ${seconds} s left`;
  };
  tick();
  ticking = setInterval(tick, 250);
}

/** Show a "verified" badge when the game's shuffle audit answers verified (a server without audits: nothing). */
export async function showVerified(where, gameId) {
  if (!where || where.querySelector(".verified")) return;
  try {
    const audit = await call(`/games/${gameId}/audit`);
    if (audit.verified !== true) return;
    where.append(element("span", "verified", { className: "badge verified" }));
    sayMeaning(document.getElementById("badge-notes"), "verified");
  } catch {
    // 404: this server keeps no audit. Nothing to show.
  }
}

/** Badges saying what the game's creator fixed of its chance (summary ``seeded``, ``stacked``), once. */
export function showChanceFixed(where, summary) {
  if (!where) return;
  for (const mark of chanceFixed(summary)) {
    if (where.querySelector(`.${mark}`)) continue;
    where.append(element("span", mark === "seeded" && summary.replay_of ? `replay of ${summary.replay_of.slice(0, 8)}` : mark,
      { className: `badge ${mark}` }));
    sayMeaning(document.getElementById("badge-notes"), mark);
  }
}
