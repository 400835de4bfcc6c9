"""A light solid top whose edge on a pale board barely shows, but whose whole outline is lighter
than what lies round it, is read as a top, not as empty (``Recogniser._outlined_top``;
docs/geometry.md, "How sure a reading is")."""

from vision.evaluate import evaluate
from vision.observation import CUP, EMPTY
from vision.recognise import OUTLINED_TOP


def _reads(seed: int, camera: int) -> dict[tuple[int, int], tuple[object, object, float]]:
    """(frame, square) -> (truth's top, the reading's top or its state, confidence) for the two
    frames of one camera of the shaded look's bench, the set measured."""
    out: dict[tuple[int, int], tuple[object, object, float]] = {}
    frame = [0]

    def observer(rec, obs, truth):
        frame[0] += 1
        for sq, (r, top) in enumerate(zip(obs.squares, truth.tops)):
            out[(frame[0], sq)] = (top, r.top if r.state == CUP else r.state, r.confidence)

    evaluate("gobblet", 2, seed=seed, first_camera=camera, measure=True, style="shaded", observer=observer)
    return out


def test_light_tops_on_a_pale_board_are_read_as_tops():
    """Gobblet on the shaded look, tuning seed 11's 5th camera: light cups on a pale painted
    board of nearly their colour, whose far edge hardly shows.  Main read six of them empty, two
    of them (light 3s) at 1.0.  They are read as light tops of their own sizes, under the commit
    confidence (the model still reads them empty), and the empty squares stay empty."""
    reads = _reads(11, 4)
    cases = {(1, 5): (0, 2), (1, 12): (0, 2), (1, 6): (0, 1), (1, 9): (0, 0), (1, 11): (0, 0), (2, 11): (0, 1)}
    for place, top in cases.items():
        truth, got, conf = reads[place]
        assert truth == top, "the boards changed: the case this test is about is gone"
        assert got == top, (place, got, conf)
        assert 0.5 <= conf <= OUTLINED_TOP, (place, conf)
    for place, (truth, got, conf) in reads.items():
        if truth is None:
            assert got == EMPTY, (place, got, conf)


def test_bare_dark_board_is_not_read_as_a_light_top():
    """Seed 11's 2nd camera: a dark grained board whose noise makes a lighter outline at the
    smallest size on an empty square (lead 1.01, as much as a faint top's); read inside, it is
    the board's dark colour, so the square stays empty."""
    reads = _reads(11, 1)
    truth, got, _ = reads[(1, 5)]
    assert truth is None, "the boards changed: the case this test is about is gone"
    assert got == EMPTY
