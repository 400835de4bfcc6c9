"""Seeded fuzzing of every reader and every JSON route: damaged input is always a clear error
(the documented exception naming the file, or a 4xx answer), never a traceback or a 500, and
a refused request changes nothing."""

import json
import os
import random
import shutil
import tempfile
from pathlib import Path

import pytest

from calibration import CalibrationError, calibrate, load_calibration, save_calibration
from companion.app import create_app
from companion.services import CompanionConfig
from companion.journal import read_journal
from companion.session import CURRENT, GameSession
from engine.gobblet import GOBBLET
from engine.inputs import InputError, check_strings, check_text, parse_json
from engine.record import RecordError, read_records
from fuzzing import mutate_bytes, mutations
from hardware.pieces import DATA_DIR, DataFileError, load_board, load_piece_set
from hardware.synthetic import empty_scene, random_scene, render_scene

from conftest import AUTH, TOKEN


@pytest.fixture(scope="module")
def calibration_file(tmp_path_factory):
    ps = load_piece_set("gobblet-jr")
    board = load_board(ps.default_board)
    cal = calibrate([render_scene(empty_scene(random_scene(ps, board, 21)), 1)[0]], ps, board)
    path = tmp_path_factory.mktemp("cal") / "calibration.json"
    save_calibration(cal, path)
    return path


