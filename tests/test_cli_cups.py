"""The `cupboard` command line on Cups, run for real: perft, moves, show (text and SVG), hint,
selfplay and record validate, with --variant cups, a rule token and a Cups position text."""

import random
import subprocess
import sys

import pytest

from companion.cli import main
from engine import variant
from engine.record import GameRecord, write_record, write_records


def count(game, depth: int) -> int:
    """Move sequences of ``depth`` moves, counted through the contract alone."""
    if depth == 0:
        return 1
    total = 0
    for move in game.legal_moves():
        game.push(move)
        total += count(game, depth - 1)
        game.pop()
    return total


def random_game(token: str, seed: int, plies: int | None = None):
    rng = random.Random(seed)
    game = variant(token).new_game()
    while game.outcome() is None and (plies is None or game.ply < plies):
        game.push(rng.choice(game.legal_moves()))
    return game


@pytest.mark.parametrize("token, depth", [("cups", 4), ("cups[cups=3]", 5), ("cups[cups=10]", 3)])
def test_perft_counts_as_the_contract_does(capsys, token, depth):
    assert main(["perft", token, str(depth)]) == 0
    assert int(capsys.readouterr().out.splitlines()[0]) == count(variant(token).new_game(), depth)


def test_perft_divide_and_from_a_position_text(capsys):
    game = random_game("cups[cups=3]", seed=3, plies=6)
    assert main(["perft", "cups", "2", "--divide", "--position", game.text()]) == 0
    lines = capsys.readouterr().out.splitlines()
    per_move = {line.split(": ")[0]: int(line.split(": ")[1]) for line in lines if ": " in line}
    assert set(per_move) == {game.move_text(m) for m in game.legal_moves()}
    assert sum(per_move.values()) == count(game, 2) == int(lines[len(per_move)])


def test_moves_of_the_start_and_of_a_position():
    out = subprocess.run([sys.executable, "-m", "companion.cli", "moves", "--variant", "cups[cups=3]"],
                         capture_output=True, text=True, check=True).stdout
    assert "3 legal moves:\nd1 d2 d3" in out and "South to move" in out and "S1" in out and "N3" in out
    # South's cup 3 holds 1 bean (its distance to the bowl): it can be sown
    text = "cups[cups=3] S 0 0 1 | 0 | 29 / N 0 0 0 | 0 | 30 ; S to move"
    out = subprocess.run([sys.executable, "-m", "companion.cli", "moves", "--position", text],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip().endswith("d1 d2 d3 s3")


def test_show_prints_the_position_and_writes_the_drawing(tmp_path, capsys):
    svg = tmp_path / "cups.svg"
    assert main(["show", "--variant", "cups", "--svg", str(svg)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "cups S 0 0 0 0 | 0 | 40 / N 0 0 0 0 | 0 | 40 ; S to move"
    assert "South's stock 40" in out
    drawing = svg.read_text()
    assert drawing.startswith("<svg") and 'class="cups-board"' in drawing and drawing.count("data-cup=") == 8


def test_show_hidden_is_refused_for_beans(tmp_path):
    run = subprocess.run([sys.executable, "-m", "companion.cli", "show", "--variant", "cups", "--hidden",
                          "--svg", str(tmp_path / "x.svg")], capture_output=True, text=True)
    assert run.returncode != 0 and "has no hidden pieces" in run.stderr and "Traceback" not in run.stderr


def test_bad_cups_input_is_named_without_a_traceback():
    for args, problem in [
        (["perft", "cups[cups=2]", "2"], "cups must be 3 to 10"),
        (["moves", "--position", "cups S 0 0 0 | 0 | 40 / N 0 0 0 0 | 0 | 40 ; S to move"], "has 3 cups"),
    ]:
        run = subprocess.run([sys.executable, "-m", "companion.cli", *args], capture_output=True, text=True)
        assert run.returncode != 0 and problem in run.stderr and "Traceback" not in run.stderr, run.stderr


def test_hint_exact_for_the_small_game(capsys):
    assert main(["hint", "--variant", "cups[cups=3,beans=6]", "--time", "2"]) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert first.split()[0] in {"d1", "d2", "d3"} and "with perfect play" in first
    assert "level full, exact" in out and "alternatives:" in out


def test_hint_at_a_low_level_from_a_position(capsys):
    game = random_game("cups", seed=5, plies=8)
    assert main(["hint", "--position", game.text(), "--level", "2", "--time", "0.5"]) == 0
    out = capsys.readouterr().out
    assert out.split()[0] in {game.move_text(m) for m in game.legal_moves()}
    assert "level casual" in out


def test_selfplay_plays_whole_games(capsys):
    assert main(["selfplay", "--variant", "cups[cups=3,beans=6]", "--games", "2", "--white", "full",
                 "--black", "beginner", "--time", "0.2"]) == 0
    out = capsys.readouterr().out
    assert "game 1: full (South) vs beginner (North):" in out
    assert "2 games of cups[cups=3,beans=6]" in out


def test_record_validate_replays_cups_games(tmp_path, capsys):
    games = [random_game("cups[cups=3,beans=6]", seed) for seed in (1, 2)]
    unfinished = random_game("cups", 9, plies=5)
    path = tmp_path / "cups.gbn"
    path.write_text(write_records(GameRecord.from_board(g, {"White": "Ann", "Black": "Bob"})
                                  for g in [*games, unfinished]))
    assert main(["record", "validate", str(path)]) == 0
    out = capsys.readouterr().out
    assert "3 of 3 games valid" in out
    assert out.count("on bowls") + out.count("equal bowls") == 2 and "unfinished" in out
    # a move the rules refuse: the line and the rule are named
    broken = write_record(GameRecord.from_board(games[0])).replace("1. d", "1. s", 1)
    path.write_text(broken)
    assert main(["record", "validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert "illegal: cup" in out and "can be sown only with exactly" in out and "line" in out


def test_prepare_builds_the_table_hints_load(capsys):
    from engine.cups.hints import table_path

    rules = variant("cups[cups=3,beans=6]")
    assert main(["prepare", "--variant", rules.token]) == 0
    out = capsys.readouterr().out
    start_value = int(out.split("start value ")[1].split()[0])
    assert table_path(rules).is_file() and str(table_path(rules)) in out
    # the value is the exact one the hint gives for the best first move
    hint = main(["hint", "--variant", rules.token, "--time", "2"])
    assert hint == 0 and "exact" in capsys.readouterr().out
    # from South's side: the best first move's value is the start's value
    from engine import hint as engine_hint

    best = engine_hint(rules.new_game(), "full", 2.0)
    if start_value == 0:
        assert best.value.startswith("level")
    else:
        verb = "wins" if start_value > 0 else "loses"
        assert best.value.startswith(f"{verb} by {abs(start_value)} bean")
    run = subprocess.run([sys.executable, "-m", "companion.cli", "prepare", "--variant", "cups[cups=10]"],
                         capture_output=True, text=True)
    assert run.returncode != 0 and "do not fit the exact solver" in run.stderr and "Traceback" not in run.stderr
