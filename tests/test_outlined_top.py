"""A light solid top whose edge on a pale board barely shows, but whose whole outline is lighter
than what lies round it, is read as a top, not as empty (``Recogniser._outlined_top``;
docs/geometry.md, "How sure a reading is")."""

from vision.observation import EMPTY
from vision.recognise import OUTLINED_TOP

from tests.shaded_reads import shaded_reads


def test_light_tops_on_a_pale_board_are_read_as_tops():
    """Gobblet on the shaded look, tuning seed 11's 5th camera: light cups on a pale painted
    board of nearly their colour, whose far edge hardly shows.  Main read six of them empty, two
    of them (light 3s) at 1.0.  They are read as light tops of their own sizes, under the commit
    confidence (the model still reads them empty), and the empty squares stay empty."""
    reads = shaded_reads(11, 4)
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
    reads = shaded_reads(11, 1)
    truth, got, _ = reads[(1, 5)]
    assert truth is None, "the boards changed: the case this test is about is gone"
    assert got == EMPTY
