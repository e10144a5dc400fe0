"""What ``game.py`` runs a batch with: the scenario from the data pack, the arrays of one batch
(the action deck, the pools and Rule 9 limits, the policies' family codes and knob rows from
``policies.toml``) and the kernel call (Rules 2, 4, 9, 11).

The façade (``game.py``) imports this module; nothing here imports the façade.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ...datapack import DataPack
from ...errors import ScenarioError
from ..policy import Policy, PolicyBook
from .bundles import GameState, Knobs, Tables, copy_state, new_state
from .engine import NO_STOP, init_games_nb, play_games_nb, play_on_games_nb
from .enums import (
    ACTION_NAMES,
    AK_COUNT,
    AK_NIGHT_ONLY,
    AK_NIGHT_REMOVE,
    AK_OPTIONAL,
    BUILDER_NAMES,
    F_NEUTRAL,
    FACTION_SIDE,
    LENGTH_NAMES,
    SIDE_NAMES,
)
from .layout import (
    C_COST,
    C_DATE,
    C_FACTION,
    C_TYPE,
    NOUT,
    NPT,
    NQ,
    NSLOT,
    POLICY_PACKING,
    PT_AIRSUB_MAX,
    PT_AIRSUB_MIN,
    PT_CAP_MAX,
    PT_CAP_MIN,
    PT_CARDS_MIN,
    PT_MERCHANTS,
    PT_POINTS,
    Q_BUILD,
    Q_FIRST,
    Q_FIRST_OVERRIDE,
    Q_LENGTH,
    Q_MPTS0,
    Q_REVEAL,
    Q_RULES,
    Q_SPECIAL,
    Q_VICTORY,
    RT_POINTS,
    RU_CABO_EITHER,
    RU_FREE_ROWS,
    RU_RETREAT_KEEP_HANDS,
)
from .scenario import BUILTIN, MarRojoSetup, parse_scenario, read_scenario_file

__all__ = ["POLICY_FILE", "action_deck", "batch_bundles", "build_limits", "build_pool_mask", "feasible", "load_setup",
           "pack_policies", "play_from", "policy_book", "preset_names", "resolve_policy", "rules_bits", "run_games",
           "start_games"]

POLICY_FILE = POLICY_PACKING.policy_file


def policy_book() -> PolicyBook:
    """Mar Rojo's families and presets (``policies.toml``; the framework's one cache of the book,
    checked against the kernels' layout by :data:`layout.POLICY_PACKING`).

    Raises:
        ValueError: a book out of step with the layout (:meth:`~simlab.games.packing.PolicyPacking.check`).
    """
    return POLICY_PACKING.book()


def preset_names() -> tuple[str, ...]:
    """The named policies, in ``policies.toml`` order."""
    return tuple(policy_book().presets)


def resolve_policy(side: str, policy: str | Policy) -> Policy:
    """A side's policy as a :class:`Policy`: as given, or a preset name resolved with its defaults.

    Raises:
        SpecError: an unknown preset.
    """
    return POLICY_PACKING.resolve(side, policy)


#: ``pack_policies(policies) -> (pols, pp)``: the kernels' view of both sides' policies,
#: ``int64[2]`` family codes (``enums.FAM_*``) and ``float64[2, NPP]`` knob rows (layout ``PP_*``),
#: packed by the framework as ``layout.POLICY_PACKING`` declares
#: (:meth:`simlab.games.packing.PolicyPacking.kernel_arrays`; raises SpecError on an unknown preset)
pack_policies = POLICY_PACKING.kernel_arrays


def action_deck(ak: np.ndarray, night: bool, optional: bool) -> tuple[np.ndarray, np.ndarray]:
    """The 52 action cards (Rule 2) as ``(akind, included)``: each card's kind (in
    ``ACTION_NAMES`` order, ``count`` copies of each) and whether this game uses it: night-only
    cards only with the night rules, ``night_remove`` copies of a kind taken out with them
    (10.1), Faccioso and Cabo Palos only when agreed (4)."""
    kinds = []
    inc = []
    for k in range(len(ACTION_NAMES)):
        n = int(ak[k, AK_COUNT])
        removed = int(ak[k, AK_NIGHT_REMOVE]) if night else 0
        for j in range(n):
            kinds.append(k)
            use = True
            if ak[k, AK_NIGHT_ONLY] and not night:
                use = False
            if j < removed:
                use = False
            if ak[k, AK_OPTIONAL] and not optional:
                use = False
            inc.append(1 if use else 0)
    return np.asarray(kinds, dtype=np.int64), np.asarray(inc, dtype=np.int8)


def build_pool_mask(setup: MarRojoSetup, neutral: bool, intervention: bool, year: int) -> np.ndarray:
    """``int8[2, npool]``: the cards each side may build with (Rules 9, 11)."""
    pool = setup.pool
    out = np.zeros((2, pool.shape[0]), dtype=np.int8)
    for i in range(pool.shape[0]):
        f = int(pool[i, C_FACTION])
        if year and int(pool[i, C_DATE]) > year:
            continue
        fs = FACTION_SIDE[f]
        if f == F_NEUTRAL:
            if neutral:
                out[:, i] = 1
        elif f < 2:
            out[fs, i] = 1
        elif intervention:
            out[fs, i] = 1
    return out


def build_limits(rt: np.ndarray, length: int, points: tuple[int, int]) -> np.ndarray:
    """``int64[2, NPT]``: the Rule 9 table row of ``length`` per side, the points replaced where
    ``points[side] > 0``."""
    row = np.asarray(rt[RT_POINTS + NPT * length: RT_POINTS + NPT * (length + 1)], dtype=np.int64)
    lim = np.vstack([row, row]).copy()
    for s in range(2):
        if points[s] > 0:
            lim[s, PT_POINTS] = points[s]
    return lim


def feasible(pool: np.ndarray, avail: np.ndarray, lim: np.ndarray) -> bool:
    """Whether the Rule 9 table can be met from the available cards (cheapest completion)."""
    cat = np.where(pool[:, C_TYPE] == 0, 0, np.where(pool[:, C_TYPE] == 4, 1,
                   np.where((pool[:, C_TYPE] == 3) | (pool[:, C_TYPE] == 5), 2, 3)))
    cost = pool[:, C_COST].astype(np.int64)
    used = np.zeros(len(pool), bool)
    total = 0
    spent = 0
    for c, k in ((0, lim[PT_CAP_MIN]), (1, lim[PT_MERCHANTS]), (2, lim[PT_AIRSUB_MIN])):
        idx = [i for i in np.argsort(cost, kind="stable") if avail[i] and cat[i] == c]
        if len(idx) < k:
            return False
        for i in idx[:k]:
            used[i] = True
            spent += int(cost[i])
            total += 1
    if lim[PT_MERCHANTS] > 0 and sum(1 for i in range(len(pool)) if avail[i] and cat[i] == 1) < lim[PT_MERCHANTS]:
        return False
    room = {0: lim[PT_CAP_MAX] - lim[PT_CAP_MIN], 2: lim[PT_AIRSUB_MAX] - lim[PT_AIRSUB_MIN], 3: 10**6}
    for i in np.argsort(cost, kind="stable"):
        if total >= lim[PT_CARDS_MIN]:
            break
        if used[i] or not avail[i] or cat[i] == 1 or room[int(cat[i])] <= 0:
            continue
        room[int(cat[i])] -= 1
        used[i] = True
        spent += int(cost[i])
        total += 1
    return total >= lim[PT_CARDS_MIN] and spent <= lim[PT_POINTS]


def batch_bundles(setup: MarRojoSetup, options: Mapping[str, Any], policies: Mapping[str, str | Policy],
                  debug: bool = False) -> tuple[Tables, Knobs]:
    """The kernels' :class:`~.bundles.Tables` and :class:`~.bundles.Knobs` of one batch.

    Args:
        setup: the scenario payload; options: resolved options; policies: ``{side: preset name or
            Policy}`` (see :func:`pack_policies`); debug: check invariants throughout (slower).

    Raises:
        ScenarioError: if a points-built squadron cannot meet the Rule 9 table from its pool.
    """
    length = setup.length if options["length"] == "scenario" else LENGTH_NAMES.index(options["length"])
    akind, included = action_deck(setup.ak, bool(options["night_combat"]), bool(options["faccioso_cabo_palos"]))
    avail = build_pool_mask(setup, options["neutral_fleets"], options["intervention_fleets"], options["build_year"])
    lim = build_limits(setup.rt, length, (options["points_nationalist"], options["points_republican"]))
    if setup.build:
        for s, side in enumerate(SIDE_NAMES):
            if not feasible(setup.pool, avail[s], lim[s]):
                raise ScenarioError(
                    f"no {side} squadron can meet the Rule 9 table of the {LENGTH_NAMES[length]} length from the cards "
                    f"allowed (year {options['build_year'] or 'any'}, {lim[s, PT_POINTS]} points)")
    builders = np.asarray([BUILDER_NAMES.index(options["builder_nationalist"]),
                           BUILDER_NAMES.index(options["builder_republican"])], dtype=np.int64)
    pols, pp = pack_policies(policies)
    q = np.zeros(NQ, dtype=np.int64)
    q[Q_VICTORY] = setup.victory
    q[Q_MPTS0] = setup.merchant_points[0]
    q[Q_MPTS0 + 1] = setup.merchant_points[1]
    q[Q_SPECIAL] = setup.special
    q[Q_LENGTH] = length
    q[Q_FIRST] = setup.first
    fp = options["first_player"]
    q[Q_FIRST_OVERRIDE] = -1 if fp == "scenario" else SIDE_NAMES.index(fp)
    q[Q_REVEAL] = int(bool(options["initial_reveal"]))
    q[Q_BUILD] = int(setup.build)
    q[Q_RULES] = rules_bits(options)
    tables = Tables(setup.pool, setup.squads, setup.reinf, avail, lim, builders, akind, included, setup.ak, setup.rt, q)
    return tables, Knobs(pp, pols, 1 if debug else 0)


def run_games(setup: MarRojoSetup, options: Mapping[str, Any], policies: Mapping[str, str | Policy], seeds: np.ndarray,
              debug: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Play one game per seed with the compiled kernel.

    Args:
        setup: the scenario payload; options: resolved options; policies: ``{side: preset name or
            Policy}`` (see :func:`pack_policies`);
        seeds: ``uint64[n]``; debug: check invariants throughout (slower).

    Returns:
        ``(out, sq)``: ``int32[n, NOUT]`` (layout ``O_*``) and ``int16[n, NSLOT, 3]`` (pool index,
        final status, damage of every squadron slot).

    Raises:
        ScenarioError: if a points-built squadron cannot meet the Rule 9 table from its pool.
    """
    tables, knobs = batch_bundles(setup, options, policies, debug)
    n = int(seeds.shape[0])
    out = np.zeros((n, NOUT), dtype=np.int32)
    sq = np.zeros((n, NSLOT, 3), dtype=np.int16)
    play_games_nb(np.ascontiguousarray(seeds, dtype=np.uint64), tables, knobs, out, sq)
    return out, sq


