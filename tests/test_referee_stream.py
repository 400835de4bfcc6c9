"""The live referee on rendered camera streams: scripted games with hands moving the cups."""

import pytest
from referee_streams import alerts, recorded_moves, referee_for, run

from companion.demo import DEMO_GAMES, demo_camera, script_of
from engine import variant
from hardware.pieces import load_piece_set
from hardware.synthetic import SyntheticCamera

PROBLEMS = ("illegal", "disagrees", "hidden-mismatch", "board-moved")


# Every variant, with each kind of piece set that can play it: the commercial opaque cups and
# Storer's clear cups with wood plugs (its 4 largest sizes in 4-size games, all 5 in goblet-5).
# 4xa4: dark covers its own cup from the reserve on a line with three light tops (Storer's entry)
STORER_MOVES = ["4a1", "4d4", "3a2", "3a4", "2a3", "4xa4", "4a1-b1"]


@pytest.mark.parametrize("pieces_name,board_name,variant_name,moves", [
    ("gobblet", None, "gobblet", ["4a1", "4b2", "3c3", "4d4", "4a1-b1"]),
    ("storer-clear", None, "gobblet", ["4a1", "4b2", "3c3", "4d4", "4a1-b1"]),
    ("gobblet", None, "storer", STORER_MOVES),
    ("storer-clear", None, "storer", STORER_MOVES),
    ("gobblet-jr", None, "gobblet-jr", ["3b2", "2a1", "1c3", "3xa1", "2c1"]),
    ("storer-clear", "grid-5x5", "goblet-5", ["5c3", "5a1", "4b2", "4e5", "4b2-b3", "3d4", "3e1", "2b1"]),
], ids=lambda v: v if isinstance(v, str) else "")
def test_scripted_game_is_recorded_exactly(tmp_path, pieces_name, board_name, variant_name, moves):
    rules = variant(variant_name)
    pieces = load_piece_set(pieces_name)
    camera = SyntheticCamera(script=script_of(rules, pieces, moves), seed=5, pieces=pieces_name,
                             board=board_name, still_frames=12)
    session, referee = referee_for(tmp_path, rules, camera)
    camera.open()
    run(referee, camera)
    assert recorded_moves(session) == moves
    assert not alerts(session, *PROBLEMS)  # the board was never nudged: no alert says it was


@pytest.mark.parametrize("pieces_name", sorted(DEMO_GAMES))
def test_demo_games_are_refereed_to_their_end(tmp_path, pieces_name):
    camera, rules = demo_camera(pieces_name, seed=2, loop=False)
    session, referee = referee_for(tmp_path, rules, camera)
    camera.open()
    run(referee, camera)
    assert recorded_moves(session) == DEMO_GAMES[pieces_name][1]
    assert session.over and session.record_path.exists()
