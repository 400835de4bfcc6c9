"""Storer's set: a light smallest cup on a board as white as its top, whose edges were found on
its own shaded wall, is read light by that wall beyond its near edge, not confidently dark
(``Recogniser._light_wall_beside``; docs/geometry.md, "How a top's colour is read")."""

from vision.evaluate import COMMIT

from tests.shaded_reads import shaded_reads

LIGHT_1, LIGHT_2, DARK_1 = (0, 0), (0, 1), (1, 0)


def test_light_tops_on_a_white_board_are_not_read_confidently_dark():
    """Tuning seed 97's 2nd camera (34 cm up, a near-white board): the light 1s on the first
    frame's c1 and the second's b2 show no outline on their far arc, and their edges were found
    on their shaded walls, which main read as dark 1s at 0.996 and 0.991 (and the light 2 on the
    second frame's c1 as a dark 1 at 0.955).  Each is read a light 1 under the commit
    confidence; the dark 1 on the second frame stays a confident dark 1."""
    reads = shaded_reads(97, 1, "storer-clear")
    for place, top in (((1, 2), LIGHT_1), ((2, 5), LIGHT_1), ((2, 2), LIGHT_2)):
        truth, got, conf = reads[place]
        assert truth == top, "the boards changed: the case this test is about is gone"
        assert got == LIGHT_1 and conf < COMMIT, (place, got, conf)
    truth, got, conf = reads[(2, 10)]
    assert truth == DARK_1 and got == DARK_1 and conf >= COMMIT, (got, conf)
    for where, (truth, got, conf) in reads.items():
        if truth is not None and truth[1] == 0 and got != truth:
            assert conf < COMMIT, (where, truth, got, conf)
