/* The table's dialogs: replace this position?, settings, help, results. */
import { api, fmtTime } from "./api.js";
import { state } from "./model.js";
import { $, $$ } from "./render.js";
import { ratingText, showAnalysis } from "./study.js";

export const PREFS_KEY = "bakers.prefs";

export const prefs = Object.assign({ clickmode: "best", fourcolour: false, sound: true }, readPrefs());

function readPrefs() {
  try {
    return JSON.parse(localStorage.getItem(PREFS_KEY) || "null") || {};
  } catch (_e) {
    return {};
  }
}

export function savePrefs() {
  try {
    localStorage.setItem(PREFS_KEY, JSON.stringify(prefs));
  } catch (_e) {
    /* private mode: preferences last for this page only */
  }
}

export function applyPrefs() {
  document.body.classList.toggle("four-colour", !!prefs.fourcolour);
  document.body.dataset.clickmode = prefs.clickmode;
  document.body.dataset.showrating = prefs.showrating ? "true" : "false";
}

export function closeDialog(sel) {
  const d = $(sel);
  if (d && d.open) d.close();
}

/** Ask before a position with moves is replaced; `then()` if confirmed. */
export function confirmReplace(g, then) {
  const text = g.practice
    ? "This practice position is not finished. Starting a new deal leaves it (practice games are not counted)."
    : "This deal is not finished. Starting a new deal abandons it, and it counts as a lost game.";
  ask("Replace this position?", text, "Replace it", then);
}

/** Ask before a restart takes every move back; `then()` if confirmed. */
export function confirmRestart(g, then) {
  const n = g.score.moves;
  ask("Restart this deal?", `Restarting deals these cards again from the start: your ${n} move${n === 1 ? "" : "s"} cannot be undone afterwards. The clock keeps running.`, "Restart", then);
}

function ask(heading, text, yes, then) {
  const dlg = $("#dlg-new");
  $("#dlg-new-h").textContent = heading;
  $("#dlg-new-text").textContent = text;
  $("#dlg-new button[value='replace']").textContent = yes;
  dlg.returnValue = "";
  dlg.showModal();
  dlg.addEventListener("close", () => dlg.returnValue === "replace" && then(), { once: true });
}

export function openHelp() {
  const g = state.game;
  $$("#dlg-help [data-help]").forEach((s) => {
    s.hidden = !!g && s.dataset.help !== g.game;
  });
  if (g) $("#help-rules").href = `/rules/${g.game}`;
  const d = $("#dlg-help");
  if (!d.open) d.showModal();
}

export function openSettings() {
  const f = $("#settings-form");
  const g = state.game;
  for (const input of f.elements) {
    if (input.name === "autoplay") input.checked = input.value === g.settings.autoplay;
    if (input.name === "order") input.checked = input.value === g.settings.order;
    if (input.name === "clickmode") input.checked = input.value === prefs.clickmode;
    if (input.name === "fourcolour") input.checked = !!prefs.fourcolour;
    if (input.name === "sound") input.checked = !!prefs.sound;
    if (input.name === "showrating") input.checked = !!prefs.showrating;
    if (input.name === "indicator") input.checked = !!(g.study && g.study.indicator);
  }
  // the order only matters where a card may go to a cell or an empty column
  const orderMatters = g.rules.empty_columns_refill && g.rules.max_cells > 0;
  $$('input[name="order"]', f).forEach((input) => {
    input.disabled = !orderMatters;
  });
  $("#dlg-settings").showModal();
}

function statLine(list, name, value) {
  const div = document.createElement("div");
  const dt = document.createElement("dt");
  const dd = document.createElement("dd");
  dt.textContent = name;
  dd.textContent = String(value ?? "–");
  div.append(dt, dd);
  list.appendChild(div);
}

export async function showResults() {
  const g = state.game;
  if (!g) return;
  const d = $("#dlg-results");
  $("#r-moves").textContent = String(g.score.moves);
  $("#r-time").textContent = fmtTime(g.score.seconds);
  $("#r-score").textContent = String(g.score.score);
  $("#dlg-results-h").textContent = g.status === "won" ? "You won!" : "Game over";
  $("#r-stats-h").textContent = g.practice ? "Practice" : `Your record: ${g.title}, ${g.level_label}`;
  $("#r-winnable").checked = $("#winnable-only").checked;
  $("#r-winnable").disabled = $("#winnable-only").disabled;
  const list = $("#r-stats");
  list.replaceChildren();
  if (!d.open) d.showModal();
  showAnalysis(g);
  $("#r-rating").textContent = "";
  ratingText(g).then((t) => {
    $("#r-rating").textContent = t;
  });
  if (g.practice) {
    statLine(list, "Statistics", "practice games are not counted");
    return;
  }
  const r = await api("GET", `/api/stats?game=${encodeURIComponent(g.game)}&level=${encodeURIComponent(g.level)}`);
  const row = r.ok && (r.data.stats || []).find((s) => s.game === g.game && s.level === g.level);
  if (!row) {
    statLine(list, "Statistics", "not available");
    return;
  }
  const dash = (v, f) => (v === null || v === undefined ? "–" : f ? f(v) : v);
  for (const [k, v] of [
    ["Played", row.played], ["Won", row.won], ["Lost", row.lost],
    ["Win rate", dash(row.win_rate, (x) => `${Math.round(x * 100)}%`)],
    ["Current streak", row.current_streak], ["Best streak", row.best_streak],
    ["Best time", dash(row.best_time, fmtTime)], ["Fewest moves", dash(row.fewest_moves)],
    ["Best score", dash(row.best_score, Math.round)],
  ]) statLine(list, k, v);
  const h = await api("GET", "/api/stats/history");
  const mine = h.ok && (h.data.summary || []).find((s) => s.game === g.game && s.level === g.level);
  if (mine) {
    statLine(list, "Won without help", mine.won_unaided);
    statLine(list, "Won with help", mine.won_helped);
  }
}

/** The settings dialog: the game's own settings go to the server
 * (`gameSetting`), the page's to local storage. */
export function attachSettings(h) {
  $("#settings-form").addEventListener("change", (e) => {
    const input = e.target;
    if (input.name === "autoplay" || input.name === "order") {
      h.gameSetting(input.name, input.value);
      return;
    }
    if (input.name === "indicator") {
      h.indicator(input.checked);
      return;
    }
    if (input.name === "clickmode") {
      prefs.clickmode = input.value;
      h.clickMode();
    } else if (input.name === "fourcolour") prefs.fourcolour = input.checked;
    else if (input.name === "showrating") prefs.showrating = input.checked;
    else if (input.name === "sound") {
      prefs.sound = input.checked;
      if (input.checked) h.soundOn();
    }
    savePrefs();
    applyPrefs();
    if (input.name === "showrating") h.rating();
  });
}
