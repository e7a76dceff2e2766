// The record viewer (/replay): a cardhall-record/1 from a file or pasted text, checked and replayed by the
// server (POST /v1/records/replay, which stores nothing), then stepped through version by version as the
// table steps through a stored game.

import { Notice, Problem, showProblem } from "./api.js";
import { showChanceFixed } from "./extras.js";
import { drawView } from "./render.js";
import { $, capitalised } from "./dom.js";

const shown = { record: null, views: [], version: 0 };

/** The first record in ``text``: one JSON document, or the first line of JSON Lines. */
function parse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return JSON.parse(text.split("\n").find((line) => line.trim()) || "");
  }
}

async function replay(record) {
  const response = await fetch("/v1/records/replay", {
    method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json" }, body: JSON.stringify(record),
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Problem(response.status, answer);
  if (!answer.valid) throw new Error(`This record does not hold: ${answer.problems.join("; ")}`);
  return answer.views;
}

function name(seat) {
  const sitter = shown.record.seats[seat];
  return sitter.name || `${sitter.bot} bot ${seat}`;
}

function show(version) {
  shown.version = Math.min(Math.max(version, 1), shown.views.length);
  const view = shown.views[shown.version - 1];
  drawView(view, shown.record.players, name, null);
  const record = shown.record;
  $("title").textContent = `${capitalised(record.game)} — ${record.players} players — record of ${record.id.slice(0, 8)}`;
  $("slider").value = String(shown.version);
  $("position").textContent = `version ${shown.version} of ${shown.views.length}`;
  document.body.dataset.version = String(shown.version);
}

/** The record's text: the file chosen, else the text pasted (pasting drops the file chosen before). */
async function chosen() {
  const file = $("record-file").files[0];
  if (file) return file.text();
  if (!$("record-text").value.trim()) throw new Notice("choose a record file or paste a record");
  return $("record-text").value;
}

async function open() {
  document.body.dataset.busy = "true";
  try {
    showProblem($("problem"), null);
    const record = parse(await chosen());
    const views = await replay(record);
    Object.assign(shown, { record, views });
    $("slider").max = String(views.length);
    $("timeline").hidden = false;
    $("badges").replaceChildren();
    $("badge-notes").replaceChildren();
    $("badge-notes").hidden = true;
    showChanceFixed($("badges"), record);
    show(1);
  } catch (error) {
    showProblem($("problem"), error instanceof SyntaxError ? new Error("That is not a JSON record") : error);
  } finally {
    document.body.dataset.busy = "false";
  }
}

$("open-record").addEventListener("submit", (submitted) => {
  submitted.preventDefault();
  open();
});
$("record-file").addEventListener("change", () => {
  if ($("record-file").files[0]) open();
});
$("record-text").addEventListener("input", () => { $("record-file").value = ""; });
const steps = { "to-start": () => 1, back: () => shown.version - 1, forward: () => shown.version + 1, "to-end": () => shown.views.length };
for (const [id, to] of Object.entries(steps)) $(id).addEventListener("click", () => show(to()));
$("slider").addEventListener("input", () => show(Number($("slider").value)));
document.addEventListener("keydown", (pressed) => {
  if (!shown.views.length || pressed.target.tagName === "TEXTAREA") return;
  const keys = { ArrowLeft: shown.version - 1, ArrowRight: shown.version + 1, Home: 1, End: shown.views.length };
  if (pressed.key in keys) show(keys[pressed.key]);
});
document.body.dataset.busy = "false";
