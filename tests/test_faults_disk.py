"""A disk that fills, a read-only data folder, damaged journals: nothing acknowledged is lost,
nothing refused lands later, every start can resume, and every answer says what failed.

The full disk comes two ways: ``engine.files.FaultyLayer`` (the file layer every durable
write goes through, failing with ENOSPC after writing part of the data, as a filling disk
may), and, where the tests run as root, a real 256 KB tmpfs filled up by a file."""

import errno
import os
import subprocess
import uuid
from pathlib import Path

import pytest

from companion.app import create_app
from companion.services import CompanionConfig
from companion.journal import read_journal
from companion.session import CURRENT, GameSession
from engine.gobblet import GOBBLET, GOBBLET_JR
from engine import files
from engine.gobblet.board import parse_position
from engine.record import load_records

from conftest import AUTH, TOKEN

# Gobblet Jr.: White makes a line on the a-file with its 9th ply (3a1 3b1 3a2 3b2 2a3# ...)
JR_WIN = ["3a1", "3b1", "3a2", "3b2", "2a3"]
GOBBLET_MOVES = ["4a1", "4b2", "4c3", "4d4", "3a2", "3b1", "3c4", "3d3", "2a4", "2b3", "2c2", "2d1"]


@pytest.fixture
def faulty():
    """The file layer as a disk that can be made full (``layer.full = True``)."""
    layer = files.FaultyLayer(partial=7)
    saved, files.layer = files.layer, layer
    yield layer
    files.layer = saved


def make_app(data: Path, variant: str = "gobblet"):
    return create_app(CompanionConfig(data, token=TOKEN, default_variant=variant))


def post(client, path, body=None):
    return client.post(path, json=body or {}, headers=AUTH)


def journal_seqs(data: Path) -> list[int]:
    return [e.seq for e in read_journal(data / CURRENT)[1]]


def test_moves_refused_on_a_full_disk_leave_the_journal_exactly_as_it_was(tmp_path, faulty):
    app = make_app(tmp_path)
    client = app.test_client()
    for text in GOBBLET_MOVES[:2]:
        assert post(client, "/api/game/move", {"move": text}).status_code == 200
    before = (tmp_path / CURRENT).read_bytes()
    faulty.full = True
    for text in GOBBLET_MOVES[2:5]:
        r = post(client, "/api/game/move", {"move": text})
        assert r.status_code == 507
        assert r.get_json()["error"] == "the disk is full: the move was not recorded"
    assert faulty.failures >= 3
    assert (tmp_path / CURRENT).read_bytes() == before  # the partial writes were cut back
    state = client.get("/api/state").get_json()
    assert state["ply"] == 2 and [m["text"] for m in state["moves"]] == GOBBLET_MOVES[:2]
    # the other ways of changing the game are refused the same way, and change nothing
    assert post(client, "/api/game/takeback").get_json()["error"].startswith("the disk is full: the take-back")
    assert post(client, "/api/game/resign").status_code == 507
    assert post(client, "/api/game/draw").status_code == 507
    assert client.get("/api/state").get_json()["over"] is False
    assert (tmp_path / CURRENT).read_bytes() == before

    faulty.full = False  # space is freed
    for text in GOBBLET_MOVES[2:8]:
        assert post(client, "/api/game/move", {"move": text}).status_code == 200
    assert journal_seqs(tmp_path) == list(range(1, 10))  # start + 8 moves, numbered once each
    app.extensions["cupboard"].hub.close()

    again = make_app(tmp_path).test_client()  # the next start resumes the same game
    assert [m["text"] for m in again.get("/api/state").get_json()["moves"]] == GOBBLET_MOVES[:8]


def test_a_new_game_refused_on_a_full_disk_keeps_the_old_one(tmp_path, faulty):
    app = make_app(tmp_path)
    client = app.test_client()
    assert post(client, "/api/game/move", {"move": "4a1"}).status_code == 200
    game = client.get("/api/state").get_json()["game"]
    faulty.full = True
    r = post(client, "/api/game/new", {"variant": "gobblet-jr"})
    assert r.status_code == 507 and "the disk is full" in r.get_json()["error"]
    state = client.get("/api/state").get_json()
    assert state["game"] == game and state["moves"][0]["text"] == "4a1"
    assert not list((tmp_path / "journals").glob("*.journal"))  # nothing moved aside
    assert not list(tmp_path.glob(".*.tmp"))
    faulty.full = False
    assert post(client, "/api/game/move", {"move": "4b2"}).status_code == 200
    app.extensions["cupboard"].hub.close()


