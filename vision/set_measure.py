"""Measuring the user's own set at calibration: one cup of every size in both colours, standing
on squares the wizard names (``set_layout``), seen under the user's light by the user's camera.

Three things are learnt from that picture, so that recognition reads relative to the real
pieces rather than to the piece set file's numbers or to what rendered boards looked like:

* per size class of solid tops, where its top's edge really shows (``SizeClass.edge_scale``):
  the edge search is tried at radii from 70 % to 115 % of the set file's and the best-supported
  radius on the two cups of that size is kept where both agree and it differs plainly from the
  file's (a rounded or chamfered top shows its edge well inside its outer diameter; a set whose
  sizes differ from the file's is read at its own sizes).  A clear cup's plug edge is too faint
  to measure its size by: clear sizes keep the file's numbers;
* the players' colours (``ColourModel``, source ``set``) from every cup's top, each read where
  the top is not mirroring the lamp: the brightest part of a top is left out, so a glossy dark
  top's sheen does not make the dark player look grey, and on a clear set a light top read off
  its cup (on its shadow or its own shaded wall) does not make the light player look dark
  (``_light_looking``);
* the square model's weights, trained further on the picture's squares, whose every top is
  known (``vision.adapt.learn_from_frame``; kept in ``Calibration.square_model``): a light
  cup as pale as the wood, whose edge the rendered boards never made so faint, then reads as
  a cup rather than as empty wood.

Nothing here refuses a calibration because of the light: what looks wrong becomes advice that
says what to change (a cup, the lamp, the camera).  It refuses only a picture that cannot be
the layout (no board, most cups missing of the players whose tops show, the colours the wrong
way round).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from calibration.model import Calibration, CalibrationError, ColourModel
from hardware.camera_model import height_scale
from hardware.pieces import BoardSpec, PieceSet

from .adapt import learn_from_frame
from .recognise import LUM_SIGMA, TINT_SIGMA, Recogniser
from .tops import body_colour, peak_scale, with_edge_scales

SCALES = np.round(np.arange(0.70, 1.1501, 0.025), 3)  # edge radii tried, shares of the set file's
DEADBAND = 0.05  # a measured edge scale this close to 1 is taken as 1
AGREE = 0.08  # how far apart the two colours' cups of a size may put its edge and be believed
FOUND = 2.0  # ring score (its units) from which a cup's top counts as found
SHEEN_STEPS = 40  # grey amounts tried when one top's colour is explained by another's plus sheen
SHEEN_FADES = 0.7  # a top less tinted than this share of its player's least greyed top carries a sheen
SHEEN_WARN = 0.25  # grey (a share of the board's brightness) on a player's tops from which the advice names it
GLARE_LEVEL = 250  # a pixel this bright in a channel is blown out: it shows the lamp, not the top
GLARE_SHARE = 0.3  # share of a top's pixels blown out from which the lamp's reflection hides it
ALIKE = 0.25  # log-colour distance under which the players' colours are too close to tell well
SIZES_APART = 1.06  # apparent radius ratio under which two neighbouring sizes look alike
COLOUR_NAMES = ("light", "dark")


@dataclass(frozen=True)
class LayoutCup:
    """Where the set's picture wants one cup: its square (index), colour (0 light, 1 dark)
    and size class (0 the smallest)."""

    square: int
    colour: int
    size: int


@dataclass(frozen=True)
class SetMeasurement:
    """The calibration with the measured sizes and colours, the measured edge scale of each
    size class, which layout cups were found, and advice on what looked wrong."""

    calibration: Calibration
    edge_scale: tuple[float, ...]
    found: tuple[bool, ...]
    advice: tuple[str, ...]


def set_layout(board: BoardSpec, pieces: PieceSet) -> tuple[LayoutCup, ...]:
    """The squares for the set's picture: the light cups smallest first from a1 along the
    first rank(s), the dark ones smallest first from the last square backwards."""
    n = len(pieces.sizes)
    if 2 * n > board.squares:
        raise CalibrationError(f"the board has {board.squares} squares: too few for one cup of each of the "
                               f"set's {n} sizes in both colours")
    light = tuple(LayoutCup(s, 0, s) for s in range(n))
    dark = tuple(LayoutCup(board.squares - 1 - s, 1, s) for s in range(n))
    return light + dark


def describe_layout(board: BoardSpec, pieces: PieceSet) -> list[dict[str, object]]:
    """``set_layout`` for people and pages: square name, colour name, the set's size name."""
    return [{"square": board.square_name(c.square), "colour": COLOUR_NAMES[c.colour],
             "size": c.size + 1, "size_name": pieces.sizes[c.size].name} for c in set_layout(board, pieces)]


