"""The calibration wizard on the demo camera: markers found, capture the empty board and
calibrate, sample the colours, check one cup of each size, save into the data folder
(atomically) and referee with it; every step that changes anything needs the token, and steps
out of order answer clear JSON errors."""

import time
from dataclasses import replace

import numpy as np
import pytest
from conftest import AUTH, TOKEN, started_camera

from calibration.model import load_calibration
from companion.app import create_app
from companion.services import CompanionConfig
from hardware.camera_model import nominal_intrinsics
from hardware.frames import Frame, FrameSource
from hardware.pieces import load_board, load_piece_set
from hardware.render.scene import empty_position, random_offsets
from hardware.synthetic import SyntheticCamera, random_scene, render_scene


@pytest.fixture(scope="module")
def camera():
    empty = tuple(() for _ in range(9))
    cam = started_camera(SyntheticCamera(script=[empty], pieces="gobblet-jr", loop=True, seed=7))
    yield cam
    cam.stop()


@pytest.fixture
def app(camera_app):
    return camera_app


def test_capture_calibrate_check_and_save(app, camera, tmp_path):
    client = app.test_client()
    status = client.get("/api/calibration").get_json()
    assert status["markers"]["found"] and status["markers"]["seen"] == [0, 1, 2, 3]
    assert status["set"] == "gobblet-jr" and status["draft"] is None and status["saved"] is False

    r = client.post("/api/calibration/empty", json={"frames": 2, "set": "gobblet-jr"}, headers=AUTH)
    assert r.status_code == 200, r.get_json()
    draft = r.get_json()["draft"]
    assert r.get_json()["empty_frames"] == 2
    assert draft["markers"] == [0, 1, 2, 3] and draft["reprojection_error_px"] < 2
    assert 300 < draft["camera_height_mm"] < 900

    r = client.post("/api/calibration/check", json={}, headers=AUTH)
    check = r.get_json()
    assert r.status_code == 200 and check["board_found"] and check["cups"] == []
    assert check["sizes_missing"] == [1, 2, 3] and check["ok"] is False

    r = client.post("/api/calibration/save", json={}, headers=AUTH)
    assert r.status_code == 200, r.get_json()
    path = tmp_path / "calibration.json"
    saved = load_calibration(path)
    assert saved.pieces.name == "gobblet-jr" and saved.markers_seen == (0, 1, 2, 3)
    assert not list(tmp_path.glob("*.tmp"))
    services = app.extensions["cupboard"]
    assert services.live is not None and services.live.calibration is not None
    assert camera.on_frame == services.live.on_frame and camera.overlay == services.live.draw_overlay
    status = client.get("/api/calibration").get_json()
    assert status["saved"] and status["active"]["markers"] == [0, 1, 2, 3]
    deadline = time.monotonic() + 20  # the referee reads frames with the new calibration
    while services.live.referee is None or services.live.referee.last_observation is None:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert services.live.referee.last_observation.board_found


def test_steps_need_the_token_and_their_order(app):
    client = app.test_client()
    for step in ("empty", "set", "check", "save"):
        r = client.post(f"/api/calibration/{step}", json={})
        assert r.status_code == 401 and "token" in r.get_json()["error"]
        r = client.post(f"/api/calibration/{step}", json={}, headers={"X-Cupboard-Token": "nope"})
        assert r.status_code == 403
    for step in ("set", "check", "save"):
        r = client.post(f"/api/calibration/{step}", json={}, headers=AUTH)
        assert r.status_code == 409 and "empty board first" in r.get_json()["error"]
    r = client.post("/api/calibration/empty", data="[", headers={**AUTH, "Content-Type": "application/json"})
    assert r.status_code == 400 and "JSON object" in r.get_json()["error"]
    for frames in (0, 99, "3", True):
        r = client.post("/api/calibration/empty", json={"frames": frames}, headers=AUTH)
        assert r.status_code == 400 and "frames" in r.get_json()["error"]
    r = client.post("/api/calibration/empty", json={"set": "chess"}, headers=AUTH)
    assert r.status_code == 422 and "unknown piece set" in r.get_json()["error"]
    r = client.post("/api/calibration/empty", json={"camera": "webcam9000"}, headers=AUTH)
    assert r.status_code == 422 and "unknown camera module" in r.get_json()["error"]
    assert client.get("/calibrate").status_code == 200


