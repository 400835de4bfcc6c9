"""Game records (engine.record): round trips, replay, clear errors, files, the CLI."""

import doctest
import errno
import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.cli import main
from engine.gobblet import Board
from engine import variant
from engine.gobblet.board import parse_position
from engine.record import (
    FORMAT,
    GameRecord,
    RecordedMove,
    RecordError,
    append_record,
    load_records,
    read_records,
    save_records,
    write_records,
)
from engine.gobblet.rules import VARIANTS

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "examples" / "sample-games.gbn"
TOUCH_POSITION = "gobblet-jr B1,W3,B3/B3,W1,B2/W1,B1,W3 b 2,2 2 7"  # Black's b1 and a3 are stuck


def random_game(token: str, seed: int, max_moves: int = 80, start: str | None = None) -> Board:
    rng = random.Random(seed)
    board = parse_position(start) if start else Board(variant(token))
    for _ in range(max_moves):
        moves = board.legal_moves()
        if not moves:
            break
        board.push(rng.choice(moves))
    return board


def simple(moves: str, result: str = "*", tags: str = "") -> str:
    return f'[Variant "gobblet"]\n{tags}\n{moves} {result}\n'


# ---------------------------------------------------------------- round trips
@pytest.mark.parametrize("token", [*VARIANTS, "gobblet[board=5,line=4]", "custom[first=b]"])
def test_records_of_random_games_round_trip_and_replay(token):
    for seed in range(6):
        board = random_game(token, seed, max_moves=10 + 15 * seed)
        notes = [{"time": str(i), "conf": "0.9"} for i in range(0, len(board.move_stack), 3)]
        record = GameRecord.from_board(
            board, tags={"White": "Ann", "Black": "Bob"}, annotations=notes
        )
        text = write_records([record])
        again = read_records(text, "mem.gbn")
        assert again == [record]
        assert write_records(again) == text
        replayed = again[0].replay()
        assert replayed.key() == board.key()
        assert replayed.outcome() == board.outcome()
        assert record.result == (board.outcome().result if board.outcome() else "*")


def test_set_up_games_record_their_start_position():
    start = "storer .,.,.,B4/.,.,W3,./.,W4,.,./.,.,.,. b 4,4,2 4,4,3 3"
    board = random_game("storer", 3, max_moves=7, start=start)
    record = GameRecord.from_board(board)
    assert record.tags["Position"] == start
    text = write_records([record])
    assert "\n3... " in text  # Black moves first: the first move number says so
    (again,) = read_records(text)
    assert again.start_board().text() == start
    assert again.replay().key() == board.key()


def test_tags_are_kept_in_order_and_unknown_tags_survive():
    text = (
        f'[Format "{FORMAT}"]\n[Variant "gobblet-jr"]\n[Zeta "last letter"]\n[White "Ann"]\n'
        '[Opening "a \\"quoted\\" name with \\\\ backslash"]\n[Result "*"]\n\n1. 3b2 *\n'
    )
    (record,) = read_records(text)
    assert list(record.tags) == ["Variant", "Zeta", "White", "Opening", "Result"]
    assert record.tags["Opening"] == 'a "quoted" name with \\ backslash'
    assert write_records([record]) == text


def test_comments_annotations_and_escapes():
    text = simple(
        "1. 4c3 {[%time 12.4] [%conf 0.98]} 4b2 {[%hint 4a1] Referee:\n   nice \\} [%empty]}"
    )
    (record,) = read_records(text)
    first, second = record.moves
    assert first.annotations == {"time": "12.4", "conf": "0.98"} and first.comment == ""
    assert second.annotations == {"hint": "4a1", "empty": ""}
    assert second.comment == "Referee: nice }"
    assert read_records(write_records([record])) == [record]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    token=st.sampled_from(list(VARIANTS)),
    names=st.lists(st.text(max_size=12), min_size=2, max_size=2),
    comment=st.text(max_size=30),
    note=st.text(max_size=15),
    key=st.from_regex(r"[A-Za-z][A-Za-z0-9_-]{0,6}", fullmatch=True),
)
def test_any_text_in_tags_and_comments_round_trips(seed, token, names, comment, note, key):
    board = random_game(token, seed, max_moves=seed % 20)
    n = len(board.move_stack)
    record = GameRecord.from_board(
        board,
        tags={"White": names[0], "Black": names[1]},
        annotations=[{key: note}] * n,
        comments=[comment] * n,
    )
    text = write_records([record, record])
    assert read_records(text) == [record, record]
    assert write_records(read_records(text)) == text


