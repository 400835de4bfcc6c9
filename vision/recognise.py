"""Recognition: find the board, then for every square test each size class's top disc at
its own height and decide empty / top cup (colour, size class) / hidden.

For each size class the top disc of a cup on a square appears on the rectified board view as
a circle of radius r·k, centred at n + (p - n)·k, where n is the camera's nadir, p the cup's
position and k = H / (H - h).  A disc edge shows as a ring of consistently signed radial
gradient in the log-brightness image (so it does not depend on the light's level); board
grain and grid lines give gradients of mixed sign that cancel.  The same ring measured on the
calibration's empty-board picture is subtracted, so fixed board features do not count.

Clear cups (Storer's set) are also searched for their white rim: a ring brighter, in
whiteness (log-brightness less the warm chroma), than both the plug inside and what lies
outside.  Wood never makes such a ring, so where one is found it decides the size class and
the top's centre; a light plug on light wood shows almost no edge of its own.  Colours are
read by tint as much as by brightness, so a light cup's shaded side is not taken for dark; a
doubtful colour is read again inside the outline a lighter top shows all the way round (the
edges may have found something dark beside it), over most of the top (past a glare spot).
Each pixel is compared with each player's colour past the grey sheen a glossy top can add
(``kernels.sheen_distance``), and a top read light whose colour the dark player's under a
strong sheen explains as well keeps no colour margin (``sure_colour_of``).  A clear cup's plug
is flat and can mirror the lamp all over: its sheen, which adds to the light before the
camera's tone curve, is taken off in light rather than in display values, and is common
(``PLUG_GAMMA``, ``PLUG_SHEEN_SIGMA``).  A solid top's
flat top can mirror the lamp all over; its rounded rim and wall do not, so a solid top read
light is read dark where the rim just inside its edge leads for the dark player by more than
its disc keeps for the light one (``body_colour_of``).

None of these measures decides alone: per square, the evidence for every size class goes to
the square model (``square_model.py``, fitted on rendered boards), which weighs empty against
each size and gives the probability that becomes the reading's confidence.  Where, on a
clear set, it is unsure which size a cup is, a small net looks at crops around the top scaled
to each size (``size_check.py``) and its scores move the probability between the sizes.  The
crops are taken where that size's top was found and, since a cup's top lies at one place
whatever its size, also where the other sizes' tops were found.  A square the model reads
empty is read as a light top where a solid size's whole outline is lighter than what lies
round it (``_outlined_tops``): a light top on a pale board barely shows the edge the search
looks for, but is lighter than its own shaded wall and shadow and, a little, than the board.
A top the board's own colour (white on white, dark on dark wood) is found by its wall
(``_walls``): over the near arc, where its shaded wall and the shade at its foot lie beyond
its edge, its outline is lighter inside than out; that doubts the empty reading, or reads the
top where it is plain and every size in play is solid, one size up where the next size's own
wall is there too (``_walls_up``: a larger top's lit flat face ends at the smaller size's
circle, which then leads).  Where every size is solid, a top the readers put at a size whose
edges were not found (``_faint_walls``) is read at its wall's size, and one whose edges put it
a size down is read one size up where the next size's wall leads (``_wall_lifts``), as is a top
read dark whose read edge is only a soft step round the whole circle where the next size's wall
is there too (``_dark_wall_lift``); a top read dark there keeps no more colour margin than its
body ring, leading for the light player, leaves it (``_dark_body_margin``).  A top
read dark whose edges may have been found on a light top's own shaded wall (Storer's tall
smallest cup from a low camera, or a pale plug no rim placed) is read light, under the commit,
where a lighter outline of its size beside it reads light, or (a tall top on a white board) the
circle its own shaded wall places (``_light_top_beside``).  A top read unsure where every size is
solid, whose square keeps the board's chroma and where no size's wall shows, is a shadow or
another light on bare board and is read empty (``_shaded_empty``).  A clear
cup read where a larger clear size's white rim was found is read under the commit
(``_larger_rim``): the top cup is the largest of its stack; and a light clear cup whose own
outline does not step round the whole circle is doubted where the next clear size's outline
does (``_light_clear_larger``): a maple plug on light wood shows no rim.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

import cv2
import numpy as np

from calibration.calibrate import board_area_mask
from calibration.canvas import canvas_maps, maps_inside, rectify
from calibration.corners import board_corners_world
from calibration.locate import BoardFix, detect_markers, estimate_pose, look_harder
from calibration.model import Calibration
from hardware.camera_model import CameraPose, height_scale, nadir, project
from hardware.frames import Frame
from hardware.markers import marker_corners_world, outer_rect
from hardware.render.scene import max_offset

from .hands import SCALE as HAND_SCALE
from .hands import Covering
from .hands import HandDetector
from .observation import CUP, EMPTY, OCCLUDED, Observation, SquareReading
from .kernels import (block_means, channel_medians_at, colour_distance, colour_vote, crop_maps, disc_offsets,
                      inside_leads, log_changes, log_channels, median_at, rim_search, ring_search, ring_vote)
from .size_check import SizeCheck, load_size_check
from .square_net import SquareNet, default_net
from .square_model import (
    LARGER_WALL_FOUND,
    OUTLINE_SHARE,
    N_POLAR,
    N_POLAR_RADII,
    SquareEvidence,
    SquareModel,
    CLEAR_TEMPERATURE,
    alternatives,
    calibrated_model,
    larger_edge,
    larger_outline,
    larger_wall,
    size_bound,
    tempered,
    wall_leads_up,
)

N_ANG = 24
RADII = (-0.6, 0.0, 0.6)
COARSE_STEP_PX = 2.0
COARSE_ANGLES = 16
SLACK_MM = 3.0
MAP_TOLERANCE_PX = 0.6  # board motion (image px) below which the last canvas maps are kept
EMPTY_THRESHOLD = 0.014  # the unit of ring scores handed to the square model
OCCLUDED_COVER = 0.04
# with a hand over the board: share of a square that the hand's region within half an arm's
# width of its solid part (not that part) must cover to hide it; a square it covers less of
# (over ``OCCLUDED_COVER``) keeps its label, no surer than ``REACH_DOUBT`` (under the
# referee's commit).  On tuning seed 7 with a hand (Gobblet, 10 boards) that zone alone hid
# 12 squares no hand hid (covering 4.5-36 % of them) and 12 a hand hid (4.7-52 %: a pale hand
# shows little more than its outline)
REACH_COVER = 0.15
REACH_DOUBT = 0.7
PROFILE_UNIT = 0.1  # log-brightness step of the radial profile taken as one unit of evidence
LUM_SIGMA = 0.35  # log-brightness spread of one wood colour across shading (side walls, shadow)
TINT_SIGMA = 0.08  # spread of its tint (log channels less their mean)
RIM_SIDE_PX = 2.0  # clear sets: how far inside the plug edge and outside the rim its sides are read
RIM_STEP_PX = 2.0  # grid step of the coarse rim search
RIM_COARSE_ANGLES = 12  # angles per ring: coarse search, then the fine one around its best seeds
RIM_ANGLES = 24
RIM_KEEP = 0.8  # share of the angles (the weakest) whose rim lead counts
RIM_SURE = 0.02  # clear sets: rim lead (whiteness) above which the rim places the top; its unit
GLARE_TINT = 0.15  # log(R/B) below the coolest player colour that marks a pixel as white glare
SHEEN_SIGMA = 0.3  # typical grey sheen on a glossy top, as a share of the board's brightness
SHEEN_DOUBT = 1.0  # sheen as common as this (same unit) must not explain the other player's colour
# a clear cup's plug is a flat varnished disc with no rim of its own: a lamp's mirror image lies
# over all of it (a walnut plug looks grey, or warm grey, all over), and the sheen adds to the
# light before the camera's tone curve.  So a plug's sheen is taken off in light (display
# values to the power ``PLUG_GAMMA``, as a camera's sRGB-like curve encodes them) and, being
# common on such a top, costs less (``PLUG_SHEEN_SIGMA``, a share of the board's light); its
# doubt allows nearly any sheen (``PLUG_SHEEN_DOUBT``), in light and in display values alike
PLUG_GAMMA = 2.2
PLUG_SHEEN_SIGMA = 3.0
PLUG_SHEEN_DOUBT = 10.0
COLOUR_SURE = 0.5  # colour margin (share of the players' distance) under which it looks again
# a solid top read light is read dark where its body ring (the rounded rim just inside its seen
# edge, from ``BODY_RING[0]`` to ``BODY_RING[1]`` of its edge radius, the darkest of
# ``BODY_STEPS`` points on each of ``BODY_RAYS`` rays) leads for the dark player by more than
# ``BODY_LEAD`` over the light margin its disc keeps past a strong sheen (``sure_colour_of``).
# The ring stops short of the edge: past it lies the board, which may be the dark player's
# colour (on tuning seeds a light 1 on such a board was read dark with the ring out to 1.0)
BODY_LEAD = 0.0
BODY_RING = (0.8, 0.95)
BODY_RAYS, BODY_STEPS = 48, 4
OUTLINE_SURE = 1.0  # lead, in ring units (EMPTY_THRESHOLD), of an outline that places a lighter top
# the most a top read from its lighter outline alone keeps (``_outlined_tops``), the square model
# reading the square empty: under the referee's commit (0.8), as where the square net and the
# model each read another thing (its ``disagree_cap``)
OUTLINED_TOP = 0.7
# a solid size at least this many times as tall as its top is wide shows, seen from a low
# camera, a wall as long as its top is wide, which can pass for a dark top (``_light_top_beside``):
# Storer's smallest (2), not Gobblet's nor Jr.'s (1.2-1.25)
TALL_TOP = 1.5
# the lead (ring units) of the lighter outline beside such a top that reads it light: twice
# ``OUTLINE_SURE``, as it overrides a colour read (on tuning seed 5 bare, grainless board beside
# a dark 1 led by 1.04; the light tops' own outlines led by 3.0-7.3)
BESIDE_SURE = 2.0
# where no such outline leads (a light top as white as a white board shows none on its far arc),
# the near-arc wall (``_wall_leads``) of a light circle of a tall solid size beside the dark disc,
# at least its edge radius from it, that leads by this (ring units) reads it light
# (``_light_wall_beside``): on tuning seeds 97, 7 and 13 the light 1s (and a light 2) read dark
# had such a wall leading by 8.4-15.6, 11-19 px from the dark disc; for the dark 1s read right
# the light circle that far off led by 6.9 at most
BESIDE_WALL = 8.0
# ... and only where the circle it finds reads light past a strong sheen by this margin
# (``_sheen_kept``): the lamp mirrored in a dark 1's top makes it a light circle beyond its own
# wall too (tuning seed 103: kept 0.08), where the light tops so found kept 0.18-0.66
BESIDE_WALL_KEPT = 0.12
# clear sets: the most a cup's reading keeps where a larger clear size's white rim was found
# round it (``_larger_rim``): under the referee's commit, as ``OUTLINED_TOP``
SIZE_DOUBT = 0.7
# clear sets: a light top read as a clear size whose own outline does not step round the whole
# circle (``radial_steps``: the strongest median step, either sign, at radii from its plug's edge
# to its outer rim, ``_clear_window``, under ``CLEAR_OWN_FAINT`` of log-brightness) keeps at most
# ``SIZE_DOUBT`` where the next clear size's outline is lighter inside by ``CLEAR_LARGER_STEP`` or
# more on ``OUTLINE_SHARE`` of the circle (``_light_clear_larger``): it may be that size.
# A maple plug on light wood shows no white rim and hardly an edge on the far arc; the readers
# then put it a size down, where no outline of that size is.  On tuning seed 97 (shaded, 40
# boards) the light 3s, 4s and 5s read a size down had own steps of 0.002-0.039 and larger
# steps of 0.056-0.138; the light tops read right whose own step was under 0.04 had larger
# steps of 0.025 at most
CLEAR_OWN_FAINT = 0.04
CLEAR_LARGER_STEP = 0.05
CLEAR_WINDOW = 7  # radii of that window, evenly from 1 px inside the plug's edge to 1 px outside the rim
# the radial steps round a top (``radial_steps``): over the whole circle, since a rounded rim
# fades on the far arc the edge search reads (it curves away from the camera there) and shows
# on the near arc and the sides; each edge is read at its radius and up to 2 px either way
SCAN_ANGLES = 48
OUTLINE_RADII = np.arange(-2.0, 3.0)
COLOUR_DISC = 0.55  # radius of the disc a colour is first read in, as a share of the top's edge radius
COLOUR_DISC_WIDE = 0.8  # ... and of the second look's (a glare spot is then a minority)
STRAY_COVER = 0.12  # with a hand over the board: share of unexplained change that hides a square
# a hand's shadow that falls on a square (change the cups read do not explain that is a change
# of light, ``_in_hand_shadow``) over this share of it dims the top under a light the colour
# was not measured in: the reading is doubted (``SHADOW_DOUBT``: under the referee's commit),
# not hidden.  On tuning seed 109 with a hand (20 boards each), Storer's clear set: 2 of 6
# confident misreads (light tops read dark, 24 and 43 % in the shadow) and 4 of 133 confident
# right readings lie over it; Gobblet: none of 143
SHADOW_SHARE = 0.15
SHADOW_DOUBT = 0.7
# an "empty" reading is doubted where the square's middle changed since the empty board
# (``EMPTY_CHANGED`` of it, as the hand detector sees change) and the board's own grain is not
# seen there as it was (its correlation with the empty board's under ``GRAIN_SEEN``): a faint
# top hides the grain, while a shadow or a change of light leaves it
EMPTY_CHANGED = 0.03
GRAIN_SEEN = 0.3
GRAIN_MIN = 0.02  # spread of the empty board's grain (log-brightness) under which it has none to see
EMPTY_CHANGED_SMOOTH = 0.1  # where it has none, the share of changed middle that alone doubts "empty"
GRAIN_DISC = 0.22  # radius of the disc the grain is compared in, as a share of a square's side
GRAIN_BLUR = 2.0  # px: the grain is the log-brightness less its blur by this sigma
GRAIN_SHIFT = 1  # px either way the grain may have moved (the board's pose to a pixel)
EMPTY_DOUBT = 0.4  # the most an empty reading so doubted keeps: under the tracker's min_confidence
# a solid top of the board's own colour (a light top on a white board, a dark one on dark wood)
# shows no edge on its far arc and may not change the square's middle, but its own wall, seen
# beyond its edge on the near side (towards the camera's nadir), is shaded, and so is the board
# at its foot: there, within ``WALL_ARC`` either side of the nadir's direction, its outline is
# lighter inside than out (``_walls``; the whole circle's angles ``WALL_COARSE_ANGLES`` and
# ``WALL_ANGLES``, of which the arc's are read).  Only where every size in play is solid (a
# clear cup's wall, seen through, would lead for the solid size): a lead of ``WALL_DOUBT`` ring
# units doubts an empty reading (``EMPTY_DOUBT``), ``WALL_READ`` reads the top.  Bare board
# whose grain shows inside the circle as it did (``GRAIN_SEEN``) is no top: a soft shadow's
# edge can lead on a small circle's nearly straight arc
WALL_ARC = np.radians(60.0)
WALL_COARSE_ANGLES, WALL_ANGLES = 32, 48
WALL_DOUBT = 3.0
WALL_READ = 4.0
# clear sets: the solid size's wall lead (ring units) that doubts an empty reading (``_clear_set_walls``):
# on tuning seeds 13 and 101 bare board where the grain hardly showed led by up to 3.8, light
# tops read empty on pale boards by 5.4-14.5
CLEAR_WALL_DOUBT = 5.0
WALL_GRAIN_DISC = 0.8  # radius of the disc the grain is compared in, as a share of the circle's
# a solid top the readers put at a size whose edge ring is under this (ring units: the edge search
# found no top of that size) is read at the size its wall reads (``_faint_walls``), where that
# differs.  On tuning seeds 97 and 7 (Gobblet, the shaded look) such tops' walls read the right
# size in 16 of the 18 squares where they and the readers differed (the readers in 1); from one
# ring unit up the readers were right as often as the walls, or more
FAINT_RING = 1.0
# a solid top its edges put at a size with a ring of ``FAINT_RING`` up to this is read one size up
# where the next size's wall leads (``_wall_lifts``).  On tuning seeds 97, 7, 13 and 101 such
# tops were one size down (9, 5 of them at 0.8 or more) with rings of 1.0-6.5; the one right
# reading whose next size's wall led had a ring of 16
WALL_UP_RING = 8.0
# a solid top read dark whose read size's edge steps round the whole circle by less than this
# (log-brightness, ``radial_steps``) is read one size up where the next size's wall is there too
# (``_dark_wall_lift``, ``square_model.larger_wall``).  On tuning seeds 7, 97 and 13 (Gobblet,
# shaded) dark tops read a size down had such steps of 0.07-0.17 (one 0.27), the right dark
# readings whose next size's wall was there 0.18-0.32
DARK_SOFT_STEP = 0.15
# a top the readers are this sure of (the referee's commit) keeps its size where its faint edges'
# wall reads another (``_faint_walls``), and is only doubted (``OUTLINED_TOP``): on tuning seed 11
# two right 4s read at 0.95-0.99 had the wall of a smaller size leading, as had two wrong readings
# at 0.90-0.99 (seeds 97, 11)
READERS_SURE = 0.8
# where every size in play is solid, a square read as a top under ``READERS_SURE`` whose middle
# changed since the empty board by the same factor in every channel (the median change of each
# channel's log in the disc ``grain_kept`` reads, spread by under ``SHADE_CHROMA``: the board's
# own chroma under another light) and where no solid size's wall leads by ``SHADE_WALL``
# (``_wall_leads``: a top stands at its height, its shaded wall and foot beyond its near edge; a
# shadow lies on the board, darker than what surrounds it) is read empty, no surer than
# ``SHADE_EMPTY`` (``_shaded_empty``): a cup's hard lamp shadow on an empty square, or the light
# changed over it.  On tuning seed 137 (Gobblet, shaded, 40 boards) the 8 empty squares read as
# tops on plain boards had spreads of 0.00-0.05 and walls of 0.0-0.8, all read under 0.8; the
# tops read right with a spread under 0.05 had walls of 6.1 or more, those with walls under 3,
# spreads of 0.07 or more.  On seed 139 two tops read right at 0.998 and more had neither (a
# dark 1 off the square's middle, a white 1 on a white board): the readers' doubt is asked for
SHADE_CHROMA = 0.05
SHADE_WALL = 3.0
SHADE_EMPTY = 0.7
# clear sets: radii (shares of a size's outer radius) of the radial profile read around its top
POLAR_RADII = np.linspace(0.2, 1.6, N_POLAR_RADII)
POLAR_LOW = 3  # of the far arc's 15 angles, the 4th lowest: about the 20th percentile
CROP_PX = 24  # clear sets: side of the per-size crops the size check reads (``size_crops``)
CROP_SPAN = 1.6  # their half-width, in the size's outer radius
REMAP_ROWS = 32000  # rows of a map cv2.remap takes at once (it refuses 32767 or more)
_FINE = np.stack(np.meshgrid([-1, 0, 1], [-1, 0, 1]), axis=-1).reshape(-1, 2)  # a fine step round a seed


@lru_cache(maxsize=16)
def _units(n_ang: int) -> np.ndarray:
    """Unit vectors (n_ang, 2) of angles evenly round a circle, angle 0 along +x; made once
    per count (they were made a dozen times a frame) and read-only, as they are shared."""
    ang = np.linspace(0, 2 * np.pi, n_ang, endpoint=False)
    u = np.stack([np.cos(ang), np.sin(ang)], axis=1)
    u.flags.writeable = False
    return u


def _far_units(n_ang: int) -> np.ndarray:
    """Unit vectors (A, 2) of the far arc's angles among ``n_ang`` round a circle, angle 0
    pointing away from the nadir: a top's edge is searched there, never hidden by the cup's
    own wall."""
    u = _units(n_ang)
    return u[u[:, 0] > -0.3]


def _arc_units(n_ang: int, toward: np.ndarray) -> np.ndarray:
    """Unit vectors (A, 2) of those of ``n_ang`` angles round a circle that lie within
    ``WALL_ARC`` of the unit direction ``toward`` (x, y)."""
    u = _units(n_ang)
    return np.ascontiguousarray(u[u @ toward > np.cos(WALL_ARC)])


_U = _units(N_ANG).astype(np.float32)
_FAR = np.nonzero(_units(N_ANG)[:, 0] > -0.3)[0]  # the far arc among them
_FAR_UNITS = {n: _far_units(n) for n in (COARSE_ANGLES, N_ANG)}
_UNITS = {n: _units(n) for n in (RIM_COARSE_ANGLES, RIM_ANGLES)}
# the logs ``_channels`` reads, of every sum of a pixel's channels and of every channel value
LUM_OFFSET = 12.0  # added to b + g + r before the log-brightness (``_channels``): dark pixels stay finite
_LOG_SUM = cv2.log(np.arange(3 * 255 + 1, dtype=np.float32) + LUM_OFFSET).ravel()
_LOG_LEVEL = cv2.log(np.arange(256, dtype=np.float32) + 8.0).ravel()
_NO_PLANE = np.zeros((0, 0), np.float32)  # (``log_changes``: no whiteness to compare)


def _channels(view: np.ndarray, with_chroma: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """Log-brightness log(b + g + r + 12) and the warm-cool chroma log((r + 8) / (b + 8)) of a
    BGR view (float32, 2-D each; the chroma only ``with_chroma``).  Both ignore the light's
    level: a change of level is an offset of the first and leaves the second alone."""
    lum, chroma = log_channels(np.ascontiguousarray(view), _LOG_SUM, _LOG_LEVEL, with_chroma)
    return lum, chroma if with_chroma else None


def _whiteness(lum: np.ndarray, chroma: np.ndarray) -> np.ndarray:
    """Log-brightness less the chroma: white plastic stands out from wood of any shade, which
    is warm, whether the wood is lighter or darker than the plastic."""
    return lum - chroma


def _log_gradients(lum: np.ndarray, chroma: np.ndarray | None,
                   into: list[np.ndarray] | None = None) -> list[np.ndarray]:
    """x and y gradient planes of log-brightness and, if given, of the chroma
    (``_channels``); the chroma tells orange from wood of the same brightness.  With
    ``into`` (as many float32 planes of the same size, views of a larger buffer may do),
    written there rather than into new arrays."""
    out = []
    for g in (lum, chroma):
        if g is None:
            continue
        for dx, dy in ((1, 0), (0, 1)):
            if into is None:
                out.append(cv2.Sobel(g, cv2.CV_32F, dx, dy, ksize=3, scale=0.125))
                continue
            plane = into[len(out)]
            written = cv2.Sobel(g, cv2.CV_32F, dx, dy, dst=plane, ksize=3, scale=0.125)
            if not np.may_share_memory(written, plane):  # OpenCV made a new array after all
                np.copyto(plane, written)
            out.append(plane)
    return out


@dataclass
class _Hypotheses:
    score: np.ndarray  # (squares, sizes) best ring score
    sign: np.ndarray  # (squares, sizes) sign of the edge (+: top darker than its rim side)
    centre: np.ndarray  # (squares, sizes, 2) canvas px of the best centre
    edges: np.ndarray  # (squares, sizes, 2) score of the inner and the outer edge (the same twice
    # for a size with one edge), at the best centre
    planes: np.ndarray  # the gradient planes searched (``kernels.ring_search``), flat with a border
    pad: int  # of this many pixels (buffers the next frame's search overwrites)


@dataclass
class _Frame:
    """What the last frame read left for the questions asked after it (``colour_of``,
    ``last_rim``, ``size_crops``): among others, on clear sets only (None otherwise), the
    whiteness and log-brightness changes since the empty board (light level taken out); and
    per square the direction away from the nadir, and the nadir's place on the view."""

    view: np.ndarray
    hyp: _Hypotheses
    rim_score: np.ndarray
    rim_centre: np.ndarray | None
    board_now: np.ndarray
    H: float
    white: np.ndarray | None = None
    lum_level: np.ndarray | None = None
    far_dir: tuple[np.ndarray, np.ndarray] | None = None
    n_px: np.ndarray | None = None
    lum: np.ndarray | None = None  # log-brightness of the view (``_channels``)
    tops: np.ndarray | None = None  # ``_top_centres`` of every square, made when first asked
    lum_off: float = 0.0  # the median change of log-brightness over the board (the light's level)


