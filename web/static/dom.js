// The small things every page builds its elements with: one copy here, imported by each page's module.

/** The page's element of that id. */
export const $ = (id) => document.getElementById(id);

/** A new ``tag`` element holding ``text`` (none if undefined), with ``attributes``: those the element has as
 * properties (className, href, hidden…) are set as such, the others (role where the browser reflects no
 * ARIA, aria-…, data-…) as attributes. */
export function element(tag, text, attributes = {}) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  for (const [name, value] of Object.entries(attributes)) {
    if (name in node) node[name] = value;
    else node.setAttribute(name, value);
  }
  return node;
}

/** A cell appended to ``row`` of ``table``, holding ``content`` (text or a node). Each cell says what it is, as
 * its column's head does: on a narrow screen the rows are shown as cards without the table's head. */
export function cell(row, table, content, className = "") {
  const td = element("td", undefined, { className });
  td.dataset.label = table.tHead.rows[0].cells[row.cells.length].textContent;
  td.append(content);
  row.append(td);
  return td;
}

/** A time (RFC 3339) as this browser's language writes it; ``style``: Intl's options (by default date and time). */
export const when = (iso, style = {}) => new Date(iso).toLocaleString([], style);

/** "1 card", "2 cards". */
export const plural = (count, one, many) => `${count} ${count === 1 ? one : many}`;

/** "craits" → "Craits". */
export const capitalised = (word) => word.charAt(0).toUpperCase() + word.slice(1);

/** A link to an account's page. */
export const accountLink = (name) => element("a", name, { href: `/accounts/${encodeURIComponent(name)}` });

/** A link to a game's table, saying ``text`` (by default "game" and the id's first 8 characters). */
export const gameLink = (gameId, text = `game ${gameId.slice(0, 8)}`) =>
  element("a", text, { href: `/games/${encodeURIComponent(gameId)}` });

/** Enable or disable a pager's buttons ([button, disabled] each); a focused one disabled hands the focus to one
 * left enabled (it fell back to the page's start). */
export function setPager(...states) {
  const had = document.activeElement;
  for (const [button, disabled] of states) button.disabled = disabled;
  if (states.some(([button]) => button === had) && had.disabled) states.find(([button]) => !button.disabled)?.[0].focus();
}