def test_endings_by_action_are_recorded_and_replayed():
    jr = random_game("gobblet-jr", 1, max_moves=3)
    jr.resign(0)  # White resigns, though it is Black's move
    assert jr.turn == 1
    ended = [jr]
    draw = random_game("gobblet", 2, max_moves=4)
    draw.agree_draw()
    ended.append(draw)
    touch = parse_position(TOUCH_POSITION)
    touch.forfeit_touch(touch.geo.square("b1"))
    ended.append(touch)
    for board in ended:
        record = GameRecord.from_board(board)
        assert record.tags["Termination"] == board.outcome().reason
        (again,) = read_records(write_records([record]))
        assert again.replay().outcome() == board.outcome()
    assert GameRecord.from_board(ended[0]).result == "0-1"


def test_unfinished_game():
    board = random_game("gobblet", 4, max_moves=5)
    record = GameRecord.from_board(board)
    assert record.result == "*" and record.tags["Termination"] == "unfinished"
    assert record.replay().outcome() is None


def test_from_board_replaces_tags_the_board_decides():
    board = random_game("gobblet-jr", 9)
    record = GameRecord.from_board(
        board, tags={"Variant": "gobblet", "White": "Ann", "Result": "*", "Format": "old"}
    )
    assert record.tags["Variant"] == "gobblet-jr"
    assert record.tags["Result"] == board.outcome().result
    assert "Format" not in record.tags


def test_sample_file_is_canonical_and_every_game_replays():
    text = SAMPLES.read_text(encoding="utf-8")
    records = load_records(SAMPLES)
    assert len(records) >= 5
    assert write_records(records) == text  # the samples are exactly what the writer makes
    reasons = set()
    for record in records:
        board = record.replay()
        reasons.add(record.tags["Termination"])
        if board.outcome():
            assert board.outcome().result == record.result
    assert {"line", "resignation", "agreement", "touch-move", "unfinished"} <= reasons


# ---------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "text, line, words",
    [
        ('[Variant "gobblet"\n1. 4c3 *\n', 1, "unterminated tag"),
        ("[Variant gobblet]\n*\n", 1, "is not a tag like"),
        (simple("1. 4c3 {never closed 4b2", tags="\n"), 4, "unterminated comment"),
        (simple("1. 4c3 {[%time 12 } 4b2"), 3, "unterminated annotation [%time"),
        (simple("1. 4c3 {[%time 1]} {[%time 2]}"), 3, "annotation [%time] given twice"),
        (simple("1. 4c3 4b2!"), 3, "unknown token '4b2!'"),
        (simple("1. 4c3 banana"), 3, "unknown token 'banana'"),
        (simple("1. 4c3 }"), 3, "without a matching opening bracket"),
        (
            '[Variant "gobblet"]\n[Result "1-0"]\n\n1. 4c3 0-1\n',
            4,
            "ends with 0-1 but its Result tag says 1-0",
        ),
        ('[White "Ann"]\n\n1. 4c3 *\n', 1, "no Variant tag"),
        ('[Variant "chess"]\n\n1. 4c3 *\n', 1, "Variant: unknown variant 'chess'"),
        (
            '[Variant "gobblet"]\n[White "A"]\n[White "B"]\n*\n',
            3,
            "tag White given twice (first on line 2)",
        ),
        (
            '[Variant "gobblet"]\n\n1. 4c3\n[Variant "gobblet"]\n*\n',
            4,
            "the game before it has no result",
        ),
        ('[Variant "gobblet"]\n\n1. 4c3 4b2\n', 3, "the last game does not end with a result"),
        (
            '[Format "cupboard-record 9"]\n[Variant "gobblet"]\n*\n',
            1,
            "Format 'cupboard-record 9' is not supported",
        ),
        ('[Variant "gobblet"]\n[Result "2-0"]\n*\n', 2, "Result '2-0' is not one of"),
        (
            '[Variant "gobblet"]\n[Termination "boredom"]\n*\n',
            2,
            "Termination 'boredom' is not one of",
        ),
        (
            '[Variant "gobblet"]\n[Position "gobblet . w"]\n*\n',
            2,
            "Position: a position text has 6 fields",
        ),
        (
            f'[Variant "gobblet"]\n[Position "{TOUCH_POSITION}"]\n*\n',
            2,
            "Position is a gobblet-jr position but Variant is gobblet",
        ),
        (simple("{first} 1. 4c3"), 3, "a comment must follow a move"),
        (simple("1. 2. 4c3"), 3, "two move numbers in a row"),
        (simple("4c3 1."), 3, "move number 1. is followed by the result"),
        ("1. 4c3 *\n", 1, "a game starts with its tags"),
    ],
)
def test_reading_errors_name_the_line_and_problem(text, line, words):
    with pytest.raises(RecordError) as info:
        read_records(text, "games.gbn")
    message = str(info.value)
    assert message.startswith(f"games.gbn line {line}: "), message
    assert words in message, message
    assert info.value.line == line