@dataclass
class _Wall:
    """A square read empty where a solid top's wall shows beyond its near edge (``_walls``):
    the size class whose circle leads most, where, that lead (ring units) and how far it
    supports that size against the size next to it (``size_bound``)."""

    size: int
    centre: np.ndarray
    lead: float
    support: float


class Recogniser:
    """Recognition with memory: it remembers where the markers were and the last pose, so it
    can search small regions first and keep the board when a hand covers some markers."""

    def __init__(self, calibration: Calibration, model: SquareModel | None | str = "shipped",
                 size_check: SizeCheck | None | str = "shipped", square_net: SquareNet | None | str = "default",
                 in_play: Sequence[bool] | None = None):
        """``model``: the square model deciding each reading (default: the shipped file's, with
        what the calibration learnt from the user's set, ``calibrated_model``); None reads the best ring with confidence 1, which only the model's fit uses.
        ``size_check``: the second look at clear cups of doubtful size (``size_check.py``;
        default the shipped file's, used with the square model and clear sets only).
        ``square_net``: the second reader of every square (``square_net.py``; by default the
        shipped one where it is switched on, ``square_net.default_net``).
        ``in_play``: per size class, whether the game uses it (default: every class).  A class
        the game leaves out (Storer's smallest cup in a four-size game) is never read: a shadow
        or a lid's mark that looks most like such a cup is read as what fits it next, with that
        reading's own (low) probability as its confidence."""
        self.cal = calibration
        cal = calibration
        self.board = cal.board
        self.canvas = cal.canvas
        self.area = board_area_mask(cal.canvas, cal.board)
        # samples of the board's area for medians (flat indices: a boolean mask of the whole
        # view would copy every pixel first)
        area_px = np.flatnonzero(self.area)
        self._area_7, self._area_9 = area_px[::7], area_px[::9]
        ref_ch = _channels(cal.reference)
        self.ref_g: list[np.ndarray] = []  # set once use_chroma is known
        self.ref_log = ref_ch[0]
        self.ref_white = _whiteness(*ref_ch) if cal.pieces.clear else None
        self.ref_lab = cal.reference
        self.centres_mm = np.array([cal.board.square_centre(i) for i in range(cal.board.squares)])
        self.centres_px = self.canvas.to_px(self.centres_mm)  # the squares' centres on the view
        self.offsets_mm = []
        # the radius of the edge seen around the top: an opaque cup's rounded top edge shows
        # its full outer diameter; a clear cup shows the edge of its wood plug
        self.edge_mm = []
        self.edges_mm: list[tuple[float, ...]] = []
        # (times the edge scale measured on the user's own cups, where the set was measured)
        for s, size in enumerate(cal.pieces.sizes):
            self.offsets_mm.append(max_offset(cal.board, cal.pieces, s) + SLACK_MM)
            clear = cal.pieces.clear and not size.solid
            f = cal.sizes[s].edge_scale
            self.edge_mm.append(f * (size.top_diameter_mm if clear else size.seen_edge_diameter_mm) / 2)
            self.edges_mm.append((f * size.top_diameter_mm / 2, f * size.outer_diameter_mm / 2) if clear
                                 else (f * size.seen_edge_diameter_mm / 2,))
        self.pose: CameraPose = cal.pose
        # where the board's outer corners were at calibration: a shift of the board shows there,
        # while the point under the camera swings with every small error in the estimated tilt
        self._corners = board_corners_world(cal.board)
        self._corners_at_calibration = project(self._corners, cal.intrinsics, cal.pose)
        # start by looking for the markers where calibration saw them
        world = marker_corners_world(cal.board)
        self._marker_world = world
        self.last_markers: dict[int, np.ndarray] = {
            i: project(world[i], cal.intrinsics, cal.pose) for i in cal.markers_seen if i in world}
        ox0, oy0, ox1, oy1 = outer_rect(cal.board)
        self._probe = np.array([[ox0, oy0, 0], [ox1, oy0, 0], [ox1, oy1, 0], [ox0, oy1, 0],
                                [ox0, oy0, 60], [ox1, oy1, 60]], np.float64)
        self._maps_pose: CameraPose | None = None
        self._lost = False  # the last frame's board was not found
        self._maps_uv: np.ndarray | None = None
        self._maps = None
        cm = cal.colour
        board = np.asarray(cm.board_bgr, np.float64)
        # chroma edges only help when a player's colour differs from the wood more in hue
        # than in brightness (Gobblet Jr.'s orange); elsewhere they only add noise
        wood = np.maximum(board, 1.0)
        self.use_chroma = False
        for c in (cm.light_bgr, cm.dark_bgr):
            c = np.maximum(np.asarray(c, np.float64), 1.0)
            d_lum = abs(np.log(c.sum() / wood.sum()))
            d_chroma = abs(np.log(c[2] / c[0]) - np.log(wood[2] / wood[0]))
            self.use_chroma |= bool(d_chroma > d_lum)
        self.ref_g = _log_gradients(ref_ch[0], ref_ch[1] if self.use_chroma else None)
        self.hands = HandDetector(cal.reference, self.area, cal.canvas.ppm)
        # per square, where its evidence lies on the hand detector's view; made for the
        # current maps when a hand first needs it (most frames have none)
        self._regions: list[tuple[tuple[int, int, int, int], np.ndarray]] | None = None
        self._buffers: dict[str, np.ndarray] = {}
        self._geometry_kept: dict[tuple[str, float], object] = {}  # (``_geometry``)
        material = "clear" if cal.pieces.clear else "opaque"
        self.model = calibrated_model(cal).for_material(material) if model == "shipped" else (
            model.for_material(material) if model is not None else None)
        self.material = material
        self.size_check = None
        if cal.pieces.clear and self.model is not None and size_check is not None:
            self.size_check = load_size_check() if size_check == "shipped" else size_check
        # a second reader of every square, combined with the model's (``square_net.py``)
        self.square_net = (default_net() if square_net == "default" else square_net) if self.model is not None else None
        self._solid = np.array([not (cal.pieces.clear and not size.solid) for size in cal.pieces.sizes])
        self._tall = np.array([size.height_mm >= TALL_TOP * size.top_diameter_mm for size in cal.pieces.sizes])
        if in_play is not None and len(in_play) != len(cal.pieces.sizes):
            raise ValueError(f"in_play names {len(in_play)} size classes; the set has {len(cal.pieces.sizes)}")
        self._in_play = np.ones(len(cal.pieces.sizes), bool) if in_play is None else np.array(in_play, bool)
        # every size in play is solid (a clear set's clear sizes are not in this game): tops may be read by their wall
        self._all_solid = bool((self._solid | ~self._in_play).all())
        # the middle of each square on the hand detector's small view: a cup standing there
        # changes it, an empty square leaves it as at calibration
        sh, sw = self.hands.area.shape
        # where the view has picture, at the hand detector's size: a board nudged towards the
        # edge of the camera's field leaves part of the view black (or the reference was), and
        # that is no change on the board, nor a way in for an arm
        self._ref_seen = _seen_small(np.where(cal.reference.max(axis=2) > 0, 255, 0).astype(np.uint8), (sh, sw))
        self._seen = self._ref_seen
        mid = self.centres_px * HAND_SCALE
        disc = _disc(0.3 * self.board.square_mm * self.canvas.ppm * HAND_SCALE)
        pts = np.rint(mid[:, None, :] + disc[None, :, :]).astype(np.int64)
        self._middle_idx = (np.clip(pts[..., 1], 0, sh - 1) * sw + np.clip(pts[..., 0], 0, sw - 1)).ravel()
        # the last frame's evidence per square (what the square model decided on)
        self.last_evidence: SquareEvidence | None = None
        # the squares the last frame read one size larger than its readers (``larger_edge``)
        self.last_lifted: list[int] = []
        # the squares the last frame read doubted in a hand's shadow (``_doubt_in_shadow``)
        self.last_shadowed = np.zeros(0, np.int64)
        # the squares the last frame doubted beside a hand (``_hide_covered``)
        self.last_grazed = np.zeros(0, np.int64)
        self.colour_refs = np.log(np.maximum(np.array([cm.light_bgr, cm.dark_bgr]), 1.0) / np.maximum(board, 1.0))
        # log(R/B) of the cooler player colour, and the distance between the two colours
        self._coolest_player = float((self.colour_refs[:, 2] - self.colour_refs[:, 0]).min())
        # the light player's log-brightness against the board's (``_channels``' measure)
        self._light_lum = float(np.log((np.sum(cm.light_bgr) + LUM_OFFSET) / (np.sum(board) + LUM_OFFSET)))
        self._players_apart = float(colour_distance(self.colour_refs[:1], self.colour_refs[1], LUM_SIGMA, TINT_SIGMA)[0])
        self._square_refs = _square_refs(cal, board)
        # the empty board's grain (``grain_kept``), and per square the disc it is compared in
        self._ref_grain = _grain(self.ref_log)
        self._grain_r = GRAIN_DISC * cal.board.square_mm * cal.canvas.ppm
        # the squares whose middle has grain enough to tell bare board from a top (a smooth
        # painted board has none: there only a plainer change of the middle doubts "empty")
        self._grained = np.array([self._disc_values(self._ref_grain, c, self._grain_r)[0].std() >= GRAIN_MIN
                                  for c in self.centres_px])
        # per square, the pixels of that disc and the empty board's log level there per channel
        # (``_chroma_kept``)
        h, w = self.ref_lab.shape[:2]
        pts = np.rint(self.centres_px[:, None, :] + _pixel_offsets(self._grain_r)[None, :, :]).astype(np.int64)
        self._mid_idx = np.clip(pts[..., 1], 0, h - 1) * w + np.clip(pts[..., 0], 0, w - 1)
        self._mid_ref = _LOG_LEVEL[self.ref_lab.reshape(-1, 3)[self._mid_idx]]

    # -- finding the board ----------------------------------------------------------------
    def _board_shift_mm(self) -> float:
        """How far the board's corners have moved in the picture since calibration, in mm on
        the board (pixels times height over focal length)."""
        now = project(self._corners, self.cal.intrinsics, self.pose)
        px = float(np.linalg.norm(now - self._corners_at_calibration, axis=1).mean())
        return px * self.pose.height / self.cal.intrinsics.fx

    def search_regions(self) -> tuple[list[tuple[int, int, int, int]], float]:
        """Where ``locate`` looks first on the next frame: a padded box (x, y, w, h, px) round
        every marker where the pose puts it and where it was last seen, and the markers' median
        side in pixels.  Every marker, not only those seen last time: a marker a hand hid comes
        back where it was, and a pose from the few left is off by pixels."""
        expected = {i: project(c, self.cal.intrinsics, self.pose) for i, c in self._marker_world.items()}
        rois, sides = [], []
        for c in {**expected, **self.last_markers}.values():
            x0, y0 = c.min(axis=0)
            x1, y1 = c.max(axis=0)
            pad = max(30.0, (x1 - x0) * 0.8)
            rois.append((int(x0 - pad), int(y0 - pad), int(x1 - x0 + 2 * pad), int(y1 - y0 + 2 * pad)))
            sides.append(float(np.linalg.norm(c[1] - c[0])))
        return rois, float(np.median(sides))

    def locate(self, image: np.ndarray) -> BoardFix | None:
        """Detect markers (near where they were, else everywhere) and estimate the pose.  A
        board calibrated without markers (tapped corners) is taken to stay where it was at
        calibration: its pose is the calibration's."""
        if not self.cal.markers_seen:
            return BoardFix(self.cal.pose, (), self.cal.reprojection_error_px)
        markers: dict[int, np.ndarray] = {}
        if self.last_markers:
            rois, side = self.search_regions()
            markers = detect_markers(image, self.board, rois, marker_px=side)
        if len(markers) < len(self.last_markers) or not markers:
            markers = detect_markers(image, self.board)
            if len(markers) < 3 and not self._lost:
                # too few for a pose: the slower second looks (small, soft markers), once when
                # the board is lost, not on every frame it stays lost (a hand over the lens)
                markers = look_harder(image, self.board, markers)
        fix = estimate_pose(markers, self.board, self.cal.intrinsics,
                            guess=self.pose if len(markers) < 3 else None)
        if fix is not None and fix.error_px < 4.0:
            self.last_markers = markers
            self.pose = fix.pose
            self._lost = False
            return fix
        self.last_markers = {}
        self._lost = True
        return None

    def _view(self, image: np.ndarray) -> np.ndarray:
        # the maps are rebuilt only when the board has really moved: pose noise from frame to
        # frame shifts the board by far less than a pixel
        uv = project(self._probe, self.cal.intrinsics, self.pose)
        if self._maps_uv is None or np.abs(uv - self._maps_uv).max() > MAP_TOLERANCE_PX:
            self._maps = canvas_maps(self.canvas, self.cal.intrinsics, self.pose)
            self._maps_uv = uv
            self._maps_pose = self.pose
            self._regions = None
            self._seen = self._ref_seen & _seen_small(maps_inside(self._maps, image.shape), self.hands.area.shape)
        else:
            self.pose = self._maps_pose
        return rectify(image, self._maps)

    def _square_regions(self) -> list[tuple[tuple[int, int, int, int], np.ndarray]]:
        """Per square, on the hand detector's small view: the bounding box and mask of where
        its evidence lies (the square on the board up to the tallest top's height)."""
        H = self.pose.height
        n = nadir(self.pose)
        k = height_scale(H, min(self.cal.pieces.sizes[-1].height_mm, 0.8 * H))
        # where a top can show: the largest cup's outline, not the whole square
        half = min(self.board.square_mm * 0.45, self.cal.pieces.sizes[-1].outer_diameter_mm / 2)
        corners = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
        out = []
        for c in self.centres_mm:
            pts = np.vstack([c + corners, n + (c + corners - n) * k])
            px = self.canvas.to_px(pts) * HAND_SCALE
            hull = cv2.convexHull(px.astype(np.float32)).reshape(-1, 2)
            x0, y0 = np.floor(hull.min(axis=0)).astype(int)
            x1, y1 = np.ceil(hull.max(axis=0)).astype(int) + 1
            m = np.zeros((y1 - y0, x1 - x0), np.uint8)
            cv2.fillConvexPoly(m, np.round(hull - [x0, y0]).astype(np.int32), 1)
            out.append(((x0, y0, x1, y1), m.astype(bool)))
        return out

    def _coverage(self, small_mask: np.ndarray) -> np.ndarray:
        """Share of each square's evidence region that the hand mask covers."""
        h, w = small_mask.shape
        if self._regions is None:
            self._regions = self._square_regions()
        cov = np.zeros(len(self._regions))
        for i, ((x0, y0, x1, y1), m) in enumerate(self._regions):
            a0, b0 = max(x0, 0), max(y0, 0)
            a1, b1 = min(x1, w), min(y1, h)
            if a1 <= a0 or b1 <= b0:
                continue
            sub = small_mask[b0:b1, a0:a1] > 0
            mm = m[b0 - y0:b1 - y0, a0 - x0:a1 - x0]
            cov[i] = np.count_nonzero(sub & mm) / max(1, np.count_nonzero(m))
        return cov

    def _hide_covered(self, readings: list[SquareReading], covering: Covering) -> list[SquareReading]:
        """``readings`` with the squares a hand covers (``HandDetector.covering``) said
        occluded: where its solid part lies over ``OCCLUDED_COVER`` of the square, the part
        within half an arm's width of it over ``REACH_COVER``, or the change near it the cups
        read leave unexplained (a pale palm) over ``STRAY_COVER``.  A square that half an arm's
        width only grazes (over ``OCCLUDED_COVER``, under ``REACH_COVER``) keeps its label,
        doubted (``REACH_DOUBT``): that zone is where a pale arm seen by its outline may lie,
        but beside an arm seen whole it is the board, the cups and the arm's shadow."""
        solid = self._coverage(covering.solid)
        reach = self._coverage(covering.core)
        stray = self._coverage(covering.palm)
        hidden = (solid > OCCLUDED_COVER) | (reach > REACH_COVER) | (stray > STRAY_COVER)
        grazed = ~hidden & (reach > OCCLUDED_COVER)
        self.last_grazed = np.flatnonzero(grazed)
        return [SquareReading(OCCLUDED, confidence=1.0) if hidden[sq]
                else replace(r, confidence=min(r.confidence, REACH_DOUBT)) if grazed[sq] else r
                for sq, r in enumerate(readings)]

    def _in_hand_shadow(self, unexplained: np.ndarray, light: np.ndarray, core: np.ndarray) -> np.ndarray:
        """Per square, the share of its evidence region in the shadow of a hand over the
        board: change since the empty board that the cups read do not explain
        (``unexplained``, small) and that is a change of light (``light``: bluish shade, or the
        board's texture showing through), not what the hand covers (``core``).  The hand's
        shadow need not join its region: it falls where the lamp puts it."""
        return self._coverage((unexplained > 0) & (light > 0) & (core == 0))

    def _doubt_in_shadow(self, readings: list[SquareReading], unexplained: np.ndarray, light: np.ndarray,
                         core: np.ndarray) -> list[SquareReading]:
        """``readings`` with each square read in a hand's shadow (``SHADOW_SHARE`` of it,
        ``_in_hand_shadow``) kept no surer than ``SHADOW_DOUBT``: its label stands, for the
        referee to wait on."""
        shadowed = self._in_hand_shadow(unexplained, light, core) > SHADOW_SHARE
        self.last_shadowed = np.flatnonzero(shadowed)
        return [replace(r, confidence=min(r.confidence, SHADOW_DOUBT)) if shadowed[sq] and r.state != OCCLUDED else r
                for sq, r in enumerate(readings)]

    def _explain(self, mask: np.ndarray, top_px: np.ndarray, size: int, k: float,
                 n_px: np.ndarray) -> tuple[np.ndarray, float, float]:
        """Paint on the hand detector's small mask where a cup with its top at ``top_px``
        (canvas px) shows: from its base on the board to its top, a little widened.  Returns
        the base's centre, radius and the cup's height on that mask (its shadow starts there)."""
        r_mm = self.cal.pieces.sizes[size].outer_diameter_mm / 2
        base = n_px + (top_px - n_px) / k
        ppm = self.canvas.ppm
        circ = _units(16)
        pts = np.vstack([base + circ * (r_mm * ppm + 4), top_px + circ * (r_mm * k * ppm + 4)]) * HAND_SCALE
        hull = cv2.convexHull(pts.astype(np.float32)).reshape(-1, 2)
        cv2.fillConvexPoly(mask, np.round(hull * 16).astype(np.int32), 1, cv2.LINE_8, 4)
        return base * HAND_SCALE, r_mm * ppm * HAND_SCALE, self.cal.pieces.sizes[size].height_mm * ppm * HAND_SCALE

    # -- the squares ----------------------------------------------------------------------
    def _buffer(self, name: str, shape: tuple[int, ...]) -> tuple[np.ndarray, bool]:
        """A float32 buffer of ``shape`` kept from the last frame (a fresh array every frame
        cost about 6 % of a clear-set frame's CPU), and whether it was just made, of zeros."""
        buf = self._buffers.get(name)
        if buf is not None and buf.shape == shape:
            return buf, False
        buf = self._buffers[name] = np.zeros(shape, np.float32)
        return buf, True

    def _ring_border(self, H: float, n_px: np.ndarray, beyond_px: float) -> int:
        """Pixels of border the view needs so that every ring searched round any square's top
        (the tallest size's, at the far end of its reach, ``beyond_px`` outside its edge) lies
        on it: sample positions then need no clipping."""
        k_top = height_scale(H, self.cal.sizes[-1].height_mm)
        far = n_px + (self.centres_px - n_px) * k_top
        spill = max(0.0, float(-far.min()), float((far - [self.canvas.width, self.canvas.height]).max()))
        reach_mm = max(o + e[-1] for o, e in zip(self.offsets_mm, self.edges_mm))
        return int(np.ceil(spill + reach_mm * k_top * self.canvas.ppm + beyond_px + 4))

    def _hypotheses(self, lum: np.ndarray, chroma: np.ndarray | None, H: float, n_px: np.ndarray,
                    far_dir: tuple[np.ndarray, np.ndarray]) -> _Hypotheses:
        """For every square and size class, the best-supported top centre and its score, from
        the gradients of log-brightness ``lum`` and, if given, of the ``chroma``.  Candidate
        centres lie on whole pixels, so each ring sample is one integer add away."""
        cv = self.canvas
        centres = self.centres_px
        nsq = len(centres)
        sizes = self.cal.sizes
        # a border of no gradient wide enough for every ring (written when the buffer is made,
        # with the empty board's planes: only the current ones change from frame to frame)
        pad = self._ring_border(H, n_px, max(RADII))
        h, w = lum.shape
        n_cur = 2 if chroma is None else 4
        buf, made = self._buffer("ring", (2 * n_cur if self.use_chroma else n_cur, h + 2 * pad, w + 2 * pad))
        inside = buf[:, pad:pad + h, pad:pad + w]
        if self.use_chroma:
            # planes: current x, y and the empty board's x, y of log-brightness, then of chroma
            _log_gradients(lum, chroma, [inside[i] for i in (0, 1, 4, 5)])
            if made:
                for i, plane in zip((2, 3, 6, 7), self.ref_g):
                    np.copyto(inside[i], plane)
        else:
            # only the change since the empty board counts, and the ring's radial gradient
            # is linear in the gradients: their difference is all that needs sampling
            for now, ref in zip(_log_gradients(lum, chroma, list(inside)), self.ref_g):
                cv2.subtract(now, ref, dst=now)
        wp = w + 2 * pad
        planes = buf.reshape(len(buf), -1)
        score = np.zeros((nsq, len(sizes)), np.float32)
        sign = np.zeros((nsq, len(sizes)), np.float32)
        best_c = np.zeros((nsq, len(sizes), 2), np.float32)
        edges = np.zeros((nsq, len(sizes), 2), np.float32)
        cs, sn = far_dir
        for s, sc in enumerate(sizes):
            k = height_scale(H, sc.height_mm)
            radii = [r * k * cv.ppm for r in self.edges_mm[s]]
            reach = self.offsets_mm[s] * k * cv.ppm
            base = np.rint(n_px + (centres - n_px) * k).astype(np.int64)  # (S, 2)
            score[:, s], sign[:, s], best_c[:, s], edges[:, s] = ring_search(
                planes, wp, pad, base, _coarse_grid(reach), reach, np.array(radii), cs[:, 0], sn[:, 0],
                _FAR_UNITS[COARSE_ANGLES], _FINE, _FAR_UNITS[N_ANG], np.array(RADII), 2)
        return _Hypotheses(score, sign, best_c, edges, planes, pad)

    def _rim_search(self, D: np.ndarray, H: float, n_px: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Clear sets: per square and size class with a rim, the best-supported top centre for
        a bright rim and its score, ((squares, sizes), (squares, sizes, 2)); 0 for solid sizes.

        ``D`` is the change of whiteness since the empty board.  A clear cup's rim is a
        white ring 2-3 px wide between its plug and its outer edge; around the whole circle it
        is brighter than both the plug just inside and what lies just outside, whatever the
        plug's colour.  The score is the rim's lead over the brighter of its two sides, on the
        weaker ``RIM_KEEP`` of the angles (a glare arc or a neighbour crossing part of the ring
        does not make a rim)."""
        centres = self.centres_px
        nsq, nsz = len(centres), len(self.cal.sizes)
        score = np.zeros((nsq, nsz), np.float32)
        best = np.zeros((nsq, nsz, 2), np.float32)
        # a border wide enough for every ring, so sample positions need no clipping
        pad = self._ring_border(H, n_px, RIM_SIDE_PX)
        h, w = D.shape
        Dp, _ = self._buffer("rim", (h + 2 * pad, w + 2 * pad))
        cv2.copyMakeBorder(D, pad, pad, pad, pad, cv2.BORDER_REPLICATE, dst=Dp)
        fine = _FINE.astype(np.float64)
        for s, sc in enumerate(self.cal.sizes):
            if len(self.edges_mm[s]) < 2:
                continue
            f = height_scale(H, sc.height_mm) * self.canvas.ppm
            r_in, r_out = self.edges_mm[s][0] * f, self.edges_mm[s][1] * f
            mid = (r_in + r_out) / 2 + 0.5
            radii = (r_in - RIM_SIDE_PX, mid, r_out + RIM_SIDE_PX + 0.5)
            # the coarse grid can put the ring up to a pixel and a half off a rim 2-3 px wide
            coarse_radii = (r_in - RIM_SIDE_PX - 0.7, mid - 0.8, mid + 0.8, r_out + RIM_SIDE_PX + 1.2)
            reach = self.offsets_mm[s] * f
            base = n_px + (centres - n_px) * height_scale(H, sc.height_mm)
            score[:, s], best[:, s] = rim_search(
                Dp, pad, base, np.arange(-reach, reach + 1e-6, RIM_STEP_PX), reach,
                _UNITS[RIM_COARSE_ANGLES], np.array(coarse_radii), _UNITS[RIM_ANGLES], np.array(radii), fine,
                3, int(RIM_COARSE_ANGLES * RIM_KEEP), int(RIM_ANGLES * RIM_KEEP))
        return score, best

    def _geometry(self, what: str, H: float):
        """The sample offsets of ``_profiles`` (``what`` "profiles") or ``_polar`` ("polar")
        for a camera at height ``H``: kept while the height stays (the pose is kept while the
        board does not move, ``_view``), as they depend on nothing else."""
        key = (what, H)
        got = self._geometry_kept.get(key)
        if got is None:
            if len(self._geometry_kept) > 8:
                self._geometry_kept.clear()
            got = self._geometry_kept[key] = (self._profile_offsets(H) if what == "profiles"
                                              else self._polar_offsets(H))
        return got

    def _profile_offsets(self, H: float) -> tuple[np.ndarray, np.ndarray, int, int]:
        """``_profiles``' samples round a top per size class (sizes, samples, 2; px, angle 0
        along +x), where each part of them ends, and the radii per ray of the rim's part and
        of the line's."""
        ppm = self.canvas.ppm
        k = [height_scale(H, sc.height_mm) for sc in self.cal.sizes]
        r_in = [e[0] * f * ppm for e, f in zip(self.edges_mm, k)]
        r_out = [e[-1] * f * ppm for e, f in zip(self.edges_mm, k)]
        # the rim is 2-3 px wide and the centre a pixel or two off: search along each ray
        # (radii repeated to one count for all sizes: a repeat changes no ray's brightest)
        ring_r = [np.arange(a - 0.5, b + 0.9, 0.7) for a, b in zip(r_in, r_out)]
        n_ring = max(len(r) for r in ring_r)
        ring_r = [np.concatenate([r, np.repeat(r[-1:], n_ring - len(r))]) for r in ring_r]
        # the thin dark line round a clear cup's plug (or an opaque top's shoulder)
        line = [np.array([r - 2.5, r - 0.7, r, r + 0.7, r + 2.5]) for r in r_in]
        # every size's samples at once: the plug's disc, the board just outside the top, the
        # rays across the rim, the rays across the line
        parts = [np.stack([_disc(r * 0.8) for r in r_in]),
                 np.stack([_ring([r + 2.0, r + 3.5], _FAR) for r in r_out]),
                 np.stack([_ring(list(r), _FAR) for r in ring_r]),
                 np.stack([_ring(list(r), _FAR) for r in line])]
        ends = np.cumsum([p.shape[1] for p in parts])
        return np.concatenate(parts, axis=1), ends, n_ring, len(line[0])

    def _polar_offsets(self, H: float) -> np.ndarray:
        """``_polar``'s samples round a top per size class (sizes, samples, 2)."""
        radii = [e[-1] * height_scale(H, sc.height_mm) * self.canvas.ppm for e, sc in zip(self.edges_mm, self.cal.sizes)]
        return np.stack([_ring(list(POLAR_RADII * r), _FAR) for r in radii])

    def _profiles(self, cur_log: np.ndarray, D: np.ndarray, off: float, centres: np.ndarray, H: float,
                  far_dir: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """Radial profile evidence at each square's best top centre per size class: (squares,
        sizes, 5) = (plug step, rim step, texture loss, mean absolute change inside the top,
        outline depth).

        ``D`` is the change of log-brightness since the empty board and ``off`` its median over
        the board (the light's overall change, taken out where it matters).  A clear cup's wood plug is a flat disc a little unlike the board
        (plug step: inside the plug against the board just outside the cup's top, far arc,
        so a smooth shadow cancels), its rim a bright thin ring (rim step: per ray the brightest
        point near the rim against the board just outside, median over the far arc) and the plug hides
        the board's grain (texture loss: the reference's spread inside the disc less the
        current one's)."""
        nsq, nsz = centres.shape[:2]
        offsets, ends, n_ring, n_line = self._geometry("profiles", H)
        at = _sample_at(centres, offsets, far_dir, D.shape)
        d = D.take(at)
        plug, board_out = d[..., :ends[0]] - off, d[..., ends[0]:ends[1]] - off
        rim = d[..., ends[1]:ends[2]].reshape(nsq, nsz, n_ring, len(_FAR))
        edge = d[..., ends[2]:].reshape(nsq, nsz, n_line, len(_FAR))
        out = np.zeros((nsq, nsz, 5), np.float32)
        out[..., 0] = np.median(plug, axis=-1) - np.median(board_out, axis=-1)
        o = (board_out + off).reshape(nsq, nsz, 2, len(_FAR)).mean(axis=2)
        out[..., 1] = np.median(rim.max(axis=2) - o, axis=-1)
        at_plug = at[..., :ends[0]]
        out[..., 2] = self.ref_log.take(at_plug).std(axis=-1) - cur_log.take(at_plug).std(axis=-1)
        out[..., 3] = np.abs(plug).mean(axis=-1)
        # per ray, how far the darkest point on the edge dips below the darker of its sides
        out[..., 4] = np.median(np.minimum(edge[:, :, 0], edge[:, :, -1]) - edge[:, :, 1:-1].min(axis=2), axis=-1)
        return out

    def _polar(self, white: np.ndarray, lum_change: np.ndarray, centres: np.ndarray, H: float,
               far_dir: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """Clear sets: the radial profile around each square's top per size class, (squares,
        sizes, 2 channels x radii x 2): the change of whiteness, then of log-brightness, at
        ``POLAR_RADII`` times the size's outer radius, far arc, median and a low percentile.

        The right size's profile has its plug inside, the white rim just inside 1 and the
        board outside; a wrong size's is stretched or squeezed.  The square model learns that
        shape, where the ring, rim and profile steps each test one radius."""
        nsq, nsz = centres.shape[:2]
        at = _sample_at(centres, self._geometry("polar", H), far_dir, white.shape)
        out = np.zeros((nsq, nsz, 2, len(POLAR_RADII), 2), np.float32)
        for j, D in enumerate((white, lum_change)):
            v = np.sort(D.take(at).reshape(nsq, nsz, len(POLAR_RADII), len(_FAR)), axis=-1)
            out[:, :, j, :, 0] = 0.5 * (v[..., (len(_FAR) - 1) // 2] + v[..., len(_FAR) // 2])
            out[:, :, j, :, 1] = v[..., POLAR_LOW]
        return out.reshape(nsq, nsz, -1)

    def _far_arc(self, n_px: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per square, (cos, sin) each (squares, 1), of the direction away from the camera's
        nadir ``n_px``: angle 0 of every ring read round a square's top points along it, to
        the far arc (the top's edge against the board, never hidden by the cup's own wall)."""
        away = self.centres_px - n_px
        phi = np.arctan2(away[:, 1], away[:, 0])
        return np.cos(phi)[:, None], np.sin(phi)[:, None]

    def _sheen(self, s: int) -> tuple[float, float, float]:
        """How size class ``s``'s top is read past a sheen: (the sheen's spread for the reading,
        the spread its doubt allows, the gamma the grey is taken off at; ``colour_vote``)."""
        if self._solid[s]:
            return SHEEN_SIGMA, SHEEN_DOUBT, 1.0
        return PLUG_SHEEN_SIGMA, PLUG_SHEEN_DOUBT, PLUG_GAMMA

    def _colour(self, view: np.ndarray, centre: np.ndarray, radius: float, board_now: np.ndarray, s: int,
                share: float = COLOUR_DISC, sq: int | None = None) -> tuple[int, float]:
        """(colour, margin) of the disc of ``radius`` x ``share`` round ``centre`` on ``view``,
        a top of size class ``s`` (whose sheen is taken off as ``_sheen`` says):
        each pixel votes by its colour distances and the median vote decides (a glare spot on
        a dark plug or a grain streak covers well under half of the disc; ``colour_vote``).
        The margin is the vote as a share of the players' distance.  ``sq``: the square the top
        stands on, whose own players' colours it is compared with (``_refs``)."""
        sigma, _, gamma = self._sheen(s)
        refs, coolest, apart = self._refs(sq)
        vote = colour_vote(view, float(centre[0]), float(centre[1]), max(1.5, radius * share), board_now,
                           refs, coolest - GLARE_TINT, LUM_SIGMA, TINT_SIGMA, sigma, gamma)
        if np.isnan(vote):
            return 0, 0.0
        return (0 if vote >= 0 else 1), abs(vote) / (apart + 1e-6)

    def _refs(self, sq: int | None) -> tuple[np.ndarray, float, float]:
        """The players' colours a top on square ``sq`` is compared with: (log-BGR against the
        board, (2, 3); the cooler one's log(R/B); the distance a margin is a share of).  The
        calibration's, or the square's own where adapting measured them
        (``Calibration.square_colours``).  The distance is the calibration's players' either
        way: where a lamp mirrored in the tops brings the players' colours close on a square,
        what tells them apart there is small, and so is the margin (the confidence)."""
        if sq is None or self._square_refs is None:
            return self.colour_refs, self._coolest_player, self._players_apart
        return self._square_refs[0][sq], float(self._square_refs[1][sq]), self._players_apart

    def size_crops(self, squares: np.ndarray, centres: np.ndarray | None = None) -> np.ndarray:
        """Clear sets: for the last frame's ``squares``, a crop per size class around that
        size's top, scaled to its outer radius and turned so that +x points away from the
        camera's nadir: (squares, sizes, 2, CROP_PX, CROP_PX) float32 of the change of
        whiteness and of log-brightness since the empty board.  The right size's crop has its
        white rim on the same circle whatever the camera; a wrong one's is stretched or
        squeezed, or off the cup.  ``centres`` (squares, sizes, 2; canvas px) places the
        crops; by default where each size's top was found (``_top_centres``)."""
        f = self._last
        D, L, (cs, sn), H = f.white, f.lum_level, f.far_dir, f.H
        squares = np.asarray(squares, np.intp)
        nsz = len(self.cal.sizes)
        n = len(squares)
        fine = 2 * CROP_PX  # sampled twice as finely, then averaged in 2 x 2 blocks
        g = (np.arange(fine, dtype=np.float32) + 0.5) / fine * 2 * CROP_SPAN - CROP_SPAN
        r = np.array([self.edges_mm[s][-1] * height_scale(H, sc.height_mm) * self.canvas.ppm
                      for s, sc in enumerate(self.cal.sizes)], np.float32)
        c, sq_s = cs[squares, 0].astype(np.float32), sn[squares, 0].astype(np.float32)
        if centres is None:
            centres = self._top_centres(squares)
        # u along the far direction, v across, both along g
        mx, my = crop_maps(np.ascontiguousarray(centres, np.float32), r, c, sq_s, g)
        out = np.empty((n, nsz, 2, CROP_PX, CROP_PX), np.float32)
        for j, plane in enumerate((D, L)):
            z = np.concatenate([cv2.remap(plane, mx[i:i + REMAP_ROWS], my[i:i + REMAP_ROWS], cv2.INTER_LINEAR,
                                          borderMode=cv2.BORDER_REPLICATE) for i in range(0, len(mx), REMAP_ROWS)])
            # the mean of each 2 x 2 block (rows pair up within a crop: each has 2 * CROP_PX)
            block_means(z, out[:, :, j])
        return out

    def candidate_crops(self, squares: np.ndarray) -> np.ndarray:
        """Clear sets: ``size_crops`` of the last frame's ``squares`` centred, for every size
        alike, on each place where any size's top was found (by the edges, and by the white
        rim for sizes with one): (squares, places, sizes, 2, CROP_PX, CROP_PX).

        There is one cup, so its top lies at one place on the view whatever its size; where
        the search for the right size went astray (a glare spot, a grid line, a plug the
        colour of the wood), the search for another size has often found that place."""
        squares = np.asarray(squares, np.intp)
        at = self._places(squares)
        n, k = at.shape[:2]
        nsz = len(self.cal.sizes)
        centres = np.broadcast_to(at.reshape(n * k, 1, 2), (n * k, nsz, 2))
        return self.size_crops(np.repeat(squares, k), centres).reshape((n, k) + (nsz, 2, CROP_PX, CROP_PX))

    def _places(self, squares: np.ndarray) -> np.ndarray:
        """Every place on the view where the last frame found a top on ``squares``, (n,
        places, 2) canvas px: each size's by its edges, then each size with a rim's by it."""
        f = self._last
        places = [f.hyp.centre[squares]]
        if f.rim_centre is not None:
            places.append(f.rim_centre[squares][:, ~self._solid])
        return np.concatenate(places, axis=1)

    def _own_places(self, squares: np.ndarray) -> np.ndarray:
        """Which of ``_places`` is where each size's own top was found, (n, sizes): its white
        rim's where that is sure, else its edges' (where a light plug's rim barely shows,
        the rim search's best is often off the cup)."""
        nsz = len(self.cal.sizes)
        own = np.broadcast_to(np.arange(nsz), (len(squares), nsz))
        if self._last.rim_centre is None:
            return own
        rim_place = nsz + np.cumsum(~self._solid) - 1  # where each size with a rim has its rim's place
        sure = (self._last.rim_score[squares] >= RIM_SURE) & ~self._solid
        return np.where(sure, rim_place, own)

    def size_scores(self, squares: np.ndarray) -> np.ndarray:
        """Clear sets with a size check: its score of each size class on the last frame's
        ``squares``, (squares, sizes) (``SizeCheck.combine``).  A size's own crop is one of
        the places' crops, so the net reads each crop once."""
        squares = np.asarray(squares, np.intp)
        places = self.size_check.scores(self.candidate_crops(squares))  # (squares, places, sizes)
        own = np.take_along_axis(places, self._own_places(squares)[:, None, :], axis=1)[:, 0]
        return self.size_check.combine(own, places)

    @property
    def last_rim(self) -> tuple[np.ndarray, np.ndarray | None]:
        """The last frame's white-rim search: (lead per square and size class, centres; None
        for opaque sets)."""
        return self._last.rim_score, self._last.rim_centre

    def _top_centres(self, squares: np.ndarray) -> np.ndarray:
        """Where the last frame's top of each size class on ``squares`` was found, (n, sizes,
        2) canvas px (``_own_places``)."""
        squares = np.asarray(squares, np.intp)
        return np.take_along_axis(self._places(squares), self._own_places(squares)[..., None], axis=1)

    def _edge_px(self, s: int) -> float:
        """The seen edge radius (canvas px) of a size-``s`` top in the last frame, at its height."""
        return self.edge_mm[s] * height_scale(self._last.H, self.cal.sizes[s].height_mm) * self.canvas.ppm

    def _top_centre(self, sq: int, s: int) -> np.ndarray:
        """``_top_centres`` of one square and size class."""
        f = self._last
        if f.tops is None:
            f.tops = self._top_centres(np.arange(self.board.squares))
        return f.tops[sq, s]

    def colour_of(self, sq: int, s: int) -> tuple[int, float]:
        """(colour, margin) of the top of square ``sq`` in the last frame read, taking it to
        be of size class ``s``.

        Read first around where the top was found.  Where that is in doubt (margin under
        ``COLOUR_SURE``) it looks again, for the two ways the first look goes wrong: the edges
        can lock onto something darker beside a light top (its own shaded wall, its shadow, a
        dark cup seen through a clear one's wall), and a glare spot can fill the small disc on
        a dark top.  So where a lighter top's whole outline shows (``_lighter_outline``) the
        colour is read inside it, else where the top was found; either way over most of the
        top's disc, where a glare spot is a minority the reading discards."""
        colour, margin, _ = self._colour_read(sq, s)
        return colour, margin

    def _colour_read(self, sq: int, s: int) -> tuple[int, float, tuple[np.ndarray, float, float]]:
        """``colour_of`` and the disc it was read in: (centre, radius, share)."""
        f = self._last
        radius = self._edge_px(s)
        centre = self._top_centre(sq, s)
        colour, margin = self._colour(f.view, centre, radius, f.board_now, s, sq=sq)
        if margin >= COLOUR_SURE:
            return colour, margin, (centre, radius, COLOUR_DISC)
        outline, lead = self._lighter_outline(sq, s)
        if lead >= OUTLINE_SURE:
            centre = outline
        colour, margin = self._colour(f.view, centre, radius, f.board_now, s, COLOUR_DISC_WIDE, sq)
        return colour, margin, (centre, radius, COLOUR_DISC_WIDE)

    def sure_colour_of(self, sq: int, s: int) -> tuple[int, float]:
        """``colour_of``, with the margin it keeps were the top mirroring the lamp: read again
        in the same disc with sheen as common as ``SHEEN_DOUBT`` (a glossy top facing the lamp
        can look grey all over; a plug's, ``PLUG_SHEEN_DOUBT``, in light and in display
        values).  A colour the other player's plus such a sheen would explain as well has no
        margin left: it is read, but not trusted.  (Sheen only brightens, so
        only a top read light is in that doubt.)

        A solid top read light is then read on its body ring too (``body_colour_of``): where
        the ring leads for the dark player by more than ``BODY_LEAD`` over the margin the disc
        keeps, the top is read dark, that difference its margin.  (A clear cup's plug has the
        white rim across its edge, no body: it is not read so.)"""
        colour, margin, (centre, radius, share) = self._colour_read(sq, s)
        if colour == 1:
            # grey added to the light player's colour never looks darker: no doubt to test
            return colour, margin
        kept = self._sheen_kept(centre, radius * share, sq, s)
        if np.isnan(kept):
            return colour, margin
        sure = max(0.0, min(margin, float(kept)))
        if self._solid[s]:
            lead = -self.body_colour_of(sq, s) - sure  # the body ring's dark lead over the disc's light
            if lead > BODY_LEAD:
                return 1, lead
        return colour, sure

    def _sheen_kept(self, centre: np.ndarray, radius: float, sq: int, s: int) -> float:
        """Last frame: the light player's lead (a share of the players' distance, as a colour
        margin) in the disc of ``radius`` round ``centre`` (canvas px) on square ``sq``, a top of
        size class ``s``, were it mirroring the lamp with sheen as common as ``_sheen``'s doubt
        allows (``sure_colour_of``); NaN where the disc lies off the view.  A plug's is the least
        of it in light and in display values (which of them a camera's curve is nearer varies)."""
        f = self._last
        _, doubt, gamma = self._sheen(s)
        kept = np.nan
        refs, coolest, apart = self._refs(sq)
        for g in (gamma,) if gamma == 1.0 else (gamma, 1.0):
            vote = colour_vote(f.view, float(centre[0]), float(centre[1]), max(1.5, radius), f.board_now,
                               refs, coolest - GLARE_TINT, LUM_SIGMA, TINT_SIGMA, doubt, g)
            kept = np.fmin(kept, vote / (apart + 1e-6))
        return float(kept)

    def body_colour_of(self, sq: int, s: int) -> float:
        """Last frame, square ``sq``, its top taken to be of size class ``s``: the light
        player's lead (as a share of the players' distance, negative where the dark one's is
        nearer) on the top's body ring (``kernels.ring_vote``): the darkest point of each ray
        from where it was found across its rounded rim, at ``BODY_RING`` of its edge radius.
        0 where the ring lies off the view."""
        f = self._last
        radius = self._edge_px(s)
        cx, cy = self._top_centre(sq, s)
        refs, _, apart = self._refs(sq)
        vote = ring_vote(f.view, float(cx), float(cy), BODY_RING[0] * radius, BODY_RING[1] * radius, BODY_RAYS,
                         BODY_STEPS, f.board_now, refs, LUM_SIGMA, TINT_SIGMA)
        return 0.0 if np.isnan(vote) else float(vote) / (apart + 1e-6)

    def _dark_body_margin(self, sq: int, s: int, margin: float) -> float:
        """Last frame, square ``sq`` read as a dark solid top of size class ``s`` with colour
        margin ``margin``: the margin it keeps, less the light player's lead on its body ring
        (``body_colour_of``) where that ring leads for the light player (at least 0).

        A solid top's flat face can mirror the lamp all over, and a light top's face burnt out
        to white is nearer the cooler player (on Gobblet Jr., blue) than its own orange; its
        rounded rim does not mirror the lamp and keeps its colour.  The mirror of the body
        ring's part in ``sure_colour_of``, but it only doubts: on the tuning seeds right dark
        readings whose ring led for the light player were few (2 in 7 seeds), and one of them
        had a margin of 0.02 under a ring lead of 0.08."""
        body = self.body_colour_of(sq, s)
        return margin if body <= 0.0 else max(0.0, margin - body)

    def _larger_rim(self, sq: int, s: int) -> bool:
        """Last frame, square ``sq`` read as a clear cup of size class ``s``: whether a larger
        clear size's white rim was found round the square (its lead at least ``RIM_SURE`` and
        above the read size's).  The top cup is the largest of its stack, and a cup of the read
        size makes no rim wider than its own: a light plug on light wood shows no edge, and its
        cup can be read a size too small, by the square model or by the size check's crop of
        the smaller size inside it."""
        rim = self._last.rim_score[sq]
        larger = np.arange(len(rim)) > s
        return bool(np.any(larger & ~self._solid & (rim >= RIM_SURE) & (rim > rim[s])))

    def _clear_window(self, s: int) -> np.ndarray:
        """Last frame: the radii (canvas px, ``CLEAR_WINDOW`` of them) at which a clear size-``s``
        top's outline is looked for round the whole circle (``_light_clear_larger``): from 1 px
        inside its plug's edge to 1 px outside its outer rim, at its height.  A light plug's
        outline shows at either: at the rim where the pipe's end is as pale as the plug, at the
        plug's edge where the end looks grey against it."""
        k = height_scale(self._last.H, self.cal.sizes[s].height_mm) * self.canvas.ppm
        return np.linspace(self.edges_mm[s][0] * k - 1.0, self.edges_mm[s][-1] * k + 1.0, CLEAR_WINDOW)

    def _light_clear_larger(self, sq: int, s: int) -> bool:
        """Last frame, square ``sq`` read as a light top of clear size class ``s``: whether it may
        be the next size (clear and in play), and so is doubted.  Round the whole circle
        (``radial_steps``, over ``_clear_window``) the read size's own outline does not step
        (its strongest median step, either sign, under ``CLEAR_OWN_FAINT``) and the next size's,
        round where that size's top was found, is lighter inside by ``CLEAR_LARGER_STEP`` or
        more on at least ``OUTLINE_SHARE`` of the circle.

        A light plug on light wood shows no white rim (the rim search finds none) and hardly an
        edge on the far arc, and the readers can put it a size down, inside its own plug, where
        the board and the plug are alike on both sides of the smaller circle.  Round the whole
        circle a light top is lighter than its clear wall's shade on the near side and a little
        than the board elsewhere, at its own size's radius.  A top of the size read steps at its
        own outline (where it does not, nothing says which size it is, and the larger one's
        outline decides); the next size's circle round a smaller top lies on the board.  It only
        doubts: read one size up, as many right readings went up on tuning seeds 113, 131 and 13
        (4, at 0.74 to 0.9 or more) as wrong ones were mended there (2)."""
        t = s + 1
        if t >= len(self._solid) or self._solid[t] or not self._in_play[t]:
            return False
        own, _ = self.radial_steps(np.array([sq]), np.array([s]), self._clear_window(s)[None, :])
        if np.abs(own).max() >= CLEAR_OWN_FAINT:
            return False
        larger, share = self.radial_steps(np.array([sq]), np.array([t]), self._clear_window(t)[None, :])
        i = int(np.argmin(larger[0]))  # the step most lighter inside (log-brightness falls outwards)
        return bool(-larger[0, i] >= CLEAR_LARGER_STEP and share[0, i] >= OUTLINE_SHARE)

    def _sizes_up(self, choice: np.ndarray, lifted: np.ndarray) -> np.ndarray:
        """Last frame, per square (bool): whether the top the readers put at size class
        ``choice`` - 1 (0: empty) is read one size up: the next size is in play and its own rim
        is found, on the far arc (``lifted``, ``larger_edge``) or round the whole outline
        (``_outline_lifts``, asked only for the squares the far arc does not lift)."""
        nsz = len(self._solid)
        sizes = choice - 1
        up = np.zeros(len(choice), bool)
        can = (sizes >= 0) & (sizes + 1 < nsz)
        can[can] &= self._in_play[sizes[can] + 1]
        squares = np.flatnonzero(can)
        up[squares] = lifted[squares, sizes[squares]]
        rest = squares[~up[squares]]
        up[rest] = self._outline_lifts(rest, sizes[rest])
        return up

    def radial_steps(self, squares: np.ndarray, sizes: np.ndarray,
                     radii: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Last frame, round where the top of size class ``sizes[i]`` on square ``squares[i]``
        was found (its edges' best centre), at its ``radii[i]`` (canvas px; (n, radii)): the
        median over the whole circle (``SCAN_ANGLES`` angles) of the outward step of
        log-brightness since the empty board (from a pixel inside the radius to a pixel
        outside), and the share of angles whose step has the median's sign, (n, radii) each.
        An edge round the whole top has nearly all of them; an arc of shadow or a neighbour's
        wall only some."""
        f = self._last
        radii = np.asarray(radii, np.float64)
        n, nr = radii.shape
        c = f.hyp.centre[squares, sizes].astype(np.float64)  # (n, 2)
        r = np.concatenate([radii - 1.0, radii + 1.0], axis=1)  # (n, 2 radii)
        pts = c[:, None, None, :] + r[:, :, None, None] * _units(SCAN_ANGLES)[None, None, :, :]
        maps = pts.reshape(n * 2 * nr, SCAN_ANGLES, 2).astype(np.float32)
        d = cv2.remap(f.lum, maps[..., 0], maps[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        d -= cv2.remap(self.ref_log, maps[..., 0], maps[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        d = d.reshape(n, 2 * nr, SCAN_ANGLES)
        step = d[:, nr:] - d[:, :nr]  # (n, radii, angles)
        med = np.median(step, axis=2)
        agree = np.mean(np.sign(step) == np.sign(med)[..., None], axis=2)
        return med, agree

    def _outline_lifts(self, squares: np.ndarray, sizes: np.ndarray) -> np.ndarray:
        """Last frame, per square of ``squares`` (bool): whether a solid top read as size class
        ``sizes[i]`` is the next larger size by its whole outline (``square_model.larger_outline``):
        the step at the larger size's edge radius round its own found top, against the step at
        the read size's edge radius round the read top, both over the whole circle, taken in
        the sign of the read top's own whole-circle step (``_strongest_sign``; the strongest of
        ``OUTLINE_RADII`` round each radius)."""
        squares, sizes = np.asarray(squares, np.intp), np.asarray(sizes, np.intp)
        out = np.zeros(len(squares), bool)
        nsz = len(self._solid)
        both = (sizes + 1 < nsz) & self._solid[sizes] & self._solid[np.minimum(sizes + 1, nsz - 1)]
        squares, sizes = squares[both], sizes[both]
        if not len(squares):
            return out
        edge = np.array([self._edge_px(s) for s in range(nsz)])
        steps = []
        sign = None
        for size in (sizes, sizes + 1):
            med, agree = self.radial_steps(squares, size, np.round(edge[size])[:, None] + OUTLINE_RADII)
            if sign is None:
                sign = _strongest_sign(med)[:, None]
            med *= sign
            best = np.argmax(med, axis=1)[:, None]
            steps.append((np.take_along_axis(med, best, 1)[:, 0], np.take_along_axis(agree, best, 1)[:, 0]))
        (own, _), (larger, share) = steps
        out[both] = larger_outline(own, larger, share)
        return out

    def grain_kept(self, sq: int) -> float:
        """Last frame, square ``sq``: how much of the empty board's grain shows in the middle of
        the square as it did (the best correlation, over shifts of up to ``GRAIN_SHIFT`` px, of
        the fine detail of log-brightness now and on the empty board, in a disc of
        ``GRAIN_DISC`` of the square round its centre).  Near 1 where the bare board shows, under
        any light or shadow (they change the level, not the grain); near 0 where something
        stands on it, however faint its edges, or where the board has no grain to see."""
        return self._grain_kept_at(self.centres_px[sq], self._grain_r)

    def _grain_kept_at(self, centre: np.ndarray, radius: float) -> float:
        """``grain_kept`` in the disc of ``radius`` round ``centre`` (canvas px)."""
        f = self._last
        a, inside, (x0, x1, y0, y1) = self._disc_values(self._ref_grain, centre, radius)
        if len(a) < 9 or a.std() < GRAIN_MIN:
            return 0.0
        now = _grain(f.lum[y0:y1, x0:x1])
        a = a - a.mean()
        na = float(np.sqrt((a * a).sum()))
        best = 0.0
        for dy in range(-GRAIN_SHIFT, GRAIN_SHIFT + 1):
            for dx in range(-GRAIN_SHIFT, GRAIN_SHIFT + 1):
                b = np.roll(now, (dy, dx), axis=(0, 1))[inside]
                b = b - b.mean()
                best = max(best, float((a * b).sum()) / (na * float(np.sqrt((b * b).sum())) + 1e-9))
        return best

    def _disc_values(self, image: np.ndarray, centre: np.ndarray,
                     r: float) -> tuple[np.ndarray, np.ndarray, tuple[int, int, int, int]]:
        """``image``'s values in the disc of radius ``r`` round ``centre`` (canvas px; where
        ``grain_kept`` compares the grain), the disc's mask on the patch round it and the patch
        (x0, x1, y0, y1): the patch has room for the grain's blur and shifts, which the disc
        keeps clear of its edges."""
        h, w = image.shape
        m = int(np.ceil(r)) + GRAIN_SHIFT + int(3 * GRAIN_BLUR) + 1
        cx, cy = (int(round(v)) for v in centre)
        x0, x1, y0, y1 = max(cx - m, 0), min(cx + m + 1, w), max(cy - m, 0), min(cy + m + 1, h)
        yy, xx = np.mgrid[y0:y1, x0:x1]
        inside = (xx - cx) ** 2 + (yy - cy) ** 2 <= r * r
        inside[:GRAIN_SHIFT] = inside[-GRAIN_SHIFT:] = False
        inside[:, :GRAIN_SHIFT] = inside[:, -GRAIN_SHIFT:] = False
        return image[y0:y1, x0:x1][inside], inside, (x0, x1, y0, y1)

    def top_pixels(self, sq: int, s: int, share: float = COLOUR_DISC_WIDE) -> tuple[np.ndarray, np.ndarray]:
        """Last frame, square ``sq``, its top taken to be of size class ``s``: the BGR pixels
        (n, 3) of the disc of ``share`` times the top's edge radius round where it was found,
        and the board's median BGR in the same frame (what the light made of the wood)."""
        f = self._last
        patch, inside = _disc_window(f.view.shape[:2], self._top_centre(sq, s), share * self._edge_px(s))
        return f.view[patch][inside].reshape(-1, 3), f.board_now.copy()

    def _lighter_outline(self, sq: int, s: int) -> tuple[np.ndarray, float]:
        """Last frame, square ``sq``: the centre (canvas px) within the reach of a size-``s``
        top of the circle of that size's outer radius that is most consistently brighter
        inside than out, and that lead (ring units, ``EMPTY_THRESHOLD``).

        A top lighter than what lies round it shows such an outline all the way round: a
        clear cup's white rim whatever its plug, a light solid top against the board on its
        far side and against its own shaded wall on the near side.  A dark top, a wall, a
        shadow or a cup seen through a clear wall are darker than what surrounds them, so
        none makes one, nor does bare board."""
        centres, leads = self._lighter_outlines(np.array([sq]), s)
        return centres[0], float(leads[0])

    def _lighter_outlines(self, squares: np.ndarray, s: int) -> tuple[np.ndarray, np.ndarray]:
        """``_lighter_outline`` of several ``squares`` at once (one search of each kind for
        them all): the centres (n, 2) and the leads (n,)."""
        pts, r = self._top_candidates(squares, s)
        return self._best_circles(pts, r, _units(COARSE_ANGLES), _units(N_ANG))

    def _top_candidates(self, squares: np.ndarray, s: int, every_px: bool = False) -> tuple[np.ndarray, float]:
        """Last frame: the whole-pixel centres (n, m, 2) on the coarse grid (``every_px``: on
        every pixel) within the reach of a size-``s`` top on each of ``squares``, and that
        size's outer radius (canvas px)."""
        f = self._last
        k = height_scale(f.H, self.cal.sizes[s].height_mm)
        r = self.edges_mm[s][-1] * k * self.canvas.ppm
        reach = self.offsets_mm[s] * k * self.canvas.ppm
        base = np.rint(f.n_px + (self.centres_px[squares] - f.n_px) * k).astype(np.int64)
        offsets = _pixel_offsets(reach) if every_px else _coarse_offsets(reach)
        return base[:, None, :] + offsets[None, :, :], r

    def _light_top_beside(self, sq: int, s: int) -> tuple[np.ndarray, float] | None:
        """Last frame, square ``sq``, a top of size class ``s`` read dark: where its edges may
        have been found on a light top's own shaded wall and shadow instead, the light top (its
        centre, canvas px, and colour margin), else None.

        A tall narrow cup (Storer's smallest, solid and twice as tall as it is wide) seen from
        a low camera shows a wall as long as its top is wide: the wall, shaded, and the shade at
        its foot make a dark disc of the top's size right beside the top, with a stronger edge
        than a light top's on a light board; a clear cup's pale plug, as white as its rim, shows
        no rim to place it, and its edges can lock onto its shadow seen through its wall.  The
        light top itself is lighter than all round it (its wall on the near side, the board on
        the far side): a circle of the size's outer radius within the reach of its top leads by
        ``BESIDE_SURE`` (``_lighter_outline``, searched on every pixel: a small top's outline
        is a pixel wide, which the coarse grid steps over), it reads light, and it is no darker
        than the light player's colour can look by shading.  Beside a dark top lies bare board
        or its shadow, which make no such outline (bare board only a faint one, by chance); a
        dark plug's white rim makes one round the plug, which reads dark.  Where no such outline
        leads (a tall top as white as a white board shows none on its far arc), the circle its
        own shaded wall places is taken instead (``_light_wall_beside``), where it reads light
        even past a strong sheen (``BESIDE_WALL_KEPT``: a dark top mirroring the lamp does not).
        Only a tall narrow solid top, whose wall can pass for it, or a clear top its own white
        rim did not place, is looked at: elsewhere the search would cost time for nothing."""
        if not (self._tall[s] if self._solid[s] else self._last.rim_score[sq, s] < RIM_SURE):
            return None
        pts, r = self._top_candidates(np.array([sq]), s, every_px=True)
        centres, leads = self._best_circles(pts, r, _units(COARSE_ANGLES), _units(N_ANG))
        by_wall = leads[0] < BESIDE_SURE
        centre = self._light_wall_beside(sq, s) if by_wall else centres[0]
        if centre is None:
            return None
        f = self._last
        edge = self._edge_px(s)
        colour, margin = self._colour(f.view, centre, edge, f.board_now, s, sq=sq)
        if colour != 0 or self._disc_change(centre, COLOUR_DISC * edge) < self._light_lum - LUM_SIGMA:
            return None
        if by_wall and not self._sheen_kept(centre, COLOUR_DISC * edge, sq, s) >= BESIDE_WALL_KEPT:
            return None
        return centre, margin

    def _light_wall_beside(self, sq: int, s: int) -> np.ndarray | None:
        """Last frame, square ``sq``, a top of a tall solid size class ``s`` read dark and no
        lighter outline beside it (``_light_top_beside``): the centre (canvas px) of the circle
        of its size whose near arc leads by ``BESIDE_WALL`` (``_wall_leads``), where that circle
        lies at least the size's edge radius from the dark disc read; else None.

        A light top as white as a white board shows no edge on its far arc, so no whole outline
        leads; but its own shaded wall lies beyond its near edge, and that dark wall is the disc
        the edges found.  A dark top's own near arc leads too (it is lighter than its shaded
        wall), but there, on the disc read; bare board beside a dark top, the top across its
        near arc, led by 6.9 at most on tuning seeds.  Whether the circle found is a light top
        is for ``_light_top_beside`` to say, by its colour."""
        if not (self._solid[s] and self._tall[s]):
            return None
        centres, leads = self._wall_leads(np.array([sq]), np.array([s]))
        if leads[0, 0] < BESIDE_WALL:
            return None
        if np.linalg.norm(centres[0, 0] - self._top_centre(sq, s)) < self._edge_px(s):
            return None
        return centres[0, 0]

    def _best_circles(self, pts: np.ndarray, r: float, coarse_units: np.ndarray,
                      units: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Of the candidate centres ``pts`` (n, m, 2) of each of n squares, the circle of
        radius ``r`` most consistently brighter inside than out at the angles of
        ``coarse_units``, then round its two best seeds a pixel either way at those of
        ``units`` (``_inside_lead``): the centres (n, 2) and leads (n,; ring units)."""
        n = len(pts)
        coarse = self._inside_lead(pts.reshape(-1, 2), r, coarse_units, (0.0,)).reshape(n, -1)
        seeds = np.take_along_axis(pts, np.argsort(-coarse, axis=1)[:, :2, None], axis=1)
        fine = (seeds[:, :, None, :] + _FINE[None, None, :, :]).reshape(n, -1, 2)
        lead = self._inside_lead(fine.reshape(-1, 2), r, units, RADII).reshape(n, -1)
        i = lead.argmax(axis=1)
        return fine[np.arange(n), i].astype(np.float64), lead[np.arange(n), i].astype(np.float64) / EMPTY_THRESHOLD

    def _outlined_tops(self, squares: np.ndarray) -> dict[int, tuple[int, np.ndarray, float, float]]:
        """Last frame, of ``squares``: those with a light solid top whose whole outline is
        lighter than what lies round it (``_lighter_outline`` at least ``OUTLINE_SURE``), each
        as (size class, the outline's centre, how far the outline's lead supports that size
        against the size next to it (``size_bound``), its colour margin).

        A light top on a pale board barely shows an edge on its far side, where the edge search
        looks, yet it is lighter than its own shaded wall and its shadow on the near side and a
        little lighter than the board on the far side, all the way round.  A shadow, a wall or a
        dark top is darker than what surrounds it, so none makes such an outline; bare board
        makes one only by chance, in its grain or noise, and then reads as the board's colour:
        on a dark board, dark.  So the outline counts only where the colour inside reads light
        (``sure_colour_of``) and it is no darker than the light player's colour can look by
        shading (``LUM_SIGMA``): the inside of a cast shadow's rounded end can make an outline
        too, and may read light by its tint."""
        squares = np.asarray(squares, np.intp)
        sizes = np.flatnonzero(self._solid & self._in_play)
        if not len(sizes) or not len(squares):
            return {}
        leads = np.zeros((len(squares), len(self._solid)))  # clear sizes: no lead
        centres = np.zeros((len(squares), len(self._solid), 2))
        for s in sizes:
            centres[:, s], leads[:, s] = self._lighter_outlines(squares, int(s))
        best = sizes[np.argmax(leads[:, sizes], axis=1)]
        bound = size_bound(leads, self._solid)
        out = {}
        for j, (sq, s) in enumerate(zip(squares, best)):
            if leads[j, s] < OUTLINE_SURE:
                continue
            colour, margin = self.sure_colour_of(int(sq), int(s))
            if colour != 0 or self._disc_change(centres[j, s], COLOUR_DISC * self._edge_px(s)) < self._light_lum - LUM_SIGMA:
                continue
            out[int(sq)] = (int(s), centres[j, s], float(bound[j, s]), margin)
        return out

    def _wall_leads(self, squares: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Last frame, per square of ``squares`` and size class of ``sizes``: the centre (canvas
        px) within the reach of its top of the circle of its outer radius most consistently
        lighter inside than out on the near arc (``WALL_ARC`` either side of the direction to
        the camera's nadir, where a top's own wall and the shade at its foot lie beyond its
        edge), and that lead (ring units); (n, sizes, 2) and (n, sizes)."""
        cs, sn = self._last.far_dir
        arcs = [(_arc_units(WALL_COARSE_ANGLES, toward), _arc_units(WALL_ANGLES, toward))
                for toward in -np.stack([cs[squares, 0], sn[squares, 0]], axis=1)]
        centres, leads = np.zeros((len(squares), len(sizes), 2)), np.zeros((len(squares), len(sizes)))
        for j, s in enumerate(sizes):
            pts, r = self._top_candidates(squares, int(s))
            for i, (coarse_units, units) in enumerate(arcs):
                c, lead = self._best_circles(pts[i:i + 1], r, coarse_units, units)
                centres[i, j], leads[i, j] = c[0], lead[0]
        return centres, leads

    def _walls(self, squares: np.ndarray) -> dict[int, _Wall]:
        """Last frame, of ``squares`` (read empty): those where a solid top's wall shows
        beyond its near edge (``_wall_leads`` at least ``WALL_DOUBT`` for the size in play that
        leads most) and the board's grain does not show inside that circle as on the empty
        board (``GRAIN_SEEN``), each as its ``_Wall``.

        A top of the board's own colour barely changes the square and shows no edge on its far
        side, where the edge search looks; but seen from above its wall lies beyond its edge on
        the near side, and the wall and the board at its foot are shaded: over that arc the top
        is lighter than what lies round it, whatever its colour.  Bare board makes such an arc
        where a soft shadow's edge runs past it (a small circle's arc is nearly straight); the
        grain then shows inside the circle, as where the empty board was taken."""
        squares = np.asarray(squares, np.intp)
        sizes = np.flatnonzero(self._solid & self._in_play)
        out: dict[int, _Wall] = {}
        if not len(sizes) or not len(squares):
            return out
        centres, leads = self._wall_leads(squares, sizes)
        every = np.zeros((len(squares), len(self._solid)))
        every[:, sizes] = leads
        bound = size_bound(every, self._solid)
        for i, sq in enumerate(squares):
            j = int(np.argmax(leads[i]))
            s = int(sizes[j])
            if leads[i, j] < WALL_DOUBT:
                continue
            if self._grain_kept_at(centres[i, j], WALL_GRAIN_DISC * self._edge_px(s)) >= GRAIN_SEEN:
                continue
            out[int(sq)] = _Wall(s, centres[i, j], float(leads[i, j]), float(bound[i, s]))
        return out

    def _clear_set_walls(self, squares: list[int]) -> set[int]:
        """Last frame, a clear set: of ``squares`` (read empty), those where the solid size's
        wall shows beyond its near edge and the board's grain does not show inside its circle
        (``_walls``), whose empty reading is doubted, never read as a top.

        A light top on a pale board (a light 1, or a clear cup's light plug on near-white wood)
        barely changes the square and shows no edge on its far arc, and the model reads it empty
        with confidence; its shaded wall and its foot's shade still lie beyond its near edge.  A
        clear cup's wall seen through there can lead for the solid size as well (so the top is
        not read from it), which the doubt allows: either way the square is not empty.  Only a
        lead of ``CLEAR_WALL_DOUBT``: on boards whose grain hardly shows, bare board can lead by
        less."""
        return {sq for sq, wall in self._walls(np.asarray(squares, np.intp)).items() if wall.lead >= CLEAR_WALL_DOUBT}

    def _walls_up(self, walls: dict[int, _Wall]) -> dict[int, _Wall]:
        """``walls`` (``_walls``) with each top read by its wall (lead ``WALL_READ`` or more)
        read one size up where the next larger size is solid and in play and its own wall is
        there too (``square_model.larger_wall``, on ``_wall_leads`` of that size).  A lifted
        top's wall is the larger size's circle, its support that size's against the read one
        (``size_bound``: under 0.5 where the larger leads less); the squares join
        ``last_lifted``."""
        out = self._lift_walls(walls)
        self.last_lifted += [sq for sq in walls if out[sq] is not walls[sq]]
        return out

    def _lift_walls(self, walls: dict[int, _Wall]) -> dict[int, _Wall]:
        """``_walls_up``'s reading, without noting the lifted squares."""
        nsz = len(self._solid)
        out = dict(walls)
        for sq, wall in walls.items():
            t = wall.size + 1
            if wall.lead < WALL_READ or t >= nsz or not (self._solid[t] and self._in_play[t]):
                continue
            centres, leads = self._wall_leads(np.array([sq]), np.array([t]))
            if not larger_wall(wall.lead, float(leads[0, 0])):
                continue
            support = float(size_bound(np.array([[wall.lead, leads[0, 0]]]), np.ones(2, bool))[0, 1])
            out[sq] = _Wall(t, centres[0, 0], float(leads[0, 0]), min(wall.support, support))
        return out

    def _faint_walls(self, sizes: np.ndarray, ring: np.ndarray) -> dict[int, _Wall]:
        """Last frame, where every size in play is solid: of the squares the readers put at
        size class ``sizes[sq]`` (-1: empty), those whose edge ring at that size (``ring``,
        ring units, (squares, sizes)) is under ``FAINT_RING`` and whose wall reads
        (``_walls``, lead ``WALL_READ`` or more, ``_lift_walls``) another size, each as its
        ``_Wall``.

        Under one ring unit the edge search found no top of the size read: the square model
        put the top there by its other measures, which tell a faint top from the board better
        than one size from the next.  A top the board's colour shows its wall beyond its near
        edge at its own size (``_walls``), however faint its edges.  A larger top makes a wall
        at a smaller size's circle too, but a smaller top none at a larger one: a size read
        larger than the wall's is kept where its own wall is there too (``larger_wall``)."""
        sizes = np.asarray(sizes, np.intp)
        rows = np.flatnonzero(sizes >= 0)
        rows = rows[ring[rows, sizes[rows]] < FAINT_RING]
        walls = {sq: w for sq, w in self._walls(rows).items() if w.lead >= WALL_READ}
        out = {}
        for sq, w in self._lift_walls(walls).items():
            s = int(sizes[sq])
            if w.size == s:
                continue
            if s > w.size:  # a larger size read is kept where its own wall is there too
                own = float(self._wall_leads(np.array([sq]), np.array([s]))[1][0, 0])
                if larger_wall(walls[sq].lead, own):
                    continue
            out[sq] = w
        return out

    def _wall_lifts(self, sizes: np.ndarray, ring: np.ndarray) -> dict[int, _Wall]:
        """Last frame, where every size in play is solid: of the squares the readers put at
        size class ``sizes[sq]`` (-1: none) with an edge ring (``ring``, ring units, (squares,
        sizes)) from ``FAINT_RING`` to under ``WALL_UP_RING``, those whose next larger size is
        in play and has the wall that reads a top one size up against its edges
        (``square_model.wall_leads_up`` on ``_wall_leads`` of the two sizes), each as the
        larger size's ``_Wall`` (its support that size's against the read one, ``size_bound``).

        A larger top's flat face ends about at the smaller size's circle, where it rings on
        the far arc and makes a wall too; its own rounded rim, curving away on the far arc,
        rings less.  A smaller top has only board or its shadow at the larger circle, and no
        wall there."""
        sizes = np.asarray(sizes, np.intp)
        rows = self._next_in_play(sizes)
        r = ring[rows, sizes[rows]]
        out = {}
        for sq in rows[(r >= FAINT_RING) & (r < WALL_UP_RING)]:
            wall = self._next_wall(int(sq), int(sizes[sq]), wall_leads_up)
            if wall is not None:
                out[int(sq)] = wall
        return out

    def _next_in_play(self, sizes: np.ndarray) -> np.ndarray:
        """The squares whose read size class ``sizes[sq]`` (-1: none) has a next larger size
        in play (``_wall_lifts``, ``_soft_edges``)."""
        rows = np.flatnonzero((sizes >= 0) & (sizes + 1 < len(self._solid)))
        return rows[self._in_play[sizes[rows] + 1]]

    def _next_wall(self, sq: int, s: int, leads_up: Callable[[float, float], object]) -> _Wall | None:
        """Last frame, square ``sq`` read as size class ``s``: the next larger size's ``_Wall``
        where its wall is found (``LARGER_WALL_FOUND``) and ``leads_up(own lead, larger
        lead)`` says the top is that size (``square_model.wall_leads_up`` against edges,
        ``larger_wall`` against a soft edge), its support that size's against the read one
        (``size_bound``); else None."""
        # the larger size's wall first: where it is not found the read size's is not needed
        centres, larger = self._wall_leads(np.array([sq]), np.array([s + 1]))
        if larger[0, 0] < LARGER_WALL_FOUND:
            return None
        own = self._wall_leads(np.array([sq]), np.array([s]))[1]
        if not leads_up(own[0, 0], larger[0, 0]):
            return None
        support = float(size_bound(np.array([[own[0, 0], larger[0, 0]]]), np.ones(2, bool))[0, 1])
        return _Wall(s + 1, centres[0, 0], float(larger[0, 0]), support)

    def _soft_edges(self, sizes: np.ndarray) -> np.ndarray:
        """Last frame, per square (bool): whether the top read as size class ``sizes[sq]`` (-1:
        none), whose next larger size is solid and in play, has an edge that steps round the
        whole circle by less than ``DARK_SOFT_STEP`` (``radial_steps``, the strongest of
        ``OUTLINE_RADII`` round its edge radius, either sign): the squares ``_dark_wall_lift``
        may lift, found in one pass for all of them."""
        sizes = np.asarray(sizes, np.intp)
        out = np.zeros(len(sizes), bool)
        rows = self._next_in_play(sizes)
        rows = rows[self._solid[sizes[rows] + 1]]
        if not len(rows):
            return out
        edge = np.array([self._edge_px(s) for s in range(len(self._solid))])
        steps, _ = self.radial_steps(rows, sizes[rows], np.round(edge[sizes[rows]])[:, None] + OUTLINE_RADII)
        out[rows] = np.abs(steps).max(axis=1) < DARK_SOFT_STEP
        return out

    def _dark_wall_lift(self, sq: int, s: int) -> _Wall | None:
        """Last frame, where every size in play is solid: square ``sq`` read as a dark top of
        size class ``s`` whose edge is a soft step (``_soft_edges``), the next larger size's
        ``_Wall`` where the top is that size, else None: that size's wall is there as
        ``larger_wall`` asks of a top read by its wall (found, and at least
        ``LARGER_WALL_SHARE`` of the read size's).

        A dark top is darker than the board, so a circle is lighter inside than out on its near
        arc only where something darker still lies beyond it: a top's own shaded wall and the
        shade at its foot.  A smaller dark top leaves board, lighter than itself, beyond the
        larger circle; a larger one makes its wall there.  Its flat face ends at the smaller
        size's circle and can ring there on the far arc, strongly enough for the readers to be
        sure of the smaller size, but round the whole circle that end is a soft step (dark face
        to dark rounded rim), where a top of the smaller size shows its edge against the board."""
        return self._next_wall(sq, s, larger_wall)

    def _chroma_kept(self, squares: np.ndarray) -> np.ndarray:
        """Last frame, per square of ``squares``: how far the change of its middle since the
        empty board differs between the channels (the spread of the three channels' median change
        of log level, in the disc ``grain_kept`` reads).  Near 0 where the board there is only
        lit otherwise (a shadow, a dimmer or brighter light keeps its chroma), larger where a
        top of another colour covers it."""
        squares = np.asarray(squares, np.intp)
        now = _LOG_LEVEL[self._last.view.reshape(-1, 3)[self._mid_idx[squares]]]
        change = np.median(now - self._mid_ref[squares], axis=1)
        return change.max(axis=1) - change.min(axis=1)

    def _shaded_empty(self, squares: np.ndarray) -> set[int]:
        """Last frame, where every size in play is solid: of ``squares`` (read as tops, under
        ``READERS_SURE``), those whose middle keeps the board's chroma (``_chroma_kept`` under
        ``SHADE_CHROMA``) and where no solid size in play shows its wall (``_wall_leads`` under
        ``SHADE_WALL`` at every size): what was taken for a top is the board under a shadow or
        another light.

        A cup's hard lamp shadow on an empty square darkens it by a nearly constant factor in
        every channel, and has no rim at any size's height; where the light player's colour is
        the board's, darker, the readers read it as a light top.  A top stands at its height: its
        wall and the shade at its foot lie beyond its near edge, darker than the top, whatever
        the top's colour; a shadow lies flat on the board, darker than what surrounds it."""
        squares = np.asarray(squares, np.intp)
        sizes = np.flatnonzero(self._solid & self._in_play)
        if not len(squares) or not len(sizes):
            return set()
        squares = squares[self._chroma_kept(squares) < SHADE_CHROMA]
        if not len(squares):
            return set()
        _, leads = self._wall_leads(squares, sizes)
        return {int(sq) for sq in squares[leads.max(axis=1) < SHADE_WALL]}

    def _empty_doubted(self, sq: int, centre_change: float) -> bool:
        """Whether the square's middle changed since the empty board where its grain no longer
        shows (or, on a board with no grain, changed plainly): a faint top may be there."""
        if self._grained[sq]:
            return centre_change >= EMPTY_CHANGED and self.grain_kept(sq) < GRAIN_SEEN
        return centre_change >= EMPTY_CHANGED_SMOOTH

    def _disc_change(self, centre: np.ndarray, radius: float) -> float:
        """Last frame: the median change of log-brightness since the empty board, less the
        light's level, in the disc of ``radius`` round ``centre`` (canvas px)."""
        f = self._last
        patch, inside = _disc_window(f.lum.shape, centre, radius)
        if not inside.any():
            return 0.0
        return float(np.median(f.lum[patch][inside] - self.ref_log[patch][inside])) - f.lum_off

    def _inside_lead(self, pts: np.ndarray, radius: float, units: np.ndarray, offsets: tuple[float, ...]) -> np.ndarray:
        """For circles round the whole-pixel centres ``pts`` (n, 2), of ``radius`` tried at each
        of ``offsets`` around it: how much brighter inside than out they are (the fall of
        log-brightness outwards, since the empty board) on the weaker half of the angles of the
        unit vectors ``units`` (A, 2; ``_units`` for the whole circle), at the best offset; (n,)."""
        hyp = self._last.hyp
        wp = self.canvas.width + 2 * hyp.pad
        return inside_leads(hyp.planes, wp, hyp.pad, np.ascontiguousarray(pts, np.int64), units,
                            radius + np.asarray(offsets, np.float64))

    def recognise(self, image: np.ndarray) -> Observation:
        """Read every square of ``image`` (BGR uint8)."""
        t0 = time.perf_counter()
        nsq = self.board.squares
        fix = self.locate(image)
        if fix is None:
            self.last_evidence = None
            return Observation(tuple(SquareReading(OCCLUDED) for _ in range(nsq)), False, (),
                               elapsed_ms=(time.perf_counter() - t0) * 1000)
        view = self._view(image)
        H = self.pose.height
        n_px = self.canvas.to_px(nadir(self.pose))
        # log-brightness, the chroma, and their changes since the empty board, in one pass
        lum, chroma, lum_change, white_change = log_changes(
            view, _LOG_SUM, _LOG_LEVEL, self.use_chroma or self.cal.pieces.clear, self.ref_log,
            self.ref_white if self.ref_white is not None else _NO_PLANE)
        far_dir = self._far_arc(n_px)
        hyp = self._hypotheses(lum, chroma if self.use_chroma else None, H, n_px, far_dir)
        # the change of log-brightness since the empty board, and its typical level (the light's)
        lum_off = float(median_at(lum_change.ravel(), self._area_7))
        prof = self._profiles(lum, lum_change, lum_off, hyp.centre, H, far_dir)
        nsz = len(self.cal.sizes)
        rim_score, rim_centre = np.zeros((nsq, nsz), np.float32), None
        polar = np.zeros((nsq, nsz, N_POLAR), np.float32)
        D = lum_level = at = None  # (clear sets only)
        if self.cal.pieces.clear:
            D = white_change  # the change of whiteness since the empty board (``_whiteness``)
            D -= float(median_at(D.ravel(), self._area_7))
            rim_score, rim_centre = self._rim_search(D, H, n_px)
            # profiles around where each size's rim was found (its edges wander on light wood)
            at = np.where(self._solid[None, :, None], hyp.centre, rim_centre)
            lum_level = lum_change - lum_off
            polar = self._polar(D, lum_level, at, H, far_dir)
        board_now = channel_medians_at(view, self._area_9)
        change = self.hands.changed(view)
        changed = change.mask
        centre_change = changed.ravel()[self._middle_idx].reshape(nsq, -1).mean(axis=1)
        changed &= self._seen
        explained = np.zeros_like(changed)
        cups = []  # each read cup's base on the hand detector's view (its shadow starts there)
        offset = np.zeros((nsq, nsz))
        gap = np.zeros((nsq, nsz))
        for s in range(nsz):
            k = height_scale(H, self.cal.sizes[s].height_mm)
            expected = n_px + (self.centres_px - n_px) * k
            reach = max(self.offsets_mm[s] * k * self.canvas.ppm, 1.0)
            offset[:, s] = np.linalg.norm(hyp.centre[:, s] - expected, axis=1) / reach
            if rim_centre is not None:
                # the right size's rim and edges find the same top; a wrong size's wander
                gap[:, s] = np.linalg.norm(hyp.centre[:, s] - rim_centre[:, s], axis=1) / (
                    self.edge_mm[s] * k * self.canvas.ppm)
        self._last = _Frame(view, hyp, rim_score, rim_centre, board_now, H, D, lum_level, far_dir, n_px, lum,
                            lum_off=lum_off)
        ev = SquareEvidence(
            ring=hyp.score / EMPTY_THRESHOLD, ring_edges=hyp.edges / EMPTY_THRESHOLD, sign=hyp.sign,
            offset=offset, centre_gap=gap,
            plug=prof[..., 0] / PROFILE_UNIT, rim_step=prof[..., 1] / PROFILE_UNIT,
            texture=prof[..., 2] / PROFILE_UNIT, change_in=prof[..., 3], outline=prof[..., 4] / PROFILE_UNIT,
            rim=rim_score / RIM_SURE, polar=polar,
            centre_change=centre_change,
            solid=self._solid)
        self.last_evidence = ev
        if self.model is not None:
            probs = self.model.probabilities(alternatives(ev))
            if self.size_check is not None:
                doubt = self.size_check.doubtful(probs)
                if len(doubt):
                    probs[doubt] = self.size_check.revise(probs[doubt], self.size_scores(doubt))
            if self.square_net is not None:
                probs = self.square_net.combine(probs, self.square_net.read(self))
        else:
            # untrained (only while the model is being fitted): the best ring, if any rings
            probs = np.zeros((nsq, 1 + nsz))
            probs[np.arange(nsq), np.where(hyp.score.max(axis=1) >= EMPTY_THRESHOLD,
                                           1 + hyp.score.argmax(axis=1), 0)] = 1.0
        readings = []
        # how far the edges support each size against the one next to it (solid tops)
        bound = size_bound(ev.ring, self._solid)
        lifted = larger_edge(ev.ring, self._solid) if self.model is not None else None
        self.last_lifted = []
        self.last_shadowed = np.zeros(0, np.int64)
        self.last_grazed = np.zeros(0, np.int64)
        # a light top whose edge on the board barely shows, lighter than all round it
        # (``_outlined_tops``): the model, fitted on plainer edges, reads it empty
        choice = _choices_in_play(probs, self._in_play).argmax(axis=1)
        empties = np.flatnonzero(choice == 0)
        outlined = self._outlined_tops(empties) if self.model is not None else {}
        # a top the board's colour, whose shaded wall shows beyond its near edge (``_walls``),
        # where every size in play is solid: read, or (where it leads less) the empty doubted
        # (on a clear set, whose clear sizes have no wall of their own, that wall only doubts)
        unread = [sq for sq in empties if sq not in outlined]
        walls: dict[int, _Wall] = {}
        seen_through: set[int] = set()
        if self.model is not None and self._all_solid:
            walls = self._walls_up(self._walls(unread))
        elif self.model is not None and self.cal.pieces.clear:
            seen_through = self._clear_set_walls(unread)
        up = self._sizes_up(choice, lifted) if lifted is not None else np.zeros(nsq, bool)
        # a solid top the edge search did not find at the size read, whose wall reads another
        # (``_faint_walls``), or found by its edges a size down where the next size's wall leads
        # (``_wall_lifts``; not after the edges lifted it)
        read = np.where(choice > 0, choice - 1 + up, -1)
        faint, wall_up = {}, {}
        soft = np.zeros(nsq, bool)  # (``_dark_wall_lift``: the tops whose read edge is a soft step)
        if self.model is not None and self._all_solid:
            faint = self._faint_walls(read, ev.ring)
            wall_up = self._wall_lifts(np.where(up, -1, read), ev.ring)
            soft = self._soft_edges(np.where(up, -1, read))
        for sq in range(nsq):
            a = int(choice[sq])
            seen = outlined.get(sq)
            if seen is not None:
                s, centre, support, cmargin = seen
                cups.append(self._explain(explained, centre, s, height_scale(H, self.cal.sizes[s].height_mm), n_px))
                conf = min(OUTLINED_TOP, support) * self.model.colour_confidence(cmargin)
                readings.append(SquareReading(CUP, 0, s, confidence=conf))
                continue
            wall = walls.get(sq)
            if wall is not None and wall.lead >= WALL_READ:
                s = wall.size
                cups.append(self._explain(explained, wall.centre, s, height_scale(H, self.cal.sizes[s].height_mm), n_px))
                colour, cmargin = self._colour(view, wall.centre, self._edge_px(s), board_now, s, COLOUR_DISC_WIDE, sq)
                conf = min(OUTLINED_TOP, wall.support) * self.model.colour_confidence(cmargin)
                readings.append(SquareReading(CUP, colour, s, confidence=conf))
                continue
            if a == 0:
                conf = float(probs[sq, 0])
                if self.model is not None and (wall is not None or sq in seen_through
                                               or self._empty_doubted(sq, centre_change[sq])):
                    conf = min(conf, EMPTY_DOUBT)
                readings.append(SquareReading(EMPTY, confidence=conf))
                continue
            s = a - 1
            conf = float(probs[sq, a])
            if up[sq]:
                # the next larger size's own rim is there, which a top of the size read
                # cannot make (``larger_edge``, ``larger_outline``); the two sizes'
                # probability is the reading's
                s, a = s + 1, a + 1
                conf += float(probs[sq, a])
                self.last_lifted.append(sq)
            by_wall = faint.get(sq, wall_up.get(sq))
            if sq in wall_up:
                self.last_lifted.append(sq)
            if sq in faint and min(conf, float(bound[sq, s])) >= READERS_SURE:
                # sure readers against a faint top's wall: the readers' size, doubted
                by_wall = None
                conf = min(conf, OUTLINED_TOP)
            if by_wall is not None:
                # its wall's size, as a top read by its wall is (``_faint_walls``): the ring
                # found nothing at either size, so it bounds nothing
                s, a = by_wall.size, by_wall.size + 1
                conf = min(OUTLINED_TOP, by_wall.support)
            centre = self._top_centre(sq, s)
            cups.append(self._explain(explained, centre, s, height_scale(H, self.cal.sizes[s].height_mm), n_px))
            colour, cmargin = self.sure_colour_of(sq, s)
            if colour == 1 and self._all_solid and self.model is not None:
                cmargin = self._dark_body_margin(sq, s, cmargin)
            beside = self._light_top_beside(sq, s) if colour == 1 and self.model is not None else None
            if beside is not None:
                # the dark disc read is a light top's own wall (``_light_top_beside``): read the
                # top light, as one found by its lighter outline is, under the referee's commit
                centre, cmargin = beside
                colour = 0
                cups[-1] = self._explain(explained, centre, s, height_scale(H, self.cal.sizes[s].height_mm), n_px)
            lift = (self._dark_wall_lift(sq, s) if colour == 1 and soft[sq] and beside is None and by_wall is None
                    else None)
            if lift is not None:
                # a larger dark top whose flat face's end the readers took for the smaller size's
                # edge (``_dark_wall_lift``): its size, as a top read by its wall is
                s, a, by_wall = lift.size, lift.size + 1, lift
                conf = min(OUTLINED_TOP, lift.support)
                self.last_lifted.append(sq)
                cups[-1] = self._explain(explained, lift.centre, s, height_scale(H, self.cal.sizes[s].height_mm), n_px)
            if self.model is not None:
                if not self._solid[s]:
                    conf = float(tempered(probs[sq], CLEAR_TEMPERATURE)[a])
                    # a larger clear size's white rim round it, or (a light top) its outline
                    # round the whole circle where the size read has none (``_light_clear_larger``)
                    if self._larger_rim(sq, s) or (colour == 0 and self._light_clear_larger(sq, s)):
                        conf = min(conf, SIZE_DOUBT)
                if beside is not None:
                    conf = min(conf, OUTLINED_TOP)
                if by_wall is None:
                    conf = min(conf, float(bound[sq, s]))
                conf *= self.model.colour_confidence(cmargin)
                if conf < READERS_SURE and self._all_solid and self._shaded_empty(np.array([sq])):
                    # only a shadow or another light fell there (``_shaded_empty``): no cup, and the
                    # change it made is explained (no hand)
                    cups.pop()
                    readings.append(SquareReading(EMPTY, confidence=SHADE_EMPTY))
                    continue
            readings.append(SquareReading(CUP, colour, s, confidence=conf))
        finding = self.hands.from_changed(changed, 0.0, explained, change.shade, cups, change.brightness)
        if finding.small is not None:
            # what hides a square is the solid part of the hand; near it, change the cups read
            # do not explain is a hand too pale to tell from the wood (a palm): hide those
            # squares rather than risk a wrong label
            light = change.cool_shade() | self.hands.texture_shows(change, explained)
            if finding.cast is not None:
                # the read cups' shadows the hand's region joined are a change of light too
                # (too dark for the board's texture to show): they cover nothing
                light |= finding.cast
            unexplained = changed & (explained == 0)
            covering = self.hands.covering(changed, unexplained, finding.small, light)
            readings = self._hide_covered(readings, covering)
            readings = self._doubt_in_shadow(readings, unexplained, light, covering.core)
        moved = self._board_shift_mm()
        return Observation(tuple(readings), True, fix.markers, hand=finding.mask is not None,
                           camera_height_mm=H, board_moved_mm=moved,
                           elapsed_ms=(time.perf_counter() - t0) * 1000)


def _coarse_offsets(reach: float) -> np.ndarray:
    """Whole-pixel offsets (n, 2) on the coarse grid of the edge search (``COARSE_STEP_PX``)
    within ``reach`` pixels: where a top's centre is first looked for."""
    return disc_offsets(_coarse_grid(reach), reach).astype(np.int64)


def _pixel_offsets(reach: float) -> np.ndarray:
    """Whole-pixel offsets (n, 2) on every pixel within ``reach`` pixels."""
    half = int(reach)
    return disc_offsets(np.arange(-half, half + 1, dtype=np.float64), reach).astype(np.int64)


def _coarse_grid(reach: float) -> np.ndarray:
    """One axis of the coarse grid of the edge search that ``reach`` pixels span."""
    half = int(reach // COARSE_STEP_PX)
    return np.arange(-half, half + 1) * COARSE_STEP_PX


def _grain(lum: np.ndarray) -> np.ndarray:
    """The fine detail of a log-brightness image (the board's grain): it less its blur."""
    return lum - cv2.GaussianBlur(lum, (0, 0), GRAIN_BLUR)


def _seen_small(seen: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """uint8 mask (1 where every pixel under it is seen) of a view-sized uint8 mask (255
    where seen, else 0), shrunk to ``shape``."""
    small = cv2.resize(seen, (shape[1], shape[0]), interpolation=cv2.INTER_AREA)
    return (small == 255).astype(np.uint8)


def _ring(radii: list[float], idx: np.ndarray) -> np.ndarray:
    """Sample offsets (px) on circles of ``radii`` at the angles of ``_U[idx]``, angle 0 along +x."""
    return np.concatenate([_U[idx] * r for r in radii])


def _sample_at(centres: np.ndarray, offsets: np.ndarray, far_dir: tuple[np.ndarray, np.ndarray],
               shape: tuple[int, ...]) -> np.ndarray:
    """Flat indices into an image of ``shape`` (for ``take``), (squares, sizes, samples), of
    each size's sample ``offsets`` (sizes, samples, 2; px, angle 0 along +x) around each
    square's top ``centres`` (squares, sizes, 2), clipped to the image and turned so that
    angle 0 points along the square's ``far_dir`` (cos, sin, (squares, 1) each;
    ``Recogniser._far_arc``)."""
    cs, sn = far_dir[0][..., None], far_dir[1][..., None]
    h, w = shape[:2]
    px = offsets[None, ..., 0] * cs - offsets[None, ..., 1] * sn
    py = offsets[None, ..., 0] * sn + offsets[None, ..., 1] * cs
    xi = np.clip(np.rint(centres[..., None, 0] + px).astype(np.int32), 0, w - 1)
    yi = np.clip(np.rint(centres[..., None, 1] + py).astype(np.int32), 0, h - 1)
    return yi * w + xi


def _square_refs(cal: Calibration, board: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Per square, the players' colours adapting measured on it (``Calibration.square_colours``)
    as ``Recogniser._refs`` gives them: (log-BGR against the board ``board``, (squares, 2, 3);
    the cooler one's log(R/B) per square).  None without them."""
    if cal.square_colours is None:
        return None
    bgr = np.asarray(cal.square_colours, np.float64)
    if bgr.shape != (cal.board.squares, 2, 3):
        raise ValueError(f"square_colours must hold two BGR colours for each of the board's {cal.board.squares} "
                         f"squares, got shape {bgr.shape}")
    refs = np.log(np.maximum(bgr, 1.0) / np.maximum(board, 1.0))
    return refs, (refs[:, :, 2] - refs[:, :, 0]).min(axis=1)


def _strongest_sign(steps: np.ndarray) -> np.ndarray:
    """Per row of ``steps`` (n, radii; ``Recogniser.radial_steps``' medians round a top), the
    sign of its strongest step (1 where all are 0): the sign of the top's own edge round the
    whole circle.  The far arc's ring, which gives the edge sign the square model reads, can
    have the other sign (on tuning seed 97 three dark tops rang upwards on the far arc while
    their whole circle stepped down by 0.04-0.73), and a step taken in the wrong sign is near
    0, which a weak step at the larger radius outdoes."""
    strongest = np.take_along_axis(steps, np.abs(steps).argmax(axis=1)[:, None], axis=1)[:, 0]
    return np.where(strongest < 0, -1.0, 1.0)


def _choices_in_play(probs: np.ndarray, in_play: np.ndarray) -> np.ndarray:
    """``probs`` (squares x (empty + size classes)) with the classes not ``in_play`` at -1, so
    that no square is read as one.  Their probability is not handed to the others: a reading
    keeps its own probability as its confidence, so where a class left out looked likeliest
    (a cup the game does not use, or what looks like one) the reading is doubtful."""
    if in_play.all():
        return probs
    return np.where(np.concatenate([[True], in_play])[None, :], probs, -1.0)


def _disc_window(shape: tuple[int, ...], centre: np.ndarray, radius: float) -> tuple[tuple[slice, slice], np.ndarray]:
    """The patch (row and column slices) of an image of ``shape`` (h, w) round the disc of
    ``radius`` centred on ``centre`` (x, y, px; cut at the image's border), and the disc's mask
    on that patch."""
    h, w = shape[:2]
    cx, cy = float(centre[0]), float(centre[1])
    r = int(np.ceil(radius))
    x0, x1 = max(int(cx) - r, 0), min(int(cx) + r + 2, w)
    y0, y1 = max(int(cy) - r, 0), min(int(cy) + r + 2, h)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    return (slice(y0, y1), slice(x0, x1)), (xx - cx) ** 2 + (yy - cy) ** 2 <= radius * radius


def _disc(radius: float) -> np.ndarray:
    """Sample offsets (px) spread over a disc of ``radius``."""
    return np.concatenate([_U * (radius * f) for f in (0.25, 0.55, 0.85)] + [np.zeros((1, 2), np.float32)])


_RECOGNISERS: dict[int, Recogniser] = {}


def recognise(frame: Frame | np.ndarray, calibration: Calibration) -> Observation:
    """Read every square of one frame with a calibration.  Keeps a Recogniser per calibration
    so consecutive frames find the markers faster; use ``Recogniser`` directly to control
    that memory."""
    image = frame.image if isinstance(frame, Frame) else frame
    key = id(calibration)
    rec = _RECOGNISERS.get(key)
    if rec is None or rec.cal is not calibration:
        if len(_RECOGNISERS) > 8:
            _RECOGNISERS.clear()
        rec = _RECOGNISERS[key] = Recogniser(calibration)
    return rec.recognise(image)
