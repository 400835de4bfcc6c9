"""The decision per square: empty or which size class, and how sure, from a small model.

The recogniser measures, per square and for every size class, how well a top of that size
fits (ring score, edge sign, how far the best centre sits from where the square puts it;
for clear cups the radial plug and rim steps, the texture the plug hides and the white rim's
lead), plus how much of the square's middle changed since the empty board.  Here each
square's alternatives (empty, size 1, size 2, ...) become feature vectors and a conditional
logit picks among them: every alternative gets a utility from the same weights (a linear
part plus a few tanh units), and the softmax of the utilities is the probability of each
reading.  Since all sizes share the weights, one model serves any number of size classes;
there is one per cup material (opaque, clear).

The colour is read by the recogniser; its confidence is a logistic of the colour margin,
never above what the margin itself supports: a margin is a noisy measure (glare, shade, a
light unlike any seen in fitting), so a colour read at margin m is taken to be right with
probability at most Phi(m / ``COLOUR_MARGIN_SIGMA``), a coin toss at margin 0.  The fitted
logistic may only lower that (renders rarely get a colour wrong, so alone it would say 0.999
at any margin).  A reading's confidence is the probability of its size class times that of
its colour.

``scripts/fit_square_model.py`` fits the weights on rendered boards and writes
``vision/data/square_model.json``; ``load_model`` checks that file's format, version,
feature names and every array's shape, and names the file and the problem when it fails.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from calibration.model import Calibration, CalibrationError
from hardware.pieces import check_header

MODEL_PATH = Path(__file__).resolve().parent / "data" / "square_model.json"
MODEL_FORMAT = "cupboard-square-model"
MODEL_VERSION = 1

# the radial profile of clear sets (``Recogniser._polar``): channel x radius x statistic
POLAR_CHANNELS = ("white", "lum")
N_POLAR_RADII = 15
POLAR_STATS = ("median", "low")
N_POLAR = len(POLAR_CHANNELS) * N_POLAR_RADII * len(POLAR_STATS)
CUP_FEATURES = (
    "ring", "ring_lin", "ring_inner", "ring_outer", "centre_gap", "ring_larger", "ring_smaller", "ring_max_larger", "ring_max_smaller",
    "ring_lead", "sign", "offset", "plug", "rim_step", "texture", "change_in", "outline", "rim",
    "rim_larger", "rim_smaller", "rim_lead", "solid", "relative_size", "largest", "smallest",
    "centre_change", "plug_vs_larger", "plug_vs_smaller", "rim_step_vs_larger", "rim_step_vs_smaller",
    "outline_vs_larger", "outline_vs_smaller", "gap_larger", "gap_smaller",
) + tuple(f"polar_{c}_{r}_{st}" for c in POLAR_CHANNELS for r in range(N_POLAR_RADII) for st in POLAR_STATS)
EMPTY_FEATURES = ("empty_bias", "ring_top", "ring_second", "rim_top", "lift_top", "centre_change",
                  "change_in_top")
COLOUR_FEATURES = ("margin", "margin_sq")
N_FEATURES = len(CUP_FEATURES) + len(EMPTY_FEATURES)
# the spread of a colour margin (a share of the players' distance) under conditions the
# fit never saw: a margin of 2 sigma (0.4) gives at most 0.977, of 3 sigma (0.6) 0.9987
COLOUR_MARGIN_SIGMA = 0.2
# the spread of the edge evidence (log(1 + ring score)) between a solid top's size and the
# size next to it: where the two fit nearly as well, the size read is right with probability at
# most Phi(lead / ``RING_LEAD_SIGMA``), a coin toss where they fit alike
RING_LEAD_SIGMA = 0.2
# a solid top read one size too small where the next larger size's edge is found (at least
# LARGER_FOUND ring units) and leads the read size's by LARGER_LEAD in log(1 + score): see
# ``larger_edge``
LARGER_FOUND = 2.0
LARGER_LEAD = 0.5
# a solid top read one size too small where the next larger size's outline is found round
# the whole circle: its step (log-brightness) at least OUTLINE_FOUND, on OUTLINE_SHARE of the
# angles, and OUTLINE_LEAD times the read size's own step: see ``larger_outline``
OUTLINE_FOUND = 0.02
OUTLINE_SHARE = 0.65
OUTLINE_LEAD = 1.2
# a solid top read by its wall (``Recogniser._walls``: the model reads the square empty) is the
# next larger size where that size's wall is found too (at least LARGER_WALL_FOUND ring units,
# the lead that reads a wall) and leads at least LARGER_WALL_SHARE of the read size's: see
# ``larger_wall``
LARGER_WALL_FOUND = 4.0
LARGER_WALL_SHARE = 0.7
# clear cups' size probabilities are softened by this temperature: the fit's evidence (rims,
# plugs, profiles) separates sizes less on pictures unlike those it was fitted on
CLEAR_TEMPERATURE = 1.5


class ModelFileError(ValueError):
    """The model file is missing, damaged or of another format or version."""


@dataclass(frozen=True)
class SquareEvidence:
    """What the recogniser measured on every square of one frame; arrays are (squares,
    sizes) unless noted.  Ring scores are in units of the empty threshold, the profile steps
    in their unit and rim leads in units of their sure threshold (all zero for opaque sets)."""

    ring: np.ndarray
    ring_edges: np.ndarray  # (squares, sizes, 2): the inner and the outer edge's own scores
    sign: np.ndarray
    offset: np.ndarray  # best centre's distance from its expected place, as a share of the reach
    centre_gap: np.ndarray  # distance between the edges' and the rim's best centre, in radii
    plug: np.ndarray
    rim_step: np.ndarray
    texture: np.ndarray
    change_in: np.ndarray  # mean absolute change of log-brightness inside the top's disc
    outline: np.ndarray  # how far a thin ring at the top's edge is darker than its two sides
    rim: np.ndarray
    polar: np.ndarray  # (squares, sizes, N_POLAR): clear sets' radial profile; zero for opaque sets
    centre_change: np.ndarray  # (squares,): share of the square's middle unlike the empty board
    solid: np.ndarray  # (sizes,) bool: sizes whose top is a solid (not see-through) cup


def _shift(a: np.ndarray, by: int) -> np.ndarray:
    """a[:, s + by] per column s, 0 past the ends."""
    out = np.zeros_like(a)
    if by > 0:
        out[:, :-by] = a[:, by:]
    else:
        out[:, -by:] = a[:, :by]
    return out


def _running_max(a: np.ndarray, larger: bool) -> np.ndarray:
    """Per column s, the max of the columns above (``larger``) or below s; 0 where none."""
    out = np.zeros_like(a)
    n = a.shape[1]
    for s in range(n):
        rest = a[:, s + 1:] if larger else a[:, :s]
        if rest.shape[1]:
            out[:, s] = rest.max(axis=1)
    return out


def alternatives(ev: SquareEvidence) -> np.ndarray:
    """(squares, 1 + sizes, features): row 0 describes reading the square empty, row 1 + s
    reading a top of size class s.  Cup rows fill the ``CUP_FEATURES`` columns, the empty row
    the ``EMPTY_FEATURES`` columns after them."""
    nsq, nsz = ev.ring.shape
    r = np.clip(ev.ring, -2.0, 30.0)
    lr = np.log1p(np.maximum(r, 0.0))
    rim = np.clip(ev.rim, -5.0, 5.0)
    size_pos = np.arange(nsz) / max(1, nsz - 1)
    big = np.full(nsz, 0.0)
    big[-1] = 1.0
    small = np.full(nsz, 0.0)
    small[0] = 1.0
    rim_others = np.stack([np.delete(rim, s, axis=1).max(axis=1) if nsz > 1 else np.zeros(nsq)
                           for s in range(nsz)], axis=1)

    def bcast(v: np.ndarray) -> np.ndarray:
        return np.broadcast_to(v, (nsq, nsz))

    edges = np.log1p(np.clip(ev.ring_edges, 0.0, 30.0))
    plug = np.clip(ev.plug, -5.0, 5.0)
    rim_step = np.clip(ev.rim_step, -5.0, 5.0)
    outline = np.clip(ev.outline, -5.0, 5.0)
    gap = np.where(ev.solid, 0.0, np.clip(ev.centre_gap, 0.0, 2.0))
    cup = np.stack([
        lr, np.minimum(r, 5.0), edges[..., 0], edges[..., 1], gap, _shift(lr, 1), _shift(lr, -1), _running_max(lr, True), _running_max(lr, False),
        lr - lr.max(axis=1, keepdims=True), ev.sign, np.clip(ev.offset, 0.0, 2.0),
        plug, rim_step, np.clip(ev.texture, -5.0, 5.0),
        np.clip(ev.change_in, 0.0, 2.0), outline, rim, _shift(rim, 1), _shift(rim, -1), rim - rim_others,
        bcast(ev.solid.astype(float)), bcast(size_pos), bcast(big), bcast(small),
        np.broadcast_to(ev.centre_change[:, None], (nsq, nsz)),
        # a light plug on light wood: the profile of the right size stands out from those of
        # the sizes next to it even where none is strong on its own
        plug - _shift(plug, 1), plug - _shift(plug, -1), rim_step - _shift(rim_step, 1),
        rim_step - _shift(rim_step, -1), outline - _shift(outline, 1), outline - _shift(outline, -1),
        _shift(gap, 1), _shift(gap, -1),
    ], axis=-1)
    cup = np.concatenate([cup, np.clip(ev.polar, -1.5, 1.5)], axis=-1)
    lr_sorted = np.sort(lr, axis=1)
    lift = np.maximum(0.0, np.clip(ev.plug, -5, 5) + np.clip(ev.rim_step, -5, 5)).max(axis=1)
    empty = np.stack([
        np.ones(nsq), lr_sorted[:, -1], lr_sorted[:, -2] if nsz > 1 else np.zeros(nsq),
        rim.max(axis=1), np.minimum(lift, 10.0), ev.centre_change, np.clip(ev.change_in, 0, 2).max(axis=1),
    ], axis=-1)
    out = np.zeros((nsq, 1 + nsz, N_FEATURES))
    out[:, 1:, :len(CUP_FEATURES)] = cup
    out[:, 0, len(CUP_FEATURES):] = empty
    return out


def softmax(u: np.ndarray) -> np.ndarray:
    """The log-weights ``u`` made probabilities over the last axis (the alternatives)."""
    u = u - u.max(axis=-1, keepdims=True)
    e = np.exp(u)
    return e / e.sum(axis=-1, keepdims=True)


@dataclass(frozen=True)
class MaterialModel:
    """The weights for one cup material: inputs are standardised by ``mean``/``scale``; the
    utility of an alternative is ``x @ linear + tanh(x @ hidden_w + hidden_b) @ out``."""

    mean: np.ndarray
    scale: np.ndarray
    linear: np.ndarray
    hidden_w: np.ndarray
    hidden_b: np.ndarray
    out: np.ndarray
    colour: np.ndarray  # logistic weights, bias first, over COLOUR_FEATURES

    def utilities(self, x: np.ndarray) -> np.ndarray:
        """Utility of every alternative; ``x`` is (..., features)."""
        z = (x - self.mean) / self.scale
        return z @ self.linear + np.tanh(z @ self.hidden_w + self.hidden_b) @ self.out

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """Softmax of the utilities over the alternatives (axis -2 of ``x``)."""
        return softmax(self.utilities(x))

    def colour_confidence(self, margin: float) -> float:
        """Probability that a colour read with this margin is right: the fitted logistic,
        capped by ``margin_bound``."""
        m = float(np.clip(margin, -1.0, 3.0))
        z = float(self.colour[0] + self.colour[1] * m + self.colour[2] * m * m)
        fitted = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
        return min(fitted, margin_bound(margin))


def margin_bound(margin: float) -> float:
    """The most a colour margin supports: Phi(margin / ``COLOUR_MARGIN_SIGMA``), 0.5 at a
    margin of 0 (the top as close to one player's colour as to the other's)."""
    return 0.5 * (1.0 + math.erf(max(0.0, float(margin)) / (COLOUR_MARGIN_SIGMA * math.sqrt(2.0))))


def size_bound(ring: np.ndarray, solid: np.ndarray) -> np.ndarray:
    """(squares, sizes): the most the edge evidence supports reading each size, like
    ``margin_bound`` for colour.  ``ring`` is the ring score of every size (``SquareEvidence``),
    ``solid`` which sizes are solid tops.  A solid top's edge is a ring at its own radius and
    height; where the ring of a size next to it (one up or down) is nearly as strong, the two
    are hard to tell apart and the bound is Phi(lead / ``RING_LEAD_SIGMA``) of the read size's
    lead in log(1 + score) over the stronger neighbour (0.5 where they fit alike).  Clear tops
    are sized by their rims and plugs (``CLEAR_TEMPERATURE``): 1 for them."""
    lr = np.log1p(np.clip(ring, 0.0, 30.0))
    nsz = lr.shape[1]
    if nsz < 2:
        return np.ones_like(lr)
    beside = np.maximum(np.pad(lr[:, 1:], ((0, 0), (0, 1)), constant_values=-np.inf),
                        np.pad(lr[:, :-1], ((0, 0), (1, 0)), constant_values=-np.inf))
    lead = (lr - beside) / (RING_LEAD_SIGMA * math.sqrt(2.0))
    bound = 0.5 * (1.0 + np.vectorize(math.erf)(lead))
    return np.where(np.asarray(solid, bool)[None, :], bound, 1.0)


def larger_edge(ring: np.ndarray, solid: np.ndarray) -> np.ndarray:
    """(squares, sizes) bool: where a solid top read as each size is one size larger.  The
    sizes share edges one way only: a top's flat face ends about where the next smaller
    size's outer rim would be, so a larger top makes a ring at the smaller size's radius too
    (a strong smaller ring is no sign of a smaller top), but a smaller top has only board
    where the larger size's rim would be.  A whole-circle edge at the next larger size's
    radius that is found (``LARGER_FOUND`` ring units, ``ring`` as in ``SquareEvidence``) and
    leads the read size's by ``LARGER_LEAD`` in log(1 + score) is the larger top's own rim.
    The largest size, and a size whose next is clear, are never lifted."""
    lr = np.log1p(np.clip(ring, 0.0, 30.0))
    out = np.zeros(ring.shape, bool)
    if ring.shape[1] < 2:
        return out
    both = np.asarray(solid, bool)
    both = both[:-1] & both[1:]
    out[:, :-1] = both[None, :] & (ring[:, 1:] >= LARGER_FOUND) & (lr[:, 1:] - lr[:, :-1] >= LARGER_LEAD)
    return out


def larger_outline(own: np.ndarray, larger: np.ndarray, share: np.ndarray) -> np.ndarray:
    """Where (bool, the shape of the arguments) a solid top read as one size is the next
    larger size, by its outline round the whole circle (``Recogniser.radial_steps``): ``own``
    is the median step of log-brightness since the empty board at the read size's edge radius
    round the read top, ``larger`` the same at the larger size's radius round the larger
    size's found top and ``share`` the share of angles that agree with it, both steps taken in
    the sign of the read top's own strongest whole-circle step (``recognise._strongest_sign``).
    A rounded rim fades on the far arc, which ``larger_edge`` reads: a larger top's rim curves
    away from the camera there, so its far-arc ring is weak and only its flat face's end, at
    the smaller size's radius, rings.  Round the whole circle the rim shows
    (on the near arc and the sides it faces the camera), and the flat face's end is a soft
    step, so a larger top steps at its own radius as much as at the smaller one's or more; a
    smaller top steps sharply at its own edge and has only board beyond it.  So the larger
    size's step must be found (``OUTLINE_FOUND``), on most of the circle
    (``OUTLINE_SHARE``), and lead the read size's by ``OUTLINE_LEAD`` times; the read size's
    own step must show (above 0), or there is no edge of the read top to compare with."""
    own, larger, share = (np.asarray(v, np.float64) for v in (own, larger, share))
    return (own > 0.0) & (larger >= OUTLINE_FOUND) & (share >= OUTLINE_SHARE) & (larger >= OUTLINE_LEAD * own)


def larger_wall(own: float | np.ndarray, larger: float | np.ndarray) -> np.ndarray:
    """Where (bool) a solid top read by its wall at one size is the next larger size: ``own``
    is the read size's wall lead (``Recogniser._wall_leads``, ring units), ``larger`` the
    next larger size's round its own best centre.  A top the board's colour shows no edge on
    its far arc; on the near arc its circle is lighter inside than out, where its own shaded
    wall lies beyond its edge.  A larger top makes such a circle at its own radius and at the
    smaller size's too (its flat face, lit, ends about there, inside its darker rounded rim),
    so a strong smaller circle is no sign of a smaller top; a smaller top has only board, or
    its shadow, at the larger radius, which a circle there crosses (no wall all along it).  So
    the larger size's circle must be found as a wall is (``LARGER_WALL_FOUND``) and lead
    nearly as much as the read size's (``LARGER_WALL_SHARE`` of it)."""
    own, larger = np.asarray(own, np.float64), np.asarray(larger, np.float64)
    return (larger >= LARGER_WALL_FOUND) & (larger >= LARGER_WALL_SHARE * own)


