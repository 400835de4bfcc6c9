"""A small seeded check of recognition in each of the synthetic camera's two looks, as the
wizard calibrates (the empty board, then the set measured): the polygon look the square model
was fitted on, and the shaded look it was not (``docs/rendering.md``).

The floors are today's levels less a margin, so that a change that loses ground on either look
fails here; ``bench/vision.py --style shaded --measure-set`` gives the full figures.  On the
held-out look they are far below issue 19's targets (99.5 % of squares): that work is open."""

import pytest

from vision.evaluate import evaluate

FLOORS = {  # (style, set): least share of squares right on 6 boards of seed 7
    ("polygon", "gobblet-jr"): 0.99, ("polygon", "gobblet"): 0.97, ("polygon", "storer-clear"): 0.98,
    ("shaded", "gobblet-jr"): 0.93, ("shaded", "gobblet"): 0.78, ("shaded", "storer-clear"): 0.85,
}


@pytest.mark.parametrize("style, name", sorted(FLOORS))
def test_each_look_reads_at_least_as_well_as_it_did(style, name):
    res = evaluate(name, 6, seed=7, per_camera=2, measure=True, style=style)
    assert res.calibrations_failed <= 1
    assert res.boards >= 4
    assert res.square_accuracy >= FLOORS[(style, name)], (style, name, res.square_accuracy)