def _ring_scores(cal: Calibration, frame: np.ndarray, layout: tuple[LayoutCup, ...]) -> np.ndarray:
    """(len(SCALES), len(layout)): the edge search's score of each layout cup's own size on
    its square, with every size's edge at each scale."""
    out = np.zeros((len(SCALES), len(layout)))
    n = len(cal.sizes)
    for i, f in enumerate(SCALES):
        rec = Recogniser(with_edge_scales(cal, (float(f),) * n), model=None, size_check=None)
        obs = rec.recognise(frame)
        if not obs.board_found:
            raise CalibrationError("the board's markers were not found in the picture of the set: keep them "
                                   "in view and uncovered")
        ev = rec.last_evidence
        out[i] = [ev.ring[c.square, c.size] for c in layout]
    return out


def _edge_scales(pieces: PieceSet, layout: tuple[LayoutCup, ...], scores: np.ndarray,
                 found: tuple[bool, ...]) -> tuple[float, ...]:
    """Each size class's edge scale, measured on its own two cups (``_measured_scale``).  A
    clear cup's plug edge is too faint a measure of its size (its white rim is found by the
    rim search, at the file's numbers): clear sizes keep 1.0.

    (Fitting one profile to the whole set, a taper and a rounding shared by every size, was
    steadier on the held-out look but its small bias, 2-3 % inside the file's edge, was
    applied to sets that match their files: gobblet on the polygon look lost 0.5 points of
    squares.  Size by size, with the cups' agreement and a dead band, it costs nothing there.
    A radius per player, each from its one cup, read worse still: one cup's peak is noise, and
    on tuning seeds 113 and 131 reading each top at its own player's radius read 22 and 36
    squares wrong of 640 where one radius reads 13 and 18; docs/geometry.md, "One edge radius
    per size".)"""
    solid = [not (pieces.clear and not size.solid) for size in pieces.sizes]
    scales = []
    for s in range(len(pieces.sizes)):
        cols = [j for j, c in enumerate(layout) if c.size == s and found[j]]
        scales.append(_measured_scale(scores[:, cols]) if cols and solid[s] else 1.0)
    return tuple(scales)


def _measured_scale(scores: np.ndarray) -> float:
    """One size class's edge scale from the scores (scales, cups) of its cups: the set file's
    (1.0) unless the cups agree on an edge plainly elsewhere.  Within ``DEADBAND`` of it the
    difference is measuring noise, and the models were fitted at the file's numbers."""
    each = [peak_scale(scores[:, j], SCALES) for j in range(scores.shape[1])]
    if max(each) - min(each) > AGREE:
        return 1.0
    f = peak_scale(scores.sum(axis=1), SCALES)
    return f if abs(f - 1.0) > DEADBAND else 1.0


def _tint(colour: np.ndarray) -> float:
    """How tinted a BGR colour is: the size of its log channels' departure from their mean."""
    lg = np.log(np.maximum(colour, 1.0))
    return float(np.linalg.norm(lg - lg.mean()))


def sheen_over(colour: np.ndarray, base: np.ndarray) -> float:
    """How much grey (BGR units, the same in every channel) a glossy top's sheen adds to
    ``base`` where it looks like ``colour``: the grey that leaves ``colour`` nearest ``base``,
    brightness and tint weighed as the recogniser weighs them (``LUM_SIGMA``, ``TINT_SIGMA``).
    Only a top that is brighter than ``base`` and plainly less tinted (under ``SHEEN_FADES``
    of its tint) is taken to carry a sheen, since grey brightens a colour and fades its tint,
    where more light brightens it and keeps its tint; else 0."""
    colour = np.asarray(colour, np.float64)
    base = np.maximum(np.asarray(base, np.float64), 1.0)
    room = float(colour.min()) - 1.0
    if room <= 0.0 or colour.sum() <= base.sum() or _tint(colour) >= SHEEN_FADES * _tint(base):
        return 0.0
    greys = np.linspace(0.0, room, SHEEN_STEPS)
    left = np.maximum(colour[None, :] - greys[:, None], 1.0)
    d = np.log(left / base)
    lum = d.mean(axis=1)
    apart = np.hypot(lum / LUM_SIGMA, np.linalg.norm(d - lum[:, None], axis=1) / TINT_SIGMA)
    return float(greys[int(np.argmin(apart))])


