"""Scripted torpedo plots (Rules 8.0-8.6): which screen units launch, on which track and arc, by
the side's torpedo-use code (``TORP_USE_*``) and knobs.

* aggressive: any predicted hit; selective: only a predicted hit on a capital ship that is not
  combing; defensive: at pursuers, any predicted hit; random: at random.

Bundles (issue 27): the compiled rules as :class:`..rules.RuleTables`, the candidate marker path as
:class:`..kernels.torpedo.Markers`, the units a marker could meet as :class:`Reach`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simlab.jit import kernel

from ....rng import roll_nb
from .. import layout as L
from ..enums import (
    CAPITAL,
    TORP_USE_DEFENSIVE,
    TORP_USE_RANDOM,
    TORP_USE_SELECTIVE,
)
from ..kernels.geometry import DXA, DZA, hex_dist_nb
from ..kernels.torpedo import marker_path_nb
from .knowledge import alive_nb


class Reach(NamedTuple):
    """The units a launcher's marker could meet this Game-Turn (scratch, overwritten before read):
    ``near`` ``int64[n]`` their rows, ``ppx``, ``ppz`` ``int64[n, MAXTRACK + 1]`` where each is
    expected after each MP (keeping course and speed)."""

    near: np.ndarray
    ppx: np.ndarray
    ppz: np.ndarray


@kernel(error_model="numpy", no_cpython_wrapper=True)
def _track_score_nb(side, st, sh, reach, nn, ma, mk, row, odds, eff_crt, kn, selective):
    """Value of marker path ``row`` of ``mk`` (:class:`..kernels.torpedo.Markers`) against the units
    ``reach.near[:nn]`` whose expected positions after each MP are ``reach.ppx, ppz[k, t]``
    (:class:`Reach`): enemy hits count for, friendly hits twice against; enemies passing one hex
    from the marker count a little (``K_NEAR``). Returns ``(score, direct hits)``."""
    near = reach.near
    ppx = reach.ppx
    ppz = reach.ppz
    mx = mk.mx
    mz = mk.mz
    md = mk.md
    score = 0.0
    direct = 0
    for k in range(nn):
        j = near[k]
        hit = False
        comb = 0
        close = False
        for t in range(1, ma + 1):
            a1x = ppx[k, t]
            a1z = ppz[k, t]
            if (a1x == mx[row, t] and a1z == mz[row, t]) or (
                    ppx[k, t - 1] == mx[row, t] and ppz[k, t - 1] == mz[row, t]
                    and a1x == mx[row, t - 1] and a1z == mz[row, t - 1]):
                hit = True
                d = md[row, t]
                f = sh[j, L.SH_F]
                comb = 1 if (f == d or f == (d + 3) % 6) else 0
                break
            if not close and hex_dist_nb(a1x, a1z, mx[row, t], mz[row, t]) == 1:
                close = True
        if st[j, L.ST_SIDE] != side:
            if hit:
                if selective == 0 or (comb == 0 and st[j, L.ST_KIND] == CAPITAL):
                    score += eff_crt[odds, 3 if comb else 0] * st[j, L.ST_VAL]
                    direct += 1
            elif close:
                score += kn[L.K_NEAR] * eff_crt[odds, 0] * st[j, L.ST_VAL]
        elif hit:
            score -= 2.0 * eff_crt[odds, 3 if comb else 0] * st[j, L.ST_VAL]
    return score, direct


@kernel(error_model="numpy", no_cpython_wrapper=True)
def plot_torpedoes_nb(side, st, sh, n, code, kn, sc, tb, rng, mk, reach):
    """Plot torpedo attacks of one side's screen units (Rules 8.0, 8.21-8.22, 8.31, 8.51).

    Sets ``SH_TTRACK`` (track index, -1 none) and ``SH_TARC`` (STARBOARD/PORT). Each launcher
    weighs every track and arc against the units that could meet the marker, expected to keep
    course and speed. ``code``: the side's ``TORP_USE_*``; ``kn``: its knobs; ``tb``: the compiled
    rules (:class:`..rules.RuleTables`: ``tracks``, ``eff_crt``); scratch: ``mk`` (row 0 of its
    paths, :class:`..kernels.torpedo.Markers`) and ``reach`` (:class:`Reach`).
    """
    tracks = tb.tracks
    eff_crt = tb.eff_crt
    mx = mk.mx
    mz = mk.mz
    md = mk.md
    near = reach.near
    ppx = reach.ppx
    ppz = reach.ppz
    ma = sc[L.SC_TORP_MA]
    nt = tracks.shape[0]
    for i in range(n):
        if st[i, L.ST_SIDE] != side:
            continue
        sh[i, L.SH_TTRACK] = -1
        if st[i, L.ST_TORP] == 0 or not alive_nb(sh, i) or sh[i, L.SH_TLEFT] <= 0 or sh[i, L.SH_G] >= 2 or ma <= 0:
            continue
        if code == TORP_USE_RANDOM:
            if roll_nb(rng, 2) == 1:
                sh[i, L.SH_TTRACK] = roll_nb(rng, nt) - 1
                sh[i, L.SH_TARC] = roll_nb(rng, 2) - 1
            continue
        # the units a marker could meet this turn, and where they are expected MP by MP
        nn = 0
        enemy = False
        x0 = sh[i, L.SH_X]
        z0 = sh[i, L.SH_Z]
        for j in range(n):
            if not alive_nb(sh, j):
                continue
            spd = sh[j, L.SH_SPD]
            if hex_dist_nb(x0, z0, sh[j, L.SH_X], sh[j, L.SH_Z]) > ma + spd + 1:
                continue
            near[nn] = j
            f = sh[j, L.SH_F]
            for t in range(ma + 1):
                kk = t if t < spd else spd
                ppx[nn, t] = sh[j, L.SH_X] + DXA[f] * kk
                ppz[nn, t] = sh[j, L.SH_Z] + DZA[f] * kk
            nn += 1
            if st[j, L.ST_SIDE] != side:
                enemy = True
        if not enemy:
            continue
        selective = 1 if code == TORP_USE_SELECTIVE else 0
        odds = st[i, L.ST_TORP]
        best = -1e300
        bt = -1
        ba = 0
        bdirect = 0
        for arc in range(2):
            for tr in range(nt):
                marker_path_nb(x0, z0, sh[i, L.SH_F], tr, arc, ma, tracks, mx, mz, md, 0)
                sc_, direct = _track_score_nb(side, st, sh, reach, nn, ma, mk, 0, odds, eff_crt, kn, selective)
                if sc_ > best:
                    best = sc_
                    bt = tr
                    ba = arc
                    bdirect = direct
        thr = kn[L.K_TORP_MIN]
        if code == TORP_USE_DEFENSIVE:
            thr = thr * kn[L.K_DEFENSIVE]
        if bt >= 0 and best > thr and (selective == 0 or bdirect > 0):
            sh[i, L.SH_TTRACK] = bt
            sh[i, L.SH_TARC] = ba
