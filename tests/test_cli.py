"""The engine subcommands of the `cupboard` command line, run for real."""

import subprocess
import sys

from companion.cli import main
from engine.gobblet import Board
from engine import variant


def test_perft_prints_the_count(capsys):
    assert main(["perft", "gobblet-jr", "2"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "675"


def test_perft_divide_sums_to_total(capsys):
    assert main(["perft", "gobblet", "2", "--divide"]) == 0
    lines = capsys.readouterr().out.splitlines()
    per_move = [int(line.split(": ")[1]) for line in lines if ": " in line]
    assert len(per_move) == 16 and sum(per_move) == 240
    assert "240" in lines


def test_perft_from_a_position():
    board = Board(variant("gobblet"))
    board.push(board.parse_move("4a1"))
    out = subprocess.run(
        [sys.executable, "-m", "companion.cli", "perft", "gobblet", "1", "--position", board.text()],
        capture_output=True, text=True, check=True,
    ).stdout
    assert out.splitlines()[0] == "15"


def test_moves_lists_every_legal_move(capsys):
    assert main(["moves", "--variant", "gobblet-jr"]) == 0
    out = capsys.readouterr().out
    assert "27 legal moves:" in out
    assert "3a1" in out and "1c3" in out


def test_show_prints_position_text_and_board(capsys):
    board = Board(variant("gobblet"))
    for text in ["4b2", "4c3"]:
        board.push(board.parse_move(text))
    assert main(["show", "--position", board.text()]) == 0
    out = capsys.readouterr().out
    assert board.text() in out
    assert "W4" in out and "B4" in out and "White to move" in out


def test_bad_position_is_one_clear_line(capsys):
    assert main(["moves", "--position", "gobblet nonsense"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("cupboard moves: ")
    assert "6 fields" in err and "Traceback" not in err


def test_unknown_variant_is_reported(capsys):
    assert main(["perft", "chess", "1"]) == 1
    assert "unknown variant 'chess'" in capsys.readouterr().err


def test_watch_refuses_a_game_the_piece_set_cannot_play(tmp_path, capsys):
    """Jr. cups (3 sizes) cannot referee a 4-size game: one clear line, and no game started."""
    data = tmp_path / "data"
    assert main(["watch", "--source", "demo", "--set", "gobblet-jr", "--variant", "gobblet", "--data", str(data)]) == 1
    assert "the piece set 'gobblet-jr' has 3 sizes; this game needs 4" in capsys.readouterr().err
    assert not data.exists()