def player_colour(bodies: list[np.ndarray]) -> tuple[np.ndarray, tuple[float, ...]]:
    """One player's colour from the body colours of its tops (``body_colour``), read
    consistently across them: each top's sheen is measured against the player's darkest top
    (the one mirroring the lamp least) and taken off before the median.  Returns the colour and
    the grey taken off each top (BGR units).

    A dark cup whose top faces the lamp looks grey all over, so no share of its own pixels
    shows its colour; but the same player's cups elsewhere on the board mirror the lamp less,
    and the lamp's grey is all that separates them.  Tops that differ only as light and shade
    keep their colours (light scales the channels, it does not add grey)."""
    stack = np.stack(bodies)
    darkest = stack[int(np.argmin(stack.sum(axis=1)))]
    greys = [sheen_over(b, darkest) for b in stack]
    clean = np.maximum(stack - np.array(greys)[:, None], 1.0)
    return np.median(clean, axis=0), tuple(greys)


def measure_set(cal: Calibration, frame: np.ndarray) -> SetMeasurement:
    """Measure the user's set on ``frame`` (the board with the ``set_layout`` cups, under the
    same camera as ``cal``, which is a calibration of the empty board): returns ``cal`` with
    each size's measured edge scale and the players' measured colours, and advice.  Raises
    ``CalibrationError`` naming the problem when the picture cannot be the layout."""
    board, pieces = cal.board, cal.pieces
    layout = set_layout(board, pieces)
    scores = _ring_scores(cal, frame, layout)
    best = scores.max(axis=0)
    found = tuple(bool(b >= FOUND) for b in best)
    # a player none of whose tops showed an edge is read where its cups were put: light tops as
    # pale as the board show no edge under a soft light, yet stand there plainly to the eye,
    # and refusing the calibration would be refusing the light.  So the picture is judged on
    # the other player's cups: it is not the layout when most of those are missing too
    faint = [colour for colour in (0, 1) if not any(ok for c, ok in zip(layout, found) if c.colour == colour)]
    shown = [(c, ok) for c, ok in zip(layout, found) if c.colour not in faint]
    missing = [c for c, ok in shown if not ok]
    if not shown or len(missing) > len(shown) // 2:
        raise CalibrationError(
            "most of the set's cups were not found where they should stand: put "
            + _cups_text(board, pieces, layout) + " and try again")
    advice = []
    if faint:
        advice.append(_faint_advice(board, pieces, layout, faint))
    if missing:
        advice.append("no top was found for " + _cups_text(board, pieces, tuple(missing))
                      + ": check that it stands there, or light the board more evenly; that size keeps the "
                      "set file's numbers")
    scales = _edge_scales(pieces, layout, scores, found)
    measured = with_edge_scales(cal, scales)
    advice += _sizes_advice(measured)

    rec = Recogniser(measured, model=None, size_check=None)
    rec.recognise(frame)
    ref_board = np.asarray(cal.colour.board_bgr, np.float64)
    bodies = []
    glare: tuple[list[float], list[float]] = ([], [])  # per player, each top's share of blown-out pixels
    for c, ok in zip(layout, found):
        if not ok and c.colour not in faint:
            bodies.append(None)
            continue
        pixels, board_now = rec.top_pixels(c.square, c.size)
        bodies.append(body_colour(pixels) * ref_board / np.maximum(board_now, 1.0))
        glare[c.colour].append(float(np.mean(pixels.max(axis=1) >= GLARE_LEVEL)) if len(pixels) else 0.0)
    players = []
    mirroring: tuple[list[LayoutCup], list[LayoutCup]] = ([], [])  # per player, the tops sheen greyed
    for colour in (0, 1):
        own = [(b, c) for b, c in zip(bodies, layout) if b is not None and c.colour == colour]
        if colour == 0 or pieces.clear:
            # grey added to a light top leaves it light: its tops' median is its colour.  A clear
            # cup's plug is read as it is: on shaded seeds 5 and 7 taking the sheen off Storer's
            # dark plugs cost 1.1-1.4 % of squares (plugs a shade brighter than the darkest then
            # read light), where it gained nothing.  A clear set's light tops read off their cups
            # (on their shadow or wall) are left out (``_light_looking``)
            tops = [b for b, _ in own]
            if pieces.clear and colour == 0:
                tops = _light_looking(cal, tops)
            players.append(np.median(np.stack(tops), axis=0))
            continue
        ref, greys = player_colour([b for b, _ in own])
        players.append(ref)
        mirroring[colour].extend(c for (_, c), g in zip(own, greys) if g > SHEEN_WARN * float(ref_board.mean()))
    light, dark = players
    if _swapped(cal, light, dark):
        raise CalibrationError(
            f"the cups on {_squares(board, layout, 0)} should be the {pieces.colours[0].name} ones and those on "
            f"{_squares(board, layout, 1)} the {pieces.colours[1].name} ones, but each group looks like the "
            "other player's: swap them")
    logs = np.log(np.maximum(np.stack(players), 1.0))
    greyed = set(mirroring[0]) | set(mirroring[1])
    for b, c in zip(bodies, layout):
        if b is None or c in greyed:  # a top sheen greys is named with the lamp's advice below
            continue
        d = np.linalg.norm(np.log(np.maximum(b, 1.0)) - logs, axis=1)
        if d[1 - c.colour] < 0.6 * d[c.colour]:  # plainly the other player's, not a shade off
            advice.append(f"the cup on {board.square_name(c.square)} looks more like the "
                          f"{COLOUR_NAMES[1 - c.colour]} player's: it should be a {COLOUR_NAMES[c.colour]} size "
                          f"{pieces.sizes[c.size].name}")
    for colour, shares in enumerate(glare):
        name = pieces.colours[colour].name
        if shares and np.median(shares) > GLARE_SHARE:
            advice.append(f"the {name} cups' tops mirror the lamp (they look white to the "
                          "camera): move the lamp away from above the board or soften it, then measure again")
        elif mirroring[colour]:
            advice.append(f"the {name} {_tops_text(board, mirroring[colour])} the lamp (grey to the camera; "
                          f"their colour was taken from the {name} tops that do not): turn the lamp so it does not "
                          f"reflect in the {COLOUR_NAMES[colour]} tops, or the {name} cups may be read as the other "
                          "player's where they face it")
    apart = float(np.linalg.norm(logs[0] - logs[1]))
    if apart < ALIKE:
        advice.append(_alike_advice(board, pieces, layout, bodies, logs, mirroring))
    colour = ColourModel(cal.colour.board_bgr, tuple(float(v) for v in light), tuple(float(v) for v in dark), "set")
    tops: list[tuple[int, int] | None] = [None] * board.squares
    for c in layout:
        tops[c.square] = (c.colour, c.size)
    learnt = learn_from_frame(replace(measured, colour=colour), frame, tops)
    return SetMeasurement(learnt, tuple(round(f, 3) for f in scales), found, tuple(advice))