def test_illegal_move_names_number_side_and_line():
    text = simple("1. 4c3 4b2\n2. 4c3-d4 {ok}\n2... 4b2-c3 4b1-c3", tags='[White "Ann"]')
    (record,) = read_records(text, "games.gbn")
    with pytest.raises(RecordError) as info:
        record.replay()
    assert str(info.value) == (
        "games.gbn line 5: move 3 (White) 4b1-c3: illegal: b1 is empty: there is no piece to move"
    )
    assert info.value.line == 5


def test_illegal_move_messages():
    cases = [
        (
            "1. 4c3 4b2 2. 4b2-a1",
            "line 3: move 2 (White) 4b2-a1: illegal: the top of b2 is Black's, not White's",
        ),
        (
            "1. 4c3 4e2",
            "line 3: move 1 (Black) 4e2: unknown square 'e2': squares run from a1 to d4",
        ),
        (
            "1. 4c3 4c3",
            "line 3: move 1 (Black) 4c3: illegal: c3 holds a size 4, not smaller than 4",
        ),
        (
            "1. 4c3 4b2#",
            "line 3: move 1 (Black) 4b2#: illegal: "
            "marked '#' but the move gives no mark (the game goes on)",
        ),
        ("1. 4c3 2. 4b2", "line 3: move number 2. before 4b2 should be 1...: it is move 1 (Black)"),
        ("1... 4c3", "line 3: move number 1... before 4c3 should be 1.: it is move 1 (White)"),
    ]
    for moves, words in cases:
        (record,) = read_records(simple(moves), "g.gbn")
        with pytest.raises(RecordError) as info:
            record.replay()
        assert str(info.value) == f"g.gbn {words}"


def test_recorded_ending_must_match_the_game():
    won = GameRecord.from_board(random_game("gobblet-jr", 9))
    assert won.result != "*"
    text = write_records([won])
    lines = text.splitlines()
    last = len(lines)
    wrong = text.replace(f'[Result "{won.result}"]', '[Result "*"]').replace(
        f" {won.result}\n", " *\n"
    )
    with pytest.raises(
        RecordError,
        match=rf"line {last}: the game ends after the last move .* but the record says \*",
    ):
        read_records(wrong, "w.gbn")[0].replay()
    cases = [
        ('[Result "1-0"]', "1. 4c3 1-0", "the result is 1-0 but the game is not over"),
        (
            '[Result "1/2-1/2"]\n[Termination "resignation"]',
            "1. 4c3 1/2-1/2",
            "resignation has result 1-0 or 0-1",
        ),
        ('[Result "1-0"]\n[Termination "agreement"]', "1. 4c3 1-0", "agreement has result 1/2-1/2"),
        (
            '[Result "1-0"]\n[Termination "line"]',
            "1. 4c3 1-0",
            "Termination is line but the game is not over",
        ),
        (
            '[Result "0-1"]\n[Termination "touch-move"]',
            "1. 4c3 0-1",
            "the player to move (Black), so the result is 1-0",
        ),
        (
            '[Result "1-0"]\n[Termination "touch-move"]',
            "1. 4c3 1-0",
            "every piece Black could lift can move",
        ),
    ]
    for tags, moves, words in cases:
        (record,) = read_records(simple(moves, "", tags), "t.gbn")
        with pytest.raises(RecordError) as info:
            record.replay()
        assert words in str(info.value) and str(info.value).startswith("t.gbn line "), str(
            info.value
        )


