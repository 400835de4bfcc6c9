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
      // an adaptation made through the old calibration is not used with the new one: say so
      result("save-result", `Saved as ${d.saved}; the camera referees with it now.` +
        (d.adaptation ? ` (${d.adaptation})` : ""), true);
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

// The Cups steps: a still, the play area's four corners, each container tapped in its named
// order (or found and confirmed), the empty table, save (``/api/calibration/cups``).
(() => {
  const { api, el } = Cupboard;
  const $ = (id) => document.getElementById(id);
  if (!$("cups-steps")) return;  // no camera

  function result(id, text, good) {
    const box = $(id);
    box.textContent = text;
    box.className = "result " + (good ? "good" : "bad");
  }

  function done(stepId, yes) { $(stepId).classList.toggle("done", Boolean(yes)); }

  // frame: the still's id; corners and taps in the still's pixels; mode: which taps the still takes
  const cups = { frame: null, corners: [], taps: [], order: [], mode: "corners", method: "corners", table: null,
    draft: null };

  function chooseGame(game) {
    $("gobblet-steps").hidden = game !== "gobblet";
    $("cups-steps").hidden = game !== "cups";
    $(game === "cups" ? "game-cups" : "game-gobblet").checked = true;
  }

  function shortName(name) {  // "South's cup 2 (from South's left)" -> "S2", "North's bowl" -> "N bowl"
    const m = name.match(/^(South|North)'s (cup (\d+)|bowl|stock)/);
    return m ? m[1][0] + (m[3] || " " + m[2]) : "?";
  }

  function dot(x, y, text, colour) {
    const img = $("cups-still");
    const d = el("span", { class: "cups-dot" }, text);
    d.style.cssText = "position:absolute;min-width:20px;height:20px;margin:-10px 0 0 -10px;padding:0 3px;" +
      `border-radius:10px;background:${colour};color:#fff;font:bold 11px/20px sans-serif;text-align:center;` +
      `pointer-events:none;left:${(x / img.naturalWidth) * 100}%;top:${(y / img.naturalHeight) * 100}%`;
    return d;
  }

  // a container's tap: a small point (the opening must show round it) and its name above
  function mark(x, y, text) {
    const img = $("cups-still");
    const d = el("span", { class: "cups-dot" });
    const at = `left:${(x / img.naturalWidth) * 100}%;top:${(y / img.naturalHeight) * 100}%`;
    d.style.cssText = "position:absolute;width:8px;height:8px;margin:-5px 0 0 -5px;border-radius:50%;" +
      `background:#36c;border:1px solid #fff;pointer-events:none;${at}`;
    const label = el("span", { class: "cups-dot" }, text);
    label.style.cssText = "position:absolute;transform:translate(-50%,-130%);padding:0 2px;border-radius:3px;" +
      `background:rgba(30,60,150,.75);color:#fff;font:bold 9px/12px sans-serif;pointer-events:none;${at}`;
    const both = document.createDocumentFragment();
    both.append(d, label);
    return both;
  }

  function draw() {
    const box = $("cups-still-box");
    box.querySelectorAll(".cups-dot").forEach((d) => d.remove());
    if (!$("cups-still").naturalWidth) return;
    cups.corners.forEach(([x, y], k) => box.append(dot(x, y, String(k + 1), "#2a7")));
    cups.taps.forEach(([x, y], k) => box.append(mark(x, y, shortName(cups.order[k] || ""))));
    const corners = cups.mode === "corners";
    $("btn-cups-undo").disabled = corners ? !cups.corners.length : !cups.taps.length;
    $("btn-cups-corners").disabled = !corners || cups.corners.length !== 4;
    $("btn-cups-markers").disabled = cups.frame === null;
    $("btn-cups-find").disabled = corners;
    const complete = !corners && cups.order.length && cups.taps.length === cups.order.length;
    $("btn-cups-empty").disabled = !complete;
    $("btn-cups-save").disabled = !cups.draft;
    done("cups-step-area", complete);
    const names = ["South's left", "South's right", "the far corner on South's right", "the far corner on South's left"];
    $("cups-prompt").textContent = corners
      ? (cups.corners.length < 4 ? `Tap corner ${cups.corners.length + 1}: ${names[cups.corners.length]}.`
        : "Now find the table.")
      : (complete ? "Every container is placed." : `Tap ${cups.order[cups.taps.length]}.`);
    $("cups-prompt").className = "result " + (complete ? "good" : "");
  }

  function layoutChoice() {
    const v = $("cups-layout").value;
    if (v !== "own") return v;
    return { cups_per_row: Number($("cups-own-x").value), width_mm: Number($("cups-own-w").value),
      depth_mm: Number($("cups-own-d").value), cup_mm: Number($("cups-own-cup").value),
      cup_height_mm: Number($("cups-own-h").value) };
  }

  async function sendTaps(taps) {
    const r = await api("POST", "/api/calibration/cups/containers", { points: taps });
    if (!r.ok) { result("cups-containers-result", r.data.error || "refused", false); return false; }
    cups.taps = taps;
    cups.draft = null;
    result("cups-containers-result", r.data.complete ? "Every container is placed: now empty the table."
      : `${r.data.placed} of ${r.data.of} placed.`, true);
    draw();
    return true;
  }

  function tap(event) {
    const img = $("cups-still");
    if (!img.naturalWidth) return;
    const rect = img.getBoundingClientRect();
    const p = [Math.round(((event.clientX - rect.left) / rect.width) * img.naturalWidth * 10) / 10,
      Math.round(((event.clientY - rect.top) / rect.height) * img.naturalHeight * 10) / 10];
    if (cups.mode === "corners") {
      if (cups.corners.length < 4) cups.corners.push(p);
      draw();
    } else if (cups.taps.length < cups.order.length) {
      sendTaps([...cups.taps, p]);
    }
  }

  async function takeStill() {
    const r = await api("POST", "/api/calibration/still", {});
    if (!r.ok) { result("cups-corners-result", r.data.error || "refused", false); return; }
    Object.assign(cups, { frame: r.data.frame, corners: [], taps: [], mode: "corners", method: "corners", draft: null });
    const img = $("cups-still");
    img.onload = draw;
    img.src = r.data.url;
    $("cups-still-box").hidden = false;
    $("cups-corners-result").textContent = "";
    $("cups-containers-result").textContent = "";
  }

  // the table found from the four corners tapped, or (markers) from the marker sheet's tiles
  async function findTable(how) {
    const markers = how === "markers" || (how === undefined && cups.method === "markers");
    $(markers ? "btn-cups-markers" : "btn-cups-corners").disabled = true;
    const body = { frame: cups.frame, layout: layoutChoice(), camera: $("cups-camera").value };
    const r = markers ? await api("POST", "/api/calibration/cups/markers", body)
      : await api("POST", "/api/calibration/cups/corners", { ...body, points: cups.corners });
    cups.method = markers ? "markers" : "corners";
    if (!r.ok) {  // the corners stay, to find the table again with another layout or module
      Object.assign(cups, { mode: "corners", taps: [], draft: null });
      result("cups-corners-result", r.data.error || "refused", false);
      draw();
      return;
    }
    Object.assign(cups, { mode: "containers", order: r.data.order, taps: [], table: r.data.table });
    if (markers) cups.corners = [];
    result("cups-corners-result", tableText(r.data.table, markers), true);
    draw();
  }

  function tableText(t, markers) {
    // where nothing told the lens, say so: through another module's lens the height is far off
    const assumed = t.lens === "assumed"
      ? `\nTaken as a ${$("cups-camera").querySelector("option[value=pi3]").textContent}: the corners cannot tell ` +
        "the lens of a camera looking nearly straight down. If yours is another, choose it above." : "";
    return `Table found: camera ${t.camera_height_mm} mm above it (${t.camera_model}), ` +
      `${markers ? "markers" : "corners"} within ${t.error_px} px.` + assumed;
  }

  function draftText(d) {
    return `The empty table is captured: ${d.containers.length} containers on a ` +
      `${Math.round(d.layout.width_mm)} × ${Math.round(d.layout.depth_mm)} mm play area, camera ` +
      `${d.camera_height_mm} mm above it, beans ${d.bean_mm} mm.`;
  }

  // A bean the empty-table check was not sure of: the frame is taken, the player checks the
  // containers named (and captures again if a bean is there)
  function emptyWarnings(d) {
    const box = $("cups-empty-warning");
    const warnings = (d && d.warnings) || [];
    box.textContent = warnings.length ? "Check: " + warnings.join("; ") +
      ". If a bean is there, take it out and capture the empty table again." : "";
    box.hidden = !warnings.length;
  }

  // After a reload: the still, the play area found on it, the containers tapped and the empty
  // table, as the server keeps them (the Gobblet steps' draft is restored the same way).
  function restore(s) {
    if (s.still === null || cups.frame !== null) return;
    const found = s.table !== null && s.table_still === s.still;
    Object.assign(cups, { frame: s.still, method: s.method, corners: found && s.method === "markers" ? [] : (s.corners || []),
      mode: found ? "containers" : "corners", order: found ? s.order : [], taps: found ? s.taps : [],
      table: found ? s.table : null, draft: found ? s.draft : null });
    const img = $("cups-still");
    img.onload = draw;
    img.src = `/api/calibration/still/${s.still}.jpg`;
    $("cups-still-box").hidden = false;
    if (!found) return;
    result("cups-corners-result", tableText(s.table, s.method === "markers"), true);
    if (s.taps.length) {
      result("cups-containers-result", s.taps.length === s.order.length ? "Every container is placed: now empty the table."
        : `${s.taps.length} of ${s.order.length} placed.`, true);
    }
    if (s.draft) {
      result("cups-empty-result", draftText(s.draft), true);
      emptyWarnings(s.draft);
      done("cups-step-empty", true);
    }
  }

  async function find() {
    const b = $("btn-cups-find");
    b.disabled = true;
    b.textContent = "Looking…";
    const r = await api("POST", "/api/calibration/cups/find", {});
    b.textContent = "Find the containers for me";
    if (!r.ok) { result("cups-containers-result", r.data.error || "refused", false); draw(); return; }
    const first = r.data.taps.indexOf(null);
    const found = r.data.taps.slice(0, first < 0 ? r.data.taps.length : first);
    if (await sendTaps(found)) {
      result("cups-containers-result", (first < 0 ? `All ${found.length} found` : `Found the first ${found.length}`) +
        ": check that each dot sits in its container's opening; undo and tap again where one does not.", true);
    }
  }

  async function refresh() {
    const r = await api("GET", "/api/calibration/cups");
    if (!r.ok) return;
    const s = r.data;
    chooseGame(s.game_is_cups ? "cups" : ($("game-cups").checked ? "cups" : "gobblet"));
    const sel = $("cups-layout");
    if (!sel.options.length) {
      sel.replaceChildren(...s.layouts.map((n) => el("option", { value: n }, n)),
        el("option", { value: "own" }, "my own size"));
      sel.value = s.layouts.includes(s.layout.name) ? s.layout.name : "own";
      $("cups-own").hidden = sel.value !== "own";
      $("cups-own-x").value = s.layout.cups_per_row;
      $("cups-own-w").value = s.layout.width_mm;
      $("cups-own-d").value = s.layout.depth_mm;
      $("cups-own-cup").value = s.layout.cup_mm;
      $("cups-own-h").value = s.layout.cup_height_mm;
    }
    const cam = $("cups-camera");
    if (!cam.options.length) cam.replaceChildren(...s.cameras.map((c) => el("option", { value: c.id }, c.name)));
    cam.value = s.camera;
    const beans = $("cups-beans");
    if (!beans.options.length) {
      beans.replaceChildren(...Object.entries(s.beans).map(([k, mm]) => el("option", { value: k }, `${k}s (${mm} mm)`)));
    }
    $("cups-sheet").textContent = s.marker_sheet;
    done("cups-step-save", s.saved);
    restore(s);
  }

  function bind() {
    document.querySelectorAll("input[name=game]").forEach((r) => r.addEventListener("change", () => chooseGame(r.value)));
    // another layout or camera module: the table is found again from the same four corners
    const again = () => {
      if (cups.frame !== null && (cups.corners.length === 4 || (cups.method === "markers" && cups.mode !== "corners"))) {
        findTable();
      }
    };
    $("cups-layout").addEventListener("change", () => {
      $("cups-own").hidden = $("cups-layout").value !== "own";
      again();
    });
    $("cups-camera").addEventListener("change", again);
    ["cups-own-x", "cups-own-w", "cups-own-d", "cups-own-cup", "cups-own-h"].forEach((id) => $(id).addEventListener("change", again));
    $("btn-cups-still").addEventListener("click", takeStill);
    $("cups-still").addEventListener("click", tap);
    $("btn-cups-undo").addEventListener("click", () => {
      if (cups.mode === "corners") { cups.corners.pop(); draw(); } else sendTaps(cups.taps.slice(0, -1));
    });
    $("btn-cups-corners").addEventListener("click", () => findTable("corners"));
    $("btn-cups-markers").addEventListener("click", () => findTable("markers"));
    $("btn-cups-find").addEventListener("click", find);
    $("btn-cups-empty").addEventListener("click", async () => {
      const r = await api("POST", "/api/calibration/cups/empty", { beans: $("cups-beans").value });
      if (!r.ok) { result("cups-empty-result", r.data.error || "refused", false); emptyWarnings(null); return; }
      cups.draft = r.data.draft;
      result("cups-empty-result", draftText(r.data.draft), true);
      emptyWarnings(r.data.draft);
      done("cups-step-empty", true);
      draw();
    });
    $("btn-cups-save").addEventListener("click", async () => {
      const r = await api("POST", "/api/calibration/cups/save", {});
      if (!r.ok) { result("cups-save-result", r.data.error || "refused", false); return; }
      result("cups-save-result", `Saved as ${r.data.saved}.`, true);
      done("cups-step-save", true);
    });
  }

  bind();
  refresh();
})();