def wall_leads_up(own: float | np.ndarray, larger: float | np.ndarray) -> np.ndarray:
    """Where (bool) a solid top its edges put at one size is the next larger size by its
    walls (``Recogniser._wall_lifts``): ``own`` is the read size's wall lead
    (``Recogniser._wall_leads``, ring units), ``larger`` the next larger size's.  A larger
    top makes a wall at the smaller size's circle too (``larger_wall``), and its flat face's
    end rings there on the far arc, so the edges can put it a size down; a smaller top has only
    board or its shadow at the larger circle.  Against the edges' reading, the larger size's
    wall must be found as a wall is (``LARGER_WALL_FOUND``) and lead the read size's (not only
    nearly match it, as ``larger_wall`` asks of a top read by its wall alone)."""
    own, larger = np.asarray(own, np.float64), np.asarray(larger, np.float64)
    return (larger >= LARGER_WALL_FOUND) & (larger >= own)


def tempered(probs: np.ndarray, temperature: float) -> np.ndarray:
    """``probs`` (..., alternatives) softened: each to the power 1 / ``temperature``, summing to
    one again (the softmax of the utilities divided by the temperature)."""
    q = np.power(np.maximum(probs, 1e-300), 1.0 / temperature)
    return q / q.sum(axis=-1, keepdims=True)


