// The referee's log survives a reload and a restart: the game's past entries are read back from
// its journal (/api/log) whenever the page's log lacks an entry up to the state's (on opening,
// after a restart, for a new game's first entry, or when live entries came before the past) and
// handed to live.js as "cupboard:past", which shows each one once, in its place, as not live (no
// banner, no sound).
"use strict";

(() => {
  let asking = null;  // the game whose entries are being fetched

  // true when the log shows every entry of ``game`` up to ``seq`` that it keeps (the latest 60):
  // live entries can arrive before the past is read back, so the newest alone proves nothing
  function complete(game, seq) {
    const shown = new Set();
    for (const li of document.querySelectorAll(`#log li[data-game="${game}"]`)) shown.add(Number(li.dataset.seq));
    for (let s = Math.max(1, seq - 59); s <= seq; s++) if (!shown.has(s)) return false;
    return true;
  }

  async function fill(game, seq) {
    if (asking === game || complete(game, seq)) return;
    asking = game;
    try {
      const response = await fetch("/api/log", { headers: { Accept: "application/json" } });
      if (!response.ok) return;
      const body = await response.json();
      document.dispatchEvent(new CustomEvent("cupboard:past", { detail: body }));
    } catch (err) {
      // the server cannot be reached: the stream reconnects, and the next state asks again
    } finally {
      asking = null;
    }
  }

  // live.js announces a journal entry right after the state it brought: look once both are done
  document.addEventListener("cupboard:state", (e) => {
    const { game, seq } = e.detail;
    setTimeout(() => fill(game, seq), 0);
  });
})();
