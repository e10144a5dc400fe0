"""Step through one Dawn of Empire campaign phase by phase from Python.

:class:`CampaignState` holds one game's state arrays and calls the same compiled phase kernels the
batch loop calls, so a test (or a notebook) can hand in its own orders, edit the position, inject
dice (:func:`simlab.games.doe.dice.scripted_stream`) and read the results by name::

    cs = CampaignState(data, options, dice=[4, 2, 4, ...])
    cs.begin_turn()
    cs.orders("spain", [{"units": ["Castilla", ...], "leaders": ["Camara"], "order": "raid",
                         "dest": "east-coast", "target": "hampton-roads"}, ...])
    cs.orders("us", [...])
    cs.movement(); cs.combat(); cs.control_and_vp(); cs.repair()

Names are the data pack's keys (units, leaders, areas and ports; area and port display names work
too).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ...rng import STATE_WORDS, new_state_nb
from . import campaign_layout as lay
from . import policy_layout as pk
from .campaign_bundles import GameState, new_scratch_nb, tables_of
from .campaign_combat import (
    close_orders_nb,
    combat_phase_nb,
    control_vp_phase_nb,
    maintenance_phase_nb,
    repair_phase_nb,
)
from .campaign_movement import (
    enemy_counts_nb,
    init_game_nb,
    install_plan_nb,
    movement_side_nb,
    neutral_ports_nb,
    new_forces_nb,
    start_turn_nb,
)
from .campaign_orders import (
    MAXSS,
    PS_DEST,
    PS_DROP_I,
    PS_DROP_N,
    PS_JOIN,
    PS_ORDER,
    PS_R0,
    PS_RN,
    PS_TARGET,
)
from .rules import CampaignData
from .runtime import SIDES, PolicyError, build_par

__all__ = ["CampaignState"]

_LOC_NAMES = {lay.LOC_NOT_ENTERED: "not entered", lay.LOC_SUNK: "sunk", lay.LOC_INTERNED: "interned",
              lay.LOC_SCUTTLED: "scuttled", lay.LOC_ABSENT: "absent"}


class CampaignState:
    """One campaign's state, advanced phase by phase (see the module docstring).

    Args:
        data: the compiled scenario (``Scenario.payload`` of ``dawn-of-empire``).
        options: every option, resolved (``GAME.resolve_options``).
        seed: the game's stream seed (ignored when ``dice`` is given).
        dice: a dice sequence to replay instead of a stream (each die the kernels roll, in order).
        disengage: per side, the 10.2 threshold in permille (``kernels.battle_nb``'s ``flee``;
            0 never, ``kernels.FLEE_ALWAYS`` the default).
        combat_order: Spain's 4.3 B order of the areas (``policy_combat.CO_*``; default pack order).
    """

    def __init__(self, data: CampaignData, options: Mapping[str, Any], seed: int = 0,
                 dice: Iterable[int] | None = None, disengage: Mapping[str, int] | None = None,
                 combat_order: int = 0):
        from .dice import scripted_stream
        self.data = data
        self.options = dict(options)
        self.par = build_par(data, options, {"us": "script", "spain": "script"})
        # the scripted players' choices in combat: 10.2 (default: leave by speed whenever able)
        # and 4.3 B (default: the pack's area order)
        for side, flee in (disengage or {}).items():
            self.par[lay.P_FLEE0 + SIDES.index(side)] = int(flee)
        self.par[lay.P_CORDER] = int(combat_order)
        nu, nl, n = data.ust.shape[0], data.lst.shape[0], data.nodes.shape[0]
        self.U = np.zeros((nu, lay.UF_NF), dtype=np.int64)
        self.S = np.zeros((2 * MAXSS, lay.SF_NF), dtype=np.int64)
        self.SM = np.zeros((2 * MAXSS, lay.MAXPER), dtype=np.int64)
        self.LD = np.zeros((max(nl, 1), lay.LF_NF), dtype=np.int64)
        self.ND = np.zeros((n, lay.ND_NF), dtype=np.int64)
        self.G = np.zeros(lay.G_NF, dtype=np.int64)
        self.ledger_arr = np.zeros((lay.LEDGER_MAX, lay.LG_NF), dtype=np.int64)
        self.bev = np.zeros((lay.BATTLE_MAX, lay.BE_NF), dtype=np.int64)
        if dice is not None:
            self.rng = scripted_stream(dice)
        else:
            self.rng = np.zeros(STATE_WORDS, dtype=np.uint64)
            new_state_nb(np.uint64(seed), self.rng)
        # the bundles the orders and movement kernels take (campaign_bundles): the scenario's
        # tables (no knobs: the plans are handed in) and a scratch for the plan buffers
        self._tb = tables_of(data, self.par, np.zeros((2, pk.KN_NF), dtype=np.int64))
        self._sc = new_scratch_nb(self._tb)
        self._clock = np.zeros(lay.CK_NF, dtype=np.int64)
        self._trace = np.zeros((1, 1, lay.TR_NF), dtype=np.int64)
        self._cw = self._sc.cw
        init_game_nb(data.ust, data.lst, data.nodes, self.par, self.U, self.S, self.SM, self.LD, self.ND, self.G)

    # ------------------------------------------------------------------ names
    def unit(self, name: str) -> int:
        return self.data.unit(name)

    def node(self, name: str) -> int:
        return self.data.node(name)

    @property
    def state(self) -> GameState:
        """This game's arrays as a :class:`campaign_bundles.GameState` (views: the kernels that
        take it write here)."""
        return GameState(self.U, self.S, self.SM, self.LD, self.ND, self.G, self.ledger_arr, self.bev, self.rng,
                         self._clock, self._trace)

    def node_key(self, i: int) -> str:
        a = self.data.n_areas
        return self.data.area_keys[i] if i < a else self.data.port_keys[i - a]

    # ------------------------------------------------------------------ phases
    def begin_turn(self) -> int:
        """New Forces Phase of the next turn (4.1.1); returns the turn number."""
        t = int(self.G[lay.G_TURN]) + 1
        self.G[lay.G_TURN] = t
        new_forces_nb(t, self.data.ust, self.par, self.U, self.ND)
        start_turn_nb(self.G, self.U)
        return t

    def orders(self, side: str, stacks: Sequence[Mapping[str, Any]]) -> None:
        """Hand in one side's orders (4.1.2): every unit of the side in play must be in a stack.

        Each stack: ``units`` (names, line order), optional ``leaders`` (names), ``order`` (an
        order name or ``"hold"``), ``dest`` (area or port; default: where the stack is),
        ``target`` (the port of a Raid or Blockade), ``join`` (an independent unit joins a
        friendly squadron where it ends; default True), ``route`` (the areas and port entered in
        turn, the last the destination, 7.1 F; default: the least-MP route, ruling C8) and
        ``drop`` (``(area, units)``: the last ``units`` of the line stay in that area of the
        route, 7.3 D; default none).

        Raises:
            PolicyError: if the engine finds the plan illegal (the message names the stack).
            KeyError: on an unknown name.
        """
        s = SIDES.index(side)
        d = self.data
        sc = self._sc
        pu, pp, pst, pl = sc.pu, sc.pp, sc.pst, sc.pl
        pu[:] = -1
        pp[:] = 0
        pst[:] = 0
        pl[:] = -1
        for k, st in enumerate(stacks):
            for pos, name in enumerate(st["units"]):
                pu[d.unit(name)] = k
                pp[d.unit(name)] = pos
            for name in st.get("leaders", ()):
                pl[d.leader(name)] = k
            pst[k, PS_ORDER] = lay.ORDER_NAMES.index(st["order"])
            first = d.unit(st["units"][0])
            pst[k, PS_DEST] = self.node(st["dest"]) if st.get("dest") else self.U[first, lay.UF_LOC]
            pst[k, PS_TARGET] = self.node(st["target"]) if st.get("target") else -1
            pst[k, PS_JOIN] = 1 if st.get("join", True) else 0
            route = [self.node(x) for x in st.get("route", ())]
            pst[k, PS_RN] = len(route)
            pst[k, PS_R0:PS_R0 + len(route)] = route
            if st.get("drop"):
                where, n_drop = st["drop"]
                n_where = self.node(where)
                pst[k, PS_DROP_I] = route.index(n_where) if n_where in route else -1
                pst[k, PS_DROP_N] = n_drop
        enemy_counts_nb(s, self.U, d.ust, sc.enemy_n)
        err, slot = install_plan_nb(s, len(stacks), self._tb, self.state, sc)
        if err != lay.ERR_NONE:
            what = f"stack {slot} ({', '.join(stacks[slot]['units'])})" if 0 <= slot < len(stacks) else "plan"
            raise PolicyError(f"illegal {side} orders, {what}: {lay.ERR_NAMES[err]}")

    def movement(self) -> None:
        """Movement Phase (4.2): Spain, then the US; then neutral-port counting (7.2.3 D)."""
        d = self.data
        for side in (lay.SPAIN, lay.US):
            movement_side_nb(side, self._tb, self.state)
        neutral_ports_nb(d.ust, d.lst, d.nodes, self.par, self.U, self.S, self.SM, self.LD, self.G)

    def combat(self) -> None:
        """Combat Phase (4.3, 8.0)."""
        d = self.data
        tb = tables_of(d, self.par, np.zeros((2, pk.KN_NF), dtype=np.int64))
        st = GameState(self.U, self.S, self.SM, self.LD, self.ND, self.G, self.ledger_arr, self.bev, self.rng,
                       np.zeros(lay.CK_NF, dtype=np.int64), np.zeros((1, 1, lay.TR_NF), dtype=np.int64))
        combat_phase_nb(tb, st, self._sc)

    def control_and_vp(self) -> None:
        """Area Control and VP Phase (4.4, 11.0, 12.1)."""
        control_vp_phase_nb(self.data.nodes, self.par, self.S, self.ND, self.G, self.ledger_arr)

    def repair(self) -> None:
        """Repairs Phase (4.5, 9.0), maintenance under 14.3, and the end of the turn's orders."""
        d = self.data
        close_orders_nb(d.ust, self.U)
        repair_phase_nb(d.ust, d.nodes, self.par, self.U, self.ND, self._cw, self.rng)
        if self.par[lay.P_MAINT]:
            maintenance_phase_nb(int(self.G[lay.G_TURN]), d.ust, d.nodes, self.par, self.U, self.rng)
        self.G[lay.G_TURNS] = self.G[lay.G_TURN]

    # ------------------------------------------------------------------ editing
    def place(self, names: Iterable[str], where: str) -> None:
        """Put units (and the leaders aboard them) somewhere else: a hand-built position."""
        n = self.node(where)
        for name in names:
            self.U[self.unit(name), lay.UF_LOC] = n

    def set_history(self, names: Iterable[str], prev: str, streak: int = 0, neutral: int = 0) -> None:
        """Set units' previous order (``"anchor"``...), Transit streak and neutral-port count."""
        for name in names:
            u = self.unit(name)
            self.U[u, lay.UF_PREV] = lay.ORDER_NAMES.index(prev)
            self.U[u, lay.UF_STREAK] = streak
            self.U[u, lay.UF_NEUTRAL] = neutral

    def set_damage(self, name: str, damage: int) -> None:
        self.U[self.unit(name), lay.UF_DMG] = damage

    def set_control(self, area: str, side: str | None) -> None:
        """Put (or clear) a control marker (7.6)."""
        self.ND[self.node(area), lay.ND_CONTROL] = -1 if side is None else SIDES.index(side)

    def remove(self, names: Iterable[str]) -> None:
        """Take units out of the game (as if absent)."""
        for name in names:
            self.U[self.unit(name), lay.UF_LOC] = lay.LOC_ABSENT
        for i in range(self.data.lst.shape[0]):
            u = int(self.LD[i, lay.LF_UNIT])
            if u >= 0 and self.U[u, lay.UF_LOC] < 0:
                self.LD[i, lay.LF_STATE] = lay.LEADER_ABSENT
                self.LD[i, lay.LF_UNIT] = -1

    # ------------------------------------------------------------------ reading
    def where(self, name: str) -> str:
        """An in-play unit's area or port key, or its fate (``sunk``, ``interned``...)."""
        loc = int(self.U[self.unit(name), lay.UF_LOC])
        return self.node_key(loc) if loc >= 0 else _LOC_NAMES[loc]

    def damage(self, name: str) -> int:
        return int(self.U[self.unit(name), lay.UF_DMG])

    def out_of_combat(self, name: str) -> str:
        """``""``, ``"disabled"`` or ``"escaped"`` this turn (until the Repairs Phase)."""
        return {0: "", lay.OUT_DISABLED: "disabled", lay.OUT_ESCAPED: "escaped"}[int(self.U[self.unit(name), lay.UF_OUT])]

    def order(self, name: str) -> str:
        o = int(self.U[self.unit(name), lay.UF_ORDER])
        return "" if o < 0 else lay.ORDER_NAMES[o]

    def prev_order(self, name: str) -> str:
        return lay.ORDER_NAMES[int(self.U[self.unit(name), lay.UF_PREV])]

    def stack(self, name: str) -> list[str]:
        """The units of a unit's stack, in line order."""
        s = int(self.U[self.unit(name), lay.UF_STACK])
        if s < 0:
            return [name]
        return [self.data.unit_names[int(u)] for u in self.SM[s, :self.S[s, lay.SF_N]]]

    def leader(self, name: str) -> str:
        """Where a leader is: the unit aboard, ``killed`` or ``absent``."""
        i = self.data.leader(name)
        st = int(self.LD[i, lay.LF_STATE])
        if st == lay.LEADER_DEAD:
            return "killed"
        if st != lay.LEADER_IN_PLAY:
            return "absent"
        return self.data.unit_names[int(self.LD[i, lay.LF_UNIT])]

    def control(self, area: str) -> str:
        c = int(self.ND[self.node(area), lay.ND_CONTROL])
        return "" if c < 0 else SIDES[c]

    def port_damage(self, port: str) -> int:
        return int(self.ND[self.node(port), lay.ND_PDMG])

    @property
    def vp_net(self) -> int:
        return int(self.G[lay.G_VP_NET])

    def score(self, side: str) -> int:
        return int(self.G[lay.G_SCORE0 + SIDES.index(side)])

    def ledger(self) -> list[dict]:
        """Every VP award so far: ``{turn, side, kind, amount, where}``."""
        out = []
        for r in self.ledger_arr[: int(self.G[lay.G_NLEDGER])]:
            out.append({"turn": int(r[lay.LG_TURN]), "side": SIDES[int(r[lay.LG_SIDE])],
                        "kind": lay.VP_KINDS[int(r[lay.LG_KIND])], "amount": int(r[lay.LG_AMOUNT]),
                        "where": self.node_key(int(r[lay.LG_WHERE])) if r[lay.LG_WHERE] >= 0 else ""})
        return out

    def battles(self) -> list[dict]:
        """Every battle so far (the ``battles`` events columns, names decoded)."""
        out = []
        for r in self.bev[: int(self.G[lay.G_NBEV])]:
            out.append({"turn": int(r[lay.BE_TURN]), "area": self.node_key(int(r[lay.BE_AREA])),
                        "initiative": SIDES[int(r[lay.BE_INIT])], "rounds": int(r[lay.BE_ROUNDS]),
                        "winner": SIDES[int(r[lay.BE_WINNER])] if r[lay.BE_WINNER] >= 0 else "none",
                        "sunk_us": int(r[lay.BE_SUNK0]), "sunk_spain": int(r[lay.BE_SUNK1]),
                        "disabled_us": int(r[lay.BE_DIS0]), "disabled_spain": int(r[lay.BE_DIS1])})
        return out

    def dice_used(self) -> int:
        """Dice rolled so far from a scripted stream."""
        from .dice import script_position
        return script_position(self.rng)

    def counts(self) -> dict[str, int]:
        return {"battles": int(self.G[lay.G_BATTLES]), "port_attacks": int(self.G[lay.G_PATTACKS])}
