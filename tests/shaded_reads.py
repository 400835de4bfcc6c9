"""What the recogniser reads on one camera of the shaded look's bench, square by square,
for the recognition tests that pin single readings (``test_outlined_top``, ``test_wall_top``,
``test_clear_wall_doubt``)."""

from vision.evaluate import evaluate
from vision.observation import CUP


Reads = dict[tuple[int, int], tuple[object, object, float]]


def shaded_reads(seed: int, camera: int, piece_set: str = "gobblet") -> Reads:
    """(frame, square) -> (truth's top, the reading's top or its state, confidence) for the two
    frames of camera ``camera`` of the shaded look's bench of ``piece_set`` (Gobblet unless
    told) of ``seed``, the set measured as the wizard does."""
    out: dict[tuple[int, int], tuple[object, object, float]] = {}
    frame = [0]

    def observer(rec, obs, truth):
        frame[0] += 1
        for sq, (r, top) in enumerate(zip(obs.squares, truth.tops)):
            out[(frame[0], sq)] = (top, r.top if r.state == CUP else r.state, r.confidence)

    evaluate(piece_set, 2, seed=seed, first_camera=camera, measure=True, style="shaded", observer=observer)
    return out
