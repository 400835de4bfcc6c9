"""A top read confidently on weak size evidence (a solid top's faint edge ring at its size, a
light clear top) is doubted where the square net, asked as a second reader, gives that reading
little (``Recogniser._net_doubts``; docs/geometry.md, "How sure a reading is"): it changes no
label, only the confidence."""

from vision.evaluate import COMMIT
from tests.shaded_reads import shaded_reads

DARK = 1


def test_weak_edged_tops_the_net_reads_empty_are_not_committed():
    """Tuning seed 137, Gobblet, 6th camera's first frame: a dark 3 read as a dark 1 at 1.00
    (its size-1 ring 1.0 ring units; the net: empty at 0.57).  The reading stays a dark 1, under
    the commit."""
    reads = shaded_reads(137, 5, "gobblet")
    truth, got, conf = reads[(1, 3)]
    assert truth == (DARK, 2), "the boards changed: the case this test is about is gone"
    assert got == (DARK, 0), (got, conf)
    assert conf < COMMIT, conf


def test_storer_weak_edged_light_one_is_doubted():
    """Tuning seed 137, Storer's clear set, 8th camera's second frame: a light 2 read as a light
    1 at 0.93 (its size-1 ring 2.4; the net: empty at 0.77) is read so under the commit."""
    reads = shaded_reads(137, 7, "storer-clear")
    truth, got, conf = reads[(2, 12)]
    assert truth == (0, 1), "the boards changed: the case this test is about is gone"
    assert got == (0, 0) and conf < COMMIT, (got, conf)


def test_light_clear_top_the_net_sizes_otherwise_is_doubted():
    """Tuning seed 113, Storer's clear set, 7th camera's first frame: a light 4 (a maple plug on
    light wood, no white rim found) read as a light 3 at 0.95; the net gives the 3 0.06 (and the
    4 0.94).  It stays a light 3, under the commit."""
    reads = shaded_reads(113, 6, "storer-clear")
    truth, got, conf = reads[(1, 3)]
    assert truth == (0, 3), "the boards changed: the case this test is about is gone"
    assert got == (0, 2) and conf < COMMIT, (got, conf)
