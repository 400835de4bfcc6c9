// The calibration wizard: markers, the empty board, colours, a check, save.
"use strict";

(() => {
  const { api, el } = Cupboard;
  const $ = (id) => document.getElementById(id);

  function result(id, text, good) {
    const box = $(id);
    box.textContent = text;
    box.className = "result " + (good ? "good" : "bad");
  }

  function done(stepId, yes) { $(stepId).classList.toggle("done", Boolean(yes)); }

  function describe(cal) {
    return `Calibrated for the ${cal.set} set on the ${cal.board} board: camera ${cal.camera_height_mm} mm above it, ` +
      `markers ${cal.markers.join(", ")}, error ${cal.reprojection_error_px} px, colours ${cal.colours}.`;
  }

  async function refresh() {
    const r = await api("GET", "/api/calibration");
    if (!r.ok) { result("markers", r.data.error || "the camera cannot be reached", false); return null; }
    const s = r.data;
    const m = s.markers;
    const missing = m.expected.filter((id) => !m.seen.includes(id));
    result("markers", m.found ? `All four markers found (${m.seen.join(", ")}).`
      : `Markers missing: ${missing.join(", ")}. Move the camera or clear the corners.`, m.found);
    done("step-markers", m.found);
    const sel = $("set");
    if (!sel.options.length) {
      sel.replaceChildren(...s.sets.map((name) => el("option", { value: name }, name)));
    }
    sel.value = s.set;
    done("step-empty", s.draft);
    done("step-colours", s.colours_sampled);
    if (s.draft) result("empty-result", describe(s.draft), true);
    return s;
  }

  async function step(button, path, body, onOk, resultId) {
    const b = $(button);
    b.disabled = true;
    const label = b.textContent;
    b.textContent = "Working…";
    const r = await api("POST", path, body);
    b.disabled = false;
    b.textContent = label;
    if (!r.ok) { result(resultId, r.data.error || "refused", false); return; }
    onOk(r.data);
  }

  function bind() {
    $("btn-markers").addEventListener("click", refresh);
    $("btn-empty").addEventListener("click", () => step("btn-empty", "/api/calibration/empty",
      { frames: 3, set: $("set").value }, (d) => { result("empty-result", describe(d.draft), true); done("step-empty", true); }, "empty-result"));
    $("btn-colours").addEventListener("click", () => step("btn-colours", "/api/calibration/colours", {},
      (d) => { result("colours-result", `Colours measured (${d.draft.colours}).`, true); done("step-colours", true); }, "colours-result"));
    $("btn-check").addEventListener("click", () => step("btn-check", "/api/calibration/check", {}, (d) => {
      const cups = d.cups.map((c) => `${c.square}: ${c.colour} size ${c.size}`).join("\n") || "no cups read";
      const more = d.sizes_missing.length ? `\nNot read: size ${d.sizes_missing.join(", ")}` : "\nEvery size was read.";
      result("check-result", (d.board_found ? "" : "The board was not found.\n") + cups + more, d.ok);
      done("step-check", d.ok);
    }, "check-result"));
    $("btn-save").addEventListener("click", () => step("btn-save", "/api/calibration/save", {}, (d) => {
      result("save-result", `Saved as ${d.saved}; the camera referees with it now.`, true);
      done("step-save", true);
    }, "save-result"));
  }

  async function start() {
    bind();
    $("preview").src = "/camera.mjpg";
    const who = await Cupboard.whoami();
    $("no-control").hidden = who.control;
    await refresh();
  }

  start();
})();
