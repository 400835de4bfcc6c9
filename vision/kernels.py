"""Compiled inner loops of recognition (``recognise.py``): the log channels of a view, and
the searches for each size's top, which score the rings and rims round many candidate centres.

Each score reads a few dozen samples round one candidate centre and keeps the weaker part of
the arc.  In numpy that meant gathering every sample of every candidate into arrays of
(angles x squares x candidates x rings) and reducing them plane by plane, a third of a
frame's CPU; compiled, each candidate's samples stay in a small buffer.  The arithmetic is
that numpy version's, in float32 and in the same order (``_extreme_sums``), so the ring
scores did not change by a bit.

Later kernels took the same rule for the rest of a frame's per-pixel and per-sample work (the
log channels' changes since the empty board in one pass, the board's medians by counting,
the lighter outline's leads, the sheen vote, the size check's crop maps): each gives what
the numpy statement it replaced gave, bit for bit (``tests/test_recognise_fast.py``).

numba compiles the kernels on their first use after an install or a change (about 10 s of
CPU here) and keeps them in ``__pycache__``; later processes load them in a fraction of a
second."""

from __future__ import annotations

import numba
import numpy as np

_OPTS = {"cache": True, "nogil": True}
SHEEN_STEPS = 6  # grey amounts ``sheen_distance`` tries, from none to all a pixel can hold
# in light, grey amounts leaving ``LIGHT_KEEP`` ** k of the pixel's weakest channel, k up to
# ``LIGHT_STEPS`` - 1: what is left is compared in logs, so its steps are even in log
LIGHT_STEPS, LIGHT_KEEP = 16, 0.75


@numba.njit(**_OPTS)
def log_channels(view: np.ndarray, log_sum: np.ndarray, log_level: np.ndarray,
                 with_chroma: bool) -> tuple[np.ndarray, np.ndarray]:
    """Log-brightness and warm-cool chroma of a BGR uint8 ``view`` (h, w, 3), float32 (h, w)
    each, read from tables: ``log_sum`` of each b + g + r, ``log_level`` of each channel
    value; the chroma is log_level[r] - log_level[b], and (0, 0) unless ``with_chroma``."""
    h, w = view.shape[0], view.shape[1]
    lum = np.empty((h, w), np.float32)
    chroma = np.empty((h, w) if with_chroma else (0, 0), np.float32)
    for y in range(h):
        for x in range(w):
            b, g, r = np.int64(view[y, x, 0]), np.int64(view[y, x, 1]), np.int64(view[y, x, 2])
            lum[y, x] = log_sum[b + g + r]
            if with_chroma:
                chroma[y, x] = log_level[r] - log_level[b]
    return lum, chroma