def test_the_winning_move_is_answered_and_its_record_written_once_there_is_room(tmp_path, faulty):
    app = make_app(tmp_path, "gobblet-jr")
    client = app.test_client()
    for text in JR_WIN[:-1]:
        assert post(client, "/api/game/move", {"move": text}).status_code == 200
    faulty.writes_left = 2  # the winning move and the end reach the journal; the record does not
    r = post(client, "/api/game/move", {"move": JR_WIN[-1]})
    assert r.status_code == 200
    body = r.get_json()
    assert body["state"]["over"] is True
    assert any("record" in p and "disk is full" in p for p in body["problems"])
    assert [e.kind for e in read_journal(tmp_path / CURRENT)[1]][-2:] == ["move", "end"]
    session = app.extensions["cupboard"].hub.session
    assert not session.record_path.exists()
    faulty.full = False
    assert client.get("/api/game/record").status_code == 200  # any request on the game retries
    assert load_records(session.record_path)[0].result == "1-0"
    assert client.get("/api/state").get_json()["problems"] == []
    app.extensions["cupboard"].hub.close()


def test_a_win_whose_end_was_not_journalled_is_ended_and_recorded_at_the_next_start(tmp_path, faulty):
    session = GameSession.new(tmp_path, GOBBLET_JR)
    for text in JR_WIN[:-1]:
        session.play(text)
    faulty.writes_left = 1  # the move reaches the disk, then it is full
    session.play(JR_WIN[-1])  # answered: the move is journalled
    assert session.over and session.record_error is not None
    assert read_journal(tmp_path / CURRENT)[1][-1].kind == "move"
    session.close()
    faulty.full = False
    again = GameSession.resume(tmp_path)
    assert again.over and again.journal.events[-1].kind == "end"
    assert load_records(again.record_path)[0].result == "1-0"
    again.close()


def test_a_take_back_that_cannot_be_journalled_keeps_the_move_and_the_record(tmp_path, faulty):
    session = GameSession.new(tmp_path, GOBBLET)
    session.play("4a1")
    session.resign()
    assert session.record_path.exists()
    faulty.full = True
    with pytest.raises(files.StorageError, match="the take-back was not recorded"):
        session.take_back()
    assert session.over and session.record_path.exists()
    faulty.full = False
    session.take_back()
    assert not session.over and not session.record_path.exists()
    session.close()


def test_a_damaged_journal_header_starts_a_new_game_and_keeps_the_old_file(tmp_path):
    (tmp_path / CURRENT).write_bytes(b'{"format": "cupboard-journal 1", "rules": 7}\n{"seq":1}\n')
    app = make_app(tmp_path)
    state = app.test_client().get("/api/state").get_json()
    assert state["ply"] == 0
    assert any("header" in p and "moved to journals/" in p for p in state["problems"])
    kept = list((tmp_path / "journals").glob("*-damaged*.journal"))
    assert len(kept) == 1 and b'"rules": 7' in kept[0].read_bytes()
    app.extensions["cupboard"].hub.close()


def test_a_damaged_journal_tail_is_set_aside_and_the_game_goes_on(tmp_path):
    app = make_app(tmp_path)
    client = app.test_client()
    for text in GOBBLET_MOVES[:3]:
        post(client, "/api/game/move", {"move": text})
    app.extensions["cupboard"].hub.close()
    with open(tmp_path / CURRENT, "ab") as f:  # e.g. two writers, or a disk that lost a block
        f.write(b'{"seq": 9, "time": 1, "kind": "move", "text": "x"}\n\x00\x00\x00garbage\n')
    app = make_app(tmp_path)
    client = app.test_client()
    state = client.get("/api/state").get_json()
    assert [m["text"] for m in state["moves"]] == GOBBLET_MOVES[:3]
    assert any("event number 9, expected 5" in p and "set aside" in p for p in state["problems"])
    side = list(tmp_path.glob(f"{CURRENT}.damaged-*"))
    assert len(side) == 1 and b"garbage" in side[0].read_bytes()
    assert post(client, "/api/game/move", {"move": GOBBLET_MOVES[3]}).status_code == 200
    assert journal_seqs(tmp_path) == [1, 2, 3, 4, 5]
    app.extensions["cupboard"].hub.close()


