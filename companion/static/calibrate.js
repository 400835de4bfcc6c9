// The calibration wizard: markers (or four tapped corners), the empty board, the user's set, a check, save.
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
    const how = cal.method === "corners" ? "from the four tapped corners" : `markers ${cal.markers.join(", ")}`;
    return `Calibrated for the ${cal.set} set on the ${cal.board} board: camera ${cal.camera_height_mm} mm above it, ` +
      `${how}, ${cal.camera_model}, error ${cal.reprojection_error_px} px, colours ${cal.colours}.`;
  }

  function describeSet(d) {
    const sizes = d.draft.edge_scale.map((f, k) => `size ${k + 1}: ${Math.round(f * 100)} %`).join(", ");
    const advice = d.advice.length ? "\n" + d.advice.map((a) => "• " + a).join("\n") : "";
    return `Your set is measured: colours taken from your cups; tops' edges as read (${sizes} of the set file's).` + advice;
  }

  // Tapping the corners on a still frame (for boards without markers).
  const corners = { frame: null, points: [] };

  function drawCorners() {
    const box = $("still-box");
    box.querySelectorAll(".corner-dot").forEach((d) => d.remove());
    const img = $("still");
    corners.points.forEach(([x, y], k) => {
      const dot = el("span", { class: "corner-dot" }, String(k + 1));
      dot.style.cssText = "position:absolute;width:22px;height:22px;margin:-11px 0 0 -11px;border-radius:50%;" +
        "background:#2a7;color:#fff;font:bold 13px/22px sans-serif;text-align:center;pointer-events:none;" +
        `left:${(x / img.naturalWidth) * 100}%;top:${(y / img.naturalHeight) * 100}%`;
      box.append(dot);
    });
    $("btn-undo-corner").disabled = !corners.points.length;
    $("btn-corners").disabled = corners.points.length !== 4;
  }

  function tapCorner(event) {
    const img = $("still");
    if (corners.points.length >= 4 || !img.naturalWidth) return;
    const rect = img.getBoundingClientRect();
    const x = ((event.clientX - rect.left) / rect.width) * img.naturalWidth;
    const y = ((event.clientY - rect.top) / rect.height) * img.naturalHeight;
    corners.points.push([Math.round(x * 10) / 10, Math.round(y * 10) / 10]);
    drawCorners();
  }

  async function takeStill() {
    const r = await api("POST", "/api/calibration/still", {});
    if (!r.ok) { result("corners-result", r.data.error || "refused", false); return; }
    corners.frame = r.data.frame;
    corners.points = [];
    const img = $("still");
    img.onload = drawCorners;
    img.src = r.data.url;
    $("still-box").hidden = false;
    result("corners-result", "Tap corner 1 (by a1), then 2, 3 and 4 going round the board.", true);
    drawCorners();
  }

  async function refresh() {
    const r = await api("GET", "/api/calibration");
    if (!r.ok) { result("markers", r.data.error || "the camera cannot be reached", false); return null; }
    // without the markers, offer the corners straight away
    const s = r.data;
    if (!s.frame) {  // the camera has just started: look again once its first picture is in
      result("markers", "Waiting for the camera's first picture…", false);
      setTimeout(refresh, 1000);
      return s;
    }
    const m = s.markers;
    const missing = m.expected.filter((id) => !m.seen.includes(id));
    result("markers", m.found ? `All four markers found (${m.seen.join(", ")}).`
      : `Markers missing: ${missing.join(", ")}. Move the camera or clear the corners.`, m.found);
    done("step-markers", m.found);
    if (!m.found) $("corners-step").open = true;
    const sel = $("set");
    if (!sel.options.length) {
      const own = s.own_sets || [];
      sel.replaceChildren(...s.sets.map((name) => el("option", { value: name }, own.includes(name) ? `${name} (yours)` : name)));
    }
    sel.value = s.set;
    const cam = $("camera");
    if (!cam.options.length) {
      cam.replaceChildren(...s.cameras.map((c) => el("option", { value: c.id }, c.name)));
    }
    cam.value = s.camera;
    $("layout").replaceChildren(...s.layout.map((c) =>
      el("li", {}, `${c.square}: ${c.colour} size ${c.size_name}`)));
    done("step-empty", s.draft);
    done("step-set", s.set_measured);
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
      { frames: 3, set: $("set").value, camera: $("camera").value }, (d) => {
        // where the markers cannot tell the lens, the standard module is assumed: say so
        const assumed = $("camera").value === "auto" && d.draft.camera_model === "nominal pi3"
          ? "\nTaken as a Camera Module 3: if yours is another, choose it above and capture again." : "";
        result("empty-result", describe(d.draft) + assumed, true);
        done("step-empty", true);
        done("step-set", false);
        refresh();
      }, "empty-result"));
    $("btn-still").addEventListener("click", takeStill);
    $("still").addEventListener("click", tapCorner);
    $("btn-undo-corner").addEventListener("click", () => { corners.points.pop(); drawCorners(); });
    $("btn-corners").addEventListener("click", () => step("btn-corners", "/api/calibration/corners",
      { points: corners.points, frame: corners.frame, set: $("set").value, camera: $("camera").value }, (d) => {
        result("corners-result", describe(d.draft), true);
        result("empty-result", describe(d.draft), true);
        done("step-empty", true);
      }, "corners-result"));
    $("btn-set").addEventListener("click", () => step("btn-set", "/api/calibration/set", {},
      (d) => {
        result("set-result", describeSet(d), !d.advice.length);
        result("empty-result", describe(d.draft), true);
        done("step-set", true);
      }, "set-result"));
    $("btn-check").addEventListener("click", () => step("btn-check", "/api/calibration/check", {}, (d) => {
      const plays = (c) => (c.game_size !== null && c.game_size !== c.size ? ` (plays as ${c.game_size})` : "");
      const cups = d.cups.map((c) => `${c.square}: ${c.colour} size ${c.size}${plays(c)}`).join("\n") || "no cups read";
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
    if (!$("step-markers")) { await Cupboard.whoami(); return; }  // no camera: nothing to calibrate
    bind();
    Cupboard.bindPreview($("preview"), $("opt-overlay"))();
    const who = await Cupboard.whoami();
    $("no-control").hidden = who.control;
    await refresh();
  }

  start();
})();