@numba.njit(**_OPTS)
def log_changes(view: np.ndarray, log_sum: np.ndarray, log_level: np.ndarray, with_chroma: bool,
                ref_lum: np.ndarray, ref_white: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``log_channels`` of ``view`` and, in the same pass over its pixels, the change of
    log-brightness since ``ref_lum`` (h, w) and, if ``ref_white`` is not empty (it is then
    (h, w) and ``with_chroma`` is set), the change of whiteness (log-brightness less the
    chroma) since it: (lum, chroma, lum change, whiteness change), float32, each value the
    same float32 subtractions numpy makes of whole planes."""
    h, w = view.shape[0], view.shape[1]
    white = ref_white.size > 0
    lum = np.empty((h, w), np.float32)
    chroma = np.empty((h, w) if with_chroma else (0, 0), np.float32)
    change = np.empty((h, w), np.float32)
    white_change = np.empty((h, w) if white else (0, 0), np.float32)
    for y in range(h):
        for x in range(w):
            b, g, r = np.int64(view[y, x, 0]), np.int64(view[y, x, 1]), np.int64(view[y, x, 2])
            v = log_sum[b + g + r]
            lum[y, x] = v
            change[y, x] = v - ref_lum[y, x]
            if with_chroma:
                c = log_level[r] - log_level[b]
                chroma[y, x] = c
                if white:
                    white_change[y, x] = (v - c) - ref_white[y, x]
    return lum, chroma, change, white_change


@numba.njit(**_OPTS)
def disc_offsets(grid: np.ndarray, reach: float) -> np.ndarray:
    """The offsets (x, y) of ``grid`` x ``grid`` (y the slower) within ``reach`` of the
    origin, (n, 2) float64: the candidate centres of a top, round where it would be."""
    out = np.empty((len(grid) * len(grid), 2), np.float64)
    n = 0
    for oy in grid:
        for ox in grid:
            if ox ** 2 + oy ** 2 <= reach ** 2 + 1e-6:
                out[n, 0] = ox
                out[n, 1] = oy
                n += 1
    return out[:n]


@numba.njit(**_OPTS)
def _extreme_sums(v: np.ndarray, n: int, cols: int, k: int, largest: bool, kept: np.ndarray,
                  out: np.ndarray) -> None:
    """Per column c < ``cols`` of ``v[:n]`` (values, columns), the sum of its ``k`` smallest
    (or largest) values into ``out[c]``.  The extremes so far are kept in order in the rows of
    ``kept`` (scratch of k + 1 rows at least; row k holds the value sinking through them by
    min and max, which need no branches along the columns) and added from the most extreme."""
    if k == 0:
        out[:cols] = 0.0
        return
    m = 0
    for i in range(n):
        for c in range(cols):
            kept[k, c] = v[i, c]
        for j in range(m):
            if largest:
                for c in range(cols):
                    y, z = kept[j, c], kept[k, c]
                    kept[j, c], kept[k, c] = max(y, z), min(y, z)
            else:
                for c in range(cols):
                    y, z = kept[j, c], kept[k, c]
                    kept[j, c], kept[k, c] = min(y, z), max(y, z)
        if m < k:
            for c in range(cols):
                kept[m, c] = kept[k, c]
            m += 1
    for c in range(cols):
        total = kept[0, c]
        for j in range(1, k):
            total += kept[j, c]
        out[c] = total


@numba.njit(**_OPTS)
def _smallest_sums(v: np.ndarray, n: int, cols: int, k: int, kept: np.ndarray, out: np.ndarray) -> None:
    """Per column c < ``cols`` of ``v[:n]`` (values, columns; float32), the sum of its ``k``
    smallest values into ``out[c]``: over half of them, as the sum of all less the largest
    few (``_extreme_sums``; ``kept`` is its scratch)."""
    if 2 * k > n:
        _extreme_sums(v, n, cols, n - k, True, kept, out)
        for c in range(cols):
            total = v[0, c]
            for i in range(1, n):
                total += v[i, c]
            out[c] = total - out[c]
        return
    _extreme_sums(v, n, cols, k, False, kept, out)


@numba.njit(**_OPTS)
def smallest_sums(values: np.ndarray, k: int) -> np.ndarray:
    """Per column of ``values`` (values, columns; float32), the sum of its ``k`` smallest."""
    n, cols = values.shape
    out = np.empty(cols, np.float32)
    _smallest_sums(values, n, cols, k, np.empty((n + 1, cols), np.float32), out)
    return out


@numba.njit(**_OPTS)
def _radial(planes: np.ndarray, k: int, at: np.ndarray, steps: np.ndarray, ux: np.ndarray, uy: np.ndarray,
            out: np.ndarray, total: np.ndarray) -> None:
    """The gradient (x in ``planes[k]``, y in ``planes[k + 1]``) along each angle's outward
    direction, at the flat indices ``at`` (candidates) + ``steps`` (angles): into ``out``
    (angles, candidates), and its sum over the angles into ``total``."""
    total[:len(at)] = 0.0
    for a in range(len(steps)):
        step, u, v = steps[a], ux[a], uy[a]
        row = out[a]
        for c in range(len(at)):
            i = at[c] + step
            row[c] = planes[k, i] * u + planes[k + 1, i] * v
            total[c] += row[c]


@numba.njit(**_OPTS)
def _ring_scores(planes: np.ndarray, at: np.ndarray, steps: np.ndarray, ux: np.ndarray, uy: np.ndarray,
                 n_rings: int, cur: np.ndarray, alt: np.ndarray, kept: np.ndarray, score: np.ndarray,
                 sign: np.ndarray, per_ring: np.ndarray) -> None:
    """Edge-ring evidence of one square's candidate top centres, ``at`` (C,): their flat
    indices into the gradient ``planes`` (2 or 8, N) float32, x then y: the change since the
    empty board, or the current and the reference of log-brightness then the same of the
    chroma.  ``steps`` (A, rings x offsets): flat offset of each ring sample, by angle of the
    far arc; ``ux``, ``uy`` (A,) float32: the outward direction of each angle.

    The weaker half of the angles counts, and per ring the radius offset that scores best.
    Writes ``score`` (C,), the mean over the rings; ``sign`` (C,), +1 where the first ring's
    gradient points outwards on the whole; and ``per_ring`` (C, rings), each ring's score.
    ``cur``, ``alt`` and ``kept`` are scratch of at least (A, C)."""
    A, RO = steps.shape
    C = len(at)
    n_off = RO // n_rings
    half = A // 2
    chroma = planes.shape[0] == 8
    total = np.empty(C, np.float32)
    total_c = np.empty(C, np.float32)
    sg = np.empty(C, np.float32)
    use_c = np.empty(C, np.bool_)
    sc = np.empty(C, np.float32)
    per_ring[:C] = -np.inf
    for r in range(n_rings):
        for o in range(n_off):
            j = r * n_off + o
            _radial(planes, 0, at, steps[:, j], ux, uy, cur, total)
            if chroma:
                # whichever channel (brightness or chroma) rings more, less its ring on the
                # empty board: a board feature still there cancels
                _radial(planes, 4, at, steps[:, j], ux, uy, alt, total_c)
                for c in range(C):
                    use_c[c] = abs(total_c[c]) > abs(total[c])
                total[:] = 0.0
                for a in range(A):
                    step, u, v = steps[a, j], ux[a], uy[a]
                    for c in range(C):
                        i = at[c] + step
                        if use_c[c]:
                            cur[a, c] = alt[a, c] - (planes[6, i] * u + planes[7, i] * v)
                        else:
                            cur[a, c] -= planes[2, i] * u + planes[3, i] * v
                        total[c] += cur[a, c]
            for c in range(C):
                sg[c] = np.sign(total[c])
            for a in range(A):
                row = cur[a]
                for c in range(C):
                    row[c] *= sg[c]
            _smallest_sums(cur, A, C, half, kept, sc)
            for c in range(C):
                sc[c] /= np.float32(half)
                if sc[c] > per_ring[c, r]:
                    per_ring[c, r] = sc[c]
                    if r == 0:
                        sign[c] = sg[c]
    for c in range(C):
        mean = per_ring[c, 0]
        for r in range(1, n_rings):
            mean += per_ring[c, r]
        score[c] = mean / np.float32(n_rings)


@numba.njit(**_OPTS)
def _first_max(values: np.ndarray, n: int) -> int:
    """The index of the first largest of ``values[:n]``."""
    best = 0
    for i in range(1, n):
        if values[i] > values[best]:
            best = i
    return best


@numba.njit(**_OPTS)
def _around_best(scores: np.ndarray, n: int, n_seeds: int, base: np.ndarray, cand: np.ndarray,
                 fine: np.ndarray, pts: np.ndarray) -> None:
    """Into ``pts`` (n_seeds x fine, 2): the ``fine`` offsets round each of the ``n_seeds``
    best candidates of ``scores[:n]``, best first, the candidates at ``base`` + ``cand``.  The
    scores picked are spent (set to -inf)."""
    m = fine.shape[0]
    for k in range(n_seeds):
        top = _first_max(scores, n)
        for f in range(m):
            pts[k * m + f, 0] = base[0] + cand[top, 0] + fine[f, 0]
            pts[k * m + f, 1] = base[1] + cand[top, 1] + fine[f, 1]
        scores[top] = -np.inf


@numba.njit(**_OPTS)
def _ring_geometry(u: np.ndarray, radii: np.ndarray, offsets: np.ndarray, c: float, s: float, wp: int,
                   steps: np.ndarray, ux: np.ndarray, uy: np.ndarray) -> None:
    """The samples of rings of ``radii``, each tried at the radius ``offsets`` around it, at
    the angles of the unit vectors ``u`` (A, 2), turned so that angle 0 points along (c, s):
    into ``steps`` (A, rings x offsets) each sample's flat offset (rounded to whole pixels) in
    planes of row width ``wp``, into ``ux``, ``uy`` (A,) each angle's outward direction."""
    for a in range(u.shape[0]):
        for r in range(len(radii)):
            for o in range(len(offsets)):
                x = u[a, 0] * (radii[r] + offsets[o])
                y = u[a, 1] * (radii[r] + offsets[o])
                steps[a, r * len(offsets) + o] = (np.int64(np.rint(x * s + y * c)) * wp
                                                  + np.int64(np.rint(x * c - y * s)))
        ux[a] = np.float32(u[a, 0] * c - u[a, 1] * s)
        uy[a] = np.float32(u[a, 0] * s + u[a, 1] * c)


@numba.njit(**_OPTS)
def ring_search(planes: np.ndarray, wp: int, pad: int, base: np.ndarray, grid: np.ndarray, reach: float,
                radii: np.ndarray,
                far_cos: np.ndarray, far_sin: np.ndarray, coarse_u: np.ndarray, fine: np.ndarray,
                fine_u: np.ndarray, fine_offsets: np.ndarray,
                n_seeds: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The edge search of one size class (``Recogniser._hypotheses``): per square, the top
    centre whose rings of ``radii`` (one per edge of the size class) score best
    (``_ring_scores``).  First over the offsets (x, y) from ``grid`` x ``grid`` within
    ``reach`` (whole pixels) from ``base`` (S, 2), both in canvas pixels (``planes`` have a border of ``pad`` pixels, rows ``wp``
    long), at the far-arc angles of ``coarse_u`` (unit vectors, angle 0 turned to each
    square's (``far_cos``, ``far_sin``)); then at the ``fine`` offsets round the ``n_seeds``
    best, at the angles of ``fine_u``, each ring tried at the radius ``fine_offsets`` around
    it.  Returns score (S,), sign (S,), centre (S, 2) and the score of the first and the last
    ring (S, 2)."""
    cand = disc_offsets(grid, reach).astype(np.int64)
    S, C = base.shape[0], cand.shape[0]
    R = len(radii)
    F = n_seeds * fine.shape[0]
    A = max(coarse_u.shape[0], fine_u.shape[0])
    width = max(C, F)
    cur = np.empty((A, width), np.float32)
    alt = np.empty((A, width), np.float32)
    kept = np.empty((A, width), np.float32)
    sc = np.empty(width, np.float32)
    sg = np.empty(width, np.float32)
    rings = np.empty((width, R), np.float32)
    at = np.empty(width, np.int64)
    pts = np.empty((F, 2), np.int64)
    no_offsets = np.zeros(1)
    coarse_steps = np.empty((coarse_u.shape[0], R), np.int64)
    fine_steps = np.empty((fine_u.shape[0], R * len(fine_offsets)), np.int64)
    ux = np.empty(A, np.float32)
    uy = np.empty(A, np.float32)
    score = np.empty(S, np.float32)
    sign = np.empty(S, np.float32)
    centre = np.empty((S, 2), np.int64)
    edges = np.empty((S, 2), np.float32)
    for s in range(S):
        for c in range(C):
            at[c] = (base[s, 1] + cand[c, 1] + pad) * wp + base[s, 0] + cand[c, 0] + pad
        _ring_geometry(coarse_u, radii, no_offsets, far_cos[s], far_sin[s], wp, coarse_steps, ux, uy)
        _ring_scores(planes, at[:C], coarse_steps, ux, uy, R, cur, alt, kept, sc, sg, rings)
        _around_best(sc, C, n_seeds, base[s], cand, fine, pts)
        for f in range(F):
            at[f] = (pts[f, 1] + pad) * wp + pts[f, 0] + pad
        _ring_geometry(fine_u, radii, fine_offsets, far_cos[s], far_sin[s], wp, fine_steps, ux, uy)
        _ring_scores(planes, at[:F], fine_steps, ux, uy, R, cur, alt, kept, sc, sg, rings)
        best = _first_max(sc, F)
        score[s] = sc[best]
        sign[s] = sg[best]
        centre[s, 0] = pts[best, 0]
        centre[s, 1] = pts[best, 1]
        edges[s, 0] = rings[best, 0]
        edges[s, 1] = rings[best, R - 1]
    return score, sign, centre, edges


@numba.njit(**_OPTS)
def _rim_leads(Df: np.ndarray, at: np.ndarray, steps: np.ndarray, lead: np.ndarray) -> None:
    """Per angle (rows of ``lead``) and candidate (columns): the brightest of the middle
    radii's samples less the brighter of the inside and the outside one.  ``at`` holds the
    candidates' flat indices into ``Df``, ``steps`` (candidates or 1, radii, angles) the
    samples' flat offsets from them."""
    R, A = steps.shape[1], steps.shape[2]
    one = steps.shape[0] == 1
    for a in range(A):
        row = lead[a]
        for c in range(len(at)):
            st = steps[0 if one else c]
            b = at[c]
            rim = Df[b + st[1, a]]
            for r in range(2, R - 1):
                rim = max(rim, Df[b + st[r, a]])
            row[c] = rim - max(Df[b + st[0, a]], Df[b + st[R - 1, a]])


@numba.njit(**_OPTS)
def rim_search(D: np.ndarray, pad: int, base: np.ndarray, grid: np.ndarray, reach: float, units_coarse: np.ndarray,
               radii_coarse: np.ndarray, units_fine: np.ndarray, radii_fine: np.ndarray, fine: np.ndarray,
               n_seeds: int, keep_coarse: int, keep_fine: int) -> tuple[np.ndarray, np.ndarray]:
    """The rim search of one size class (``Recogniser._rim_search``): per square, the top
    centre (canvas px) with the best rim and that score.

    ``D`` is the whiteness change with a border of ``pad`` pixels, ``base`` (S, 2) where each
    square's top would be.  A candidate's score is the mean of the weakest ``keep`` angles of
    its rim's lead (``_rim_leads``) on rings of ``radii`` at the angles of ``units`` (unit
    vectors): first round every offset (x, y) from ``grid`` x ``grid`` within ``reach`` (the
    candidate and the ring's samples rounded to whole pixels apart), then round each ``fine``
    offset of the ``n_seeds`` best (each sample rounded where it falls)."""
    S = base.shape[0]
    wp = D.shape[1]
    Df = D.ravel()
    R1, A1 = len(radii_coarse), units_coarse.shape[0]
    R2, A2 = len(radii_fine), units_fine.shape[0]
    cand = disc_offsets(grid, reach)
    C = len(cand)
    coarse_steps = np.empty((1, R1, A1), np.int64)
    for r in range(R1):
        for a in range(A1):
            x = np.int64(np.rint(units_coarse[a, 0] * radii_coarse[r]))
            y = np.int64(np.rint(units_coarse[a, 1] * radii_coarse[r]))
            coarse_steps[0, r, a] = y * wp + x
    F = n_seeds * fine.shape[0]
    at = np.empty(C, np.int64)
    lead = np.empty((A1, C), np.float32)
    kept = np.empty((max(A1, A2), max(C, F)), np.float32)
    coarse = np.empty(C, np.float32)
    pts = np.empty((F, 2), np.float64)
    fine_at = np.zeros(F, np.int64)
    fine_steps = np.empty((F, R2, A2), np.int64)
    fine_lead = np.empty((A2, F), np.float32)
    fine_score = np.empty(F, np.float32)
    score = np.empty(S, np.float32)
    centre = np.empty((S, 2), np.float64)
    for s in range(S):
        for c in range(C):
            x = np.int64(np.rint(base[s, 0] + cand[c, 0])) + pad
            y = np.int64(np.rint(base[s, 1] + cand[c, 1])) + pad
            at[c] = y * wp + x
        _rim_leads(Df, at, coarse_steps, lead)
        _smallest_sums(lead, A1, C, keep_coarse, kept, coarse)
        for c in range(C):
            coarse[c] /= np.float32(keep_coarse)
        _around_best(coarse, C, n_seeds, base[s], cand, fine, pts)
        for f in range(F):
            for r in range(R2):
                for a in range(A2):
                    x = np.int64(np.rint(pts[f, 0] + units_fine[a, 0] * radii_fine[r])) + pad
                    y = np.int64(np.rint(pts[f, 1] + units_fine[a, 1] * radii_fine[r])) + pad
                    fine_steps[f, r, a] = y * wp + x
        _rim_leads(Df, fine_at, fine_steps, fine_lead)
        _smallest_sums(fine_lead, A2, F, keep_fine, kept, fine_score)
        for f in range(F):
            fine_score[f] /= np.float32(keep_fine)
        best = _first_max(fine_score, F)
        score[s] = fine_score[best]
        centre[s, 0] = pts[best, 0]
        centre[s, 1] = pts[best, 1]
    return score, centre


@numba.njit(**_OPTS)
def colour_distance(rows: np.ndarray, ref: np.ndarray, lum_sigma: float, tint_sigma: float) -> np.ndarray:
    """Per row of ``rows`` (n, 3) of log-BGR ratios against the board, the distance to
    ``ref`` (3,), brightness (the mean of the three) and tint (the rest) each weighed by its
    spread on one colour of wood, ``lum_sigma`` and ``tint_sigma``: a shaded side or a dim
    corner changes the brightness a lot but the tint hardly, so a light cup's wall in shadow
    stays light."""
    out = np.empty(len(rows))
    for i in range(len(rows)):
        out[i] = np.sqrt(_squared_distance(rows[i, 0] - ref[0], rows[i, 1] - ref[1], rows[i, 2] - ref[2],
                                           lum_sigma, tint_sigma))
    return out


@numba.njit(**_OPTS)
def _squared_distance(d0: float, d1: float, d2: float, lum_sigma: float, tint_sigma: float) -> float:
    """The square of ``colour_distance`` for one log-BGR difference (``d0``, ``d1``, ``d2``)."""
    lum = (d0 + d1 + d2) / 3.0
    t0, t1, t2 = d0 - lum, d1 - lum, d2 - lum
    return (lum / lum_sigma) ** 2 + (t0 ** 2 + t1 ** 2 + t2 ** 2) / tint_sigma ** 2


@numba.njit(**_OPTS)
def _sheen_steps(gamma: float) -> int:
    """How many grey amounts ``sheen_distance`` tries: ``SHEEN_STEPS`` off display values,
    ``LIGHT_STEPS`` off light (``_sheen_logs``)."""
    return SHEEN_STEPS if gamma == 1.0 else LIGHT_STEPS


@numba.njit(**_OPTS)
def _sheen_scale(board: np.ndarray, sheen_sigma: float, gamma: float) -> tuple[float, float, float, float, float]:
    """What ``_sheen_logs`` needs of the board (BGR now) for every pixel: the unit a grey's
    cost is counted in, per channel what a display value is divided by (``gamma`` 1) or the
    log added to a light's log over ``gamma`` (otherwise), and the least value left."""
    b0, b1, b2 = max(board[0], 1.0), max(board[1], 1.0), max(board[2], 1.0)
    if gamma == 1.0:
        return sheen_sigma * (board[0] + board[1] + board[2]) / 3.0, b0, b1, b2, 1.0
    unit = sheen_sigma * ((b0 / 255.0) ** gamma + (b1 / 255.0) ** gamma + (b2 / 255.0) ** gamma) / 3.0
    return unit, np.log(255.0 / b0), np.log(255.0 / b1), np.log(255.0 / b2), (1.0 / 255.0) ** gamma


@numba.njit(**_OPTS)
def _sheen_values(pixel: np.ndarray, gamma: float, floor: float) -> tuple[float, float, float, float]:
    """A pixel (BGR) as ``_sheen_logs`` takes the grey off it: its display values (``gamma``
    1) or the light they stand for, and the most grey they hold (down to ``floor``)."""
    if gamma == 1.0:
        return pixel[0], pixel[1], pixel[2], max(min(pixel[0], pixel[1], pixel[2]) - 1.0, 0.0)
    l0, l1, l2 = (pixel[0] / 255.0) ** gamma, (pixel[1] / 255.0) ** gamma, (pixel[2] / 255.0) ** gamma
    return l0, l1, l2, max(min(l0, l1, l2) - floor, 0.0)


_LIGHT_SHARES = 1.0 - LIGHT_KEEP ** np.arange(LIGHT_STEPS)  # (``_sheen_logs``)


@numba.njit(**_OPTS)
def _sheen_logs(v0: float, v1: float, v2: float, most: float, scale: tuple[float, float, float, float, float],
                gamma: float, k: int) -> tuple[float, float, float, float]:
    """The log-BGR against the board of a pixel (``_sheen_values``, holding up to ``most`` grey)
    once the ``k``-th of ``_sheen_steps`` grey amounts is taken off it, and that grey's cost
    (``sheen_distance``; ``scale`` is ``_sheen_scale``'s).  With ``gamma`` 1 the grey is
    taken off the display values themselves; otherwise off the light they stand for, display
    / 255 raised to ``gamma`` (the lamp's mirror image adds to the light before the camera's
    tone curve, and a display grey taken off a dark top leaves it too grey), its cost measured
    against the board's light the same way."""
    unit, c0, c1, c2, floor = scale
    if gamma == 1.0:
        sh = most * k / (SHEEN_STEPS - 1)
        return (np.log(max(v0 - sh, 1.0) / c0), np.log(max(v1 - sh, 1.0) / c1),
                np.log(max(v2 - sh, 1.0) / c2), (sh / unit) ** 2)
    sh = most * _LIGHT_SHARES[k]
    return (np.log(max(v0 - sh, floor)) / gamma + c0, np.log(max(v1 - sh, floor)) / gamma + c1,
            np.log(max(v2 - sh, floor)) / gamma + c2, (sh / unit) ** 2)


@numba.njit(**_OPTS)
def sheen_distance(pixels: np.ndarray, board: np.ndarray, ref: np.ndarray, lum_sigma: float, tint_sigma: float,
                   sheen_sigma: float, gamma: float = 1.0) -> np.ndarray:
    """Per pixel of ``pixels`` (n, 3; BGR), the ``colour_distance`` to ``ref`` (log-BGR against
    the board, whose colour now is ``board``) once the best share of sheen is taken off it.

    A glossy top mirrors some of the light as it is, grey, on top of its own colour: a dark
    top under a lamp looks grey, and its tint fades with it.  So grey amounts ``s`` of up to
    the pixel's weakest channel are tried (``_sheen_steps`` of them), each costing
    (``s`` / (``sheen_sigma`` times the board's mean channel))^2 on top of the distance of what
    is left: a pixel far brighter than a colour can only be that colour under a lot of sheen,
    which is rare, while no grey makes a pixel darker or more tinted than its colour.  With
    ``gamma`` other than 1 the grey is taken off in light, not in display values
    (``_sheen_logs``)."""
    out = np.empty(len(pixels))
    scale = _sheen_scale(board, sheen_sigma, gamma)
    for i in range(len(pixels)):
        best = np.inf
        v0, v1, v2, most = _sheen_values(pixels[i], gamma, scale[4])
        for k in range(_sheen_steps(gamma)):
            # the distance of what is left once the grey is taken off, plus the grey's cost
            l0, l1, l2, cost = _sheen_logs(v0, v1, v2, most, scale, gamma, k)
            d = _squared_distance(l0 - ref[0], l1 - ref[1], l2 - ref[2], lum_sigma, tint_sigma) + cost
            if d < best:
                best = d
        out[i] = np.sqrt(best)
    return out


@numba.njit(**_OPTS)
def sheen_gaps(pixels: np.ndarray, board: np.ndarray, ref_a: np.ndarray, ref_b: np.ndarray, lum_sigma: float,
               tint_sigma: float, sheen_sigma: float, gamma: float = 1.0) -> np.ndarray:
    """Per pixel, ``sheen_distance`` to ``ref_a`` less that to ``ref_b``: the same values, with
    the logs of each pixel less each grey amount taken once for both colours."""
    out = np.empty(len(pixels))
    scale = _sheen_scale(board, sheen_sigma, gamma)
    for i in range(len(pixels)):
        best_a = best_b = np.inf
        v0, v1, v2, most = _sheen_values(pixels[i], gamma, scale[4])
        for k in range(_sheen_steps(gamma)):
            l0, l1, l2, cost = _sheen_logs(v0, v1, v2, most, scale, gamma, k)
            d = _squared_distance(l0 - ref_a[0], l1 - ref_a[1], l2 - ref_a[2], lum_sigma, tint_sigma) + cost
            if d < best_a:
                best_a = d
            d = _squared_distance(l0 - ref_b[0], l1 - ref_b[1], l2 - ref_b[2], lum_sigma, tint_sigma) + cost
            if d < best_b:
                best_b = d
        out[i] = np.sqrt(best_a) - np.sqrt(best_b)
    return out


@numba.njit(**_OPTS)
def colour_vote(view: np.ndarray, cx: float, cy: float, r: float, board: np.ndarray, refs: np.ndarray,
                warm_from: float, lum_sigma: float, tint_sigma: float, sheen_sigma: float = 0.0,
                gamma: float = 1.0) -> float:
    """How much nearer the light player's colour (``refs[0]``, log-BGR against the board)
    than the dark one's (``refs[1]``) the pixels of ``view`` within ``r`` of (``cx``, ``cy``)
    are, against the board's colour now (``board``, BGR): the median over the pixels of the
    distance to dark less the distance to light (``colour_distance``).  NaN where the disc
    lies off the view.

    Glare and a clear cup's rim are white, cooler (log(R/B) under ``warm_from``) than either
    player's wood, and say nothing: they are left out unless they are most of the disc.
    Glare only ever brightens, and a spot blurred into a dark plug leaves pixels of middling
    brightness: only the darker half of the disc votes.  With ``sheen_sigma`` > 0 each pixel is
    measured against each colour past the grey sheen a glossy top adds (``sheen_distance``,
    in light rather than display values where ``gamma`` is not 1)."""
    h, w = view.shape[0], view.shape[1]
    x0, y0 = int(cx - r), int(cy - r)
    x1, y1 = int(cx + r) + 1, int(cy + r) + 1
    ya, yb = max(y0, 0), min(max(y1, 0), h)
    xa, xb = max(x0, 0), min(max(x1, 0), w)
    if yb <= ya or xb <= xa:
        return np.nan
    v = np.empty(((yb - ya) * (xb - xa), 3))
    px = np.empty_like(v)  # the pixels themselves (at least 1), for the sheen's grey
    n = 0
    for inside_only in (True, False):  # the whole patch where no pixel lies in the disc
        for y in range(ya, yb):
            for x in range(xa, xb):
                if not inside_only or (x - cx) ** 2 + (y - cy) ** 2 <= r * r:
                    for ch in range(3):
                        px[n, ch] = max(np.float64(view[y, x, ch]), 1.0)
                        v[n, ch] = np.log(px[n, ch] / max(board[ch], 1.0))
                    n += 1
        if n > 0:
            break
    warm = np.empty(n, np.bool_)
    for i in range(n):
        warm[i] = v[i, 2] - v[i, 0] >= warm_from
    if np.count_nonzero(warm) >= max(4, n // 4):
        v, px = v[:n][warm], px[:n][warm]
    else:
        v, px = v[:n], px[:n]
    lum = np.empty(len(v))
    for i in range(len(v)):
        lum[i] = (v[i, 0] + v[i, 1] + v[i, 2]) / 3.0
    darker = lum <= np.median(lum)
    if sheen_sigma <= 0.0:
        v = v[darker]
        return np.median(colour_distance(v, refs[1], lum_sigma, tint_sigma)
                         - colour_distance(v, refs[0], lum_sigma, tint_sigma))
    px = px[darker]
    return np.median(sheen_gaps(px, board, refs[1], refs[0], lum_sigma, tint_sigma, sheen_sigma, gamma))


@numba.njit(**_OPTS)
def _bilinear(view: np.ndarray, x0: int, y0: int, fx: float, fy: float, ch: int) -> float:
    """Channel ``ch`` of ``view`` read bilinearly at (x0 + fx, y0 + fy), both neighbours inside."""
    return ((1.0 - fy) * ((1.0 - fx) * np.float64(view[y0, x0, ch]) + fx * np.float64(view[y0, x0 + 1, ch]))
            + fy * ((1.0 - fx) * np.float64(view[y0 + 1, x0, ch]) + fx * np.float64(view[y0 + 1, x0 + 1, ch])))


@numba.njit(**_OPTS)
def ring_vote(view: np.ndarray, cx: float, cy: float, r_from: float, r_to: float, n_ang: int, steps: int,
              board: np.ndarray, refs: np.ndarray, lum_sigma: float, tint_sigma: float) -> float:
    """How much nearer the light player's colour (``refs[0]``) than the dark one's
    (``refs[1]``) a top's body ring looks on ``view``: along each of ``n_ang`` rays from
    (``cx``, ``cy``), the darkest of ``steps`` points (read bilinearly) from radius
    ``r_from`` to ``r_to`` votes with its distance to dark less its distance to light
    (``colour_distance``, against the board's colour now, ``board``); the median vote.  NaN
    where no ray lies on the view.

    Just inside a solid top's seen edge lies its rounded rim, whose surface turns away from the
    flat top's: where the flat top mirrors the lamp, grey all over, the rim does not, and the
    darkest point of each ray is the body's own colour, shaded (on a light top, its light rim).
    Kept short of the edge, as past it lies the board, which may be the dark player's colour."""
    h, w = view.shape[0], view.shape[1]
    votes = np.empty(n_ang)
    b0, b1, b2 = max(board[0], 1.0), max(board[1], 1.0), max(board[2], 1.0)
    n = 0
    for a in range(n_ang):
        ux, uy = np.cos(2.0 * np.pi * a / n_ang), np.sin(2.0 * np.pi * a / n_ang)
        best = np.inf
        p0 = p1 = p2 = 0.0
        for k in range(steps):
            r = r_from + (r_to - r_from) * k / max(steps - 1, 1)
            x, y = cx + r * ux, cy + r * uy
            x0, y0 = int(np.floor(x)), int(np.floor(y))
            if x0 < 0 or y0 < 0 or x0 + 1 >= w or y0 + 1 >= h:
                continue
            fx, fy = x - x0, y - y0
            c0 = _bilinear(view, x0, y0, fx, fy, 0)
            c1 = _bilinear(view, x0, y0, fx, fy, 1)
            c2 = _bilinear(view, x0, y0, fx, fy, 2)
            if c0 + c1 + c2 < best:
                best = c0 + c1 + c2
                p0, p1, p2 = c0, c1, c2
        if best == np.inf:
            continue
        l0 = np.log(max(p0, 1.0) / b0)
        l1 = np.log(max(p1, 1.0) / b1)
        l2 = np.log(max(p2, 1.0) / b2)
        votes[n] = (np.sqrt(_squared_distance(l0 - refs[1, 0], l1 - refs[1, 1], l2 - refs[1, 2], lum_sigma, tint_sigma))
                    - np.sqrt(_squared_distance(l0 - refs[0, 0], l1 - refs[0, 1], l2 - refs[0, 2], lum_sigma,
                                                tint_sigma)))
        n += 1
    if n == 0:
        return np.nan
    return np.median(votes[:n])


MEDIAN_BINS = 4096  # bins of the first, counting pass of ``median_at``


@numba.njit(**_OPTS)
def median_at(values: np.ndarray, idx: np.ndarray) -> float:
    """The median of ``values`` (flat, float32) at the flat indices ``idx``: the value
    ``np.median(values[idx])`` gives, bit for bit (for an even count, the two middle values'
    float32 mean); NaN where any value is NaN.

    One pass counts the values in bins over their range (a monotone map, so the bins keep
    their order); only the few values in the bins of the middle ranks are then sorted."""
    n = len(idx)
    if n == 0:
        return np.nan
    buf = np.empty(n, np.float32)
    lo = hi = values[idx[0]]
    for i in range(n):
        v = values[idx[i]]
        buf[i] = v
        if v != v:
            return np.nan
        if v < lo:
            lo = v
        elif v > hi:
            hi = v
    if lo == hi:
        return lo
    scale = (MEDIAN_BINS - 1) / (np.float64(hi) - np.float64(lo))
    lo64 = np.float64(lo)
    bins = np.empty(n, np.int32)
    counts = np.zeros(MEDIAN_BINS, np.int64)
    for i in range(n):
        b = np.int32((np.float64(buf[i]) - lo64) * scale)
        bins[i] = b
        counts[b] += 1
    k_low, k_high = (n - 1) // 2, n // 2  # the middle ranks (0-based): one for an odd count
    before, seen, b_low, b_high = 0, 0, -1, -1
    for b in range(MEDIAN_BINS):
        if b_low < 0 and seen + counts[b] > k_low:
            b_low, before = b, seen
        seen += counts[b]
        if seen > k_high:
            b_high = b
            break
    middle = np.empty(seen - before, np.float32)
    m = 0
    for i in range(n):
        if b_low <= bins[i] <= b_high:
            middle[m] = buf[i]
            m += 1
    middle.sort()
    lower, upper = middle[k_low - before], middle[k_high - before]
    if k_low == k_high:
        return upper
    return (lower + upper) * np.float32(0.5)


@numba.njit(**_OPTS)
def channel_medians_at(view: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Per channel of a uint8 ``view`` (h, w, 3), the median of its pixels at the flat pixel
    indices ``idx``: ``np.median(view.reshape(-1, 3)[idx], axis=0)`` (float64, the two middle
    values' mean for an even count), counted in a histogram per channel."""
    flat = view.reshape(-1, 3)
    counts = np.zeros((3, 256), np.int64)
    for i in range(len(idx)):
        for ch in range(3):
            counts[ch, flat[idx[i], ch]] += 1
    n = len(idx)
    out = np.empty(3, np.float64)
    for ch in range(3):
        # the values of rank n // 2 and (n - 1) // 2 (0-based): the same one for an odd count
        seen, low, high = 0, -1, -1
        for v in range(256):
            seen += counts[ch, v]
            if low < 0 and seen > (n - 1) // 2:
                low = v
            if seen > n // 2:
                high = v
                break
        out[ch] = (low + high) / 2.0
    return out


@numba.njit(**_OPTS)
def inside_leads(planes: np.ndarray, wp: int, pad: int, pts: np.ndarray, u: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """``Recogniser._inside_lead`` compiled: for circles round the whole-pixel centres ``pts``
    (n, 2), at the angles of the unit vectors ``u`` (A, 2) and each of ``radii``, the fall of
    the gradient planes' radial component outwards (``planes`` flat, rows ``wp`` long, a border
    of ``pad``: the change since the empty board, or with 8 planes the current less the empty
    board's), summed over the weaker half of the angles, over that half's count; the best
    radius per centre, (n,) float32.  The same float32 steps as the numpy statement."""
    A, n, R = u.shape[0], pts.shape[0], len(radii)
    chroma = planes.shape[0] == 8
    steps = np.empty((A, R), np.int64)
    ux = np.empty(A, np.float32)
    uy = np.empty(A, np.float32)
    for a in range(A):
        for r in range(R):
            steps[a, r] = (np.int64(np.rint(u[a, 1] * radii[r])) * wp + np.int64(np.rint(u[a, 0] * radii[r])))
        ux[a] = np.float32(u[a, 0])
        uy[a] = np.float32(u[a, 1])
    fall = np.empty((A, n * R), np.float32)
    for a in range(A):
        for c in range(n):
            base = (pts[c, 1] + pad) * wp + pts[c, 0] + pad
            for r in range(R):
                i = base + steps[a, r]
                rise = planes[0, i] * ux[a] + planes[1, i] * uy[a]
                if chroma:
                    rise -= planes[2, i] * ux[a] + planes[3, i] * uy[a]
                fall[a, c * R + r] = -rise
    half = A // 2
    weak = np.empty(n * R, np.float32)
    _smallest_sums(fall, A, n * R, half, np.empty((A + 1, n * R), np.float32), weak)
    out = np.empty(n, np.float32)
    for c in range(n):
        best = weak[c * R] / np.float32(half)
        for r in range(1, R):
            best = max(best, weak[c * R + r] / np.float32(half))
        out[c] = best
    return out


@numba.njit(**_OPTS)
def crop_maps(centre: np.ndarray, radius: np.ndarray, cos: np.ndarray, sin: np.ndarray,
              grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``cv2.remap`` maps of square crops (``Recogniser.size_crops``): per crop q < n and size
    class k, the points centre[q, k] + radius[k] * (u cos[q] - v sin[q], u sin[q] + v cos[q])
    for u along and v across ``grid`` (g,), rows v: (n * sizes * g, g) float32 each, the
    same float32 steps as numpy's planes of them."""
    n, nsz, g = centre.shape[0], centre.shape[1], len(grid)
    mx = np.empty((n * nsz * g, g), np.float32)
    my = np.empty((n * nsz * g, g), np.float32)
    for q in range(n):
        c, s = cos[q], sin[q]
        for i in range(g):
            v = grid[i]
            for j in range(g):
                u = grid[j]
                dx = u * c - v * s
                dy = u * s + v * c
                for k in range(nsz):
                    row = (q * nsz + k) * g + i
                    mx[row, j] = centre[q, k, 0] + radius[k] * dx
                    my[row, j] = centre[q, k, 1] + radius[k] * dy
    return mx, my


@numba.njit(**_OPTS)
def block_means(z: np.ndarray, out: np.ndarray) -> None:
    """The mean of each 2 x 2 block of ``z`` (crops x 2h rows, 2w) float32 into ``out`` (n,
    sizes, h, w; a view will do), crop (q, k) being rows from (q * sizes + k) * 2h of ``z``:
    summed as (top left + bottom left) + (top right + bottom right), then times a quarter."""
    n, nsz, h, w = out.shape
    for q in range(n):
        for k in range(nsz):
            top = (q * nsz + k) * 2 * h
            for y in range(h):
                a = z[top + 2 * y]
                b = z[top + 2 * y + 1]
                for x in range(w):
                    out[q, k, y, x] = ((a[2 * x] + b[2 * x]) + (a[2 * x + 1] + b[2 * x + 1])) * np.float32(0.25)


@numba.njit(**_OPTS)
def _max32(a: np.float32, b: np.float32) -> np.float32:
    """``np.maximum`` of two float32 values (a NaN in either wins); one select, no branch."""
    return a if (a >= b) | (a != a) else b


@numba.njit(**_OPTS)
def row_columns(x: np.ndarray) -> np.ndarray:
    """The columns of a 3x3 convolution with zero padding of one pixel over pictures ``x``
    (n, c, h, w) float32, laid out as ``convnet.conv_relu_pool`` takes them: each picture
    padded and kept as one row of (h + 2) rows of w + 2 (and two zeros after), tap (i, j)
    of channel ci being that row from i * (w + 2) + j on, h * (w + 2) long, at column
    (3 i + j) * c + ci: (n, 9 c, h * (w + 2)) float32.  The same values numpy's padding and
    nine slices give, without their temporaries."""
    n, c, h, wd = x.shape
    row = wd + 2
    span = h * row
    size = (h + 2) * row + 2
    flat = np.zeros((c, size), np.float32)  # its border stays 0: only the inside is written
    cols = np.empty((n, 9 * c, span), np.float32)
    for q in range(n):
        for ci in range(c):
            plane = flat[ci]
            for y in range(h):
                at = (y + 1) * row + 1
                for xx in range(wd):
                    plane[at + xx] = x[q, ci, y, xx]
            for i in range(3):
                for j in range(3):
                    src = plane[i * row + j:i * row + j + span]
                    dst = cols[q, (3 * i + j) * c + ci]
                    for k in range(span):
                        dst[k] = src[k]
    return cols


@numba.njit(**_OPTS)
def pool_bias_relu(y: np.ndarray, b: np.ndarray, h: int, wd: int, out: np.ndarray) -> None:
    """The outputs ``y`` (n, channels, h * (w + 2)) of a convolution over ``row_columns``
    max-pooled 2 x 2 (the two columns past each row's w are left out), plus the bias ``b``,
    then ReLU, into ``out`` (n, channels, h / 2, w / 2) float32: each value what numpy's
    maximum(maximum(rows), maximum(columns)) + b, then maximum(., 0), gives."""
    n, co = y.shape[0], y.shape[1]
    row = wd + 2
    zero = np.float32(0.0)
    for q in range(n):
        for o in range(co):
            v = y[q, o]
            bias = b[o]
            for py in range(h // 2):
                top = 2 * py * row
                for px in range(wd // 2):
                    a = top + 2 * px
                    m = _max32(_max32(v[a], v[a + row]), _max32(v[a + 1], v[a + 1 + row]))
                    out[q, o, py, px] = _max32(m + bias, zero)


@numba.njit(**_OPTS)
def stride2_columns(x: np.ndarray) -> np.ndarray:
    """The columns of a 3x3 convolution with zero padding of one pixel and a stride of 2
    over pictures ``x`` (n, c, h, w) float32 (h, w even), as ``convnet.conv_stride2_relu``
    takes them: tap (i, j) of channel ci, at column (3 i + j) * c + ci, holds the padded
    picture's pixels (i + 2 y, j + 2 x) for the outputs (y, x) row by row: (n, 9 c, h w / 4)
    float32."""
    n, c, h, wd = x.shape
    ho, wo = h // 2, wd // 2
    cols = np.empty((n, 9 * c, ho * wo), np.float32)
    zero = np.float32(0.0)
    for q in range(n):
        for i in range(3):
            for j in range(3):
                for ci in range(c):
                    dst = cols[q, (3 * i + j) * c + ci]
                    for oy in range(ho):
                        y = i + 2 * oy - 1  # in the unpadded picture
                        inside_y = 0 <= y < h
                        for ox in range(wo):
                            xx = j + 2 * ox - 1
                            dst[oy * wo + ox] = x[q, ci, y, xx] if inside_y and 0 <= xx < wd else zero
    return cols


@numba.njit(**_OPTS)
def dense_scores(x: np.ndarray, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: np.ndarray) -> np.ndarray:
    """The nets' head on ``x`` (n, k) float32: a dense layer (``w1`` (hidden, k), ``b1``)
    with ReLU, then one score (``w2`` (1, hidden), ``b2`` (1,)) per row: (n,) float32, each
    unit's sum taken over the inputs in order.  In one thread (numpy's product of the whole
    batch may spread over BLAS threads, and rounds a row differently with the batch's size)."""
    n, k = x.shape
    hidden = w1.shape[0]
    xt = np.ascontiguousarray(x.T)  # (k, n): each weight scales a contiguous row of the batch
    zero = np.float32(0.0)
    out = np.zeros(n, np.float32)
    unit = np.empty(n, np.float32)
    for j in range(hidden):
        unit[:] = zero
        for i in range(k):
            wv = w1[j, i]
            xi = xt[i]
            for q in range(n):
                unit[q] += wv * xi[q]
        bias, w = b1[j], w2[0, j]
        for q in range(n):
            out[q] += _max32(unit[q] + bias, zero) * w
    for q in range(n):
        out[q] += b2[0]
    return out
