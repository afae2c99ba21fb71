/* bakers home page: choose a game and level, deal, continue, statistics. */
import { api, fmtTime } from "./api.js";

{
  const $ = (sel, root = document) => root.querySelector(sel);
  const form = $("#new-form");
  const status = $("#home-status");
  // the games and their levels as the server describes them (web/views.py)
  const GAMES = Object.fromEntries(JSON.parse(form.dataset.games || "[]").map((g) => [g.name, g]));
  const TITLES = Object.fromEntries(Object.values(GAMES).map((g) => [g.name, g.title]));
  const LEVEL_KEY = "bakers.home";

  function say(text, error) {
    status.textContent = text || "";
    status.classList.toggle("error", !!error);
  }

  function tableUrl(g) {
    return `/game/${encodeURIComponent(g.id)}`;
  }

  const levelsOf = (game) => (GAMES[game] ? GAMES[game].level_notes : []);

  function choice() {
    const game = form.elements.game.value;
    let level = form.elements.level.value;
    if (!levelsOf(game).some((lv) => lv.name === level)) level = "normal";
    return { game, level };
  }

  function syncLevels() {
    const levels = levelsOf(form.elements.game.value);
    document.querySelectorAll("[data-cells-note]").forEach((el) => {
      const input = el.closest("label").querySelector("input");
      const lv = levels.find((x) => x.name === input.value);
      input.disabled = !lv;
      if (!lv && input.checked) form.elements.level.value = "normal";
      el.textContent = lv ? lv.note : "not in this game";
    });
    try {
      localStorage.setItem(LEVEL_KEY, JSON.stringify(choice()));
    } catch (_e) {
      /* no storage */
    }
  }

  async function start(body) {
    say("Dealing…");
    const r = await api("POST", "/api/games", body);
    if (!r.ok) {
      say(r.error, true);
      return;
    }
    window.location.href = tableUrl(r.data);
  }

  form.addEventListener("change", syncLevels);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const { game, level } = choice();
    const body = { game, level };
    const deal = form.elements.deal.value.trim();
    if (deal) {
      if (!/^\d+$/.test(deal)) {
        say("A deal number is a whole number from 1 to 8,589,934,591.", true);
        return;
      }
      body.deal = Number(deal);
    } else if ($("#winnable").checked) {
      body.winnable = true;
    }
    start(body);
  });
  $("#btn-daily").addEventListener("click", () => {
    const { game, level } = choice();
    start({ game, level, daily: true });
  });

  async function loadContinue() {
    const list = $("#continue-list");
    const r = await api("GET", "/api/games?status=playing");
    list.replaceChildren();
    // deals opened but never played do not pile up: the latest one stays
    // (its deal link reopens any other), played games all stay
    const all = (r.ok && r.data && r.data.games) || [];
    const untouched = all.find((g) => !g.played);
    const games = all.filter((g) => g.played || g === untouched);
    if (!games.length) {
      const li = document.createElement("li");
      li.className = "muted";
      li.textContent = r.ok ? "No unfinished game." : r.error;
      list.appendChild(li);
      return;
    }
    for (const g of games.slice(0, 12)) {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = tableUrl(g);
      const title = document.createElement("span");
      const deal = g.daily ? ` · daily ${g.daily}` : g.deal !== null ? ` · deal ${g.deal}` : "";
      title.textContent = `${g.title}${deal} · ${g.level_label}`;
      const meta = document.createElement("span");
      meta.className = "meta";
      const sc = g.score;
      const moves = g.moves ? `${g.moves} move${g.moves === 1 ? "" : "s"}` : "not started";
      meta.textContent = [moves, `${sc.home}/52 home`, fmtTime(sc.seconds)].join(" · ");
      a.append(title, meta);
      const discard = document.createElement("button");
      discard.type = "button";
      discard.className = "discard";
      discard.textContent = "Discard";
      discard.setAttribute("aria-label", `Discard ${title.textContent}`);
      discard.addEventListener("click", () => askDiscard(g));
      li.append(a, discard);
      list.appendChild(li);
    }
  }

  /** Put a game away: one with moves counts as a loss, so ask first. */
  function askDiscard(g) {
    if (!g.played) {
      discardGame(g);
      return;
    }
    const dlg = $("#dlg-discard");
    $("#dlg-discard-text").textContent =
      `${g.title}${g.deal !== null ? ` deal ${g.deal}` : ""} has ${g.moves} move${g.moves === 1 ? "" : "s"}. ` +
      "Discarding it counts as a lost game.";
    dlg.returnValue = "";
    dlg.showModal();
    dlg.addEventListener("close", () => dlg.returnValue === "discard" && discardGame(g), { once: true });
  }

  async function discardGame(g) {
    const r = await api("POST", `/api/games/${encodeURIComponent(g.id)}/abandon`);
    say(r.ok ? "The game was discarded." : r.error, !r.ok);
    loadContinue();
    loadStats();
  }

  async function loadStats() {
    const box = $("#stats");
    const r = await api("GET", "/api/stats");
    const rows = ((r.ok && r.data && r.data.stats) || []).filter((s) => s.played > 0);
    box.replaceChildren();
    if (!rows.length) {
      const p = document.createElement("p");
      p.className = "muted";
      p.textContent = r.ok ? "No finished games yet: your record per game and level appears here." : r.error;
      box.appendChild(p);
      return;
    }
    const table = document.createElement("table");
    table.className = "stats";
    const heads = ["Game", "Level", "Played", "Won", "Lost", "Win rate", "Streak", "Best streak", "Best time", "Fewest moves", "Best score"];
    const wide = new Set([7, 9]); // best streak, fewest moves: left out on a phone
    const cls = (i) => (wide.has(i) ? ' class="wide-only"' : "");
    table.innerHTML = `<caption class="sr-only">Your record per game and level</caption><thead><tr>${heads.map((h, i) => `<th scope="col"${cls(i)}>${h}</th>`).join("")}</tr></thead><tbody></tbody>`;
    const dash = (v, f) => (v === null || v === undefined ? "–" : f ? f(v) : String(v));
    for (const s of rows) {
      const tr = document.createElement("tr");
      const cells = [
        TITLES[s.game] || s.game,
        s.level[0].toUpperCase() + s.level.slice(1),
        s.played,
        s.won,
        s.lost,
        dash(s.win_rate, (v) => `${Math.round(v <= 1 ? v * 100 : v)}%`),
        dash(s.current_streak),
        dash(s.best_streak),
        dash(s.best_time, fmtTime),
        dash(s.fewest_moves),
        dash(s.best_score, (v) => String(Math.round(v))),
      ];
      for (const [i, c] of cells.entries()) {
        const td = document.createElement("td");
        if (wide.has(i)) td.className = "wide-only";
        td.textContent = String(c);
        tr.appendChild(td);
      }
      table.tBodies[0].appendChild(tr);
    }
    box.appendChild(table);
  }

  try {
    const saved = JSON.parse(localStorage.getItem(LEVEL_KEY) || "null");
    if (saved && saved.game) {
      form.elements.game.value = saved.game;
      form.elements.level.value = saved.level || "normal";
    }
  } catch (_e) {
    /* defaults */
  }
  syncLevels();
  loadContinue();
  loadStats();
}
