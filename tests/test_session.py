"""The game session: every change journalled before it is announced, resumed exactly after a
crash, records written when a game ends."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from companion.journal import read_journal
from engine.files import StorageError
from companion.session import CURRENT, GameSession, SessionError
from engine.gobblet import GOBBLET, GOBBLET_JR
from engine import IllegalMove
from engine.record import load_records


def test_moves_are_journalled_before_listeners_hear(tmp_path):
    session = GameSession.new(tmp_path, GOBBLET, {"White": "Ann", "Black": "Bob"})
    heard = []

    def listener(event):
        # by the time a listener runs, the event is on disk
        _, events, _ = read_journal(tmp_path / CURRENT)
        heard.append((event.seq, event.kind, events[-1].seq))

    session.subscribe(listener)
    session.play("4c3")
    session.play(session.board.parse_move("4b2"))
    assert heard == [(2, "move", 2), (3, "move", 3)]
    session.unsubscribe(listener)
    session.play("3d4")
    assert len(heard) == 2
    session.close()


def test_illegal_moves_change_nothing(tmp_path):
    session = GameSession.new(tmp_path, GOBBLET)
    session.play("4c3")
    before = session.board.text(), len(session.journal.events)
    with pytest.raises(IllegalMove):
        session.play("4c3")
    with pytest.raises(ValueError):
        session.play("zz9")
    assert (session.board.text(), len(session.journal.events)) == before
    session.close()


def test_a_failing_listener_does_not_break_the_game(tmp_path):
    session = GameSession.new(tmp_path, GOBBLET)

    def broken(event):
        raise RuntimeError("listener bug")

    session.subscribe(broken)
    event = session.play("4a1")
    assert event.kind == "move" and session.board.ply == 1
    session.close()


def test_a_move_that_cannot_be_journalled_is_not_played(tmp_path):
    session = GameSession.new(tmp_path, GOBBLET)
    session.journal.close()  # the disk is gone: appending fails
    with pytest.raises(StorageError, match="the move was not recorded"):
        session.play("4a1")
    assert session.board.ply == 0 and session.board.move_stack == []


def test_a_won_game_writes_its_record(tmp_path):
    session = GameSession.new(tmp_path, GOBBLET_JR, {"White": "Ann", "Black": "Bob"})
    for text in ["3a1", "3a2", "3b1", "3b2", "2c1"]:
        session.play(text)
    assert session.over
    assert [e.kind for e in session.journal.events[-2:]] == ["move", "end"]
    records = load_records(session.record_path)
    assert records[0].result == "1-0" and records[0].tags["White"] == "Ann"
    assert len(records[0].moves) == 5
    session.close()


def test_taking_back_an_ending_removes_its_record(tmp_path):
    session = GameSession.new(tmp_path, GOBBLET)
    session.play("4a1")
    session.resign()
    assert session.over and session.record_path.exists()
    event = session.take_back()
    assert event.kind == "takeback" and not session.over
    assert not session.record_path.exists()
    session.play("4b2")
    assert session.board.ply == 2
    with pytest.raises(SessionError):
        GameSession.new(tmp_path, GOBBLET).take_back()


def test_resume_rebuilds_the_exact_game(tmp_path):
    session = GameSession.new(tmp_path, GOBBLET, {"White": "Ann"})
    for text in ["4a1", "4b2", "3c3"]:
        session.play(text)
    session.take_back()
    session.alert("mismatch", "The board disagrees on c3")
    position, started, path = session.board.text(), session.started, session.record_path
    session.close()
    again = GameSession.resume(tmp_path)
    assert again.board.text() == position
    assert again.started == started and again.record_path == path
    assert again.journal.header.tags["White"] == "Ann"
    again.play("3c3")
    assert again.journal.events[-1].seq == 7
    again.close()


def test_resume_after_an_ending_action(tmp_path):
    session = GameSession.new(tmp_path, GOBBLET)
    session.play("4a1")
    session.agree_draw()
    session.close()
    again = GameSession.resume(tmp_path)
    assert again.over and again.board.outcome().reason == "agreement"
    assert load_records(again.record_path)[0].result == "1/2-1/2"
    again.close()


def test_resume_with_nothing_to_resume(tmp_path):
    assert GameSession.resume(tmp_path) is None


def test_a_new_game_archives_the_unfinished_one(tmp_path):
    first = GameSession.new(tmp_path, GOBBLET)
    first.play("4a1")
    first.close()
    second = GameSession.new(tmp_path, GOBBLET_JR)
    archived = list((tmp_path / "journals").glob("*.journal"))
    assert len(archived) == 1
    assert [e.kind for e in read_journal(archived[0])[1]] == ["start", "move"]
    assert second.board.rules == GOBBLET_JR and second.board.ply == 0
    second.close()


def test_a_journal_that_cannot_be_replayed_is_set_aside_from_that_event(tmp_path):
    session = GameSession.new(tmp_path, GOBBLET)
    session.play("4a1")
    session.play("4b2")
    session.close()
    path = tmp_path / CURRENT
    path.write_text(path.read_text(encoding="utf-8").replace('"move":"4a1"', '"move":"4z9"'), encoding="utf-8")
    notes = []
    again = GameSession.resume(tmp_path, notes)
    assert again.board.ply == 0 and [e.kind for e in again.journal.events] == ["start"]
    assert len(notes) == 1 and "event 2 (move) cannot be replayed" in notes[0]
    side = list(tmp_path.glob(f"{CURRENT}.damaged-*"))
    assert len(side) == 1 and "4z9" in side[0].read_text(encoding="utf-8") and "4b2" in side[0].read_text()
    again.play("4c3")  # the game goes on from the last good event
    again.close()
    assert [e.seq for e in read_journal(path)[1]] == [1, 2]



def test_a_damaged_tail_and_an_event_that_cannot_be_replayed_are_both_reported(tmp_path):
    """Two kinds of damage in one journal: both are set aside and both are said (the first
    notice was once lost when the replay started over)."""
    session = GameSession.new(tmp_path, GOBBLET)
    session.play("4a1")
    session.play("4b2")
    session.close()
    path = tmp_path / CURRENT
    path.write_text(path.read_text(encoding="utf-8").replace('"move":"4b2"', '"move":"4z9"'), encoding="utf-8")
    with open(path, "ab") as f:
        f.write(b'{"seq": 9, "time": 1, "kind": "move", "text": "x"}\n\x00garbage\n')
    notes = []
    again = GameSession.resume(tmp_path, notes)
    assert again.board.ply == 1 and [e.kind for e in again.journal.events] == ["start", "move"]
    said = " ".join(notes)
    assert "event number 9, expected 4" in said and "event 3 (move) cannot be replayed" in said, notes
    assert len(list(tmp_path.glob(f"{CURRENT}.damaged-*"))) == 2
    again.play("4c3")
    again.close()
    assert [e.seq for e in read_journal(path)[1]] == [1, 2, 3]

PLAYER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from engine.gobblet import GOBBLET
    from companion.session import GameSession

    session = GameSession.new(Path(sys.argv[1]), GOBBLET)
    moves = ["4a1", "4b2", "3c3", "3d4", "2a4", "2d1", "1b3", "1c2"]
    for i, text in enumerate(moves):
        event = session.play(text)
        print(event.seq, event.data["move"], flush=True)   # announced only after it is on disk
        if i == 5:
            print("ready", flush=True)
            time.sleep(60)                                  # killed here
    """
)


def test_resume_after_sigkill_loses_nothing_announced(tmp_path):
    proc = subprocess.Popen(
        [sys.executable, "-c", PLAYER, str(tmp_path)],
        stdout=subprocess.PIPE, text=True, cwd=os.getcwd(),
    )
    announced = []
    deadline = time.monotonic() + 60
    for line in proc.stdout:
        if line.strip() == "ready":
            break
        announced.append(line.split()[1])
        assert time.monotonic() < deadline
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL
    assert announced == ["4a1", "4b2", "3c3", "3d4", "2a4", "2d1"]

    session = GameSession.resume(tmp_path)
    replayed = [e.data["move"] for e in session.journal.events if e.kind == "move"]
    assert replayed == announced
    assert session.board.ply == len(announced)
    session.play("1b3")  # and the game goes on
    session.close()
