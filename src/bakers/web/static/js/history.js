/* The statistics over time, drawn by the page itself (SVG): per game and
 * level, every finished game in order (won or lost, with or without help),
 * the running win rate, and the time of each win. */
import { api, fmtTime } from "./api.js";

const NS = "http://www.w3.org/2000/svg";
const W = 560;
const H = 150;
const PAD = 30;

function svgEl(name, attrs, text) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

function chart(rows, label) {
  const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H * 2}`, role: "img", "aria-label": label, class: "history-chart" });
  svg.append(svgEl("title", {}, label));
  const n = rows.length;
  const x = (i) => PAD + (n === 1 ? (W - 2 * PAD) / 2 : (i * (W - 2 * PAD)) / (n - 1));
  // the running win rate, with each game as a dot (won: filled, helped: ringed)
  const y = (rate) => H - PAD + 10 - rate * (H - PAD - 10);
  svg.append(svgEl("text", { x: PAD, y: 14, class: "history-axis" }, "Win rate over your games (dot: a game; filled: won; ring: with help)"));
  svg.append(svgEl("line", { x1: PAD, x2: W - PAD, y1: y(0), y2: y(0), class: "history-grid" }));
  svg.append(svgEl("line", { x1: PAD, x2: W - PAD, y1: y(1), y2: y(1), class: "history-grid" }));
  svg.append(svgEl("text", { x: 2, y: y(1) + 4, class: "history-axis" }, "100%"));
  svg.append(svgEl("text", { x: 8, y: y(0) + 4, class: "history-axis" }, "0%"));
  let won = 0;
  const points = rows.map((r, i) => {
    won += r.won ? 1 : 0;
    return [x(i), y(won / (i + 1))];
  });
  svg.append(svgEl("polyline", { points: points.map((p) => p.join(",")).join(" "), class: "history-line" }));
  rows.forEach((r, i) => {
    const dot = svgEl("circle", { cx: x(i), cy: r.won ? y(1) : y(0), r: 4, class: `history-dot ${r.won ? "won" : "lost"}${r.helped ? " helped" : ""}` });
    dot.append(svgEl("title", {}, `${r.finished_at}: ${r.won ? "won" : "lost"} in ${fmtTime(r.seconds)}${r.helped ? ", with help" : ""}`));
    svg.append(dot);
  });
  // the time of each win, as bars
  const wins = rows.map((r, i) => [r, i]).filter(([r]) => r.won);
  const top = H + 20;
  svg.append(svgEl("text", { x: PAD, y: H + 14, class: "history-axis" }, "Time per win"));
  const longest = Math.max(1, ...wins.map(([r]) => r.seconds));
  svg.append(svgEl("text", { x: 2, y: top + 8, class: "history-axis" }, fmtTime(longest)));
  for (const [r, i] of wins) {
    const h = ((H - PAD - 20) * r.seconds) / longest;
    const bar = svgEl("rect", { x: x(i) - 3, y: 2 * H - PAD - h, width: 6, height: Math.max(1, h), class: `history-bar${r.helped ? " helped" : ""}` });
    bar.append(svgEl("title", {}, `${fmtTime(r.seconds)}${r.helped ? " (with help)" : ""}`));
    svg.append(bar);
  }
  svg.append(svgEl("line", { x1: PAD, x2: W - PAD, y1: 2 * H - PAD, y2: 2 * H - PAD, class: "history-grid" }));
  return svg;
}

async function draw() {
  const box = document.getElementById("history");
  if (!box) return;
  const r = await api("GET", "/api/stats/history");
  if (!r.ok || !r.data.results.length) return;
  const groups = new Map();
  for (const row of r.data.results) {
    const key = `${row.game}/${row.level}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(row);
  }
  const h = document.createElement("h3");
  h.textContent = "Over time";
  box.replaceChildren(h);
  for (const s of r.data.summary) {
    const rows = groups.get(`${s.game}/${s.level}`) || [];
    const fig = document.createElement("figure");
    fig.className = "history-figure";
    const cap = document.createElement("figcaption");
    const title = `${s.game.replace("_", " ")} · ${s.level}`;
    cap.textContent = `${title}: ${s.played} played, ${s.won} won (${s.won_unaided} without help, ${s.won_helped} with help; ${s.hints} hints, ${s.solutions} solutions shown)`;
    fig.append(chart(rows, `${title}: results of ${rows.length} games in order`), cap);
    box.append(fig);
  }
  box.hidden = false;
}

draw();