def test_without_a_camera_the_wizard_answers_404(tmp_path):
    app = create_app(CompanionConfig(tmp_path, token=TOKEN))
    try:
        r = app.test_client().post("/api/calibration/empty", json={}, headers=AUTH)
        assert r.status_code == 404 and "no camera" in r.get_json()["error"]
        assert app.test_client().get("/api/calibration").status_code == 404
    finally:
        app.extensions["cupboard"].hub.close()


class Table(FrameSource):
    """The synthetic camera over a table where the test puts the cups (``show``), as a person
    does during the wizard: the same camera and light throughout, cups a little off-centre.

    Each position the test shows is drawn once (its cups' offsets and the sensor's noise are
    seeded by the order the positions were first shown): the camera thread reads frames at
    its own pace, and a draw that followed the count of frames read made what the wizard saw
    depend on the machine's load (a light 2 read as a 3 on one draw in a few dozen)."""

    name = "synthetic"

    def __init__(self, pieces: str, seed: int, module: str = "pi3") -> None:
        self.pieces_name, self.seed, self.module = pieces, seed, module
        self.index = 0
        self.shown: dict[int, tuple] = {}  # frame index -> the position it shows
        self.draws: dict[tuple, int] = {}  # position -> the order it was first shown in

    def open(self) -> None:
        self.pieces = load_piece_set(self.pieces_name)
        self.board = load_board(self.pieces.default_board)
        self.position = empty_position(self.board)
        self.base = random_scene(self.pieces, self.board, self.seed, position=self.position, difficulty=0.6,
                                 intrinsics=nominal_intrinsics(self.module))

    def read(self) -> Frame:
        position = self.position
        draw = self.draws.setdefault(position, len(self.draws))
        rng = np.random.default_rng([self.seed, draw])
        offsets = random_offsets(self.board, self.pieces, position, rng, scale=0.6)
        image, _ = render_scene(replace(self.base, position=position, offsets=offsets), self.seed * 1000 + draw)
        self.index += 1
        self.shown[self.index] = position
        return Frame(image=image, timestamp=self.index / 10, index=self.index)

    def close(self) -> None:
        pass


def show(camera, table: Table, cups: list[tuple[str, str, int]]) -> None:
    """Put ``cups`` (square, "light"/"dark", the set's size 1 = smallest) on the table and wait
    until the camera thread's latest frame shows them."""
    squares = [() for _ in range(table.board.squares)]
    for square, colour, size in cups:
        index = "abcdefgh".index(square[0]) + (int(square[1:]) - 1) * table.board.cols
        squares[index] = ((0 if colour == "light" else 1, size - 1),)
    table.position = position = tuple(squares)
    deadline = time.monotonic() + 20
    while table.shown.get(getattr(camera.latest_frame(), "index", None)) != position:
        assert time.monotonic() < deadline, camera.error
        time.sleep(0.02)


def one_of_each_size(table: Table, first: str) -> list[tuple[str, str, int]]:
    """One cup of every size of the set, on separate squares, colours alternating from
    ``first``."""
    n, cols = len(table.pieces.sizes), table.board.cols
    squares = [table.board.square_name(k * (cols + 1)) for k in range(min(n, cols))]
    squares += [table.board.square_name(cols - 1 + cols * k) for k in range(n - len(squares))]
    other = "dark" if first == "light" else "light"
    return [(square, first if k % 2 == 0 else other, k + 1) for k, square in enumerate(squares)]


def read_back(client) -> dict:
    r = client.post("/api/calibration/check", json={}, headers=AUTH)
    assert r.status_code == 200, r.get_json()
    return r.get_json()