def start_games(setup: MarRojoSetup, options: Mapping[str, Any], policies: Mapping[str, str | Policy],
                seeds: np.ndarray, stop: int = 0, debug: bool = False) -> GameState:
    """Start one game per seed and play each up to ``stop`` sub-turns (or its end, if sooner).

    Args: as :func:`run_games`; ``stop``: sub-turns to play (``int >= 0``; 0: the state just
        before the first sub-turn).

    Returns:
        a batch :class:`~.bundles.GameState` (every field with a leading axis of ``n`` games): the
        full state of each game (``g[:, G_OVER]`` is 1 for the games that have ended, whose
        ``out`` and ``sq`` rows are final), to be continued by :func:`play_from`.

    Raises:
        ScenarioError: as :func:`run_games`; ValueError: a negative ``stop``.
    """
    if stop < 0:
        raise ValueError(f"mar-rojo: stop must be >= 0 sub-turns, not {stop}")
    tables, knobs = batch_bundles(setup, options, policies, debug)
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    state = new_state(setup.pool.shape[0], int(seeds.shape[0]))
    init_games_nb(seeds, tables, knobs, state)
    if stop > 0:
        play_on_games_nb(tables, knobs, state, np.int64(stop))
    return state


def play_from(state: GameState, setup: MarRojoSetup, options: Mapping[str, Any],
              policies: Mapping[str, str | Policy], stop: int | None = None, debug: bool = False) -> GameState:
    """Continue the games of a batch state (from :func:`start_games` or an earlier :func:`play_from`)
    on a deep copy of it, with the same kernels that play a whole game, up to ``stop`` sub-turns in
    all (``None``: to the end). ``state`` itself is left unchanged; the batch, options, policies and
    ``debug`` must be those the games were started with.

    Returns:
        the new batch :class:`~.bundles.GameState`; once every game is over (``g[:, G_OVER]``) its
        ``out`` and ``sq`` are exactly :func:`run_games`'s ``(out, sq)`` of the uninterrupted games.

    Raises:
        ScenarioError: as :func:`run_games`; ValueError: a state of another pool size or a negative stop.
    """
    if stop is not None and stop < 0:
        raise ValueError(f"mar-rojo: stop must be >= 0 sub-turns, not {stop}")
    tables, knobs = batch_bundles(setup, options, policies, debug)
    if state.taken.shape[1] != max(setup.pool.shape[0], 1):
        raise ValueError("mar-rojo: the state was started with another card pool")
    new = copy_state(state)
    play_on_games_nb(tables, knobs, new, NO_STOP if stop is None else np.int64(stop))
    return new


