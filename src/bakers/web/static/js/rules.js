/* bakers rules pages: lessons open a position at the table; print the reference. */
(() => {
  "use strict";

  const status = document.getElementById("lesson-status");

  function say(text, error) {
    if (!status) return;
    status.textContent = text || "";
    status.classList.toggle("error", !!error);
  }

  async function startLesson(button) {
    // a practice game: out of the statistics and of the "Continue" list
    const body = { game: button.dataset.game, position: button.dataset.position, autoplay: "off", practice: true };
    button.disabled = true;
    say("Setting up the lesson…");
    try {
      const res = await fetch("/api/games", {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        credentials: "same-origin",
        body: JSON.stringify(body),
      });
      const data = await res.json().catch(() => null);
      if (!res.ok || !data || !data.id) {
        say((data && data.error) || `The server answered ${res.status}.`, true);
        return;
      }
      window.location.href = `/game/${encodeURIComponent(data.id)}`;
    } catch (_e) {
      say("The server cannot be reached.", true);
    } finally {
      button.disabled = false;
    }
  }

  document.querySelectorAll(".lesson-go").forEach((b) => b.addEventListener("click", () => startLesson(b)));
  const print = document.getElementById("btn-print");
  if (print) print.addEventListener("click", () => window.print());
})();
