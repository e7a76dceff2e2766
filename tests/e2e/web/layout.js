// The audit run in the page by layout.py: a list of problems in words (empty: none). ``what``: "layout" (the page
// at its viewport) or "focus" (the focused element's ring).
(what = "layout") => {
  const width = document.documentElement.clientWidth;
  const TAPPED = "button, input, select, textarea, summary, .bar a, .row-actions a, .log a, .rules-link, .games td a, "
    + ".rating > p > a, .recent a, #current-games a, #account-link, .panel > p > a:only-child, dl.facts dd > a";
  const problems = [];
  const name = (el) => {
    const text = (el.getAttribute("aria-label") || el.textContent || el.value || "").trim().slice(0, 40);
    return `${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}${el.className && typeof el.className === "string" ? "." + el.className.trim().replace(/\s+/g, ".") : ""} "${text}"`;
  };
  const rgba = (css) => {
    const m = css.match(/rgba?\(([^)]+)\)/);
    if (!m) return [0, 0, 0, 0];
    const parts = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return [parts[0], parts[1], parts[2], parts.length > 3 ? parts[3] : 1];
  };
  const over = (top, base) => [0, 1, 2].map((i) => top[i] * top[3] + base[i] * (1 - top[3])).concat(1);
  const mix = (base, painted, opacity) => [0, 1, 2].map((i) => base[i] + (painted[i] - base[i]) * opacity).concat(1);
  const luminance = (c) => {
    const [r, g, b] = c.slice(0, 3).map((v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const ratio = (a, b) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((p, q) => q - p);
    return (hi + 0.05) / (lo + 0.05);
  };
  // The pixel seen under (or, with text, on) the element: each ancestor's background and opacity, from the canvas up.
  const seen = (chain, text) => {
    const paint = (i, base) => {
      const style = getComputedStyle(chain[i]);
      let colour = over(rgba(style.backgroundColor), base);
      colour = i === 0 ? (text ? over(text, colour) : colour) : paint(i - 1, colour);
      return mix(base, colour, Number(style.opacity));
    };
    return paint(chain.length - 1, [255, 255, 255, 1]);
  };
  // The focused element's ring: drawn (an outline 2 px wide at least) and 3:1 against what is painted around it
  // (WCAG 1.4.11), the ring lying outside the element, over its parent's background.
  if (what === "focus") {
    const el = document.activeElement;
    if (!el || el === document.body) return ["nothing has the focus"];
    const style = getComputedStyle(el);
    if (style.outlineStyle === "none" || parseFloat(style.outlineWidth) < 2) return [`${name(el)} shows no focus ring`];
    const around = [];
    for (let at = el.parentElement; at; at = at.parentElement) around.push(at);
    const got = ratio(rgba(style.outlineColor), seen(around, null));
    return got < 3 ? [`${name(el)}: its focus ring's contrast is ${got.toFixed(2)} < 3`] : [];
  }
  const shown = (el) => el.checkVisibility({ opacityProperty: false, visibilityProperty: true })
    && el.getClientRects().length > 0 && el.getBoundingClientRect().width > 1;
  if (document.documentElement.scrollWidth > width) {
    problems.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} px wide in ${width} px`);
  }
  const controls = [...document.querySelectorAll("a[href], button, input, select, textarea, summary")].filter(shown);
  window.scrollTo(0, 0);
  const outside = new Set(controls.filter((el) => {
    const box = el.getBoundingClientRect();
    const out = box.left < -0.5 || box.right > width + 0.5;
    if (out) problems.push(`${name(el)} is outside the viewport: ${Math.round(box.left)}..${Math.round(box.right)} of ${width}`);
    return out;
  }));
  for (const el of controls) {
    if (outside.has(el)) continue;
    el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
    const at = el.getBoundingClientRect();
    const x = Math.min(Math.max(at.left + at.width / 2, 0), width - 1);
    const y = Math.min(Math.max(at.top + at.height / 2, 0), window.innerHeight - 1);
    const hit = document.elementFromPoint(x, y);
    if (!hit || !(el === hit || el.contains(hit) || hit.contains(el) || (el.labels && [...el.labels].some((l) => l.contains(hit))))) {
      problems.push(`${name(el)} is covered by ${hit ? name(hit) : "nothing"}`);
    }
  }
  window.scrollTo(0, 0);
  // On a touch screen each control is a finger's size: 44 by 44 px at least, itself or the label it sits in (a
  // checkbox's). Links in running text are exempt, as WCAG 2.5.8 exempts them; links standing alone are not.
  if (matchMedia("(pointer: coarse)").matches) {
    for (const el of [...document.querySelectorAll(TAPPED)].filter(shown)) {
      const boxes = [el, ...(el.labels || [])].map((at) => at.getBoundingClientRect());
      const [wide, tall] = [Math.max(...boxes.map((box) => box.width)), Math.max(...boxes.map((box) => box.height))];
      if (Math.round(wide) < 44 || Math.round(tall) < 44) {
        problems.push(`${name(el)} is ${Math.round(wide)} by ${Math.round(tall)} px: under 44 by 44 to tap`);
      }
    }
  }

  const hasText = (el) => [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim())
    || ["INPUT", "SELECT", "TEXTAREA"].includes(el.tagName) && el.type !== "range" && el.type !== "checkbox";
  for (const el of document.body.querySelectorAll("*")) {
    if (!hasText(el) || !shown(el) || el.closest(".visually-hidden")) continue;
    // Text as shown (an SVG's text as its drawing is scaled) 14 px at least: smaller, on a phone, wants zooming in.
    const size = parseFloat(getComputedStyle(el).fontSize);
    const svg = el.ownerSVGElement;
    const scale = svg && svg.viewBox.baseVal?.width ? svg.getBoundingClientRect().width / svg.viewBox.baseVal.width : 1;
    if (size * scale < 13.95) problems.push(`${name(el)}: its text is ${(size * scale).toFixed(1)} px, under 14 px`);
    if (el.closest(":disabled, [aria-hidden=true]")) continue;
    const chain = [];
    let imaged = false;
    for (let at = el; at; at = at.parentElement) {
      const style = getComputedStyle(at);
      if (style.backgroundImage !== "none" && !chain.some((c) => rgba(getComputedStyle(c).backgroundColor)[3] === 1)) imaged = true;
      chain.push(at);
    }
    if (imaged) continue;
    const style = getComputedStyle(el);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    const needed = large ? 3 : 4.5;
    const got = ratio(seen(chain, rgba(style.color)), seen(chain, null));
    if (got < needed) problems.push(`${name(el)}: contrast ${got.toFixed(2)} < ${needed}`);
  }
  return problems;
}
