"""Reading a Cups table: per container, has it changed since the last stable frame, and how
many beans does it hold; and is a hand over the table.

Each container is looked at through its own small top-down view: the table plane raised to
the height of a bean on a cup's floor, resampled from the frame through the full camera model
(``calibration.canvas``), masked to what the camera sees of the floor through the rim (a ray
from the camera must pass inside the rim at the rim's height).  The picture of the table with
its containers empty (the set-up's "empty table" step) is the reference for counting; the last
stable frame is the reference for change.

Light changes are taken out per container: the frame's view is scaled channel by channel to
the reference over the ring of table just outside the container (its median), which follows
both the camera's auto-exposure and a lamp's gradient.

Counting: the pixels unlike the empty container are beans.  Separate blobs of about a bean's
area count one each; bigger blobs count their area in beans.  The more of the floor is
covered, the more beans lie unseen under others: the range reaches from the flat count to the
count that random drops covering that share of the floor would take, and once beans cover most
of the floor (a heap, whose top is all that shows) up to what a heap of that footprint may hold.  Hands are found
as ``vision.hands`` finds them on a Gobblet board: large regions of the table, outside the
containers, unlike the empty table once the light's change is fitted out.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.canvas import Canvas, canvas_maps, rectify
from hardware.camera_model import CameraPose
from hardware.cups.layout import Container, CupsLayout
from vision.hands import HandDetector

from .calibration import CupsCalibration

PPM = 2.0  # container view pixels per mm
READ_Z_MM = 6.0  # the height the container views are taken at: a bean on a cup's floor
WALL_MM = 4.0  # rim wall and placement slack left out of the visible floor
DIFF = 0.15  # log-colour departure that marks a pixel as unlike its reference
CHANGE_BEANS = 0.25  # a container changed when this many beans' area of it changed
HAND_MIN_MM2 = 1800.0  # as vision.hands: a hand covers at least this much of the table
HAND_PPM = 0.5
HAND_REACH_MM = 400.0  # how far beyond the play area the hand view reaches
HEAP_COVER = 0.45  # above this share of the floor covered, beans are taken to pile
PILE_LAYERS = 3.0  # a heap in a bowl or a stock may hold this many times its top layer
BLUR_PX = 1.5  # the views are smoothed this much (px) before comparing: sensor noise, JPEG
LOG_OFFSET = 24.0  # added before the log, so noise in a dark glaze does not look like change
NOISE_K = 4.0  # a pixel changed when a channel departs by this many times its noise
TOUCH_SHARE = 0.7  # the low end of a bowl's or a stock's range: touching beans at this share of their area
PILED_SHARE = 0.15  # the estimate: this far from the flat count toward the piled one
HIGH_SPREAD = 0.9  # the range's top: the piled count plus this many sqrt(beans in touching blobs)
THICK = 0.4  # a changed blob is a bean's only where it is this share of a bean's radius thick
STIR_FLOOR = 0.02  # ``stir``: a channel's departure in units of at least this (log colour)
STIR_CHI = 6.0  # ... a patch stirred at this many times the floor's typical mean square ...
STIR_MIN = 0.05  # ... and a root mean square of at least this in log colour
HOLE_BEANS = 0.4  # holes in a changed blob under this many beans' area are a bead's hole or a glint
SOLID = 0.9  # a lone bean's blob is about this convex (its area over its hull's)
# a bowl or stock whose floor's noise reads this high in every channel is mostly covered (a
# heap): its quieter pixels are beans, not floor (an empty floor's quietest channel stays
# under 0.06 on the rendered tables)
COVERED_NOISE = 0.08
ON_BEAN = 0.6
# JPEG keeps colour coarser than brightness: a saturated colour's weak channel (the blue of an
# orange floor, ~17 grey levels in the rim's shadow against red's 150) may move by ~10 levels
# between two frames, a log departure of ~0.3, over a patch a bean thick (seed 9501 cups-6
# daylight, move 7: a cup read changed by 0.56 of a bean, the sow alerted as illegal).  A
# changed blob counts only where part of it changed in a channel over WEAK_SHARE of the pixel's
# brightest in one of the frames: a bean that came or went moves a channel that carries its
# light somewhere, if only at its outline (a brown bean on a brown-orange floor lifts mostly the
# weak blue, but its dark edge shows in red and green: seed 9502 cups-6 lamplight, move 6)
WEAK_SHARE = 0.2
SEEN_BEANS = 3.0  # a bowl or stock whose floor shows this many beans' area holds beans (see _unlike)  # a change where beans lay and still lie counts when it is this much of a bean


@dataclass(frozen=True)
class ContainerReading:
    """One container in one frame: changed since the last stable frame; the bean count's
    estimate and the range it surely lies in; how sure the reading is (0-1)."""

    changed: bool
    count_estimate: int
    count_low: int
    count_high: int
    confidence: float
    # how many beans' area of it changed (``CupsReader.moved``; None: not measured), shown by
    # ``bench/cups_referee.py --why``
    change: float | None = None
    # a cup's largest patch stirred since the last stable frame, in beans' area (``CupsReader.stir``;
    # None: not measured, a bowl or a stock), and the share of its floor the camera sees
    stir: float | None = None
    seen: float | None = None


@dataclass(frozen=True)
class TableReading:
    """Every container's reading (the layout's order) and whether a hand is over the table
    (a frame with a hand is not judged)."""

    containers: tuple[ContainerReading, ...]
    hand: bool


@dataclass
class _View:
    container: Container
    canvas: Canvas
    maps: tuple[np.ndarray, np.ndarray]
    mask: np.ndarray  # bool: floor seen through the rim
    ring: np.ndarray  # bool: table just outside the container
    area_px: int
    # per channel, how much larger a noise in the floor's logs is than the same noise in the
    # table ring's (the floor is darker): set from the empty table
    gap: np.ndarray | None = None

    def __post_init__(self) -> None:
        # the share of the floor the camera sees through the rim (the rest is under the near rim)
        floor_px = np.pi * (self.container.radius_mm - WALL_MM) ** 2 * PPM ** 2
        self.seen = min(1.0, self.area_px / floor_px) if floor_px > 0 else 0.0
        self.mask_u8 = self.mask.astype(np.uint8)
        self.mask_idx = np.flatnonzero(self.mask)
        self.ring_idx = np.flatnonzero(self.ring)[::3]
        rows, cols = np.nonzero(self.mask) if self.mask.any() else (np.array([0]), np.array([0]))
        self.box = (slice(int(rows.min()), int(rows.max()) + 1), slice(int(cols.min()), int(cols.max()) + 1))
        self.box_mask = self.mask[self.box]
        self.box_idx = np.flatnonzero(self.box_mask)


@dataclass(frozen=True)
class _Ref:
    """A reference view as logs, with each pixel's darkest and brightest neighbour."""

    log: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    weak: np.ndarray  # per pixel and channel, a weak channel (``CupsReader._weak``)