# Recognition reads these sets right; Storer's clear set is not read reliably yet (vision/).
@pytest.mark.parametrize("pieces", ["gobblet-jr", "gobblet"])
def test_the_check_reads_one_cup_of_each_size_and_colour(tmp_path, pieces):
    table = Table(pieces, seed=11)
    camera = started_camera(table)
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, camera=camera, default_variant="gobblet-jr"))
    try:
        client = app.test_client()
        assert client.get("/api/calibration").get_json()["set"] == pieces
        r = client.post("/api/calibration/empty", json={"frames": 2}, headers=AUTH)
        assert r.status_code == 200, r.get_json()
        n = len(table.pieces.sizes)
        last = table.board.square_name(table.board.squares - 1)

        for sampled in (False, True):
            if sampled:  # step (c): one cup of every size in both colours where the layout says
                layout = client.get("/api/calibration").get_json()["layout"]
                assert len(layout) == 2 * n and {c["square"] for c in layout} >= {"a1", last}
                show(camera, table, [(c["square"], c["colour"], c["size"]) for c in layout])
                r = client.post("/api/calibration/set", json={}, headers=AUTH)
                assert r.status_code == 200, r.get_json()
                d = r.get_json()
                assert d["draft"]["colours"] == "set"  # measured, no longer the set's nominal colours
                assert d["advice"] == [] and len(d["draft"]["edge_scale"]) == n
                assert client.get("/api/calibration").get_json()["set_measured"] is True
            for first in ("light", "dark"):
                cups = one_of_each_size(table, first)
                show(camera, table, cups)
                check = read_back(client)
                read = sorted((c["square"], c["colour"], c["size"]) for c in check["cups"])
                assert read == sorted(cups), (sampled, first)
                assert check["board_found"] and check["ok"] is True
                assert check["sizes_read"] == list(range(1, n + 1)) and check["sizes_missing"] == []
                assert all(c["game_size"] == c["size"] and c["size_name"] == str(c["size"]) for c in check["cups"])

        show(camera, table, cups[:1])  # one size short: not ok, and it says which are missing
        check = read_back(client)
        assert check["ok"] is False and check["sizes_missing"] == list(range(2, n + 1))
    finally:
        camera.stop()
        app.extensions["cupboard"].hub.close()


def _tilt(seed: int, module: str) -> float:
    """How far (degrees) the Table's camera of ``seed`` looks away from straight down."""
    table = Table("gobblet-jr", seed=seed, module=module)
    table.open()
    axis = table.base.pose.R.T @ np.array([0.0, 0.0, 1.0])
    return float(np.degrees(np.arccos(abs(axis[2]))))


def _calibrate_through_the_wizard(tmp_path, seed: int, module: str, camera: str | None = None) -> dict:
    table = Table("gobblet-jr", seed=seed, module=module)
    source = started_camera(table)
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, camera=source, default_variant="gobblet-jr"))
    try:
        client = app.test_client()
        status = client.get("/api/calibration").get_json()
        assert status["camera"] == "auto" and {c["id"] for c in status["cameras"]} >= {"pi2", "pi3", "pi3-wide"}
        body = {"frames": 1} if camera is None else {"frames": 1, "camera": camera}
        r = client.post("/api/calibration/empty", json=body, headers=AUTH)
        assert r.status_code == 200, r.get_json()
        return {**r.get_json()["draft"], "true_height": table.base.pose.height}
    finally:
        source.stop()
        app.extensions["cupboard"].hub.close()


@pytest.mark.parametrize("module", ["pi2", "pi3-wide"])
def test_the_camera_module_is_found_from_the_markers_of_a_tilted_camera(tmp_path, module):
    """A Module 2 calibrated as a Module 3 came out 15-19 % too high.  A camera that looks at
    the board at a slant (most mounts) sees the markers' perspective, which only the right
    lens fits: the wizard tries every module's and keeps it; a module named is used as named."""
    seed = next(s for s in range(40) if _tilt(s, module) >= 20)
    found = _calibrate_through_the_wizard(tmp_path / "found", seed, module)
    assert found["camera_model"] == f"nominal {module}"
    assert abs(found["camera_height_mm"] - found["true_height"]) < 0.03 * found["true_height"]
    named = _calibrate_through_the_wizard(tmp_path / "named", seed, module, camera="pi3")
    assert named["camera_model"] == "nominal pi3" and named["reprojection_error_px"] > found["reprojection_error_px"]


def test_a_camera_looking_straight_down_is_taken_for_the_standard_module(tmp_path):
    """Straight down, any lens fits the markers (at another height): none is guessed, the
    standard Camera Module 3 is assumed (and the page says how to name another)."""
    seed = next(s for s in range(40) if _tilt(s, "pi2") < 8)
    assert _calibrate_through_the_wizard(tmp_path, seed, "pi2")["camera_model"] == "nominal pi3"