def test_stale_temporary_files_are_removed_at_start(tmp_path):
    GameSession.new(tmp_path, GOBBLET).close()
    (tmp_path / "records").mkdir(exist_ok=True)
    stale = [tmp_path / f".{CURRENT}.new.tmp", tmp_path / ".calibration.json.abc123.tmp",
             tmp_path / "records" / ".x.gbn.k2j3.tmp"]
    for path in stale:
        path.write_text("left by a kill")
    keep = tmp_path / "notes.txt"
    keep.write_text("mine")
    GameSession.resume(tmp_path).close()
    assert not any(p.exists() for p in stale) and keep.exists()


# ---------------------------------------------------------------------------- real disks


def _mount_tmpfs(path: Path, size: str) -> None:
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    path.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(path)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")


def _unmount(path: Path) -> None:
    subprocess.run(["umount", "-l", str(path)], capture_output=True, check=False)


@pytest.fixture
def small_disk(tmp_path):
    """A real 256 KB tmpfs (as root), unmounted afterwards."""
    disk = tmp_path / f"disk-{uuid.uuid4().hex[:6]}"
    _mount_tmpfs(disk, "256k")
    yield disk
    _unmount(disk)


def _fill(disk: Path) -> Path:
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 1024)
    except OSError as e:
        assert e.errno == errno.ENOSPC
    finally:
        os.close(fd)
    return filler


def quiet_move(client) -> str:
    """A legal move in the current game that does not end it (so a long game can go on)."""
    board = parse_position(client.get("/api/state").get_json()["position"])
    for move in board.legal_moves():
        after = board.copy()
        after.push(move)
        if after.outcome() is None:
            return board.move_text(move)
    raise AssertionError("every move ends the game")


def test_a_real_disk_that_fills_and_frees_loses_and_duplicates_nothing(small_disk):
    data = small_disk / "data"
    app = make_app(data)
    client = app.test_client()
    acknowledged = []
    for _ in range(2):
        text = quiet_move(client)
        assert post(client, "/api/game/move", {"move": text}).status_code == 200
        acknowledged.append(text)
    filler = _fill(small_disk)
    # tmpfs fills by pages: moves still fit in the journal's last page until it is full
    answers = []
    for _ in range(20):
        text = quiet_move(client)
        r = post(client, "/api/game/move", {"move": text})
        answers.append(r.status_code)
        if r.status_code == 200:
            acknowledged.append(text)
        else:
            assert r.status_code == 507
            assert r.get_json()["error"] == "the disk is full: the move was not recorded"
        if answers.count(507) == 3:
            break
    assert answers.count(507) == 3 and set(answers[answers.index(507):]) == {507}
    before = (data / CURRENT).read_bytes()
    filler.unlink()
    for _ in range(6):
        text = quiet_move(client)
        assert post(client, "/api/game/move", {"move": text}).status_code == 200
        acknowledged.append(text)
    app.extensions["cupboard"].hub.close()
    assert (data / CURRENT).read_bytes().startswith(before)
    assert journal_seqs(data) == list(range(1, len(acknowledged) + 2))
    again = make_app(data)
    assert [m["text"] for m in again.test_client().get("/api/state").get_json()["moves"]] == acknowledged
    again.extensions["cupboard"].hub.close()


def test_a_read_only_data_folder_still_shows_the_game(tmp_path):
    if os.geteuid() == 0:
        disk = tmp_path / "ro"
        _mount_tmpfs(disk, "1m")
    else:
        disk = tmp_path / "ro"
        disk.mkdir()
    try:
        data = disk / "data"
        app = make_app(data)
        client = app.test_client()
        for text in GOBBLET_MOVES[:3]:
            post(client, "/api/game/move", {"move": text})
        app.extensions["cupboard"].hub.close()
        if os.geteuid() == 0:
            subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        else:
            for path in (data, data / "records"):
                path.chmod(0o555)
            (data / CURRENT).chmod(0o444)
        app = make_app(data)
        client = app.test_client()
        state = client.get("/api/state").get_json()
        assert [m["text"] for m in state["moves"]] == GOBBLET_MOVES[:3]
        assert any(p.startswith("read-only:") for p in state["problems"])
        r = post(client, "/api/game/move", {"move": GOBBLET_MOVES[3]})
        assert r.status_code == 507 and "the move was not recorded" in r.get_json()["error"]
        assert client.get("/").status_code == 200
        app.extensions["cupboard"].hub.close()
    finally:
        if os.geteuid() == 0:
            _unmount(disk)
        else:
            for path in (disk / "data", disk / "data" / "records"):
                path.chmod(0o755)