def _faint_advice(board: BoardSpec, pieces: PieceSet, layout: tuple[LayoutCup, ...], faint: list[int]) -> str:
    """What to do when no top of a player showed its edge: check the cups stand there, then
    give them more contrast (their colour was read where they should stand)."""
    names = " and ".join(pieces.colours[colour].name for colour in faint)
    cups = _cups_text(board, pieces, tuple(c for c in layout if c.colour in faint))
    return (f"the {names} cups' edges hardly show against the board under this light, so their colour was read "
            f"where they should stand: check that there is {cups}; light from one side (not only from above) "
            f"or a darker board will make them easier to see in play")


def _alike_advice(board: BoardSpec, pieces: PieceSet, layout: tuple[LayoutCup, ...], bodies: list,
                  logs: np.ndarray, mirroring: tuple[list[LayoutCup], list[LayoutCup]]) -> str:
    """What to change when the two players' colours look alike: the lamp, where it mirrors in
    one player's tops; else the cup that looks most like the other player's; else the light."""
    start = "the light and dark cups look alike under this light: "
    for colour in (1, 0):
        if mirroring[colour]:
            return (start + f"turn the lamp so it does not reflect in the {COLOUR_NAMES[colour]} tops "
                    f"({_squares_of(board, mirroring[colour])}), then measure again")
    worst, lead = None, 0.0
    for b, c in zip(bodies, layout):
        if b is None:
            continue
        d = np.linalg.norm(np.log(np.maximum(b, 1.0)) - logs, axis=1)
        if d[c.colour] - d[1 - c.colour] > lead:
            worst, lead = c, float(d[c.colour] - d[1 - c.colour])
    if worst is not None:
        return (start + f"the {COLOUR_NAMES[worst.colour]} cup on {board.square_name(worst.square)} looks more like "
                f"the {COLOUR_NAMES[1 - worst.colour]} ones: check that it is a {COLOUR_NAMES[worst.colour]} size "
                f"{pieces.sizes[worst.size].name}, and light the board more evenly")
    return start + "more light on the board, or light from another side, will make their colours easier to tell"