def rules_bits(options: Mapping[str, Any]) -> int:
    """The ``G_RULES`` bits (layout ``RU_*``) of the options that choose a reading of the rules:
    ``cabo_victory`` (8.1), ``retreat_hands`` (6) and ``row_limits`` (5.2, 4); an option not given
    takes the rulings' default reading (0)."""
    bits = 0
    if options.get("cabo_victory", "capital-or-pair") == "either-and-escort":
        bits |= RU_CABO_EITHER
    if options.get("retreat_hands", "shuffled") == "kept":
        bits |= RU_RETREAT_KEEP_HANDS
    if options.get("row_limits", "types") == "counts":
        bits |= RU_FREE_ROWS
    return bits


def load_setup(name: str, pack: DataPack) -> tuple[str, MarRojoSetup, str, frozenset]:
    """A built-in scenario by name or a scenario file, parsed against ``pack``.

    Returns:
        ``(name, setup, source, used)``: the scenario's name (a file's stem), its payload, where it
        came from (``builtin:<name>`` or the path) and the data-pack entries it read.

    Raises:
        ScenarioError: on an unknown name or a malformed file; DataPackError on a bad pack.
    """
    view = pack.view()
    if name in BUILTIN:
        doc = read_scenario_file(BUILTIN[name])
        source = f"builtin:{name}"
    elif name.endswith(".toml") or Path(name).exists():
        doc = read_scenario_file(name)
        source = str(name)
        name = Path(name).stem
    else:
        raise ScenarioError(
            f"unknown mar-rojo scenario '{name}' (built-in: {', '.join(BUILTIN)}; or a .toml scenario file)")
    setup = parse_scenario(doc, view, where=Path(source).name if source != f"builtin:{name}" else name)
    return name, setup, source, frozenset(view.used)