def test_resignation_in_text_replays_to_the_right_winner():
    (record,) = read_records(simple("1. 4c3 4b2", "0-1", '[Termination "resignation"]'))
    outcome = record.replay().outcome()
    assert outcome.winner == 1 and outcome.reason == "resignation"


def test_values_that_cannot_be_written_are_refused():
    with pytest.raises(RecordError, match="tag name 'Two words'"):
        GameRecord({"Variant": "gobblet", "Two words": "x"}, [], "*")
    with pytest.raises(RecordError, match="result '2-0'"):
        GameRecord({"Variant": "gobblet"}, [], "2-0")
    with pytest.raises(RecordError, match="Result tag says 1-0 but the result is \\*"):
        GameRecord({"Variant": "gobblet", "Result": "1-0"}, [], "*")
    with pytest.raises(RecordError, match="annotation key 'a b'"):
        RecordedMove("4c3", {"a b": "1"})
    with pytest.raises(RecordError, match="cannot be written as a move"):
        RecordedMove("4c3 {x}")
    # a newline in a tag value becomes a space: tags stay one line each
    record = GameRecord({"Variant": "gobblet", "Place": "Kitchen\ntable"}, [], "*")
    assert record.tags["Place"] == "Kitchen table"


# ---------------------------------------------------------------- robustness
RECORD_CHARS = '[]{}"\\%. \n-/*#?=x10234abcdWBVariantgobletjr;'
RECORD_CHUNKS = st.sampled_from(
    [*RECORD_CHARS, '[Variant "gobblet"]', "4c3", "1-0", "[%time 1]", "1."]
)
RECORD_TEXT = st.lists(RECORD_CHUNKS, max_size=40).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.one_of(RECORD_TEXT, st.text(max_size=80)))
def test_reader_and_replay_never_crash_on_random_text(text):
    try:
        records = read_records(text, "fuzz.gbn")
    except RecordError as e:
        assert str(e).startswith("fuzz.gbn")
        return
    for record in records:
        try:
            record.replay()
        except RecordError as e:
            assert str(e).startswith("fuzz.gbn")
        assert read_records(write_records([record])) == [record]


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_damaged_records_give_record_errors(data):
    text = SAMPLES.read_text(encoding="utf-8")
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(text)))
        j = data.draw(st.integers(i, min(len(text), i + 6)))
        text = text[:i] + data.draw(st.text(alphabet=RECORD_CHARS, max_size=4)) + text[j:]
    try:
        records = read_records(text, "damaged.gbn")
    except RecordError:
        return
    for record in records:
        try:
            record.replay()
        except RecordError:
            pass


# ---------------------------------------------------------------- files
def test_save_load_append(tmp_path):
    path = tmp_path / "games.gbn"
    a = GameRecord.from_board(random_game("gobblet", 1, 9), {"White": "Ann"})
    b = GameRecord.from_board(random_game("gobblet-jr", 2), {"White": "Mia"})
    save_records(path, [a])
    assert load_records(path) == [a]
    append_record(path, b)
    assert load_records(path) == [a, b]
    assert path.read_text(encoding="utf-8") == write_records([a, b])
    append_record(tmp_path / "new.gbn", b)
    assert load_records(tmp_path / "new.gbn") == [b]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.gbn", "new.gbn"]  # no temp files


