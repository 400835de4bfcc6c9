"""Storer's clear set: a light plug on light wood shows no white rim, and the readers put its cup
a size down, where no outline of that size is; the next size's outline round the whole circle
reads it at its own size, under the commit (``Recogniser._light_clear_lift``; docs/geometry.md,
"How sure a reading is")."""

from vision.evaluate import COMMIT

from tests.shaded_reads import shaded_reads

LIGHT_3, LIGHT_5 = (0, 2), (0, 4)


def test_light_clear_tops_read_a_size_small_are_read_at_their_size():
    """Tuning seed 97's 15th camera: on the first frame the light 3s on c3 and b4 were read as
    light 2s (at 0.87 and 0.57 on main), on the second the light 5 on d3 as a light 4 at 0.95.
    Each is read at its own size, under the commit confidence, and no light top of the two
    frames is read confidently wrong.  (The light 3 on d3, read a 2 at 0.79, stays so: its
    smaller circle is darker inside, as a right reading's was on another camera.)"""
    reads = shaded_reads(97, 14, "storer-clear")
    for place, top in (((1, 10), LIGHT_3), ((1, 13), LIGHT_3), ((2, 11), LIGHT_5)):
        truth, got, conf = reads[place]
        assert truth == top, "the boards changed: the case this test is about is gone"
        assert got == top and conf < COMMIT, (place, got, conf)
    for where, (truth, got, conf) in reads.items():
        if truth is not None and truth[0] == 0 and got != truth:
            assert conf < COMMIT, (where, truth, got, conf)