@dataclass(frozen=True)
class SquareModel:
    """A ``MaterialModel`` per cup material (``opaque``, ``clear``)."""

    materials: dict[str, MaterialModel]
    note: str = ""

    def for_material(self, material: str) -> MaterialModel:
        """The weights for ``material``; a KeyError names what the file has."""
        try:
            return self.materials[material]
        except KeyError:
            raise KeyError(f"the square model has no {material!r} weights "
                           f"(it has {', '.join(sorted(self.materials)) or 'none'})") from None


_ARRAYS = ("mean", "scale", "linear", "hidden_w", "hidden_b", "out", "colour")


def _shapes(hidden: int) -> dict[str, tuple[int, ...]]:
    return {"mean": (N_FEATURES,), "scale": (N_FEATURES,), "linear": (N_FEATURES,),
            "hidden_w": (N_FEATURES, hidden), "hidden_b": (hidden,), "out": (hidden,),
            "colour": (1 + len(COLOUR_FEATURES),)}


def model_json(model: SquareModel) -> dict[str, object]:
    """The weights as the versioned JSON object of a model file (``parse_model`` reads it)."""
    return {"format": MODEL_FORMAT, "version": MODEL_VERSION, "note": model.note,
            "features": {"cup": list(CUP_FEATURES), "empty": list(EMPTY_FEATURES),
                         "colour": list(COLOUR_FEATURES)},
            "materials": {name: {a: np.round(np.asarray(getattr(m, a), np.float64), 7).tolist() for a in _ARRAYS}
                          for name, m in sorted(model.materials.items())}}


