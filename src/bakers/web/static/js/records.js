/* The player's own records on the home page: a one-time code that moves this
 * player to another browser, and using such a code here. (The exports are
 * plain links: the server answers them as files.) */
import { api } from "./api.js";

{
  const status = document.getElementById("records-status");
  const shown = document.getElementById("transfer-code");
  const form = document.getElementById("transfer-form");
  const input = document.getElementById("transfer-code-input");

  function say(text, error) {
    status.textContent = text || "";
    status.classList.toggle("error", !!error);
  }

  document.getElementById("btn-transfer").addEventListener("click", async () => {
    const r = await api("POST", "/api/transfer", {});
    if (!r.ok) {
      say(r.error, true);
      return;
    }
    shown.textContent = r.data.code;
    const minutes = Math.round(r.data.expires_in / 60);
    say(`Type this code in the other browser's home page within ${minutes} minutes. It works once; your games and statistics go with it.`);
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const code = input.value.trim();
    if (!code) {
      say("Type the code shown in the other browser.", true);
      return;
    }
    const r = await api("POST", "/api/transfer/claim", { code });
    if (!r.ok) {
      say(r.error, true);
      return;
    }
    say("This browser now plays as you did in the other one.");
    window.location.reload();
  });
}