@pytest.fixture
def scratch(tmp_path):
    """A folder for thousands of short-lived files: in memory (/dev/shm) where there is one,
    since a calibration is a third of a megabyte and 3000 of them would wait on the disk."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="cupboard-fuzz-", dir=shm))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_load_calibration_raises_only_its_error_naming_the_file(calibration_file, scratch):
    data = json.loads(calibration_file.read_text())
    path = scratch / "damaged-cal.json"
    others = []
    for raw in mutations(data, 3000, seed=20):
        path.write_bytes(raw)
        try:
            load_calibration(path)
        except CalibrationError as e:
            assert "damaged-cal.json" in str(e), str(e)
        except Exception as e:  # noqa: BLE001 - counting what escapes is the point
            others.append(repr(e)[:200])
    assert others == []


@pytest.mark.parametrize("change, message", [
    (lambda d: d["canvas"].update(width={}), r"canvas\.width: expected a whole number, got an object"),
    (lambda d: d["intrinsics"].update(fx=10**400), r"intrinsics\.fx: the number is too large"),
    (lambda d: d["pose"].update(rvec=[1, 2, "x"]), r"pose\.rvec: expected a list of 3 numbers"),
    (lambda d: d.update(size_classes="many"), r"size_classes must list one entry per size"),
])
def test_calibration_errors_name_the_field(calibration_file, tmp_path, change, message):
    data = json.loads(calibration_file.read_text())
    change(data)
    path = tmp_path / "cal.json"
    path.write_text(json.dumps(data))
    with pytest.raises(CalibrationError, match=rf"cal\.json: {message}"):
        load_calibration(path)


def test_calibration_that_is_not_utf8_or_too_deep_names_the_file(calibration_file, tmp_path):
    path = tmp_path / "cal.json"
    path.write_bytes(calibration_file.read_bytes()[:100] + b"\xff\xfe" + calibration_file.read_bytes()[100:])
    with pytest.raises(CalibrationError, match=r"cal\.json: not UTF-8 text \(byte 100 is 0xff\)"):
        load_calibration(path)
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(CalibrationError, match=r"cal\.json: nested too deeply"):
        load_calibration(path)
    with pytest.raises(CalibrationError, match=r"is a folder"):
        load_calibration(tmp_path)


@pytest.mark.parametrize("kind, loader", [("sets", load_piece_set), ("boards", load_board)])
def test_piece_sets_and_boards_raise_only_their_error_naming_the_file(scratch, kind, loader):
    others, count = [], 0
    for original in sorted((DATA_DIR / kind).glob("*.json")):
        data = json.loads(original.read_text())
        path = scratch / f"fuzzed-{original.name}"
        for raw in mutations(data, 400, seed=len(original.name)):
            count += 1
            path.write_bytes(raw)
            try:
                loader(path)
            except DataFileError as e:
                assert path.name in str(e), str(e)
            except Exception as e:  # noqa: BLE001
                others.append(repr(e)[:200])
    assert count >= 1200 and others == []


def test_records_raise_only_record_errors():
    text = open("examples/sample-games.gbn", encoding="utf-8").read()
    rng = random.Random(5)
    others = []
    for _ in range(2000):
        mutated = mutate_bytes(text.encode(), rng).decode("utf-8", "replace")
        try:
            for record in read_records(mutated, "fuzzed.gbn"):
                record.replay()
        except RecordError:
            pass
        except Exception as e:  # noqa: BLE001
            others.append(repr(e)[:200])
    assert others == []


def test_any_damaged_journal_still_resumes(scratch):
    """Whatever happened to the file, the next start resumes a game (or starts anew)."""
    source = scratch / "source"
    session = GameSession.new(source, GOBBLET, {"White": "Ann"})
    for text in ["4a1", "4b2", "4c3", "4d4", "3a2"]:
        session.play(text)
    session.resign()
    session.close()
    original = (source / CURRENT).read_bytes()
    rng = random.Random(11)
    data = scratch / "data"
    for i in range(2000):
        if data.exists():
            shutil.rmtree(data)
        data.mkdir()
        lines = original.split(b"\n")
        if i % 3 == 0 and len(lines) > 2:  # a whole line replaced, dropped or repeated
            at = rng.randrange(len(lines) - 1)
            lines[at:at + 1] = rng.choice(([], [lines[at], lines[at]], [b'{"seq": 2}'], [b"[" * 5000]))
            raw = b"\n".join(lines)
        else:
            raw = mutate_bytes(original, rng)
        (data / CURRENT).write_bytes(raw)
        session = GameSession.resume(data, notes := [])
        if session is None:  # the header was damaged: kept aside, a new game may start
            assert notes and list((data / "journals").glob("*.journal"))
            continue
        # the game goes on, and what is on disk reads back as what is in memory
        events = read_journal(data / CURRENT)[1]
        assert [e.seq for e in events] == [e.seq for e in session.journal.events]
        if not session.over:
            session.play(session.board.move_text(session.board.legal_moves()[0]))
        session.close()


def test_the_input_gate():
    assert parse_json(b'{"a": [1, 2]}', "x") == {"a": [1, 2]}
    with pytest.raises(InputError, match=r"the body: not UTF-8 text"):
        parse_json(b'{"a": "\xc3"}', "the body")
    with pytest.raises(InputError, match="nested too deeply"):
        parse_json("[" * 40 + "]" * 40, "x")
    with pytest.raises(InputError, match="NaN is not a number JSON allows"):
        parse_json('{"a": NaN}', "x")
    with pytest.raises(InputError, match=r"white cannot be stored: it holds an invalid character \(a lone surrogate"):
        check_text("Ann\ud800", "white", 40)
    with pytest.raises(InputError, match=r"white cannot be stored: it holds a control character \(\\x1b\)"):
        check_text("Ann\x1b[2J", "white", 40)
    with pytest.raises(InputError, match=r"white is too long \(41 characters; at most 40\)"):
        check_text("a" * 41, "white", 40)
    with pytest.raises(InputError, match=r"the body: tags\[1\]"):
        check_strings({"tags": ["ok", "bad\x00"]}, "the body")
    check_strings({"note": "two\nlines\tand a tab"}, "the body")


# ---------------------------------------------------------------------------- JSON routes

GAME_ROUTES = {
    "/api/game/new": {"variant": "gobblet-jr", "white": "Ann", "black": "Bob", "first": "white",
                      "hint_limit": 2, "set": "gobblet-jr"},
    "/api/game/move": {"size": 3, "from": None, "to": "b2"},
    "/api/game/takeback": {},
    "/api/game/draw": {},
    "/api/game/resign": {"colour": "white"},
    "/api/hint": {"colour": "white", "level": 1},
    "/api/camera/pause": {"paused": True},
    "/api/camera/confirm": {"index": 0},
    "/api/camera/dismiss": {},
    "/api/calibration/corners": {"points": [[1, 2], [3, 4], [5, 6], [7, 8]], "frame": 1},
    "/api/calibration/still": {},
    "/api/calibration/set": {},
    "/api/calibration/check": {},
    "/api/calibration/save": {},
}


def fuzz_routes(client, routes, per_route, seed):
    """Post ``per_route`` mutations of each route's body; the answers that are not 2xx or 4xx."""
    bad = []
    for n, (route, body) in enumerate(routes.items()):
        for raw in mutations(body, per_route, seed + n):
            r = client.post(route, data=raw, headers={**AUTH, "Content-Type": "application/json"})
            if not (200 <= r.status_code < 300 or 400 <= r.status_code < 500):
                bad.append((route, raw[:80], r.status_code, r.get_data()[:120]))
    return bad


