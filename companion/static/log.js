// The referee's log survives a reload and a restart: the game's past entries are read back from
// its journal (/api/log) whenever the page's state is ahead of what its log shows (on opening,
// after a restart, for a new game's first entry) and handed to live.js as "cupboard:past",
// which shows each one once, in its place, as not live (no banner, no sound).
"use strict";

(() => {
  let asking = null;  // the game whose entries are being fetched

  function shownUpTo(game) {
    let most = 0;
    for (const li of document.querySelectorAll(`#log li[data-game="${game}"]`)) most = Math.max(most, Number(li.dataset.seq));
    return most;
  }

  async function fill(game, seq) {
    if (asking === game || shownUpTo(game) >= seq) return;
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
