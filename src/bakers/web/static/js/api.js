/* The JSON API of docs/api.md, as the pages use it. Every answer becomes
 * {ok, status, data} or {ok: false, status, error}: a refusal is a value,
 * never a thrown error. */

export async function api(method, path, body, { keepalive = false } = {}) {
  const opts = { method, headers: { Accept: "application/json" }, credentials: "same-origin", keepalive };
  if (body !== undefined || method !== "GET") {
    // the server takes state-changing requests as JSON only (a cross-site form cannot send it)
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body === undefined ? {} : body);
  }
  let res;
  try {
    res = await fetch(path, opts);
  } catch (_e) {
    return { ok: false, status: 0, error: "The server cannot be reached. Is bakers serve still running?" };
  }
  let data = null;
  try {
    data = await res.json();
  } catch (_e) {
    data = null;
  }
  if (!res.ok) {
    const error = (data && (data.error || data.detail)) || `The server answered ${res.status}.`;
    return { ok: false, status: res.status, error: typeof error === "string" ? error : String(error) };
  }
  return { ok: true, status: res.status, data };
}

export const gamePath = (id, suffix = "") => `/api/games/${encodeURIComponent(id)}${suffix}`;

/** Start a game (POST /api/games) with a body the server gave us. */
export const newGame = (body) => api("POST", "/api/games", body);

/** What the player did: cards from `from` (count of them) to `to`, or to their best place. */
export const sendIntent = (id, intent) => api("POST", gamePath(id, "/intent"), intent);

export const action = (id, name, body) => api("POST", gamePath(id, `/${name}`), body);

/** Stop the clock as the page goes away (a beacon survives the unload). */
export function pauseOnLeave(id) {
  const url = gamePath(id, "/pause");
  if (navigator.sendBeacon && navigator.sendBeacon(url, new Blob([], { type: "application/json" }))) return;
  api("POST", url, undefined, { keepalive: true });
}

export function fmtTime(seconds) {
  const s = Math.max(0, Math.floor(seconds || 0));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}
