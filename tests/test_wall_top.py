"""A solid top of the board's own colour, whose far edge does not show and which leaves the
square's middle unchanged, is found by its shaded wall beyond its near edge
(``Recogniser._walls``; docs/geometry.md, "How sure a reading is"): read as a top, or at
least not confidently empty."""

from vision.evaluate import COMMIT, evaluate
from vision.observation import CUP, EMPTY
from vision.recognise import OUTLINED_TOP


def _reads(seed: int, camera: int) -> dict[tuple[int, int], tuple[object, object, float]]:
    """(frame, square) -> (truth's top, the reading's top or its state, confidence) for the two
    frames of one camera of the shaded look's Gobblet bench, the set measured."""
    out: dict[tuple[int, int], tuple[object, object, float]] = {}
    frame = [0]

    def observer(rec, obs, truth):
        frame[0] += 1
        for sq, (r, top) in enumerate(zip(obs.squares, truth.tops)):
            out[(frame[0], sq)] = (top, r.top if r.state == CUP else r.state, r.confidence)

    evaluate("gobblet", 2, seed=seed, first_camera=camera, measure=True, style="shaded", observer=observer)
    return out


def test_white_tops_on_a_white_board_are_not_read_empty():
    """Tuning seed 7's 4th camera: light cups on a cream painted board of their colour.  Main
    read a light 3 empty at 0.98 and a light 1 at 0.82 (and a light 4 at 0.79): no edge on the
    far arc, no change in the middle, no grain to hide.  The 3's and the 4's walls and the shade
    at their feet lead by 6-7 ring units on the near arc: they are read as light tops of their
    own sizes under the commit confidence.  (The 1's leads by 2.6, under ``WALL_DOUBT``, as
    much as bare board has made: it is left.)  The empty squares stay empty, as sure as
    before."""
    reads = _reads(7, 3)
    for place, top in {(2, 10): (0, 2), (1, 10): (0, 3)}.items():
        truth, got, conf = reads[place]
        assert truth == top, "the boards changed: the case this test is about is gone"
        assert got == top and 0.5 <= conf <= OUTLINED_TOP, (place, got, conf)
    for place, (truth, got, conf) in reads.items():
        if truth is None:
            assert got == EMPTY and conf >= COMMIT, (place, got, conf)


def test_white_top_as_white_as_its_board_is_read():
    """Tuning seed 7's 1st camera: a light 4 on a white board, as white as it.  Main read it
    empty at 0.995 (the referee would see the cup vanish); its wall leads by 7 on the near arc."""
    reads = _reads(7, 0)
    truth, got, conf = reads[(2, 12)]
    assert truth == (0, 3), "the boards changed: the case this test is about is gone"
    assert got == (0, 3) and 0.5 <= conf <= OUTLINED_TOP, (got, conf)
    for place, (truth, got, conf) in reads.items():
        if truth is None:
            assert got == EMPTY, (place, got, conf)
