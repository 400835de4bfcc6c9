"""Compiled per-pixel loops of the shaded renderer (``shaded.py``): one light's diffuse and
specular contribution, and the shadow rays tested against cups (frusta) and hand parts
(capsules).  In numpy each of these made a dozen full-frame temporaries per light; compiled,
each pixel's values stay in registers.

numba compiles them on first use after an install or a change and keeps them in
``__pycache__``, as for the recogniser's kernels."""

from __future__ import annotations

import math

import numba
import numpy as np

_OPTS = {"cache": True, "nogil": True}


@numba.njit(**_OPTS)
def light_pass(out: np.ndarray, P: np.ndarray, N: np.ndarray, D: np.ndarray, A: np.ndarray,
               KS: np.ndarray, SH: np.ndarray, WRAP: np.ndarray, vis: np.ndarray,
               light: np.ndarray, point: bool, power: float, colour: np.ndarray,
               y0: int, y1: int, x0: int, x1: int) -> None:
    """Add one light to ``out`` (h, w, 3) over rows y0:y1 and columns x0:x1.  ``light`` is the
    lamp's position (``point``) or the unit direction toward the sun; ``power`` the lamp's
    irradiance times distance squared (or the sun's irradiance).  Diffuse: Lambert, wrapped
    by ``WRAP`` (light bleeding round skin); specular: normalised Blinn-Phong with strength
    ``KS`` and exponent ``SH``; all scaled by the light's visibility ``vis``."""
    norm_k = 1.0 / (8.0 * math.pi)
    for y in range(y0, y1):
        for x in range(x0, x1):
            v = vis[y, x]
            if v <= 0.0:
                continue
            px, py, pz = P[y, x, 0], P[y, x, 1], P[y, x, 2]
            if point:
                lx, ly, lz = light[0] - px, light[1] - py, light[2] - pz
                d2 = lx * lx + ly * ly + lz * lz
                inv = 1.0 / math.sqrt(d2)
                lx, ly, lz = lx * inv, ly * inv, lz * inv
                irr = power / d2
            else:
                lx, ly, lz = light[0], light[1], light[2]
                irr = power
            nx, ny, nz = N[y, x, 0], N[y, x, 1], N[y, x, 2]
            ndl = nx * lx + ny * ly + nz * lz
            w = WRAP[y, x]
            diff = (ndl + w) / (1.0 + w)
            if diff <= 0.0:
                continue
            if diff > 1.0:
                diff = 1.0
            spec = 0.0
            ks = KS[y, x]
            if ks > 0.0 and ndl > 0.0:
                hx, hy, hz = lx - D[y, x, 0], ly - D[y, x, 1], lz - D[y, x, 2]
                hn = math.sqrt(hx * hx + hy * hy + hz * hz)
                if hn > 1e-6:
                    ndh = (nx * hx + ny * hy + nz * hz) / hn
                    if ndh > 0.0:
                        sh = SH[y, x]
                        spec = ks * (sh + 8.0) * norm_k * math.exp(sh * math.log(ndh)) * ndl
            e = irr * v
            for c in range(3):
                out[y, x, c] += e * colour[c] * (A[y, x, c] * diff + spec)


@numba.njit(**_OPTS)
def _smooth(e: float, x: float) -> float:
    t = (x + e) / (2.0 * e)
    if t <= 0.0:
        return 0.0
    if t >= 1.0:
        return 1.0
    return t * t * (3.0 - 2.0 * t)


@numba.njit(**_OPTS)
def capsule_shadow(vis: np.ndarray, P: np.ndarray, obj: np.ndarray, skip: int,
                   y0: int, y1: int, x0: int, x1: int, a: np.ndarray, b: np.ndarray, r: float,
                   light: np.ndarray, point: bool, opacity: float, pen_scale: float) -> None:
    """Darken ``vis`` where the segment from each surface point toward the light (to the
    lamp, or 5 m toward the sun) passes within ``r`` of the capsule axis a-b; soft over a
    penumbra growing with the distance from the point to where the ray passes closest."""
    d2x, d2y, d2z = b[0] - a[0], b[1] - a[1], b[2] - a[2]
    e = d2x * d2x + d2y * d2y + d2z * d2z
    for y in range(y0, y1):
        for x in range(x0, x1):
            o = obj[y, x]
            if o == skip or o == -2:
                continue
            px, py, pz = P[y, x, 0], P[y, x, 1], P[y, x, 2]
            if point:
                d1x, d1y, d1z = light[0] - px, light[1] - py, light[2] - pz
            else:
                d1x, d1y, d1z = light[0] * 5000.0, light[1] * 5000.0, light[2] * 5000.0
            rx, ry, rz = px - a[0], py - a[1], pz - a[2]
            aa = d1x * d1x + d1y * d1y + d1z * d1z
            f = rx * d2x + ry * d2y + rz * d2z
            c = d1x * rx + d1y * ry + d1z * rz
            bb = d1x * d2x + d1y * d2y + d1z * d2z
            den = aa * e - bb * bb
            s = 0.0
            if den > 1e-9:
                s = min(max((bb * f - c * e) / den, 0.0), 1.0)
            t = (bb * s + f) / e
            if t < 0.0:
                t = 0.0
                s = min(max(-c / aa, 0.0), 1.0)
            elif t > 1.0:
                t = 1.0
                s = min(max((bb - c) / aa, 0.0), 1.0)
            gx = rx + d1x * s - d2x * t
            gy = ry + d1y * s - d2y * t
            gz = rz + d1z * s - d2z * t
            depth = r - math.sqrt(gx * gx + gy * gy + gz * gz)
            pen = 0.3 + pen_scale * s * math.sqrt(aa) * 0.03
            block = opacity * _smooth(pen, depth)
            if block > 0.0:
                vis[y, x] *= 1.0 - block