def test_every_json_route_answers_damaged_bodies_with_4xx(tmp_path):
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, default_variant="gobblet-jr", hint_seconds=0.02))
    client = app.test_client()
    bad = fuzz_routes(client, GAME_ROUTES, 150, seed=1)
    # deep nesting everywhere, as raw bytes that no JSON encoder here would write
    for route in GAME_ROUTES:
        r = client.post(route, data=b"[" * 100_000, headers={**AUTH, "Content-Type": "application/json"})
        assert 400 <= r.status_code < 500 and r.get_json()["error"], route
        if route.startswith("/api/game") or route == "/api/hint":
            assert r.get_json()["error"] == "the request body: nested too deeply (at most 32 levels)"
    records = open("examples/sample-games.gbn", "rb").read()
    rng = random.Random(3)
    for _ in range(300):
        r = client.post("/api/records?name=fuzzed", data=mutate_bytes(records, rng), headers=AUTH)
        if r.status_code >= 500:
            bad.append(("/api/records", r.status_code, r.get_data()[:120]))
    assert bad == []
    # whatever was refused or done, the state on the page is what the journal holds
    state = client.get("/api/state").get_json()
    hub = app.extensions["cupboard"].hub
    assert state["seq"] == read_journal(tmp_path / CURRENT)[1][-1].seq == hub.session.journal.events[-1].seq
    hub.close()


def test_a_name_that_cannot_be_stored_is_refused_and_the_game_goes_on(tmp_path):
    app = create_app(CompanionConfig(tmp_path, token=TOKEN))
    client = app.test_client()
    assert client.post("/api/game/move", json={"move": "4a1"}, headers=AUTH).status_code == 200
    game = client.get("/api/state").get_json()["game"]
    body = '{"variant": "gobblet", "white": "\\ud800"}'  # valid JSON, not storable text
    r = client.post("/api/game/new", data=body, headers={**AUTH, "Content-Type": "application/json"})
    assert r.status_code == 400
    assert r.get_json()["error"].startswith("the request body: white cannot be stored: it holds an invalid character")
    state = client.get("/api/state")
    assert state.status_code == 200 and state.get_json()["game"] == game
    assert client.post("/api/game/move", json={"move": "4b2"}, headers=AUTH).status_code == 200
    assert not list((tmp_path / "journals").glob("*"))
    app.extensions["cupboard"].hub.close()


@pytest.fixture(scope="module")
def camera():
    from conftest import started_camera
    from hardware.synthetic import SyntheticCamera

    cam = started_camera(SyntheticCamera(script=[tuple(() for _ in range(9))], pieces="gobblet-jr",
                                         loop=True, seed=7))
    yield cam
    cam.stop()


def test_the_camera_and_calibration_routes_answer_damaged_bodies_with_4xx(camera_app):
    from companion.live import LiveReferee

    services = camera_app.extensions["cupboard"]
    services.attach_live(LiveReferee(services.hub, None))
    client = camera_app.test_client()
    routes = {k: v for k, v in GAME_ROUTES.items() if k.startswith(("/api/camera", "/api/calibration"))}
    assert fuzz_routes(client, routes, 60, seed=7) == []
    # capturing the empty board calibrates (seconds each): a few damaged bodies only
    assert fuzz_routes(client, {"/api/calibration/empty": {"frames": 1, "set": "gobblet-jr"}}, 12, seed=9) == []
    for route in routes:
        r = client.post(route, data=b"{" * 100_000, headers={**AUTH, "Content-Type": "application/json"})
        assert r.status_code < 500, route  # a route that reads no body may do its work


def test_a_short_token_is_refused_with_a_clear_message(tmp_path, capsys):
    from companion.cli import main as cli

    assert cli(["serve", "--token", "a", "--no-camera", "--data", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--token must be at least 8 characters" in err
    assert not (tmp_path / CURRENT).exists()  # refused before anything was done


def test_the_token_file_is_written_whole_and_private(tmp_path):
    from companion.web.security import load_or_create_token

    token = load_or_create_token(tmp_path)
    path = tmp_path / "token"
    assert path.read_text() == token + "\n" and len(token) >= 16
    assert path.stat().st_mode & 0o777 == 0o600
    assert load_or_create_token(tmp_path) == token
    assert not list(tmp_path.glob(".*.tmp"))
    path.write_text("")  # an empty token file (a crash before the atomic write existed)
    assert load_or_create_token(tmp_path) not in ("", token)


def test_the_calibration_status_searches_for_markers_at_most_once_a_second(camera_app):
    from companion.web.wizard_api import wizard

    client = camera_app.test_client()
    first = client.get("/api/calibration").get_json()
    assert first["markers"]["found"]
    searched = wizard(camera_app.extensions["cupboard"]).markers
    for _ in range(10):  # spectators polling: the same search answers them all
        assert client.get("/api/calibration").get_json()["markers"] == first["markers"]
    assert wizard(camera_app.extensions["cupboard"]).markers is searched