def save_model(model: SquareModel, path: Path = MODEL_PATH) -> None:
    """Write the weights as versioned JSON (atomically: a new file, then a rename)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(model_json(model), separators=(",", ":")) + "\n", encoding="utf-8")
    tmp.replace(path)


def parse_model(data: object, where: str) -> SquareModel:
    """Check and convert the JSON of a model file; ``where`` names it in errors."""
    data = check_header(data, MODEL_FORMAT, MODEL_VERSION, where, ModelFileError,
                        " (refit with scripts/fit_square_model.py)")
    feats = data.get("features")
    want = {"cup": list(CUP_FEATURES), "empty": list(EMPTY_FEATURES), "colour": list(COLOUR_FEATURES)}
    if feats != want:
        raise ModelFileError(f"{where}: its features differ from this program's "
                             f"(refit with scripts/fit_square_model.py)")
    mats = data.get("materials")
    if not isinstance(mats, dict) or not mats:
        raise ModelFileError(f"{where}: no 'materials'")
    out = {}
    for name, m in mats.items():
        if not isinstance(m, dict) or set(m) != set(_ARRAYS):
            raise ModelFileError(f"{where}: material {name!r} should hold exactly {', '.join(_ARRAYS)}")
        try:
            arrays = {a: np.asarray(m[a], np.float64) for a in _ARRAYS}
        except (TypeError, ValueError):
            raise ModelFileError(f"{where}: material {name!r} holds something that is not a number") from None
        hidden = arrays["hidden_b"].shape[0] if arrays["hidden_b"].ndim == 1 else -1
        for a, shape in _shapes(hidden).items():
            if arrays[a].shape != shape:
                raise ModelFileError(f"{where}: {name}.{a} has shape {arrays[a].shape}, expected {shape}")
            if not np.isfinite(arrays[a]).all():
                raise ModelFileError(f"{where}: {name}.{a} holds a number that is not finite")
        if (arrays["scale"] <= 0).any():
            raise ModelFileError(f"{where}: {name}.scale must be positive")
        out[str(name)] = MaterialModel(**arrays)
    return SquareModel(out, str(data.get("note", "")))


@lru_cache(maxsize=4)
def load_model(path: Path = MODEL_PATH) -> SquareModel:
    """Read and check the model file; ModelFileError names the file and what is wrong."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ModelFileError(f"{path}: cannot read the square model ({e.strerror}); "
                             f"it is made by scripts/fit_square_model.py") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ModelFileError(f"{path}: line {e.lineno}: not valid JSON ({e.msg})") from None
    return parse_model(data, str(path))


def calibrated_model(cal: Calibration, shipped: SquareModel | None = None) -> SquareModel:
    """The model ``cal`` reads with: ``shipped`` (default the shipped file's) with the weights
    of each material replaced by those the calibration learnt from the user's own set (its
    ``square_model``, when it has one).  A damaged one raises ``CalibrationError``."""
    shipped = load_model() if shipped is None else shipped
    if cal.square_model is None:
        return shipped
    try:
        learnt = parse_model(cal.square_model, "its square_model")
    except ModelFileError as e:
        raise CalibrationError(f"the calibration is damaged: {e}; calibrate again") from None
    return SquareModel({**shipped.materials, **learnt.materials}, learnt.note or shipped.note)
