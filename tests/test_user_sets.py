"""A user's own piece set (``cupboard set new``) in the web app: the calibration wizard lists
it first, marked as theirs, and calibrates with it; the new-game dialog offers it too."""

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import AUTH, TOKEN, started_camera

from calibration.model import load_calibration
from companion.app import create_app
from companion.services import CompanionConfig
from hardware.synthetic import SyntheticCamera

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def camera():
    empty = tuple(() for _ in range(16))
    cam = started_camera(SyntheticCamera(script=[empty], pieces="gobblet", loop=True, seed=4))
    yield cam
    cam.stop()


@pytest.fixture
def app(tmp_path, camera):
    # measured cups a little unlike the shipped set, on the shipped Gobblet! board
    subprocess.run([sys.executable, "-m", "companion.cli", "set", "new", "my-gobblet", "--like", "gobblet",
                    "--size", "23,18,22", "--size", "31,25,30", "--size", "39,32,38", "--size", "47,39,46",
                    "--data", str(tmp_path)], check=True, cwd=ROOT, capture_output=True)
    camera.on_frame = None
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, camera=camera))
    yield app
    camera.on_frame = None
    app.extensions["cupboard"].hub.close()


def test_the_wizard_lists_and_uses_the_users_set(app, tmp_path):
    client = app.test_client()
    status = client.get("/api/calibration").get_json()
    assert status["sets"][0] == "my-gobblet" and status["own_sets"] == ["my-gobblet"]
    assert {"gobblet", "gobblet-jr", "storer-clear"} <= set(status["sets"])
    r = client.post("/api/calibration/empty", json={"frames": 2, "set": "my-gobblet"}, headers=AUTH)
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["draft"]["set"] == "my-gobblet" and r.get_json()["draft"]["board"] == "gobblet-4x4"
    assert client.post("/api/calibration/save", json={}, headers=AUTH).status_code == 200
    saved = load_calibration(tmp_path / "calibration.json")
    assert [s.outer_diameter_mm for s in saved.pieces.sizes] == [23, 31, 39, 47]
    r = client.post("/api/calibration/empty", json={"set": "nobodys"}, headers=AUTH)
    assert r.status_code == 422 and "my-gobblet" in r.get_json()["error"]


def test_a_new_game_can_name_the_users_set(app):
    client = app.test_client()
    assert client.get("/api/variants").get_json()["sets"][0] == "my-gobblet"
    r = client.post("/api/game/new", json={"variant": "gobblet", "set": "my-gobblet"}, headers=AUTH)
    assert r.status_code in (200, 201), r.get_json()
    r = client.post("/api/game/new", json={"variant": "gobblet", "set": "nobodys"}, headers=AUTH)
    assert r.status_code == 422