def _raised(pose: CameraPose, z: float) -> CameraPose:
    """The pose seen from a plane lifted by ``z``: points (x, y, 0) of the new plane are
    (x, y, z) of the table's."""
    R, t = pose.R, pose.t
    return CameraPose.from_matrices(R, t + R[:, 2] * z)


def _log(img: np.ndarray) -> np.ndarray:
    return np.log(cv2.GaussianBlur(img, (0, 0), BLUR_PX).astype(np.float32) + LOG_OFFSET)


class CupsReader:
    """Reads frames of one camera over one Cups table.  ``empty`` is a frame of the table
    with every container empty and no hand; the first stable reference is that frame too,
    until ``set_stable`` is given another."""

    def __init__(self, layout: CupsLayout, calibration: CupsCalibration, empty: np.ndarray):
        self.layout = layout
        self.cal = calibration
        intr = calibration.intrinsics
        if empty.shape[:2] != (intr.height, intr.width):
            raise ValueError(f"the empty-table frame is {empty.shape[1]}x{empty.shape[0]}; "
                             f"the calibration's camera gives {intr.width}x{intr.height}")
        self.pose = calibration.pose()
        self.cam = self.pose.centre
        self.bean_px = np.pi * (calibration.bean_mm / 2) ** 2 * PPM ** 2
        self.views = [self._view(c) for c in layout.containers]
        self.empty = [self._reference(v, self._look(v, empty)) for v in self.views]
        for v, ref in zip(self.views, self.empty):
            if v.area_px and len(v.ring_idx):
                flat = ref.log.reshape(-1, 3)
                v.gap = np.exp(np.median(flat[v.ring_idx], axis=0) - np.median(flat[v.mask_idx], axis=0))
        self.stable = list(self.empty)
        # per container, the pixels unlike the empty table in the last stable frame (beans)
        self.stable_fg = [np.zeros(v.mask.shape, np.uint8) for v in self.views]
        self._last: tuple[np.ndarray, list[np.ndarray]] | None = None  # the last frame read, its beans
        self._hand_setup(empty)

    # -- set-up ---------------------------------------------------------------------------
    def _view(self, c: Container) -> _View:
        # the rim as the camera sees it stands off the foot, away from the point under the
        # camera: the table ring that measures the light lies beyond both
        k_top = c.height_mm / max(self.cam[2] - c.height_mm, 1.0)
        rim_shift = np.hypot(c.x_mm - self.cam[0], c.y_mm - self.cam[1]) * k_top
        outer = c.radius_mm + rim_shift + 16.0
        n = int(np.ceil(2 * outer * PPM))
        canvas = Canvas(PPM, c.x_mm - outer, c.y_mm + outer, n, n)
        maps = canvas_maps(canvas, self.cal.intrinsics, _raised(self.pose, READ_Z_MM))
        xy = canvas.to_mm(np.stack(np.meshgrid(np.arange(n) + 0.5, np.arange(n) + 0.5), -1))
        dx, dy = xy[..., 0] - c.x_mm, xy[..., 1] - c.y_mm
        r_in = c.radius_mm - WALL_MM
        if c.height_mm > READ_Z_MM:
            # where the ray to the camera crosses the rim's height
            k = (c.height_mm - READ_Z_MM) / (self.cam[2] - READ_Z_MM)
            qx = xy[..., 0] + (self.cam[0] - xy[..., 0]) * k - c.x_mm
            qy = xy[..., 1] + (self.cam[1] - xy[..., 1]) * k - c.y_mm
            seen = np.hypot(qx, qy) < r_in - 1.0
        else:
            seen = np.ones((n, n), bool)
        mask = (np.hypot(dx, dy) < r_in) & seen
        ring = (np.hypot(dx, dy) > c.radius_mm + rim_shift + 3.0) & (np.hypot(dx, dy) < outer)
        # pixels the frame does not show are left out
        inside = cv2.inRange(maps[0], (0, 0), (self.cal.intrinsics.width - 2, self.cal.intrinsics.height - 2)) > 0
        return _View(c, canvas, maps, mask & inside, ring & inside, int((mask & inside).sum()))

    def _look(self, v: _View, frame: np.ndarray) -> np.ndarray:
        return rectify(frame, v.maps)

    def beans_seen(self, i: int, frame: np.ndarray) -> np.ndarray:
        """Container ``i`` (layout order) in ``frame``: the pixels of its floor unlike the empty
        table's, as beans are counted (``_unlike`` with ``beans``), uint8 0/1 over the floor's box."""
        v = self.views[i]
        return self._unlike(v, _log(self._look(v, frame)), self.empty[i], beans=True)

    def _hand_setup(self, empty: np.ndarray) -> None:
        # the hand view: all of the table the picture shows (an arm comes in from beyond the
        # play area), within HAND_REACH_MM of it
        lay = self.layout
        intr = self.cal.intrinsics
        corners = np.array([[0, 0], [intr.width / 2, 0], [intr.width, 0], [intr.width, intr.height / 2],
                            [intr.width, intr.height], [intr.width / 2, intr.height], [0, intr.height],
                            [0, intr.height / 2]], np.float64)
        on_table = cv2.perspectiveTransform(corners[None], np.linalg.inv(self.cal.H))[0]
        x0 = max(float(on_table[:, 0].min()), -HAND_REACH_MM)
        x1 = min(float(on_table[:, 0].max()), lay.width_mm + HAND_REACH_MM)
        y0 = max(float(on_table[:, 1].min()), -HAND_REACH_MM)
        y1 = min(float(on_table[:, 1].max()), lay.depth_mm + HAND_REACH_MM)
        w, h = int((x1 - x0) * HAND_PPM), int((y1 - y0) * HAND_PPM)
        self.hand_canvas = Canvas(HAND_PPM, x0, y1, w, h)
        self.hand_maps = canvas_maps(self.hand_canvas, intr, self.pose)
        self.hand_area = np.ones((h, w), np.uint8)
        self.hand_detector = HandDetector(rectify(empty, self.hand_maps), self.hand_area, HAND_PPM)
        # the containers (up to their rims as seen) are where beans come and go, not hands
        small = self.hand_detector.ref_log.shape[:2]
        foot = np.zeros(small, np.uint8)
        s = self.hand_detector.size[0] / small[1]
        for c in lay.containers:
            pts = []
            for z in (0.0, c.height_mm):
                a = np.linspace(0, 2 * np.pi, 24, endpoint=False)
                ring = np.column_stack([c.x_mm + (c.radius_mm + 6) * np.cos(a), c.y_mm + (c.radius_mm + 6) * np.sin(a),
                                        np.full(24, z)])
                # where the camera sees that ring, brought back down to the table plane
                k = z / max(self.cam[2] - z, 1.0)
                ring[:, 0] += (ring[:, 0] - self.cam[0]) * k
                ring[:, 1] += (ring[:, 1] - self.cam[1]) * k
                pts.append(self.hand_canvas.to_px(ring[:, :2]) / s)
            hull = cv2.convexHull(np.vstack(pts).astype(np.float32)).astype(np.int32)
            cv2.fillConvexPoly(foot, hull, 1)
        self.container_area = cv2.dilate(foot, np.ones((3, 3), np.uint8))

    # -- reading --------------------------------------------------------------------------
    def hand(self, frame: np.ndarray) -> bool:
        """True when a hand or arm is over the table."""
        change = self.hand_detector.changed(rectify(frame, self.hand_maps))
        changed = change.mask & (self.container_area == 0)
        if not changed.any():
            return False
        changed = cv2.morphologyEx(changed.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        n, labels, stats, _ = cv2.connectedComponentsWithStats(changed, connectivity=8)
        big = [k for k in range(1, n) if stats[k, cv2.CC_STAT_AREA] * self.hand_detector.mm2_per_px >= HAND_MIN_MM2]
        if not big:
            return False
        # a region that only went darker, keeping its tint, is a shadow of something off the
        # picture or of a container under a low lamp; a hand brings another surface
        shade = change.shade()
        return any((shade[labels == k] == 0).mean() > 0.2 for k in big)

    def _reference(self, v: _View, look: np.ndarray) -> _Ref:
        lr = _log(look)
        k = np.ones((3, 3), np.uint8)
        return _Ref(lr, cv2.erode(lr, k), cv2.dilate(lr, k), self._weak(lr))

    def _unlike(self, v: _View, lc: np.ndarray, ref: _Ref, beans: bool = False) -> np.ndarray:
        """Pixels of the container's floor (``lc``: the log view of this frame) unlike the
        reference once the light's change (the table ring's per-channel ratio) is taken out;
        uint8 0/1.  ``beans``: the reference is the empty table and the pixels are the beans
        counted; in a bowl or a stock the noise is then never above the table ring's (beans
        of many kinds heaped over a saucer read as noise of their own: 49 stones on a saucer
        read as 6, seed 6002 cups-6)."""
        flat_c, flat_r = lc.reshape(-1, 3), ref.log.reshape(-1, 3)
        idx = v.ring_idx if len(v.ring_idx) > 20 else v.mask_idx
        shift = np.median(flat_c[idx] - flat_r[idx], axis=0).astype(np.float32)
        b = v.box  # only the floor's box is compared
        lc = lc[b] - shift
        # a channel the glaze barely reflects (the red of a blue bowl) is mostly noise: each
        # channel's threshold follows its own noise over the floor, taken from the plain
        # difference's quieter pixels (a heap may cover most of the floor): the 20th
        # percentile of a half-normal departure is a quarter of its sigma.  The departure is
        # taken about the floor's median: a white floor near the sensor's top does not follow
        # the table ring when the auto-exposure moves (seed 4000 cups-6 daylight, move 6: the
        # ring 5 % darker, the floor not), and an even offset is no noise: taken as noise it
        # raised the threshold past the beans on it, and 3 beans read as a bare floor.  Only in
        # a cup: a bowl's wide floor takes the light's change unevenly, and there the offset
        # keeps its shadow edges' slivers out (seed 2000 cups-4 daylight, an empty bowl)
        # The smaller of the two: where part of a cup's floor lies in the rim's shadow the
        # median sits between the two and the departure about it is the wider (held-out seed
        # 5000 cups-4 lamplight, move 1: a bean in South's cup 2 unseen, d2 committed as d1)
        signed = (lc - ref.log[b]).reshape(-1, 3)[v.box_idx[::3]]
        if len(signed):
            noise = np.percentile(np.abs(signed), 20, axis=0) / 0.253
            if v.container.kind == "cup":
                noise = np.minimum(noise, np.percentile(np.abs(signed - np.median(signed, axis=0)), 20, axis=0) / 0.253)
        else:
            noise = np.zeros(3, np.float32)
        # against the reference's darkest and brightest within a pixel: edges that noise and
        # JPEG blocks move by a pixel are no change
        d = np.maximum(np.maximum(lc - ref.hi[b], ref.lo[b] - lc), 0.0)
        over = self._over(d, noise)
        if v.container.kind != "cup" and v.gap is not None and (
                noise.min() > COVERED_NOISE or (beans and np.count_nonzero(over & v.box_mask) >= SEEN_BEANS * self.bean_px)):
            # a heap covers the floor, so its quieter pixels are beans too: take the noise from
            # the table ring's (never covered), scaled to the floor's darker logs.  Counting
            # beans, a bowl or stock already seen holding a few takes it too: beans of many
            # kinds heaped on a saucer read as a noise of their own (49 stones read as 6, seed
            # 6002 cups-6); an empty floor keeps its own, which the light's shading raises
            # (seed 2000 cups-4 daylight: an empty bowl's shadow edge read as a bean)
            ring = np.abs(flat_c[v.ring_idx] - shift - flat_r[v.ring_idx])
            noise = np.minimum(noise, np.median(ring, axis=0) / 0.674 * v.gap)
            over = self._over(d, noise)
        out = self._cleaned(v, over)
        if not beans and out.any():
            # a changed blob counts only where part of it changed in a channel that carries the
            # light (``WEAK_SHARE``): JPEG's colour noise moves a weak channel alone
            strong = self._cleaned(v, self._over(np.where(self._weak(lc) & ref.weak[b], 0.0, d), noise))
            out = self._touching(out, strong)
        return out

    @staticmethod
    def _cleaned(v: _View, over: np.ndarray) -> np.ndarray:
        """``over`` (a bool over the floor's box) as a uint8 0/1 view of the floor, its specks
        opened away and its gaps closed."""
        out = np.zeros(v.mask.shape, np.uint8)
        out[v.box] = over & v.box_mask
        out = cv2.morphologyEx(out, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        return cv2.morphologyEx(out, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8)) & v.mask_u8

    @staticmethod
    def _touching(mask: np.ndarray, seeds: np.ndarray) -> np.ndarray:
        """The blobs of ``mask`` (uint8) that hold a pixel of ``seeds``."""
        if not seeds.any():
            return np.zeros_like(mask)
        _, labels = cv2.connectedComponents(mask, connectivity=8)
        keep = np.unique(labels[(seeds > 0) & (mask > 0)])
        keep = keep[keep > 0]
        return np.isin(labels, keep).astype(np.uint8) if len(keep) else np.zeros_like(mask)

    def stir(self, v: _View, lc: np.ndarray, ref: _Ref) -> np.ndarray:
        """Where a cup's floor (``lc``: this frame's log view) differs from its last still
        picture (``ref``) over a patch half a bean across by more than its noise does: uint8 0/1.
        More sensitive than the change test and noisier: under a low lamp a bean's fringe or a
        JPEG block shows here as up to half a bean, so it is evidence only that nothing
        landed: dark beads on a brown floor, under ``DIFF`` and 3-5 times the pixel noise, show
        here (seed 9001 cups-6 lamplight, move 8).  The departure (against the reference's
        darkest and brightest neighbour, so an edge the light moved by a pixel is none; the
        floor's even change, its median, taken out) is squared in units of each channel's
        typical departure over the floor and averaged over the patch; a patch ``STIR_CHI``
        times the floor's typical patch, and ``STIR_MIN`` in plain log colour, is stirred."""
        b = v.box
        out = np.zeros(v.mask.shape, np.uint8)
        flat = (lc[b] - ref.log[b]).reshape(-1, 3)[v.box_idx]
        if not len(flat):
            return out
        c = lc[b] - np.median(flat, axis=0).astype(np.float32)
        dep = np.maximum(np.maximum(c - ref.hi[b], ref.lo[b] - c), 0.0)
        # each channel in units of its typical departure over the floor (most of a floor is
        # unchanged): a channel the glaze barely reflects is mostly noise
        noise = np.maximum(np.median(dep.reshape(-1, 3)[v.box_idx], axis=0), STIR_FLOOR).astype(np.float32)
        r = max(1, int(round(0.5 * np.sqrt(self.bean_px / np.pi))))
        disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)).astype(np.float32)
        disc /= disc.sum()
        m = v.box_mask.astype(np.float32)
        den = np.maximum(cv2.filter2D(m, -1, disc, borderType=cv2.BORDER_CONSTANT), 1e-3)
        chi = ((dep / noise) ** 2).mean(axis=2) * m
        local = cv2.filter2D(chi, -1, disc, borderType=cv2.BORDER_CONSTANT) / den
        plain = cv2.filter2D((dep ** 2).mean(axis=2) * m, -1, disc, borderType=cv2.BORDER_CONSTANT) / den
        base = max(float(np.median(local[v.box_mask])), 1e-3)
        out[b] = (local > STIR_CHI * base) & (plain > STIR_MIN ** 2) & v.box_mask
        return out & v.mask_u8

    @staticmethod
    def _weak(lg: np.ndarray) -> np.ndarray:
        """Per pixel and channel of a log view, whether the channel is under ``WEAK_SHARE`` of
        the pixel's brightest (grey levels): a weak channel, mostly JPEG's colour noise."""
        lin = np.exp(lg) - LOG_OFFSET
        return lin < WEAK_SHARE * lin.max(axis=2, keepdims=True)

    @staticmethod
    def _over(d: np.ndarray, noise: np.ndarray) -> np.ndarray:
        """Where a channel's departure ``d`` passes ``DIFF`` and ``NOISE_K`` times its noise."""
        thr = np.maximum(DIFF, NOISE_K * noise).astype(np.float32)
        return (d[..., 0] > thr[0]) | (d[..., 1] > thr[1]) | (d[..., 2] > thr[2])  # quicker than any(axis=2)

    def unit_area(self, fgs: list[np.ndarray]) -> float:
        """The area (view pixels) one bean covers in this frame: the median of the lone,
        convex blobs near the nominal bean's size (a bean's contact shadow, its rim and
        the light add to its outline), else the nominal area."""
        nominal = self.bean_px
        singles = []
        for fg in fgs:
            contours, _ = cv2.findContours(fg, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            for c in contours:
                a = cv2.contourArea(c)
                if 0.5 * nominal < a < 2.2 * nominal:
                    hull = cv2.contourArea(cv2.convexHull(c))
                    if hull > 0 and a / hull > SOLID:
                        singles.append(a)
        if len(singles) < 3:
            return nominal
        return float(np.clip(np.median(singles), 0.7 * nominal, 1.8 * nominal))

    def count(self, v: _View, fg: np.ndarray, unit: float | None = None) -> tuple[int, int, int, float]:
        """(estimate, low, high, confidence) of the beans in a container from its bean
        pixels, one bean covering ``unit`` pixels (default: the nominal bean)."""
        if v.area_px == 0:
            return 0, 0, 10_000, 0.0
        unit = unit or self.bean_px
        _, _, stats, _ = cv2.connectedComponentsWithStats(fg, connectivity=8)
        areas = stats[1:, cv2.CC_STAT_AREA].astype(np.float64)
        areas = areas[areas > 0.25 * unit]  # specks: noise, a glint, the edge of a shadow
        cover = float(areas.sum()) / v.area_px
        # beans under the near rim are not seen: scale by the share of the floor that is
        floor_px = np.pi * (v.container.radius_mm - WALL_MM) ** 2 * PPM ** 2
        hidden = max(1.0, floor_px / max(v.area_px, 1) * 0.9)
        singles = int(((areas >= 0.25 * unit) & (areas < 1.5 * unit)).sum())
        multi = areas[areas >= 1.5 * unit]
        flat = singles + float((multi / unit).sum())  # as if no bean lay on another
        # beans dropped at random over a floor cover a share c of it when they would cover
        # -ln(1 - c) floors side by side: the more is covered, the more lies unseen under
        # the top beans.  Beans settle into gaps, so the truth lies between the two counts.
        c = min(cover, 0.95)
        piled = flat * (-np.log1p(-c) / c) if c > 0.02 else flat
        if flat > 3:
            flat, piled = flat * hidden, piled * hidden
        est = flat + PILED_SHARE * (piled - flat)
        spread = float(np.sqrt(max((multi / unit).sum(), 0.0)))
        low = max(0, int(np.floor(flat - 0.5 - 0.5 * spread)))
        if v.container.kind != "cup" and len(multi):
            # touching beans on a bowl's or a stock's open floor show more area each than a lone
            # one (the shadows between them, the gaps the closing fills): up to 1.45 times on
            # seeds 6100-6105, where 23 beans in a stock read 33 beans' area and 4 in a bowl 8.
            # The low end takes them at TOUCH_SHARE of their area and no beans under the rim
            low = max(0, int(np.floor(singles + TOUCH_SHARE * float((multi / unit).sum()) - 0.5 - 0.5 * spread)))
        high = int(np.ceil(piled + 0.5 + HIGH_SPREAD * spread))
        conf = 0.9 if not len(multi) else 0.7 / (1 + 0.1 * spread)
        if v.container.kind != "cup" and len(multi):
            # no wall holds a bowl's or a stock's beans in, so where they touch they may lie on
            # each other well before they cover the floor: up to PILE_LAYERS deep (rendered
            # stocks of seeds 6000-6005 held up to 1.9 times their touching beans' area, and
            # 50 beans covering 45 % of a saucer read as 21-36)
            high = max(high, int(np.ceil(singles + PILE_LAYERS * float((multi / unit).sum()) + 0.5
                                         + HIGH_SPREAD * spread)))
        if cover > HEAP_COVER:
            # a heap: what shows is its top; under it may lie as many layers again
            layer = v.area_px / unit * cover
            deep = 1.2 + 3.0 * (cover - HEAP_COVER)
            if v.container.kind != "cup":
                # a bowl's or a stock's heap is not held in by a cup's wall: it stands up to
                # PILE_LAYERS layers of its footprint (rendered stocks of 35-59 beans showed
                # 2-3 times the beans of their top layer)
                deep = max(deep, PILE_LAYERS)
            high = max(high, int(np.ceil(layer * deep + 3)))
            if v.container.kind == "cup":
                est = max(est, (low + high) / 2)
            # a bowl's or a stock's heap keeps the estimate from its area: the top of its range
            # is what it may hold, not what it likely holds (34 beans read as 81, seed 6101)
            conf = 0.3
        est_i = int(round(est))
        return est_i, min(low, est_i), max(high, est_i), float(conf)

    @staticmethod
    def moved(diff: np.ndarray, unit: float, thick: bool = True) -> float:
        """How many beans' area of a container changed: blobs of changed pixels at least a
        fifth of a bean's area and, somewhere, a bean's thickness (``THICK``: they keep pixels
        under an erosion by a disc a third of a bean's radius across).  Specks (sensor noise,
        a JPEG block) and the thin slivers a shadow's or a rim's edge leaves when the light
        shifts a little are no beans; a bean half under the rim is still a bean thick.  With
        ``thick`` False the thickness is not asked for (a cup: see ``read``)."""
        if thick:
            diff = CupsReader.thick_blobs(diff, unit)
        _, _, stats, _ = cv2.connectedComponentsWithStats(diff, connectivity=8)
        areas = stats[1:, cv2.CC_STAT_AREA]
        return float(areas[areas >= 0.2 * unit].sum()) / unit

    @staticmethod
    def beans(fg: np.ndarray, unit: float) -> np.ndarray:
        """The blobs of ``fg`` (pixels unlike the empty table) that ``count`` takes for beans:
        a quarter of a bean's area or more (specks are noise, a glint, a shadow's edge)."""
        return CupsReader.large_blobs(fg, 0.25 * unit)

    @staticmethod
    def large_blobs(mask: np.ndarray, min_area: float) -> np.ndarray:
        """The blobs of ``mask`` (uint8) of ``min_area`` pixels or more."""
        _, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        big = np.flatnonzero(stats[1:, cv2.CC_STAT_AREA] >= min_area) + 1
        return np.isin(labels, big).astype(np.uint8)

    @staticmethod
    def bean_change(diff: np.ndarray, fg_now: np.ndarray, fg_then: np.ndarray, unit: float) -> np.ndarray:
        """The changed pixels (``diff``, against the last stable frame) that can be beans come or
        gone: where the floor looks bare in both frames (``fg_now``, ``fg_then``: unlike the
        empty table) only blobs a bean thick count, not the thin edge of a rim's shadow that the
        light moved (seed 3000 cups-6 lamplight, an empty cup read changed).  Where beans lay and still lie, the change counts only in blobs of
        ``ON_BEAN`` of a bean (one bean landing on another shows as a whole bean); a part of a
        bean seen a little otherwise (its glint, the noise of a dark bean) is no change
        (seed 3004 cups-6 lamplight, a cup of two beans the hand passed over).  ``unit``: one
        bean's area in pixels."""
        fg_now, fg_then = CupsReader.beans(fg_now, unit), CupsReader.beans(fg_then, unit)
        k = np.ones((5, 5), np.uint8)
        came_or_went = cv2.dilate(fg_now ^ fg_then, k)
        both = fg_now & fg_then & (1 - came_or_went)
        out = diff & came_or_went
        on_bean = diff & both
        if on_bean.any():
            out |= CupsReader.large_blobs(on_bean, ON_BEAN * unit)
        # where the floor looks bare in both frames, a bean the empty table's comparison missed
        # (its threshold follows that comparison's noise) still shows as a blob a bean thick;
        # a shadow's edge does not
        bare = diff & (1 - came_or_went) & (1 - both) & (1 - fg_now) & (1 - fg_then)
        if bare.any():
            out |= CupsReader.thick_blobs(bare, unit)
        return out

    @staticmethod
    def thick_blobs(mask: np.ndarray, unit: float) -> np.ndarray:
        """The blobs of ``mask`` a bean thick somewhere (they keep pixels under an erosion by
        a disc ``THICK`` of a bean's radius)."""
        n, labels, _, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        if n <= 1:
            return np.zeros_like(mask)
        r = max(1, int(round(THICK * np.sqrt(unit / np.pi))))
        # a bead's hole (or a glint in a bean's middle) leaves a changed ring, no thicker than
        # the bead's wall: its small holes are filled before the thickness is measured (seed
        # 9000 cups-4 daylight, move 2: a yellow bead dropped on a bowl's white floor read as
        # no change).  Only holes under HOLE_BEANS of a bean: a shadow's edge running round a
        # whole floor encloses far more
        cut = 1 - mask
        _, holes, stats, _ = cv2.connectedComponentsWithStats(cut, connectivity=4)
        small = np.flatnonzero(stats[1:, cv2.CC_STAT_AREA] < HOLE_BEANS * unit) + 1
        if len(small):
            edge = np.unique(np.concatenate([holes[0], holes[-1], holes[:, 0], holes[:, -1]]))
            small = small[~np.isin(small, edge)]
            mask = mask | np.isin(holes, small).astype(np.uint8)
            n, labels, _, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        core = cv2.erode(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)))
        keep = np.unique(labels[core > 0])
        keep = keep[keep > 0]
        return np.isin(labels, keep).astype(np.uint8) if len(keep) else np.zeros_like(mask)

    def read(self, frame: np.ndarray) -> TableReading:
        """Every container's reading against the last stable frame, and the hand flag."""
        out = []
        looks = [_log(self._look(v, frame)) for v in self.views]
        fgs = [self._unlike(v, cur, ref, beans=True) for v, cur, ref in zip(self.views, looks, self.empty)]
        unit = self.unit_area(fgs)
        self._last = (frame, fgs)
        for i, v in enumerate(self.views):
            cur = looks[i]
            est, low, high, conf = self.count(v, fgs[i], unit)
            # a bowl's or stock's wide floor has long shadow edges that leave slivers when the
            # light shifts; a cup's short one does not, and there a bean against the wall may
            # show only as a crescent beside the rim's shadow
            thick = v.container.kind != "cup"
            diff = self.bean_change(self._unlike(v, cur, self.stable[i]), fgs[i], self.stable_fg[i], unit)
            change = self.moved(diff, unit, thick)
            stir = None
            if v.container.kind == "cup" and change < CHANGE_BEANS:
                _, _, stats, _ = cv2.connectedComponentsWithStats(self.stir(v, cur, self.stable[i]), connectivity=8)
                stir = round(float(stats[1:, cv2.CC_STAT_AREA].max(initial=0)) / unit, 3)
            out.append(ContainerReading(bool(change >= CHANGE_BEANS), est, low, high, conf, round(change, 3),
                                        stir, round(v.seen, 3)))
        return TableReading(tuple(out), self.hand(frame))

    def set_stable(self, frame: np.ndarray) -> None:
        """Make ``frame`` (a still frame with no hand) the reference changes are read from."""
        looks = [self._look(v, frame) for v in self.views]
        self.stable = [self._reference(v, look) for v, look in zip(self.views, looks)]
        if self._last is not None and self._last[0] is frame:
            self.stable_fg = list(self._last[1])
        else:
            self.stable_fg = [self._unlike(v, ref.log, e, beans=True) for v, ref, e in zip(self.views, self.stable, self.empty)]
        # hands are looked for against the last still table too: the light and the sun move
        self.hand_detector = HandDetector(rectify(frame, self.hand_maps), self.hand_area, HAND_PPM)
