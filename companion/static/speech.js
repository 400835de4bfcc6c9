// Spoken moves and alerts: with the option on (kept on this phone), every move, take-back,
// alert and result is read aloud with the browser's speech synthesis (it works offline on phones), so
// the players can keep their eyes on the table.  A move is read as players say it
// ("Ann, large to c3, gobbles Ben's small"): the server sends those words with each move
// (``spoken`` in the state's moves).  The hint panel gets a "Speak hint" button, and the
// number behind a searched hint's value as a detail.
//
// It follows the game through live.js's document events: ``cupboard:state`` (each state
// drawn), ``cupboard:entry`` (each journal entry logged, ``live`` when it just happened) and
// ``cupboard:hint`` (the hint shown).
"use strict";

(() => {
  const KEY = "cupboard-speech";
  const $ = (id) => document.getElementById(id);
  const synth = window.speechSynthesis;
  const box = $("opt-speech");
  let state = null;
  let unlocked = false;

  function enabled() {
    return Boolean(synth) && localStorage.getItem(KEY) === "1";
  }

  // Say ``text`` now (after what is being said): the queue keeps a move and the result that
  // follows it in order.
  function say(text) {
    if (!synth || !text) return;
    // a move text's end marks ("2c1#", "3b2?#") would be read out as signs: the words say it
    const utterance = new SpeechSynthesisUtterance(text.replace(/\?#|#/g, ""));
    utterance.lang = document.documentElement.lang || "en";
    synth.speak(utterance);
  }

  // Phones speak only after a touch on the page: the first tap with the option on wakes the
  // speech with a silent, empty utterance, so that a move arriving later from the stream is
  // heard (switching the option on does the same by saying "Speech on").
  document.addEventListener("pointerdown", () => {
    if (enabled() && !unlocked) {
      unlocked = true;
      const silent = new SpeechSynthesisUtterance("");
      silent.volume = 0;
      synth.speak(silent);
    }
  }, { capture: true });

  if (box) {
    if (!synth) {
      box.closest("label").hidden = true;  // this browser cannot speak
    } else {
      box.checked = enabled();
      box.addEventListener("change", () => {
        localStorage.setItem(KEY, box.checked ? "1" : "0");
        if (box.checked) { unlocked = true; say("Speech on"); } else synth.cancel();
      });
    }
  }

  document.addEventListener("cupboard:state", (e) => { state = e.detail; });

  // the words of a journal entry as said aloud, or "" for one not to be said
  function words(event) {
    if (event.kind === "move") {
      const ply = event.data && event.data.ply;
      const move = state && state.moves ? state.moves.find((m) => m.ply === ply) : null;
      return move && move.spoken ? move.spoken : event.text;
    }
    if (event.kind === "end" || event.kind === "takeback") return event.text;
    const alerts = Cupboard.alertKinds || [];
    return alerts.includes(event.kind) ? event.text : "";
  }

  document.addEventListener("cupboard:entry", (e) => {
    const { event, live } = e.detail;
    if (!live || !enabled()) return;
    say(words(event));
  });

  // ---- the hint panel: the number behind the words, and the hint said on request
  function hintWords(answer) {
    if (!answer.move) return "No move to suggest.";
    const who = state && state.players ? state.players[answer.colour] : "";
    const move = answer.move.spoken || `${who}: ${answer.move.text}`;
    return [move, answer.value, answer.reason].filter(Boolean).join(". ");
  }

  document.addEventListener("cupboard:hint", (e) => {
    const answer = e.detail;
    const panel = $("hint-panel");
    if (!panel) return;
    if (answer.detail) {
      panel.append(Cupboard.el("div", { class: "hint-detail note" }, `Search: ${answer.detail}`));
    }
    if (synth) {
      const button = Cupboard.el("button", { type: "button", class: "speak-hint", id: "speak-hint" }, "Speak hint");
      button.addEventListener("click", () => { synth.cancel(); say(hintWords(answer)); });
      panel.append(button);
    }
  });

  window.CupboardSpeech = { say, enabled };
})();
