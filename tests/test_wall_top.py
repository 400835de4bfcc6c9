"""A solid top of the board's own colour, whose far edge does not show and which leaves the
square's middle unchanged, is found by its shaded wall beyond its near edge
(``Recogniser._walls``; docs/geometry.md, "How sure a reading is"): read as a top, or at
least not confidently empty."""

from vision.evaluate import COMMIT
from vision.observation import EMPTY
from vision.recognise import OUTLINED_TOP

from tests.shaded_reads import shaded_reads


def test_white_tops_on_a_white_board_are_not_read_empty():
    """Tuning seed 7's 4th camera: light cups on a cream painted board of their colour.  Main
    read a light 3 empty at 0.98 and a light 1 at 0.82 (and a light 4 at 0.79): no edge on the
    far arc, no change in the middle, no grain to hide.  The 3's and the 4's walls and the shade
    at their feet lead by 6-7 ring units on the near arc: they are read as light tops of their
    own sizes under the commit confidence.  (The 1's leads by 2.6, under ``WALL_DOUBT``, as
    much as bare board has made: it is left.)  The empty squares stay empty, as sure as
    before."""
    reads = shaded_reads(7, 3)
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
    reads = shaded_reads(7, 0)
    truth, got, conf = reads[(2, 12)]
    assert truth == (0, 3), "the boards changed: the case this test is about is gone"
    assert got == (0, 3) and 0.5 <= conf <= OUTLINED_TOP, (got, conf)
    for place, (truth, got, conf) in reads.items():
        if truth is None:
            assert got == EMPTY, (place, got, conf)