def test_append_keeps_hand_edited_text(tmp_path):
    path = tmp_path / "games.gbn"
    hand = '; my notes\n[Variant "gobblet"]\n\n1. 4c3 {typed by hand} *'
    path.write_text(hand, encoding="utf-8")
    b = GameRecord.from_board(random_game("gobblet-jr", 2), {"White": "Mia"})
    append_record(path, b)
    text = path.read_text(encoding="utf-8")
    assert text.startswith(hand + "\n\n")
    assert [r.tags.get("White") for r in load_records(path)] == [None, "Mia"]


def test_save_into_a_missing_folder_fails_cleanly(tmp_path):
    """An OSError that names the file and what was not saved, and nothing left behind."""
    with pytest.raises(OSError, match=r"No such file or directory: the record file \(.*games.gbn\) was not saved") as e:
        save_records(tmp_path / "nope" / "games.gbn", [])
    assert e.value.errno == errno.ENOENT
    assert list(tmp_path.iterdir()) == []


def test_failed_write_keeps_the_old_file(tmp_path):
    path = tmp_path / "games.gbn"
    a = GameRecord.from_board(random_game("gobblet", 1, 9))
    save_records(path, [a])
    before = path.read_text(encoding="utf-8")

    def broken():
        yield a
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError):
        save_records(path, broken())
    assert path.read_text(encoding="utf-8") == before
    assert [p.name for p in tmp_path.iterdir()] == ["games.gbn"]


def test_load_errors_name_the_file(tmp_path):
    path = tmp_path / "bad.gbn"
    path.write_bytes(b'[Variant "gobblet"]\n\n1. 4c3 {caf\xe9} *\n')
    with pytest.raises(RecordError, match=r"bad.gbn line 3: the file is not UTF-8 text"):
        load_records(path)
    path.write_text('[Variant "gobblet"]\n\n1. 4c3 4b2 2. zz *\n', encoding="utf-8")
    with pytest.raises(RecordError, match=r"bad.gbn line 3: unknown token 'zz'"):
        load_records(path)


# ---------------------------------------------------------------- command line
def test_cli_validate_reports_each_game(tmp_path, capsys):
    assert main(["record", "validate", str(SAMPLES)]) == 0
    out = capsys.readouterr().out
    assert "5 of 5 games valid" in out and "Draw by agreement" in out
    path = tmp_path / "two.gbn"
    path.write_text(simple("1. 4c3 4b2") + "\n" + simple("1. 4c3 4c3"), encoding="utf-8")
    assert main(["record", "validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert "game 1 (? - ?): valid, 2 moves, unfinished" in out
    assert f"{path} line 7: move 1 (Black) 4c3: illegal: c3 holds a size 4" in out
    assert "1 of 2 games valid" in out


def test_cli_validate_unreadable_file_is_one_line(tmp_path, capsys):
    path = tmp_path / "broken.gbn"
    path.write_text('[Variant "gobblet"\n', encoding="utf-8")
    assert main(["record", "validate", str(path)]) == 1
    err = capsys.readouterr().err
    assert (
        err.strip() == f"cupboard record: {path} line 1: unterminated tag '[Variant \"gobblet\"': "
        'a tag is [Name "value"] on one line'
    )
    assert main(["record", "validate", str(tmp_path / "missing.gbn")]) == 1
    assert "missing.gbn" in capsys.readouterr().err


# ---------------------------------------------------------------- docs
def test_record_examples_in_the_docs_are_real():
    text = (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```record\n(.*?)^```$", text, flags=re.S | re.M)
    assert blocks
    for block in blocks:
        records = read_records(block, "docs/formats.md")
        assert write_records(records) == block
        for record in records:
            record.replay()


def test_doctests_in_the_docs_pass():
    result = doctest.testfile(
        str(ROOT / "docs" / "formats.md"), module_relative=False, verbose=False
    )
    assert result.attempted >= 10
    assert result.failed == 0