def _squares_of(board: BoardSpec, cups: list[LayoutCup]) -> str:
    return ", ".join(board.square_name(c.square) for c in cups)


def _tops_text(board: BoardSpec, cups: list[LayoutCup]) -> str:
    return (f"cup's top on {_squares_of(board, cups)} mirrors" if len(cups) == 1
            else f"cups' tops on {_squares_of(board, cups)} mirror")


def _nominal_logs(cal: Calibration) -> list[np.ndarray]:
    """The set file's player colours as they would look under the calibration's light (scaled
    as the board is against the board file's), log BGR, light first."""
    seen = np.asarray(cal.colour.board_bgr, np.float64) / np.maximum(np.asarray(cal.board.wood_bgr, np.float64), 1.0)
    return [np.log(np.maximum(np.asarray(c.top_bgr, np.float64) * seen, 1.0)) for c in cal.pieces.colours]


def _apart(a: np.ndarray, b: np.ndarray) -> float:
    """How far apart two log BGR colours are, brightness and hue alike: their means' difference
    plus that of their departures from the mean."""
    return float(abs(a.mean() - b.mean()) + np.linalg.norm((a - a.mean()) - (b - b.mean())))


def _swapped(cal: Calibration, light: np.ndarray, dark: np.ndarray) -> bool:
    """Whether the two groups of cups look plainly more like each other's player than like
    their own, by the set file's colours seen under this light (``_nominal_logs``).  Brightness
    alone would refuse a pair told apart by hue (Gobblet Jr.'s orange and blue) under a lamp
    that makes the orange the darker."""
    nominal = _nominal_logs(cal)
    got = [np.log(np.maximum(v, 1.0)) for v in (light, dark)]
    as_laid = _apart(got[0], nominal[0]) + _apart(got[1], nominal[1])
    crossed = _apart(got[0], nominal[1]) + _apart(got[1], nominal[0])
    return crossed < 0.7 * as_laid


def _light_looking(cal: Calibration, bodies: list[np.ndarray]) -> list[np.ndarray]:
    """Of the light player's top colours (``bodies``, BGR as under the calibration's light),
    those nearer the set file's light colour than its dark one under this light
    (``_nominal_logs``, ``_apart``); all of them where none is.

    On a clear set a light top can be read off its cup: a light plug whose white rim barely
    shows on pale wood, or the tall solid smallest cup, is placed by its edges, which can lock
    onto its shadow seen through the clear wall or onto its own shaded wall (on tuning seed 97
    camera 0 three of the five light tops read near black, and the light player's colour with
    them: its light tops were then read dark in play).  Such a top says nothing of its player's
    colour; the others do.  Only the light player's tops are judged so: shade and shadow only
    darken, and a dark plug facing the lamp looks grey, on most tables nearer the file's light
    colour than its dark one (seed 97 cameras 3-5, 9, 10), which is how it looks in play too."""
    light, dark = _nominal_logs(cal)[:2]
    logs = [np.log(np.maximum(b, 1.0)) for b in bodies]
    keep = [b for b, log in zip(bodies, logs) if _apart(log, light) < _apart(log, dark)]
    return keep or bodies


def _sizes_advice(cal: Calibration) -> list[str]:
    """Neighbouring sizes whose tops, as measured, look nearly the same size to this camera."""
    out = []
    H = cal.camera_height_mm
    radii = [sc.edge_scale * p.outer_diameter_mm / 2 * height_scale(H, sc.height_mm)
             for sc, p in zip(cal.sizes, cal.pieces.sizes)]
    for s in range(len(radii) - 1):
        if radii[s + 1] < radii[s] * SIZES_APART:
            a, b = cal.pieces.sizes[s].name, cal.pieces.sizes[s + 1].name
            out.append(f"sizes {a} and {b} look almost the same size from this camera: mount it higher, or "
                       "check those two cups")
    return out


def _squares(board: BoardSpec, layout: tuple[LayoutCup, ...], colour: int) -> str:
    return ", ".join(board.square_name(c.square) for c in layout if c.colour == colour)


def _cups_text(board: BoardSpec, pieces: PieceSet, cups: tuple[LayoutCup, ...]) -> str:
    return "; ".join(f"a {COLOUR_NAMES[c.colour]} size {pieces.sizes[c.size].name} on {board.square_name(c.square)}"
                     for c in cups)
