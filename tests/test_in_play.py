"""A size class the game leaves out is never read (``Recogniser(in_play=...)``): Storer's
five-size set plays four-size games with its four largest cups, and a shadow on the lid that
looks most like the smallest cup was read as one, so the referee saw "a cup of a size not in
this game" beside a legal move.  Rendered frames of the shaded look, set measured, tuning
seed 5."""

from hardware.pieces import load_board, load_piece_set
from vision.evaluate import bench_cameras
from vision.observation import CUP, EMPTY
from vision.recognise import Recogniser

STORER_FOUR = (False, True, True, True, True)  # the smallest class is not in a four-size game


def _frames(camera: int):
    pieces = load_piece_set("storer-clear")
    board = load_board(pieces.default_board)
    (cam,) = bench_cameras(pieces, board, 2, 5, first_camera=camera, measure=True, style="shaded")
    assert cam.calibration is not None
    return cam.calibration, cam.frames


def test_a_shadow_read_as_a_size_the_game_leaves_out_is_read_empty_and_doubtful():
    """Seed 5's 7th camera, 2nd frame, a2 (empty): read as the smallest dark cup (0.83) with
    every class; with the game's classes it is empty, and doubtful.  Cups of the classes left
    out, which players might still put down by mistake, are never read confidently as another."""
    calibration, frames = _frames(6)
    image, truth = frames[1]
    assert truth.tops[4] is None, "the boards changed: the case this test is about is gone"
    every = Recogniser(calibration).recognise(image).squares[4]
    assert every.state == CUP and every.size == 0
    played = Recogniser(calibration, in_play=STORER_FOUR)
    for image, truth in frames:
        obs = played.recognise(image)
        assert not [r for r in obs.squares if r.state == CUP and r.size == 0]
        for r, top in zip(obs.squares, truth.tops):
            if top is not None and top[1] == 0:
                assert r.confidence < 0.5, (top, r)
    assert obs.squares[4].state == EMPTY and obs.squares[4].confidence < 0.5


def test_every_class_is_read_by_default_and_a_wrong_length_is_refused():
    calibration, frames = _frames(6)
    image, truth = frames[0]
    default = Recogniser(calibration).recognise(image)
    every = Recogniser(calibration, in_play=(True,) * 5).recognise(image)
    assert [(r.state, r.top, r.confidence) for r in default.squares] == [
        (r.state, r.top, r.confidence) for r in every.squares]
    try:
        Recogniser(calibration, in_play=(True,) * 4)
    except ValueError as e:
        assert "4 size classes" in str(e) and "5" in str(e)
    else:
        raise AssertionError("a wrong in_play length was taken")
