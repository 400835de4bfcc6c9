"""The edge radius per player, measured on a table's labelled tops (``vision.adapt.edge_sums``,
``bench/adapt.py --edge-colours``): what one radius per size is made of, and why it stays one
(docs/geometry.md, "One edge radius per size")."""

from pathlib import Path

import numpy as np

from vision.adapt import EDGE_FRAMES, edge_sums, measure_edges
from vision.frames_folder import frames, open_folder

from test_adapt import _table  # noqa: E402  (tests/ is on the path: the same tables as bench/adapt.py)


def test_a_dark_tables_light_and_dark_tops_peak_apart_and_add_up_to_the_one_radius(tmp_path: Path):
    """Gobblet's tuning table 34 of ``bench/adapt.py`` (a dark board, its weakest table): on
    the first ten frames to adapt on, the light and the dark tops of size 2 put their edges
    plainly apart (0.96 and 0.88 of the set file's radius when measured for this brief), which
    is what a radius per player would use.  The sums per player add up to the one radius per
    size adapting measures (``measure_edges``), and count every labelled top once."""
    learn, _ = _table(tmp_path, "gobblet", 4_000_037 + 7919 * 34, EDGE_FRAMES, 1)
    cal = open_folder(learn)[0]
    labelled = list(frames(learn))
    sums = edge_sums(cal, labelled)
    tops = np.zeros((2, len(cal.sizes)), int)
    for _, item in labelled:
        for top, hidden in zip(item.tops, item.hidden):
            if top is not None and not hidden:
                tops[top[0], top[1]] += 1
    assert sums.counts.tolist() == tops.tolist()
    light, dark = sums.peak(0, 1), sums.peak(1, 1)
    assert light is not None and dark is not None and light - dark > 0.05
    both = [sums.peak(None, s) for s in range(len(cal.sizes))]
    measured = measure_edges(cal, labelled)
    for s, f in enumerate(measured):
        # measure_edges keeps the calibration's within its dead band; elsewhere it is the peak of both
        assert f == cal.sizes[s].edge_scale or abs(f - round(both[s], 3)) < 1e-9
