// Shared by every page: the game's token, API calls, the alert banner, sound and vibration.
"use strict";

const Cupboard = (() => {
  const TOKEN_KEY = "cupboard-token";

  // The token arrives once in the link (?token=...); keep it, and take it out of the address
  // bar so a screenshot or a shared link does not hand control to someone else.
  function token() {
    const url = new URL(window.location.href);
    const fromUrl = url.searchParams.get("token");
    if (fromUrl) {
      localStorage.setItem(TOKEN_KEY, fromUrl);
      url.searchParams.delete("token");
      history.replaceState(null, "", url.pathname + url.search + url.hash);
    }
    return localStorage.getItem(TOKEN_KEY) || "";
  }

  const tok = token();

  async function api(method, path, body) {
    const headers = { "X-Cupboard-Token": tok };
    const options = { method, headers };
    if (body instanceof FormData) {
      options.body = body;
    } else if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(path, options);
    } catch (err) {
      return { ok: false, status: 0, data: { error: "the server cannot be reached" } };
    }
    let data = {};
    try { data = await response.json(); } catch (err) { data = {}; }
    return { ok: response.ok, status: response.status, data };
  }

  async function whoami() {
    const r = await api("GET", "/api/whoami");
    const control = Boolean(r.ok && r.data.control);
    document.body.classList.toggle("control", control);
    const role = document.getElementById("role");
    if (role) role.textContent = control ? "referee" : "spectator";
    return r.ok ? r.data : { control: false, camera: false };
  }

  // ---- alerts: a banner that cannot be missed, and optional sound and vibration
  const banner = document.getElementById("banner");
  const bannerText = document.getElementById("banner-text");
  let bannerTimer = null;

  function prefs() {
    return {
      sound: localStorage.getItem("cupboard-sound") === "1",
      vibrate: localStorage.getItem("cupboard-vibrate") !== "0",
    };
  }

  let audio = null;
  function audioContext() {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    if (audio.state === "suspended") audio.resume().catch(() => {});
    return audio;
  }
  // Phones let a page sound only after a touch: wake the audio at the first one, so an alert
  // that arrives later from the stream is heard (the page may have been reloaded since the
  // sound was switched on).
  document.addEventListener("pointerdown", () => {
    if (prefs().sound) { try { audioContext(); } catch (err) { /* no audio on this device */ } }
  }, { once: true, capture: true });

  function beep(kind) {
    try {
      audioContext();
      const notes = kind === "win" ? [523, 659, 784] : kind === "draw" ? [440, 440] : [880, 440];
      notes.forEach((freq, i) => {
        const osc = audio.createOscillator();
        const gain = audio.createGain();
        osc.frequency.value = freq;
        osc.connect(gain);
        gain.connect(audio.destination);
        const t = audio.currentTime + i * 0.18;
        gain.gain.setValueAtTime(0.2, t);
        gain.gain.exponentialRampToValueAtTime(0.001, t + 0.16);
        osc.start(t);
        osc.stop(t + 0.17);
      });
    } catch (err) { /* no audio on this device */ }
  }

  // kind: "alert" (red), "win", "draw", "warn", "info"; loud kinds also beep and buzz.
  function alert(text, kind = "alert", sticky = true) {
    if (!banner) return;
    bannerText.textContent = text;
    banner.className = "banner " + kind;
    banner.hidden = false;
    banner.dataset.kind = kind;
    clearTimeout(bannerTimer);
    if (!sticky) bannerTimer = setTimeout(() => { banner.hidden = true; }, 3500);
    if (kind !== "info") {
      const p = prefs();
      if (p.sound) beep(kind);
      if (p.vibrate && navigator.vibrate) navigator.vibrate(kind === "alert" ? [250, 120, 250] : [120]);
    }
  }

  if (banner) {
    document.getElementById("banner-close").addEventListener("click", () => { banner.hidden = true; });
  }

  function bindPref(id, key, dflt) {
    const box = document.getElementById(id);
    if (!box) return;
    const stored = localStorage.getItem(key);
    box.checked = stored === null ? dflt : stored === "1";
    box.addEventListener("change", () => {
      localStorage.setItem(key, box.checked ? "1" : "0");
      if (box.checked && key === "cupboard-sound") beep("info");  // unlocks audio on phones
    });
  }
  bindPref("opt-sound", "cupboard-sound", false);
  bindPref("opt-vibrate", "cupboard-vibrate", true);

  // The camera preview, with or without what the referee reads drawn on it: a choice kept
  // on this device.  The preview streams only while it is on screen (the server allows a few
  // previews at once, and each costs the Pi bandwidth).  Returns a function to call once the
  // page knows there is a camera.
  const OVERLAY_KEY = "cupboard-overlay";
  function previewUrl() {
    return localStorage.getItem(OVERLAY_KEY) === "0" ? "/camera.mjpg?overlay=0" : "/camera.mjpg";
  }
  function bindPreview(img, box) {
    let wanted = false;
    let onScreen = !("IntersectionObserver" in window);
    const update = () => {
      img.dataset.overlay = box.checked ? "1" : "0";
      if (!(wanted && onScreen)) {
        if (img.hasAttribute("src")) img.removeAttribute("src");  // ends the stream
      } else if (img.getAttribute("src") !== previewUrl()) {
        img.src = previewUrl();
      }
    };
    if (!onScreen) {
      new IntersectionObserver((entries) => {
        onScreen = entries[entries.length - 1].isIntersecting;
        update();
      }).observe(img);
    }
    box.checked = localStorage.getItem(OVERLAY_KEY) !== "0";
    box.addEventListener("change", () => {
      localStorage.setItem(OVERLAY_KEY, box.checked ? "1" : "0");
      update();
    });
    update();
    return () => { if (!wanted) { wanted = true; update(); } };
  }

  function el(tag, attrs = {}, text = "") {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text) node.textContent = text;
    return node;
  }

  // Positions drawn by the server (looking back, the analysis, the records' replay), fetched
  // as the player steps through them: each answer kept under its key, and only the newest
  // request's answer used: get() gives null for one overtaken by a later get() or by cancel()
  // (a tap on the next move before this one came), and for an error, which it shows.
  function positions() {
    const kept = new Map();
    let asked = 0;
    async function get(key, path) {
      const mine = ++asked;
      let answer = kept.get(key);
      if (!answer) {
        const r = await api("GET", path);
        if (mine !== asked) return null;
        if (!r.ok) { alert(r.data.error || "that position cannot be shown", "warn", false); return null; }
        answer = r.data;
        kept.set(key, answer);
      }
      return mine === asked ? answer : null;
    }
    return { get, cancel: () => { asked++; } };
  }

  return { token: tok, api, whoami, alert, el, bindPreview, positions };
})();
