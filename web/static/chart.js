// A rating history drawn as an inline SVG line chart: the ordinal (μ − 3σ) after each rated game,
// with the band μ ± σ behind it. No library: a few SVG elements made here.

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 640, MIN_WIDTH = 240, HEIGHT = 220, PAD = { left: 56, right: 12, top: 12, bottom: 28 }; // (room for 14 px labels)

function svg(tag, attributes = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The scales mapping game numbers and rating values into the chart's box. */
function scales(points, width) {
  const lows = points.map((p) => Math.min(p.ordinal, p.mu - p.sigma));
  const highs = points.map((p) => p.mu + p.sigma);
  const low = Math.floor(Math.min(...lows, 0)), high = Math.ceil(Math.max(...highs, 1));
  const spanX = Math.max(points.length - 1, 1);
  const x = (index) => PAD.left + (index / spanX) * (width - PAD.left - PAD.right);
  const y = (value) => PAD.top + (1 - (value - low) / (high - low)) * (HEIGHT - PAD.top - PAD.bottom);
  return { x, y, low, high };
}

/** An <svg> chart of ``points`` ({ordinal, mu, sigma, game_id}, oldest first), titled ``title``, drawn for
 * ``room``: the CSS pixels wide it has. It is drawn that wide (640 at most), so that on a phone its text shows
 * at its size rather than a wide chart's scaled down to half. */
export function ratingChart(points, title, room = WIDTH) {
  const width = Math.min(Math.max(room, MIN_WIDTH), WIDTH);
  const chart = svg("svg", { viewBox: `0 0 ${width} ${HEIGHT}`, role: "img", class: "rating-chart" });
  chart.append(svg("title", {}, title));
  if (!points.length) return chart;
  const { x, y, low, high } = scales(points, width);
  for (const value of [low, (low + high) / 2, high]) {
    chart.append(svg("line", { x1: PAD.left, x2: width - PAD.right, y1: y(value), y2: y(value), class: "grid" }));
    chart.append(svg("text", { x: PAD.left - 6, y: y(value) + 5, "text-anchor": "end", class: "axis" },
      value.toFixed(1)));
  }
  const band = points.map((p, i) => `${x(i)},${y(p.mu + p.sigma)}`)
    .concat(points.map((p, i) => `${x(i)},${y(p.mu - p.sigma)}`).reverse());
  chart.append(svg("polygon", { points: band.join(" "), class: "band" }));
  chart.append(svg("polyline", { points: points.map((p, i) => `${x(i)},${y(p.ordinal)}`).join(" "), class: "line" }));
  points.forEach((p, i) => {
    const dot = svg("circle", { cx: x(i), cy: y(p.ordinal), r: 3, class: `dot place-${p.place}` });
    dot.append(svg("title", {}, `game ${i + 1}: ordinal ${p.ordinal.toFixed(2)} (μ ${p.mu.toFixed(2)}, σ ${p.sigma.toFixed(2)})`));
    chart.append(dot);
  });
  chart.append(svg("text", { x: width - PAD.right, y: HEIGHT - 8, "text-anchor": "end", class: "axis" },
    `${points.length} rated games`));
  return chart;
}
