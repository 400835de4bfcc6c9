"""The game journal: events reach the disk in order, a torn last line is dropped, other damage
is reported with the file and line."""

import json

import pytest

from companion.journal import FORMAT, Journal, JournalError, JournalHeader, read_journal

HEADER = JournalHeader("gobblet", "gobblet .,.,.,./.,.,.,./.,.,.,./.,.,.,. w 4,4,4 4,4,4 1", {"White": "Ann"})


def test_events_are_numbered_and_read_back(tmp_path):
    path = tmp_path / "game.journal"
    journal = Journal.create(path, HEADER)
    journal.append("start", "New game")
    journal.append("move", "White played 4c3", {"move": "4c3"})
    journal.close()
    header, events, good = read_journal(path)
    assert header == HEADER
    assert [(e.seq, e.kind, e.text) for e in events] == [(1, "start", "New game"), (2, "move", "White played 4c3")]
    assert events[1].data == {"move": "4c3"}
    assert good == path.stat().st_size


def test_each_event_is_on_disk_when_append_returns(tmp_path):
    path = tmp_path / "game.journal"
    journal = Journal.create(path, HEADER)
    journal.append("move", "one", {"n": 1})
    # another reader sees it at once: it was written and flushed, not buffered
    lines = path.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["format"] == FORMAT
    assert json.loads(lines[1])["text"] == "one"
    journal.close()


def test_a_torn_last_line_is_dropped_and_cut_on_open(tmp_path):
    path = tmp_path / "game.journal"
    journal = Journal.create(path, HEADER)
    journal.append("move", "kept")
    journal.close()
    with open(path, "ab") as f:
        f.write(b'{"seq": 2, "time": 1.0, "kind": "mo')  # the process died mid-write
    header, events, good = read_journal(path)
    assert [e.text for e in events] == ["kept"]
    assert good < path.stat().st_size
    reopened = Journal.open(path)
    assert path.stat().st_size == good
    event = reopened.append("move", "after")
    reopened.close()
    assert event.seq == 2
    assert [e.text for e in read_journal(path)[1]] == ["kept", "after"]


def test_damage_in_the_middle_names_the_line(tmp_path):
    path = tmp_path / "game.journal"
    journal = Journal.create(path, HEADER)
    journal.append("move", "a")
    journal.append("move", "b")
    journal.close()
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[1] = "not json\n"
    path.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(JournalError, match=r"line 2"):
        read_journal(path)


def test_events_out_of_order_are_refused(tmp_path):
    path = tmp_path / "game.journal"
    journal = Journal.create(path, HEADER)
    journal.append("move", "a")
    journal.close()
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps({"seq": 5, "time": 0, "kind": "move", "text": "x"}) + "\n")
    with pytest.raises(JournalError, match=r"line 3: event number 5, expected 2"):
        read_journal(path)


def test_a_file_that_is_not_a_journal(tmp_path):
    path = tmp_path / "other.journal"
    path.write_text('{"format": "something else"}\n', encoding="utf-8")
    with pytest.raises(JournalError, match="line 1: not a 'cupboard-journal 1' journal"):
        read_journal(path)
    path.write_text("", encoding="utf-8")
    with pytest.raises(JournalError, match="no header"):
        read_journal(path)
    with pytest.raises(JournalError, match="cannot read"):
        read_journal(tmp_path / "missing.journal")
