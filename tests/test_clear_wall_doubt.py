"""Storer's clear set: a light top on a pale board that the square model reads empty with
confidence is doubted where the solid size's shaded wall shows beyond its near edge and the
board's grain does not show there (``Recogniser._clear_set_walls``; docs/geometry.md, "How sure
a reading is"): a cup on a square is never read as a confidently empty square."""

from vision.evaluate import COMMIT
from vision.observation import EMPTY

from tests.shaded_reads import shaded_reads


def test_light_tops_on_pale_boards_are_not_read_confidently_empty():
    """Tuning seed 97's 2nd camera (a clear 5 with a light plug on a near-white board, its rim
    and plug as white as the wood) and 13th (a light 1 as pale as its board, whose grain still
    shows round it): main read both empty at 0.997 and 0.998.  The size-1 wall leads by 14.5
    and 5.4 on the near arc: both empty readings are doubted, under the commit confidence.
    The truly empty squares of those frames are read as they were."""
    for camera, place, top in ((1, (1, 11), (0, 4)), (12, (1, 4), (0, 0))):
        reads = shaded_reads(97, camera, "storer-clear")
        truth, got, conf = reads[place]
        assert truth == top, "the boards changed: the case this test is about is gone"
        assert got != EMPTY or conf < COMMIT, (camera, place, got, conf)
        for where, (truth, got, conf) in reads.items():
            if truth is None:
                assert got == EMPTY, (camera, where, got, conf)