@numba.njit(**_OPTS)
def cone_shadow(vis: np.ndarray, P: np.ndarray, obj: np.ndarray, skip: int,
                y0: int, y1: int, x0: int, x1: int, cx: float, cy: float, R0: float, R1: float,
                zb: float, zt: float, light: np.ndarray, point: bool, opacity: float,
                pen_scale: float) -> None:
    """Darken ``vis`` where the ray from each surface point toward the light passes through
    the frustum on axis (cx, cy) with radius R0 at height zb to R1 at zt: the smallest of
    (distance from the axis)^2 - radius^2 along the ray within the frustum's heights is a
    quadratic in the height, so it is found exactly."""
    k = (R1 - R0) / (zt - zb)
    r0 = R0 - k * zb
    big = max(R0, R1)
    for y in range(y0, y1):
        for x in range(x0, x1):
            o = obj[y, x]
            if o == skip or o == -2:
                continue
            px, py, pz = P[y, x, 0], P[y, x, 1], P[y, x, 2]
            zlo = max(pz, zb)
            if zlo >= zt:
                continue
            if point:
                lx, ly, lz = light[0] - px, light[1] - py, light[2] - pz
            else:
                lx, ly, lz = light[0], light[1], light[2]
            if lz <= 1e-6:
                continue
            vx, vy = lx / lz, ly / lz
            p0x = px - pz * vx - cx
            p0y = py - pz * vy - cy
            qa = vx * vx + vy * vy - k * k
            qb = 2.0 * (vx * p0x + vy * p0y - r0 * k)
            qc = p0x * p0x + p0y * p0y - r0 * r0
            qmin = min(qa * zlo * zlo + qb * zlo + qc, qa * zt * zt + qb * zt + qc)
            if qa > 1e-9:
                zs = -qb / (2.0 * qa)
                if zlo < zs < zt:
                    qmin = min(qmin, qa * zs * zs + qb * zs + qc)
            depth = -qmin / (2.0 * big)
            pen = 0.3 + pen_scale * max(zt - pz, 0.0) * 0.03
            block = opacity * _smooth(pen, depth)
            if block > 0.0:
                vis[y, x] *= 1.0 - block


@numba.njit(**_OPTS)
def capsule_hit(D: np.ndarray, y0: int, y1: int, x0: int, x1: int, o: np.ndarray, a: np.ndarray,
                b: np.ndarray, r: float) -> tuple[np.ndarray, np.ndarray]:
    """Where the rays from ``o`` along D[y0:y1, x0:x1] first meet the capsule a-b of radius
    ``r`` (inf where they miss), and the outward normal there."""
    h, w = y1 - y0, x1 - x0
    t_out = np.full((h, w), np.inf, np.float32)
    n_out = np.zeros((h, w, 3), np.float32)
    ex, ey, ez = b[0] - a[0], b[1] - a[1], b[2] - a[2]
    L = math.sqrt(ex * ex + ey * ey + ez * ez)
    ex, ey, ez = ex / L, ey / L, ez / L
    wx, wy, wz = o[0] - a[0], o[1] - a[1], o[2] - a[2]
    we = wx * ex + wy * ey + wz * ez
    wpx, wpy, wpz = wx - we * ex, wy - we * ey, wz - we * ez
    cc = wpx * wpx + wpy * wpy + wpz * wpz - r * r
    for y in range(h):
        for x in range(w):
            dx, dy, dz = D[y0 + y, x0 + x, 0], D[y0 + y, x0 + x, 1], D[y0 + y, x0 + x, 2]
            best = np.inf
            de = dx * ex + dy * ey + dz * ez
            dpx, dpy, dpz = dx - de * ex, dy - de * ey, dz - de * ez
            A = dpx * dpx + dpy * dpy + dpz * dpz
            B = 2.0 * (dpx * wpx + dpy * wpy + dpz * wpz)
            disc = B * B - 4.0 * A * cc
            if disc >= 0.0 and A > 1e-12:
                t = (-B - math.sqrt(disc)) / (2.0 * A)
                u = we + t * de
                if t > 0.0 and 0.0 <= u <= L:
                    best = t
            for k in range(2):
                if k == 0:
                    cx, cy, cz = o[0] - a[0], o[1] - a[1], o[2] - a[2]
                else:
                    cx, cy, cz = o[0] - b[0], o[1] - b[1], o[2] - b[2]
                bb = dx * cx + dy * cy + dz * cz
                dd = bb * bb - (cx * cx + cy * cy + cz * cz - r * r)
                if dd >= 0.0:
                    t = -bb - math.sqrt(dd)
                    if 0.0 < t < best:
                        best = t
            if best < np.inf:
                px, py, pz = o[0] + best * dx - a[0], o[1] + best * dy - a[1], o[2] + best * dz - a[2]
                u = min(max(px * ex + py * ey + pz * ez, 0.0), L)
                nx, ny, nz = px - u * ex, py - u * ey, pz - u * ez
                nn = math.sqrt(nx * nx + ny * ny + nz * nz)
                if nn > 1e-9:
                    n_out[y, x, 0], n_out[y, x, 1], n_out[y, x, 2] = nx / nn, ny / nn, nz / nn
                t_out[y, x] = best
    return t_out, n_out
