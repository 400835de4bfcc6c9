"""Storer's clear cups on rendered boards: the white rim decides a clear cup's size, never
fires on bare wood or the solid smallest cup, and a light cup is read light even where its
shaded side shows more than its top; a cup's colour is read on its top, not on what the edge
search found beside it, nor on a glare spot."""

from dataclasses import replace

import numpy as np
import pytest

from calibration import calibrate
from hardware.pieces import load_board, load_piece_set
from hardware.synthetic import empty_scene, random_scene, render_scene
from vision.evaluate import evaluate
from vision.observation import CUP
from vision.recognise import POLAR_RADII, RIM_SURE, Recogniser
from vision.square_model import N_POLAR_RADII, POLAR_CHANNELS, POLAR_STATS

LIGHT, DARK = 0, 1


def _read(position_of, seed: int):
    """Calibrate a random camera of seed ``seed`` on its empty board, render the position
    ``position_of(squares)`` under it and read it: (recogniser, observation, position)."""
    pieces = load_piece_set("storer-clear")
    board = load_board(pieces.default_board)
    base = random_scene(pieces, board, seed)
    cal = calibrate([render_scene(empty_scene(base), seed + 1)[0]], pieces, board,
                    intrinsics=base.intrinsics, intrinsics_source="nominal")
    position = position_of(board.squares)
    scene = random_scene(pieces, board, seed + 2, position=position, intrinsics=base.intrinsics, pose=base.pose)
    # the same board and table as at calibration: they are the same furniture
    scene = replace(scene, table_bgr=base.table_bgr, texture_variant=base.texture_variant)
    rec = Recogniser(cal)
    return rec, rec.recognise(render_scene(scene, seed + 3)[0]), position


def _lone_light_cups(squares: int) -> tuple:
    # light sizes 2-5 (classes 1-4) round the board, every third square empty
    return tuple(() if sq % 3 == 2 else ((LIGHT, 1 + sq % 4),) for sq in range(squares))


@pytest.mark.parametrize("seed", [101, 202, 303, 404, 606])
def test_light_clear_cups_are_read_by_their_rim(seed):
    rec, obs, position = _read(_lone_light_cups, seed)
    rim_score, _ = rec.last_rim
    cups = [sq for sq, stack in enumerate(position) if stack]
    # the rim is found on most light cups (measured 6, 10, 11, 8 and 10 of 11 on these seeds)
    # and where it is found it names the right size (one slip in 45)
    found = [sq for sq in cups if rim_score[sq].max() >= RIM_SURE]
    assert len(found) >= len(cups) // 2, (seed, rim_score)
    named = sum(int(rim_score[sq].argmax()) == position[sq][-1][1] for sq in found)
    assert named >= len(found) - 1, (seed, rim_score)
    # (measured 11, 10, 11, 11 and 11 of 11 read exactly)
    assert sum(obs.squares[sq].top == position[sq][-1] for sq in cups) >= len(cups) - 2, (seed, obs)


@pytest.mark.parametrize("seed", [11, 22, 33])
def test_rim_never_fires_on_bare_wood_or_solid_cups(seed):
    def solid_or_empty(squares: int) -> tuple:
        return tuple(((sq % 2, 0),) if sq % 3 == 0 else () for sq in range(squares))

    rec, obs, position = _read(solid_or_empty, seed)
    rim_score, _ = rec.last_rim
    assert float(rim_score.max()) < RIM_SURE, rim_score
    for sq, stack in enumerate(position):
        if not stack:
            assert obs.squares[sq].state != CUP, (sq, obs.squares[sq])


@pytest.mark.parametrize("seed", [5, 6, 7])
def test_light_solid_cups_read_light_not_dark(seed):
    """The smallest cup is solid light wood: its shaded side can show as large as its top
    and much darker, but it keeps the light wood's tint."""
    rec, obs, position = _read(lambda n: tuple(((LIGHT, 0),) for _ in range(n)), seed)
    colours = [r.colour for r in obs.squares if r.state == CUP]
    assert len(colours) >= len(position) - 1
    assert colours.count(DARK) == 0, colours
    assert np.mean([r.top == (LIGHT, 0) for r in obs.squares]) >= 0.85


@pytest.mark.parametrize("seed", [101, 202, 303])
def test_radial_profile_puts_a_clear_cups_rim_at_its_own_size(seed):
    """The whiteness profile read around a dark-plugged clear cup at its true size peaks at
    its rim, about the size's outer radius (a wrong size puts it elsewhere or nowhere)."""
    def mixed(squares: int) -> tuple:
        return tuple(() if sq % 3 == 2 else ((sq % 2, 1 + sq % 4),) for sq in range(squares))

    rec, _, position = _read(mixed, seed)
    white = rec.last_evidence.polar.reshape(len(position), -1, len(POLAR_CHANNELS), N_POLAR_RADII,
                                            len(POLAR_STATS))[:, :, 0, :, 0]
    for sq, stack in enumerate(position):
        if not stack or stack[-1][0] != DARK:
            continue
        size = stack[-1][1]
        assert 0.85 <= POLAR_RADII[white[sq, size].argmax()] <= 1.05, (sq, size, white[sq, size])


# Frames of the 500-board bench (``bench/vision.py --sets storer-clear``, seed 0) that read a cup
# in the other player's colour with a confidence near 1; frame k is board (k - 1) % 2 of camera
# (k - 1) // 2.
@pytest.mark.parametrize("frame, square, why", [
    (72, 10, "a glare spot filled the middle of the dark plug"),
    (286, 7, "the edges found the light solid cup's shaded wall and shadow, not its top"),
    (382, 14, "the edges found the dark cup seen through the light cup's clear wall"),
])
def test_colour_is_read_on_the_top(frame, square, why):
    seen = []
    res = evaluate("storer-clear", boards=2, seed=0, first_camera=(frame - 1) // 2,
                   observer=lambda rec, obs, truth: seen.append((obs.squares[square], truth.tops[square])))
    reading, top = seen[(frame - 1) % 2]
    assert reading.state == CUP and reading.top == top, (why, reading, top)
    # nor is any other cup of the camera's two boards read in the other player's colour
    swapped = {pair: n for pair, n in res.confusion.items()
               if pair[0][0] in "LD" and pair[1][0] in "LD" and pair[0][0] != pair[1][0]}
    assert not swapped, swapped
