"""Hands and arms over the board.

A hand is a large region unlike the empty board that comes in from outside: an arm always
crosses the edge of the board view, which lies beyond where any cup standing on the board can
appear (calibration sizes the view so), so cups never look like arms.  The light changing is
taken out first: the log-ratio of the frame to the empty-board picture is fitted by a smooth
(quadratic) field per colour channel over the board, and only what departs from that field
counts (the fit starts flat, at the median change, so that dark cups and their shadows over
much of the board do not bend it).  A shadow (of a cup, or of the hand itself) only darkens the
wood it falls on and keeps its tint, so the whole log-ratio moves down by about the same amount
in each channel; a hand or a sleeve puts another surface there, which changes the tint too.  A
changed region that is nearly all shade is no hand: the long shadows of several cups under a
low light join and reach the view's edge as an arm would; unless it hides the board's texture
(its lines and grain), which a shadow lets show through and a dark sleeve covers.  (A hand's
own shadow stays part of its region: it often links a pale hand's few changed pixels over the
board to its sleeve.) A shadow under a lamp is lit by the room's fill light alone, which is
cooler than a lamp: it may turn bluer as it darkens, within what the two lights' colours allow,
and is still shade.  Under a low lamp the cups' own shadows reach the view's edge and, joined
to the cups' sides, look like an arm: a region that only the read cups' cast shadows
(``HandDetector.cast_shadows``) joined to the edge is no hand, unless it holds an arm's or a
hand's own solid change.  Shadows are not always shade by colour (where two lamps' shadows
cross the board is darker than one can make it; a fill warmer than the lamp turns it redder):
a region through which the board's texture still shows is a change of light, no arm
(``HandDetector.texture_kept``), unless it holds an arm's solid change of its own colour.  An
arm lying beside the board, with little of it over the board, is found by that solid change.

Which squares a hand hides (``HandDetector.covering``): only where it covers, i.e. change solid
over a finger's width joined to the hand, and what lies within half an arm's width of that
(a pale arm shows only its outline); not the hand's bluish shadow, not the fragments a blurred
picture changes all over the board, and nowhere the texture of the board (or of the table beside
it) shows through, judged over a window round each pixel (``HandDetector.texture_shows``;
the cups read are left out of the windows, since they hide the board under them): the hand's
and the arm's shadows and the cups' shadows it joined, of whatever tint the lamps give them,
darken the squares but hide nothing; nor do the read cups' cast shadows the hand's region
joined (``HandFinding.cast``), which may be too dark for the texture to show.  The recogniser
hides a square where the solid part covers some of it, or the half-arm zone much of it; a
square that zone only grazes keeps its label, doubted (``Covering``,
``Recogniser._hide_covered``).  Everything is done on a quarter-size copy of the
board view.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from functools import cached_property

import cv2
import numpy as np

SCALE = 0.25
FIT_ROUNDS = 3  # fits of the light's change, each to the points the last one fitted well
_RIDGE = 1e-6 * np.eye(6, dtype=np.float32)  # keeps the fit's equations solvable
DIFF = 0.22  # log-colour departure from the fitted light field that counts as "changed"
MIN_INSIDE_MM2 = 1800.0  # a hand covers at least this much of the board
BORDER_PX = 1  # a component within this many (small) pixels of the view's edge touches it
SHADE_SHARE = 0.95  # a changed region this much shade is shadows, not an arm ...
# ... unless it hides the board's texture: a shadow darkens the grid lines and the grain with
# the wood, so they still show through it, while a dark sleeve or hand as dark as a shadow
# puts its own plain surface over them.  The texture is the log-brightness less its blur by
# this sigma (small px) ...
TEXTURE_SIGMA = 1.5
# ... read where the empty board has the most of it (this share of the board: its lines and
# strongest grain) ...
TEXTURE_SHARE = 0.25
# ... and a region hides it when more than this share of it is gone (the departure from the
# light's change holds the board's texture negated), seen over at least this many pixels
TEXTURE_HIDDEN = 0.4
TEXTURE_MIN_PX = 40
# an arm beside the board, little of it over the board, is solid change of its own colour in
# one piece of at least this much (a forearm some 60 mm wide seen over 25 mm; a checked cloth
# the board was moved on changes in blocks of a few hundred mm2 each)
ARM_PIECE_MM2 = 1500.0
# a region that is not all shade but lets the board's texture show through where it is no
# shade (its regression above minus this) is a change of light, not a surface laid on it
TEXTURE_KEPT = 0.25
# shade: darker by at most this much (log; a shadow under a lamp with little ambient light) ...
SHADE_DEPTH = 1.0
# ... with each channel within this of the mean darkening (log; room for a cast between the
# direct light and the ambient light that fills the shadow) ...
SHADE_TINT = 0.12
# ... or, more, bluer: a shadow is lit by the fill light alone, and a room's fill (sky, bounced
# daylight) is cooler than a lamp, so in shade red loses more than green, green more than blue.
# How much more grows with the depth (the share of the lamp taken away): the spread between
# red's and blue's log-darkening is at most this share of the mean darkening ...
SHADE_COOL = 0.8
# ... and never more than the log of the red/blue ratio between a 2,700 K lamp and 6,500 K
# daylight (about 2.5 for a camera white-balanced in between)
SHADE_COOL_MAX = 0.9
SHADE_NOISE = 0.06  # log; a channel brighter than this, or out of that order by more, is no shade
# what hides a square is solid: a finger is some 15 mm wide, while the grid lines and grain a
# blurred or pale picture changes, and the rims of cups read a little off, are a few mm
SOLID_MM = 12.0
# a pale arm over pale wood changes the picture only along its outline (its edges, its shadow,
# the lines it hides): the hand's region counts as covering within half an arm's width of the
# solid part seen ...
ARM_HALF_MM = 45.0
# ... and a palm too pale to tell from the wood reaches at most this far from it (a hand's
# width)
PALM_MM = 80.0
# what covers a square hides the board's texture; a shadow of any tint (a hand's, an arm's, the
# cups' under lamps of several colours) lets it show.  It is judged over windows this wide (a
# finger and a half, holding some twenty pixels of the board's strongest texture) ...
COVER_WINDOW_MM = 24.0
# ... where at least this share of the window is that texture
COVER_TEXTURE_SHARE = 0.1

# A cup's cast shadow (``HandDetector.cast_shadows``).  Directions are tried every 15 degrees
# over the stretch from just beyond the cup's base to this many of its radii from the base's
# centre ...
CAST_NEAR = 3.0
CAST_DIRECTIONS = 24
# ... which in a cup's shadow is at least this share shade (of the pixels no cup covers) ...
CAST_SHARE = 0.5
# ... and this share more than its median round the cup (the lamp's side is lit; a cup in a
# hand's shadow is dark all round).  All the cups' shadows point away from the same lamp: a
# cup's shadow lies within this many directions (30 degrees, room for a lamp near the board)
# of the frame's common direction ...
CAST_LIT = 0.35
CAST_SPREAD = 2
# ... its width is the cup's (its top's shadow, widened a little by the lamp's penumbra) ...
CAST_WIDTH = 1.25
# ... and it goes on, the board's shade, until a gap wider than a grid line's
CAST_GAP_MM = 6.0
# beside it (px on the small view, beyond its half-width) the board is not all shade, unless in
# another cup's shadow: a hand's shadow, or a dark hand, is wider than a cup
CAST_FLANK = np.array([2.0, 3.0, 4.0])
# one lamp casts every cup's shadow as long as the cup is tall times the same factor; a
# shadow may be this much longer than the frame's median (a lamp near the board)
CAST_LONGER = 1.5
# an arm reaches over the board by a finger's width and length (12 x 40 mm) of its own, not of
# the cups' shadows it joined
ARM_OWN_MM2 = 500.0

# the directions tried, the lines across them, and the samples of a cup's near stretch in each
# direction (directions, along, across, 2; in the cup's radii from its base's centre)
_CAST_ANGLES = np.arange(CAST_DIRECTIONS) * (2 * np.pi / CAST_DIRECTIONS)
_CAST_DIRS = np.stack([np.cos(_CAST_ANGLES), np.sin(_CAST_ANGLES)], axis=1).astype(np.float32)
_CAST_PERP = np.stack([-_CAST_DIRS[:, 1], _CAST_DIRS[:, 0]], axis=1)
_CAST_NEAR_OFFSETS = (np.linspace(1.15, CAST_NEAR, 8, dtype=np.float32)[None, :, None, None] * _CAST_DIRS[:, None, None, :]
                      + np.linspace(-0.6, 0.6, 5, dtype=np.float32)[None, None, :, None] * _CAST_PERP[:, None, None, :])


@dataclass(frozen=True)
class HandFinding:
    """Hand/arm pixels on the board view (uint8 0/255, the view's size, or None), and the
    light field's overall level change (log)."""

    mask: np.ndarray | None
    light_change: float
    small: np.ndarray | None = None  # the same mask at the detector's quarter size
    # the shade the read cups' shadows account for (bool, quarter size; ``cast_shadows``), where
    # they were looked for: a cup's shadow joined to the hand covers nothing
    cast: np.ndarray | None = None


@dataclass(frozen=True)
class Change:
    """Pixels of a board view (quarter size, uint8 0/1) unlike the empty board once the
    light's change is taken out, the light's overall level change (log), and each pixel's
    departure from the light's change (log BGR, one row a pixel)."""

    mask: np.ndarray
    light: float
    depart: np.ndarray

    def brightness(self) -> np.ndarray:
        """Per pixel (float32, the mask's shape) the departure's log-brightness: the mean of
        its channels."""
        return self.depart.mean(axis=1).reshape(self.mask.shape).astype(np.float32)

    def shade(self) -> np.ndarray:
        """Pixels (uint8 0/1, the mask's shape) that only went darker, keeping their tint or
        turning bluer as a shadow does (``cool_shade``).  Asked for only when a region may be
        a hand, which most frames have none of."""
        neutral, cool = self._shades
        return (neutral | cool).reshape(self.mask.shape).astype(np.uint8)

    def cool_shade(self) -> np.ndarray:
        """Pixels (uint8 0/1, the mask's shape) darker and bluer beyond a neutral cast, as a
        shadow under a lamp filled by cooler light is: a hand's shadow on the board, which
        hides nothing.  (A dark grey sleeve darkens without turning bluer, so neutral shade
        stays part of what a hand may cover.)"""
        neutral, cool = self._shades
        return (cool & ~neutral).reshape(self.mask.shape).astype(np.uint8)

    @cached_property
    def _shades(self) -> tuple[np.ndarray, np.ndarray]:
        """Per pixel: darker keeping its tint, and darker turning bluer within what the fill
        light's colour allows at that depth."""
        d = self.depart
        mean = d.mean(axis=1)
        dark = (mean < 0) & (mean > -SHADE_DEPTH)
        neutral = dark & (_largest_channel(np.abs(d - mean[:, None])) < SHADE_TINT)
        b, g, r = d[:, 0], d[:, 1], d[:, 2]
        cool = (dark & (b < SHADE_NOISE) & (b + SHADE_NOISE >= g) & (g + SHADE_NOISE >= r)
                & (b - r < np.minimum(SHADE_TINT - SHADE_COOL * mean, SHADE_COOL_MAX)))
        return neutral, cool


@dataclass(frozen=True)
class Covering:
    """What a hand found covers (``HandDetector.covering``), as small masks (uint8 0/1): the
    change solid over a finger's width joined to it (``solid``: seen covering), that and the
    hand's region within half an arm's width of it (``core``: where a pale arm seen only by
    its outline may lie), and near it the change the cups read leave unexplained (``palm``:
    a palm too pale to see whole)."""

    solid: np.ndarray
    core: np.ndarray
    palm: np.ndarray


class HandDetector:
    """Finds hands on board views of one calibration (the empty-board reference and the
    board's outline on the view are fixed, so their small copies are prepared once)."""

    def __init__(self, reference: np.ndarray, board_area: np.ndarray, ppm: float):
        self.size = (reference.shape[1], reference.shape[0])
        small = cv2.resize(reference, None, fx=SCALE, fy=SCALE, interpolation=cv2.INTER_AREA)
        self.ref_log = np.log(small.astype(np.float32) + 8.0)
        h, w = small.shape[:2]
        area = cv2.resize(board_area.astype(np.uint8), (w, h), interpolation=cv2.INTER_NEAREST) > 0
        self.area = area
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        x, y = xx / w - 0.5, yy / h - 0.5
        self.basis = np.stack([np.ones_like(x), x, y, x * x, y * y, x * y], axis=-1).reshape(-1, 6)
        # the light is fitted over everything the view shows (board, tiles, table), where the
        # reference has picture at all
        seen = small.max(axis=2) > 0
        self.fit_idx = np.flatnonzero(seen.ravel())[::7]
        self.fit_basis = self.basis[self.fit_idx]
        texture = _texture(self.ref_log.mean(axis=2).astype(np.float32))
        # where the empty board's texture is strongest, and that texture (0 elsewhere)
        self.ref_texture = np.where(_strongest(texture, area), texture, 0.0).astype(np.float32)
        self.mm_per_px = 1.0 / (ppm * SCALE)
        self.mm2_per_px = self.mm_per_px ** 2
        self.solid_kernel = _round_kernel(SOLID_MM / self.mm_per_px / 2)
        self.arm_kernel = _round_kernel(ARM_HALF_MM / self.mm_per_px)
        self.palm_kernel = _round_kernel(PALM_MM / self.mm_per_px)
        side = max(3, int(round(COVER_WINDOW_MM / self.mm_per_px)) | 1)
        self.cover_window = (side, side)
        # the strongest texture of everything the view shows (a hand's shadow on the table
        # beside the board keeps the cloth's weave or the wood's grain as one on the board does)
        beside = seen & ~area
        self.cover_texture = self.ref_texture + np.where(_strongest(texture, beside), texture, 0.0).astype(np.float32)
        self.cover_power, self.cover_told = _window_power(self.cover_texture, self.cover_window)

    def changed(self, view: np.ndarray) -> Change:
        """The pixels of ``view`` unlike the empty board once the light's change is taken out."""
        small = cv2.resize(view, None, fx=SCALE, fy=SCALE, interpolation=cv2.INTER_AREA)
        d = np.log(small.astype(np.float32) + 8.0) - self.ref_log
        h, w = d.shape[:2]
        flat = d.reshape(-1, 3)
        y = flat[self.fit_idx]
        B = self.fit_basis
        # a robust fit: cups, their shadows and hands are outliers to the smooth change of the
        # light.  It starts from the median change, flat: a least-squares first fit to every
        # point bends under dark cups and their shadows when they fill much of the board, and
        # the trimmed fits that follow do not climb back out of the dip (the lit board beside
        # them then reads "changed", brighter, and joins them to the view's edge as an arm)
        coef = np.zeros((6, 3), np.float32)
        coef[0] = np.median(y, axis=0)
        for _ in range(FIT_ROUNDS):
            resid = _largest_channel(np.abs(y - B @ coef))
            keep = resid < max(0.06, float(np.percentile(resid, 60)) * 2.0)
            if keep.sum() < 12:
                break
            Bk = B[keep]
            coef = np.linalg.solve(Bk.T @ Bk + _RIDGE, Bk.T @ y[keep])
        depart = flat - self.basis @ coef
        changed = (_largest_channel(np.abs(depart)) > DIFF).reshape(h, w).astype(np.uint8)
        return Change(changed, float(coef[0].mean()), depart)

    def find(self, view: np.ndarray, explained: np.ndarray | None = None) -> HandFinding:
        """Hand pixels in ``view`` (the board view of the current frame); ``explained`` is an
        optional small mask of pixels the cups read on the board account for."""
        change = self.changed(view)
        return self.from_changed(change.mask, change.light, explained, change.shade, brightness=change.brightness)

    def from_changed(self, changed: np.ndarray, light: float, explained: np.ndarray | None = None,
                     shade: Callable[[], np.ndarray] | None = None,
                     cups: Sequence[tuple[np.ndarray, float, float]] = (),
                     brightness: Callable[[], np.ndarray] | None = None) -> HandFinding:
        """The hand among the changed pixels, leaving out those the cups explain, the shadows
        the cups cast (``cups``: each read cup's base centre, radius and height on the small view; see
        ``cast_shadows``) and regions that are nearly all shade (``shade()``: ``Change.shade``)
        unless they hide the board's texture (``brightness()``: ``Change.brightness``; see
        ``texture_hidden``), and regions through which that texture shows where they are no
        shade (``texture_kept``) unless solid of their own colour.  A region reaching the
        view's edge with a solid piece of an arm (``ARM_PIECE_MM2``) is a candidate however
        little of it lies over the board."""
        if explained is not None:
            changed = changed & (explained == 0)
        raw = changed > 0
        labels, keep_c = self._candidates(changed)
        if keep_c is None:
            return HandFinding(None, light)
        texture: list[np.ndarray] = []  # the departure's texture, worked out once when first needed

        def texture_now() -> np.ndarray:
            if not texture:
                texture.append(_texture(brightness()))
            return texture[0]

        n = len(keep_c)
        cast: np.ndarray | None = None
        shade_mask: np.ndarray | None = None
        own_solid = np.zeros(n)  # per region, mm2 of solid change of its own colour (no shade)
        if shade is not None:
            reach = self._reaching(labels, n) & ~keep_c
            if keep_c.any() or reach.any():
                shade_mask = shade() > 0
                own_solid, arm_piece = self._solid_mm2(labels, raw & ~shade_mask, n)
                # an arm beside the board: little of it over the board, but solid beside it
                keep_c |= reach & (arm_piece >= ARM_PIECE_MM2)
        if shade_mask is not None and keep_c.any():
            shaded = np.bincount(labels[raw & shade_mask], minlength=n)
            shadows = keep_c & (shaded >= SHADE_SHARE * np.bincount(labels[raw], minlength=n))
            if shadows.any() and brightness is not None:
                shadows &= ~self.texture_hidden(labels, texture_now(), n)[0]
            keep_c &= ~shadows
            if keep_c.any() and brightness is not None:
                # a change of light (shadows of several lamps, deeper than one, or tinted by
                # a fill light warmer than the lamp) lets the board's texture show through
                # where it is no shade by colour; a hand or sleeve hides it there, or is solid
                # of its own colour beside the board (a pale hand's region over the board may
                # be mostly its own shadow, which is judged as shade)
                kept = self.texture_kept(np.where(raw & ~shade_mask, labels, 0), texture_now(), n)
                keep_c &= ~(kept & (own_solid < MIN_INSIDE_MM2))
            if keep_c.any() and len(cups):
                cast = self.cast_shadows(raw, explained, shade_mask, cups)
                if cast.any():
                    # what the cups' shadows joined to the edge is no arm: an arm keeps, once
                    # they are taken out, a part of its own that reaches the edge, over the
                    # board or solid beside it, and the hand lies within half an arm's width of
                    # it (the region found stays whole: what the hand covers is decided from it
                    # as before)
                    rest = raw & ~cast
                    own_labels, own = self._candidates(rest.astype(np.uint8), ARM_OWN_MM2, rest & ~shade_mask)
                    arm = np.zeros(n, bool)
                    if own is not None and own.any() and brightness is not None:
                        # a part left of the cups' shadows where they were not followed to
                        # the end is shade through which the board's texture shows
                        m = len(own)
                        hidden, seen = self.texture_hidden(own_labels, texture_now(), m)
                        plain = np.bincount(own_labels[rest & ~shade_mask], minlength=m) * self.mm2_per_px
                        own &= hidden | ~seen | (plain >= ARM_OWN_MM2)
                    if own is not None and own.any():
                        # (a pale hand joins its arm only within half an arm's width of it)
                        near = cv2.dilate(own[own_labels].astype(np.uint8), self.arm_kernel) > 0
                        arm = np.bincount(labels[near & rest], minlength=n) > 0
                    # ... or, where the arm is the table's colour and only shadows led to the edge,
                    # holds a hand: change of its own colour, solid over a finger's width
                    solid = cv2.morphologyEx((rest & ~shade_mask & self.area).astype(np.uint8), cv2.MORPH_OPEN,
                                             self.solid_kernel) > 0
                    hand = np.bincount(labels[solid], minlength=n) * self.mm2_per_px >= MIN_INSIDE_MM2
                    keep_c &= arm | hand
        if not keep_c.any():
            return HandFinding(None, light)
        mask = keep_c[labels].astype(np.uint8) * 255
        mask = cv2.dilate(mask, np.ones((3, 3), np.uint8))
        return HandFinding(cv2.resize(mask, self.size, interpolation=cv2.INTER_NEAREST), light, mask, cast)

    def texture_kept(self, labels: np.ndarray, texture: np.ndarray, n: int) -> np.ndarray:
        """Per region of ``labels`` (``n`` of them): whether the board's texture shows through
        it as through a change of light (``texture_hidden``'s regression above
        ``-TEXTURE_KEPT``), seen over enough of that texture to tell."""
        along, power, seen = self._texture_regression(labels, texture, n)
        return seen & (along > -TEXTURE_KEPT * power)

    def _texture_regression(self, labels: np.ndarray, texture: np.ndarray,
                            n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per region: the departure's texture projected on the empty board's where that is
        strongest, that texture's power, and whether enough of it lies in the region."""
        at = self.ref_texture != 0
        ref = self.ref_texture[at]
        lab = labels[at]
        along = np.bincount(lab, texture[at] * ref, minlength=n)
        power = np.bincount(lab, ref * ref, minlength=n)
        return along, power, np.bincount(lab, minlength=n) >= TEXTURE_MIN_PX

    def _reaching(self, labels: np.ndarray, n: int) -> np.ndarray:
        """Per region of ``labels``: whether it reaches the view's edge and is as large as a
        hand's part over the board (anywhere in the view)."""
        b = BORDER_PX + 1
        rim = np.concatenate([labels[:b].ravel(), labels[-b:].ravel(), labels[:, :b].ravel(), labels[:, -b:].ravel()])
        out = np.bincount(rim, minlength=n) > 0
        out &= np.bincount(labels.ravel(), minlength=n) * self.mm2_per_px >= MIN_INSIDE_MM2
        out[0] = False
        return out

    def _solid_mm2(self, labels: np.ndarray, own: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Per region of ``labels``: the area (mm2) of ``own`` (bool: change that is no shade)
        solid over a finger's width in it, all of it and its largest piece.  A hand's fingers
        are apart, but an arm is one piece; a checked cloth the board was moved on changes in
        many small blocks."""
        solid = cv2.morphologyEx(own.astype(np.uint8), cv2.MORPH_OPEN, self.solid_kernel)
        k, pieces, stats, _ = cv2.connectedComponentsWithStats(solid, connectivity=8)
        largest = np.zeros(n)
        if k > 1:
            # each piece lies in one region (it is changed, and the regions hold all change)
            region = np.zeros(k, np.int64)
            region[pieces.ravel()] = labels.ravel()
            np.maximum.at(largest, region[1:], stats[1:, cv2.CC_STAT_AREA] * self.mm2_per_px)
        return np.bincount(labels[solid > 0], minlength=n) * self.mm2_per_px, largest

    def texture_hidden(self, labels: np.ndarray, texture: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Per region of ``labels`` (``n`` of them): whether it hides the board's texture,
        and whether it covers enough of that texture to tell.

        ``texture``: the fine texture (``_texture``) of the departure from the light's change
        (``Change.brightness``).  Under a shadow that departure is smooth, the board's lines
        and grain darkened with it; over a surface laid on the board it is that surface less
        the board, the board's texture negated.  The regression of the departure's texture on
        the empty board's, where that is strongest, is 0 for a shadow and -1 for a plain cover."""
        along, power, seen = self._texture_regression(labels, texture, n)
        return seen & (along < -TEXTURE_HIDDEN * power), seen

    def cast_shadows(self, changed: np.ndarray, explained: np.ndarray | None, shade: np.ndarray,
                     cups: Sequence[tuple[np.ndarray, float, float]]) -> np.ndarray:
        """The shade pixels (bool, small view) that the read cups' shadows account for.

        A cup's shadow starts at its base, has its width and points away from the lamp; all
        the cups on the board share the lamp, so their shadows point nearly the same way.  It
        darkens the board and keeps its tint (``shade``), so along it every cross-section is
        mostly shade; an arm is another surface.  The common direction is the one the cups'
        near stretches are most shade along; each cup's shadow is then followed from its base,
        in its own best direction near the common one, while its cross-sections stay shade
        (or lie under other cups), no wider than the cup (a hand's shadow, or a dark hand, is
        shade on both sides too) and no longer than the other cups' shadows allow for its
        height; the shade inside it is the shadow's.  An arm met on the way ends it, and what
        is no shade (an arm's own colour) is never taken."""
        h, w = changed.shape
        cast = np.zeros((h, w), np.uint8)
        free = np.ones((h, w), bool) if explained is None else explained == 0
        dark = shade & changed
        bases = np.array([c[0] for c in cups], np.float32).reshape(-1, 2)
        radii = np.array([c[1] for c in cups], np.float32)
        heights = np.array([c[2] for c in cups], np.float32)
        dirs, perp = _CAST_DIRS, _CAST_PERP
        pts = bases[:, None, None, None, :] + radii[:, None, None, None, None] * _CAST_NEAR_OFFSETS[None]
        ix, iy, inside = _pixels(pts, h, w)
        seen = inside & free[iy, ix]
        n_seen = seen.sum(axis=(2, 3))
        share = (seen & dark[iy, ix]).sum(axis=(2, 3)) / np.maximum(n_seen, 1)
        share[n_seen < seen.shape[2] * seen.shape[3] // 3] = 0.0
        # the common direction, smoothed over its neighbours
        total = share.sum(axis=0)
        total = total + 0.5 * (np.roll(total, 1) + np.roll(total, -1))
        common = int(total.argmax())
        near = (common + np.arange(-CAST_SPREAD, CAST_SPREAD + 1)) % CAST_DIRECTIONS
        gap = max(2, int(round(CAST_GAP_MM / self.mm_per_px)))
        steps = np.arange(0, int(np.hypot(h, w)), dtype=np.float32)
        chosen = []
        # a cup's shadow lies one way; a cup standing in a wider shade (a hand's shadow) is dark
        # all round
        lit = np.median(share, axis=1)
        for c in range(len(cups)):
            k = int(near[share[c, near].argmax()])
            if share[c, k] >= CAST_SHARE and share[c, k] - lit[c] >= CAST_LIT:
                chosen.append((c, k, CAST_WIDTH * float(radii[c]) + 1.0))
        if not chosen:
            return cast > 0
        # where each chosen cup's shadow could lie (to the view's edge): beside a cup's shadow,
        # the board may be another cup's shadow, but not a wider shade of its own
        lanes = np.zeros((len(chosen), h, w), np.uint8)
        for i, (c, k, half) in enumerate(chosen):
            _fill_strip(lanes[i], bases[c], dirs[k] * steps[-1], perp[k] * half)
        count = lanes.sum(axis=0, dtype=np.int16)
        ends = []
        for i, (c, k, half) in enumerate(chosen):
            d, p, b = dirs[k], perp[k], bases[c]
            lat = np.linspace(-half, half, max(3, int(2 * half) + 1), dtype=np.float32)
            flank = np.concatenate([-half - CAST_FLANK, half + CAST_FLANK]).astype(np.float32)
            ok = self._along(b, d, p, steps, lat, changed, dark, free)
            fx, fy, fon = _samples(b, d, p, steps, flank, h, w)
            others = fon & free[fy, fx] & (count[fy, fx] - lanes[i][fy, fx] == 0)
            n_others = others.sum(axis=1)
            wide = (n_others * 2 >= len(flank)) & ((others & dark[fy, fx]).sum(axis=1) * 2 > n_others)
            ok &= ~wide
            # the shadow ends at the first run of ``gap`` steps that are not shadow
            bad = np.flatnonzero(np.convolve(~ok, np.ones(gap), "valid") >= gap)
            ends.append(float(bad[0]) if len(bad) else float(len(steps) - 1))
        # one lamp: every cup's shadow is as long as the cup is tall times the same factor (the
        # lamp's elevation), so a shadow followed much further ran into a hand's shade
        tall = np.array([heights[c] for c, _, _ in chosen])
        reach = np.array(ends) - np.array([radii[c] for c, _, _ in chosen])
        factor = float(np.median(reach / tall))
        for (c, k, half), end in zip(chosen, ends):
            end = min(end, radii[c] + CAST_LONGER * factor * heights[c] + gap)
            if end <= radii[c]:
                continue
            _fill_strip(cast, bases[c], dirs[k] * end, perp[k] * half)
        return (cast > 0) & dark

    @staticmethod
    def _along(b: np.ndarray, d: np.ndarray, p: np.ndarray, steps: np.ndarray, lat: np.ndarray,
               changed: np.ndarray, dark: np.ndarray, free: np.ndarray) -> np.ndarray:
        """Per step along ``d`` from ``b``: whether the cross-section (``lat`` along ``p``)
        looks like a shadow: mostly changed and mostly shade, or mostly under cups."""
        h, w = changed.shape
        qx, qy, on = _samples(b, d, p, steps, lat, h, w)
        f = on & free[qy, qx]
        nf = f.sum(axis=1)
        ch = (f & changed[qy, qx]).sum(axis=1)
        dk = (f & dark[qy, qx]).sum(axis=1)
        ok = (nf * 2 < on.sum(axis=1)) | ((ch * 5 >= nf * 2) & (dk * 5 >= ch * 3))
        return ok & on.any(axis=1)

    def _candidates(self, changed: np.ndarray, inside_mm2: float = MIN_INSIDE_MM2,
                    solid: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
        """The changed pixels' regions (labels) and which may be an arm: those that reach the
        view's edge and cover at least ``inside_mm2`` of the board, or (with ``solid``, the
        changed pixels that are no shade) hold ``MIN_INSIDE_MM2`` of solid change anywhere in
        the view (an arm beside the board); ``None`` when there is no region."""
        # a pale hand over pale wood shows mostly as the grid lines and grain it hides:
        # closing joins those fragments into one region
        changed = cv2.morphologyEx(changed, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        h, w = changed.shape
        n, labels, stats, _ = cv2.connectedComponentsWithStats(changed, connectivity=8)
        if n <= 1:
            return labels, None
        inside = np.bincount(labels[self.area], minlength=n)
        x, y0, bw, bh = stats[:, 0], stats[:, 1], stats[:, 2], stats[:, 3]
        touches = ((x <= BORDER_PX) | (y0 <= BORDER_PX) | (x + bw >= w - BORDER_PX)
                   | (y0 + bh >= h - BORDER_PX))
        big = inside * self.mm2_per_px >= inside_mm2
        if solid is not None:
            big |= np.bincount(labels[solid], minlength=n) * self.mm2_per_px >= MIN_INSIDE_MM2
        keep_c = touches & big
        keep_c[0] = False
        return labels, keep_c

    def texture_shows(self, change: Change, explained: np.ndarray | None = None) -> np.ndarray:
        """Pixels (uint8 0/1, small view) through which the texture of the board (or of the
        table beside it) shows, as through a change of light: the departure's texture
        (``Change.brightness``) regressed on the empty view's strongest, over a window round
        each pixel (``COVER_WINDOW_MM``), above
        ``-TEXTURE_HIDDEN`` (0 for a shadow, -1 for a surface laid on the board; see
        ``texture_hidden``).  Windows with too little of the board's texture tell nothing and
        are left out, so a hand over a plain part of the view still covers.

        ``explained`` (small, nonzero where the cups read account for the change): those
        pixels are left out of every window that still holds enough of the board's texture
        without them (elsewhere the window is judged whole, as before).  A cup read there hides
        the board's texture under it, so a window holding its side read as covered, and the
        shadow round a cup in a hand's shade hid the squares it lay on."""
        texture = _texture(change.brightness())
        shows = self._texture_along(texture, self.cover_texture, self.cover_power)
        told = self.cover_told.copy()
        if explained is not None and explained.any():
            # where the board left beside the cups still tells, it is judged alone
            free = self.cover_texture * (explained == 0)
            free_power, free_told = _window_power(free, self.cover_window)
            shows = np.where(free_told, self._texture_along(texture, free, free_power), shows)
            told |= free_told
        return (told & shows).astype(np.uint8)

    def _texture_along(self, texture: np.ndarray, ref: np.ndarray, power: np.ndarray) -> np.ndarray:
        """Over the cover window round each pixel: whether the departure's ``texture`` projected
        on ``ref`` (the empty view's strongest texture where it may be read, 0 elsewhere) is
        above ``-TEXTURE_HIDDEN`` of that texture's ``power`` (``_window_power``)."""
        return cv2.boxFilter(texture * ref, -1, self.cover_window) > -TEXTURE_HIDDEN * power

    def covering(self, changed: np.ndarray, unexplained: np.ndarray, hand: np.ndarray,
                 shade: np.ndarray | None = None) -> Covering:
        """Of the hand's region ``hand`` (the small mask of ``HandFinding``), the part solid
        enough to hide what lies under it, the part within half an arm's width of that, and
        the part near it where a pale palm may be (``Covering``).

        ``changed`` (small, uint8 0/1) is the change since the empty board, ``unexplained`` the
        part of it the cups read do not account for.  The hand's region is joined up from
        fragments (a pale hand shows as the lines it hides), so on a blurred picture, where
        every grid line changed, it can spread over the board; what really covers a square is
        change that is solid over a finger's width and joins a solid part of the region that
        no cup read explains (cups misread under the hand are part of what it covers).  Near
        it (a palm's width), unexplained change may be a palm too pale to see whole: the
        caller hides a square where much of that lies.  ``shade`` (``Change.cool_shade``, and
        ``texture_shows``): the hand's shadow, and the cups' shadows it joined, fall on squares
        it does not cover, which stay readable."""
        kernel = self.solid_kernel
        if shade is not None:
            changed = changed & (shade == 0)
            unexplained = unexplained & (shade == 0)
            hand = hand * (shade == 0)
        solid = cv2.morphologyEx(changed.astype(np.uint8), cv2.MORPH_OPEN, kernel)
        seed = cv2.morphologyEx((unexplained > 0).astype(np.uint8) & (hand > 0), cv2.MORPH_OPEN, kernel)
        n, labels = cv2.connectedComponents(solid, connectivity=8)
        joined = np.bincount(labels[seed > 0], minlength=n) > 0
        joined[0] = False
        solid_hand = joined[labels].astype(np.uint8)
        core = ((cv2.dilate(solid_hand, self.arm_kernel) > 0) & (hand > 0)).astype(np.uint8) | solid_hand
        near = cv2.dilate(solid_hand, self.palm_kernel)
        return Covering(solid_hand, core, ((near > 0) & (hand > 0) & (unexplained > 0)).astype(np.uint8))


def _window_power(ref: np.ndarray, window: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Over ``window`` round each pixel: the power of ``ref`` (a texture, 0 where it may not be
    read), and whether the window holds enough of it to tell (``COVER_TEXTURE_SHARE``).  The
    whole board's is made once per calibration (``HandDetector.cover_power``)."""
    power = cv2.boxFilter(ref * ref, -1, window)
    told = cv2.boxFilter((ref != 0).astype(np.float32), -1, window) >= COVER_TEXTURE_SHARE
    return power, told


def _samples(b: np.ndarray, d: np.ndarray, p: np.ndarray, steps: np.ndarray, lat: np.ndarray,
             h: int, w: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pixel columns, rows (clipped) and in-view flags of the points ``b + t d + l p`` for each
    step ``t`` (rows) and lateral offset ``l`` (columns)."""
    return _pixels(b[None, None, :] + steps[:, None, None] * d + lat[None, :, None] * p, h, w)


def _pixels(q: np.ndarray, h: int, w: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pixel columns and rows (clipped into an ``h`` x ``w`` view) of the points ``q`` (..., 2;
    x, y), and whether each lies in the view."""
    qx, qy = np.rint(q[..., 0]).astype(np.int64), np.rint(q[..., 1]).astype(np.int64)
    on = (qx >= 0) & (qx < w) & (qy >= 0) & (qy < h)
    return np.clip(qx, 0, w - 1), np.clip(qy, 0, h - 1), on


def _fill_strip(mask: np.ndarray, b: np.ndarray, length: np.ndarray, half: np.ndarray) -> None:
    """Set to 1 on ``mask`` the rectangle from ``b`` along the vector ``length``, ``half``
    (a vector across it) to either side."""
    poly = np.array([b - half, b + half, b + length + half, b + length - half])
    cv2.fillConvexPoly(mask, np.round(poly * 16).astype(np.int32), 1, cv2.LINE_8, 4)


def _texture(lum: np.ndarray) -> np.ndarray:
    """The fine texture of a log-brightness image: less its blur by ``TEXTURE_SIGMA``."""
    return lum - cv2.GaussianBlur(lum, (0, 0), TEXTURE_SIGMA)


def _strongest(texture: np.ndarray, where: np.ndarray) -> np.ndarray:
    """Pixels (bool) of ``where`` whose ``texture`` is among its strongest
    (``TEXTURE_SHARE`` of them)."""
    if not where.any():
        return np.zeros_like(where)
    return where & (np.abs(texture) > np.percentile(np.abs(texture[where]), 100 * (1 - TEXTURE_SHARE)))


def _round_kernel(radius_px: float) -> np.ndarray:
    """A disc-shaped structuring element of ``radius_px`` (at least 1)."""
    r = max(1, int(round(radius_px)))
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))


def _largest_channel(values: np.ndarray) -> np.ndarray:
    """Per row of ``values`` (pixels, 3 channels), the largest channel: ``values.max(axis=1)``
    without a reduction's overhead over an axis of three."""
    return np.maximum(np.maximum(values[:, 0], values[:, 1]), values[:, 2])


def hand_mask(view: np.ndarray, reference: np.ndarray, area: np.ndarray, ppm: float = 1.5) -> np.ndarray | None:
    """A mask (uint8, view size) of hand/arm regions, or None when there is none; ``area``
    marks the board on the view.  One-off form of ``HandDetector``."""
    return HandDetector(reference, area, ppm).find(view).mask
