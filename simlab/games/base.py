"""The contract every game plug-in fulfils.

A game is a :class:`Game` subclass registered in :mod:`simlab.games`. The sweep runner knows
nothing else about it: it asks the game for a :class:`Scenario`, validates options and policies
with the game's declarations, and calls :meth:`Game.play_batch` with an array of per-game seeds.
``play_batch`` returns a :class:`Batch` of numpy columns, one row per game, which the runner
turns into Parquet after adding the key columns (experiment, cell, game_index, seed, game,
scenario, policy_<side>, the grid options).

Required game columns in ``Batch.games``:

* ``winner``: ``int8``, index into ``Scenario.sides``, ``-1`` for a draw;
* ``score_<side>``: one numeric column per side;
* ``turns``: ``int16``/``int32``, turns played (battle rounds for a battle).

Everything else is game-specific (``end_reason`` as small ints with ``Batch.categories`` giving
their labels, ships sunk, ...). ``Batch.events`` optionally holds more tables (``{name: columns}``)
whose column ``game`` is the row of the game within the batch (the runner maps it to
``game_index``).

Declarations the framework acts on: ``kernel_modules`` (numba's cache of them is kept fresh before
the first batch), ``odds_options`` (the ``simlab odds <game>`` command). Optional hooks, all
methods: ``odds``/``odds_report`` (combat odds as plain values and their human-readable form),
``bench_cases``/``bench_scenarios``/``bench_targets``/``bench_dice`` (benchmarks, the game's speed targets
and the dice its games rolled, for the dice-floor ratio) and
``rescore`` (winners recomputed for other values of ``score_only`` options, which
lets ``simlab tune`` draw a handicap's whole curve from one sweep).

Bad input (an unknown scenario, a malformed scenario file, a bad option value) raises
:class:`simlab.errors.InputError` subclasses with one-line messages.

Soak hooks (``simlab soak``, ``make soak``; :mod:`simlab.testing.soak`): ``soak_cases()`` lists the
``(scenario, options)`` pairs to soak, ``soak_policies(sides)`` the policies (``random-legal``
where a side has it), ``invariant_violations(scenario, batch, options)`` returns one-line messages
(the default checks the generic contract; games add their own invariants), and ``capped(...)``
flags games that stopped at a loop cap: every loop in a kernel has a cap, and a game stopped by
one reports it in ``end_reason`` with a label from ``cap_reasons``, so the soak counts it as a hang
instead of passing over it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np

from ..datapack import DataPack, PackSchema, apply_override, load_pack
from ..errors import SpecError
from .contract import batch_violation
from .odds import OddsOption, Table
from .packing import PolicyPacking
from .policy import (
    MIX_PREFIX,
    ROLLOUT_PREFIX,
    Mixture,
    Policy,
    PolicyBook,
    active_policy_files,
    fixed_book,
    game_policy_book,
    load_policy_book,
    mix_draws,
    mix_file,
    split_knob_name,
)
from .records import Record

__all__ = ["BenchCase", "Batch", "DiceCount", "Game", "Option", "Policy", "Scenario", "SIDE_NAME"]

P = TypeVar("P")

SIDE_NAME = re.compile(r"^[a-z][a-z0-9_]{0,31}$")


@dataclass(frozen=True)
class Option:
    """A typed game option, usable in ``--set`` and ``--grid``.

    Attributes:
        name: option name (``snake_case``).
        kind: ``int``, ``float``, ``bool`` or ``str``.
        default: the value when not set.
        choices: allowed values for a ``str`` (or ``int``) option.
        min, max: inclusive bounds for numbers.
        doc: one line for ``simlab games``, with units and the rule section.
        score_only: True when the option only shifts the final score and no policy looks at the
            score (``simlab tune`` may then derive its curve from one sweep without replaying).
    """

    name: str
    kind: type
    default: Any
    choices: tuple | None = None
    min: float | None = None
    max: float | None = None
    doc: str = ""
    score_only: bool = False

    def parse(self, raw: Any) -> Any:
        """Convert and check a value from TOML or from a CLI string.

        Raises:
            SpecError: if the value has the wrong type, is out of range or not a choice.
        """
        v = raw
        try:
            if self.kind is bool:
                # strict and the same in TOML and on the command line: true/false only
                if isinstance(raw, str):
                    low = raw.strip()
                    if low not in ("true", "false"):
                        raise ValueError
                    v = low == "true"
                elif isinstance(raw, bool):
                    v = raw
                else:
                    raise ValueError
            elif self.kind is int:
                if isinstance(raw, bool) or isinstance(raw, float):
                    raise ValueError
                v = int(raw.strip()) if isinstance(raw, str) else int(raw)
                if not isinstance(raw, (int, str)):
                    raise ValueError
            elif self.kind is float:
                if isinstance(raw, bool):
                    raise ValueError
                v = float(raw)
                if not np.isfinite(v):
                    raise ValueError
            else:
                if not isinstance(raw, str):
                    raise ValueError
                v = raw.strip()
        except (ValueError, TypeError):
            want = "bool (true or false)" if self.kind is bool else self.kind.__name__
            raise SpecError(f"option {self.name}: {raw!r} is not a valid {want}") from None
        if self.choices is not None and v not in self.choices:
            raise SpecError(f"option {self.name}: {raw!r} is not one of {', '.join(map(str, self.choices))}")
        if self.min is not None and v < self.min:
            raise SpecError(f"option {self.name}: {v} is below the minimum {self.min}")
        if self.max is not None and v > self.max:
            raise SpecError(f"option {self.name}: {v} is above the maximum {self.max}")
        return v

    def describe(self) -> dict:
        d = {"name": self.name, "type": self.kind.__name__, "default": self.default, "doc": self.doc}
        if self.choices is not None:
            d["choices"] = list(self.choices)
        if self.min is not None:
            d["min"] = self.min
        if self.max is not None:
            d["max"] = self.max
        if self.score_only:
            d["score_only"] = True
        return d


@dataclass
class Scenario(Generic[P]):
    """A prepared scenario: what ``play_batch`` needs, plus what the manifest records.

    ``Scenario[P]`` names the payload's type: a game whose scenarios come in several kinds gives
    each its own payload dataclass and tells them apart with ``isinstance``, never by a tag.

    Attributes:
        name: the scenario's name (a built-in name, or the file's stem).
        sides: side names in a fixed order; ``winner`` indexes this tuple.
        payload: the game's compiled scenario (a dataclass of numpy arrays, ...), of type ``P``.
        source: ``builtin:<name>`` or the file path.
        used: the ``(table, key, field)`` data-pack values this scenario (and the rules it
            compiled) read, for provenance accounting (``PackView.used``).
        title: a human title.
    """

    name: str
    sides: tuple[str, ...]
    payload: P
    source: str = ""
    used: frozenset = frozenset()
    title: str = ""


@dataclass
class Batch:
    """Columnar results of ``play_batch``: one row per seed, in seed order.

    Attributes:
        games: ``{column: ndarray(shape=(n,))}``.
        categories: ``{column: labels}`` for small-int columns to be written as strings.
        events: ``{table: {column: ndarray}}`` with an ``int64`` column ``game`` (row in the batch).
    """

    games: dict[str, np.ndarray]
    categories: dict[str, Sequence[str]] = field(default_factory=dict)
    events: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)


@dataclass(frozen=True)
class BenchCase:
    """One kernel-level benchmark of a game (:meth:`Game.bench_cases`).

    Attributes:
        name: shown as ``<game>/<name>``.
        unit: what ``fn`` does ``items`` of (``"battles"``, ``"games"``); ``"s"`` reports seconds
            per call instead of a rate.
        items: units of work one ``fn()`` call does.
        fn: the work; its first call (compilation) is not timed.
        detail: one line for the table.
        ratio_to: another case's ``name`` of this game: the harness also reports this case's rate
            over that one's, named ``ratio_name``.
    """

    name: str
    unit: str
    items: int
    fn: Callable[[], object]
    detail: str = ""
    ratio_to: str = ""
    ratio_name: str = ""

    @classmethod
    def of(cls, case: BenchCase | Mapping[str, Any]) -> BenchCase:
        """A case from a :class:`BenchCase` or a dict with the same keys.

        Raises:
            SpecError: a dict without ``name``, ``unit``, ``items`` or ``fn``, or with other keys.
        """
        if isinstance(case, BenchCase):
            return case
        try:
            return cls(**dict(case))
        except TypeError as e:
            raise SpecError(f"bad bench case {case.get('name', '?')!r}: {e}") from None


@dataclass(frozen=True)
class DiceCount:
    """The dice a batch's games rolled (:meth:`Game.bench_dice`), for ``simlab bench``.

    Attributes:
        per_game: ``int64[n]``, dice (random draws) of each game in seed order; ``None``: not
            measured.
        what: what was counted (one phrase for the bench's detail column), or why nothing was.
        complete: ``False`` when only part of the game's dice is counted (a lower bound, so the
            dice-floor ratio is an upper bound) or nothing is.
    """

    per_game: np.ndarray | None
    what: str
    complete: bool = True


class Game:
    """Base class of a game plug-in. Subclasses set the class attributes and the methods below."""

    #: registry name, e.g. ``"doe-battle"``
    name: str = ""
    #: one-line title
    title: str = ""
    #: what the compile progress of a first run calls the game's kernels ("compiling the Dawn of
    #: Empire kernels, once: 3/9"; :mod:`simlab.compile_progress`); empty: the registry name
    kernels_name: str = ""
    #: the rulebook file in ``shared/seeds`` (documentation only)
    rulebook: str = ""
    #: fixed side names, or ``None`` when a scenario defines its own
    sides: tuple[str, ...] | None = None
    #: each side's colour in every figure (``#rrggbb``), e.g. a navy's ensign; a side left out
    #: gets a palette colour chosen from its name (:func:`simlab.colors.side_colors`)
    side_colors: Mapping[str, str] = {}
    #: the typed options
    options: tuple[Option, ...] = ()
    #: the game's ``policies.toml`` (policy families, knobs and presets; see
    #: :mod:`simlab.games.policy`). ``None``: the game lists plain policy names in ``policies``.
    policy_file: Path | None = None
    #: how the game's kernels read its policies (:class:`simlab.games.packing.PolicyPacking`: the
    #: knob rows, their slots in the layout, the family codes); its ``policy_file`` is the game's.
    #: The book is checked against it when first read. ``None``: the game packs ``Policy.vector()``
    #: or reads ``Policy.value`` itself (a game with few knobs)
    policy_packing: PolicyPacking | None = None
    #: policy names by side (the key ``"*"`` applies to any side), for a game without a
    #: ``policy_file``: each name is then a knob-less family of its own
    policies: Mapping[str, Sequence[str]] = {}
    #: the default policy by side (``"*"`` for any side)
    default_policies: Mapping[str, str] = {}
    #: built-in scenario names
    scenarios: tuple[str, ...] = ()
    default_scenario: str = ""
    #: the folder of the game's data pack (None: the game has no pack)
    data_dir: Path | None = None
    @property
    def kernel_modules(self) -> tuple[str, ...]:
        """Dotted names of every module the game's compiled kernels are built from: each file of the
        game's folder with a kernel and the modules of the folder they import (``enums``,
        ``layout``...), found by reading the sources (:func:`simlab.kernel_cache.find_kernel_modules`;
        nothing is imported). The framework keeps numba's on-disk cache of them fresh
        (:meth:`ensure_kernels_fresh`); ``simlab.rng`` is always included. A game whose module is
        not in a folder of its own (a single module beside others) sets this to a tuple instead.

        Raises:
            ModuleNotFoundError: the game's module is not in a package folder.
        """
        from ..kernel_cache import find_kernel_modules
        return find_kernel_modules(type(self).__module__.rpartition(".")[0])
    #: the games table's column declarations (name, type, unit, meaning: :mod:`simlab.games.schema`);
    #: a TOML file in the game's own folder, e.g. ``Path(__file__).parent / "columns" / "<name>.toml"``;
    #: None: the game declares no columns of its own
    columns_file: Path | None = None
    #: the games table declared once beside the kernels that fill it (:class:`simlab.games.records.Record`:
    #: each column's name, type, unit, meaning and slot of the kernels' ``out`` rows); when given, the
    #: schema comes from it (and ``event_records``) instead of ``columns_file``
    output_record: Record | None = None
    #: several records that fill the games table, each field with the scenarios that write it (Dreadnought:
    #: its battles' ``out`` rows and its campaigns' ``go`` rows); the schema merges them
    #: (:func:`simlab.games.schema.record_columns`). Given instead of ``output_record``
    output_records: tuple[Record, ...] = ()
    #: ``{events table: Record}`` declared with ``output_record`` (or ``output_records``)
    event_records: Mapping[str, Record] = {}
    #: the game's decision inventory: every choice its rulebook gives a player, the rule section and
    #: the knobs that make it (:mod:`simlab.games.decisions`); a TOML file in the game's own folder,
    #: e.g. ``Path(__file__).parent / "decisions.toml"``. None: the game lists none (a synthetic game)
    decisions_file: Path | None = None
    #: the smallest chunk (games) a sweep's automatic chunk size makes for this game
    #: (:func:`simlab.sweeps.runner.auto_chunk_size`). A game that plays far fewer than 1,000 games
    #: a second on one core sets it low, so that a sweep of a few hundred games still gives every
    #: worker several chunks. Rows never depend on it (they depend on the chunk size only under a
    #: precision target, whose chunk size is fixed).
    min_chunk: int = 1_000
    #: the luck distribution of one of the game's dice: ``float64[k]``, ``pmf[v]`` the probability
    #: that one die adds ``v`` to the luck total (e.g. damage points of one gunfire die), summing to
    #: 1. :mod:`simlab.analysis.luck` convolves it ``n`` times for exact luck percentiles when every
    #: recorded die has this distribution. None: the game declares none (``simlab luck`` then uses
    #: the recorded expected/observed totals alone).
    luck_die_pmf: Any = None
    #: options that turn on the game's events table for the golden trace of game 0
    #: (:mod:`simlab.testing.golden`); they may only add a table, never move a row
    golden_trace_options: Mapping[str, Any] = {}
    #: golden cells beyond the policy pairings: ``({"scenario": str, "options": {name: value}}, ...)``
    #: played under the default policies (e.g. the options the README's main jobs use)
    golden_extra_cells: tuple[Mapping[str, Any], ...] = ()
    #: ``simlab bench`` times the CLI's start-up and a 1,000-game sweep with this game (one game sets it)
    bench_cli: bool = False
    #: ``simlab bench`` measures the peak memory of a large sweep of this game (its target, if any,
    #: is ``"peak memory of a large sweep"`` in :meth:`bench_targets`)
    bench_peak_memory: bool = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Make every subclass's ``play_batch`` refresh the kernel cache before its first batch."""
        super().__init_subclass__(**kwargs)
        play = cls.__dict__.get("play_batch")
        if play is not None and not getattr(play, "_refreshes_kernels", False):
            @functools.wraps(play)
            def play_batch(self, scenario, options, policies, seeds, *args, **kw):
                if not self._kernels_fresh:
                    self.ensure_kernels_fresh()
                if any(isinstance(p, Mixture) for p in policies.values()):
                    return _play_mixed(self, play, scenario, options, policies, seeds, *args, **kw)
                return play(self, scenario, options, policies, seeds, *args, **kw)

            play_batch._refreshes_kernels = True  # type: ignore[attr-defined]
            cls.play_batch = play_batch  # type: ignore[method-assign]

    _kernels_fresh: bool = False

    def sweep_kernels(self, scenario: Scenario, options: Mapping[str, Any]) -> Sequence[Any]:
        """The kernels ``play_batch`` calls from Python for ``scenario`` under ``options`` (numba dispatchers).

        The framework counts what they compile, and only that, for the compile progress of a
        sweep's first run (:mod:`simlab.compile_progress`): a campaign sweep lists the campaign's
        loop, not the odds kernels. Importing them loads numba, so only the runner's preflight
        calls it. The default, none, shows the compile as a count without a total.
        """
        return ()

    def ensure_kernels_fresh(self) -> bool:
        """Drop numba's cached kernels of :attr:`kernel_modules` if their sources changed since they
        were cached (:func:`simlab.kernel_cache.ensure_fresh`); once per process.

        The framework calls it before a game's first batch (``play_batch`` is wrapped), its first
        odds and its benchmarks; a game never needs to. Returns True if cache files were removed.

        Raises:
            ModuleNotFoundError: a declared kernel module that does not exist.
        """
        from .. import kernel_cache  # numba is imported only when a game is about to play
        removed = kernel_cache.ensure_fresh(self.kernel_modules)
        self._kernels_fresh = True
        return removed

    # ------------------------------------------------------------------ data
    def data_schema(self) -> PackSchema | None:
        """The game's data-pack schema (``None`` when it has no pack)."""
        return None

    def load_data(self, override: str | Path | None = None) -> DataPack | None:
        """The game's data pack, with an override pack applied when given.

        Raises:
            DataPackError: if the pack or the override is malformed.
        """
        schema = self.data_schema()
        if schema is None or self.data_dir is None:
            if override is not None:
                raise SpecError(f"game {self.name} has no data pack to override")
            return None
        pack = _cached_pack(self.name, str(self.data_dir), schema)
        if override is not None:
            pack, _ = apply_override(pack, override, schema)
        return pack

    # ------------------------------------------------------------------ declarations
    def option_map(self) -> dict[str, Option]:
        return {o.name: o for o in self.options}

    def resolve_options(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults overlaid with ``given`` (parsed and checked).

        Raises:
            SpecError: on an unknown option or a bad value.
        """
        om = self.option_map()
        out = {o.name: o.default for o in self.options}
        for k, v in given.items():
            if k not in om:
                known = ", ".join(om) or "none"
                raise SpecError(f"game {self.name} has no option '{k}' (options: {known})")
            out[k] = om[k].parse(v)
        self.check_options(out)
        return out

    def check_options(self, options: Mapping[str, Any]) -> None:
        """Cross-option checks (override to forbid combinations). Raises SpecError."""

    def policy_book(self) -> PolicyBook:
        """The game's policy families and presets (read once from ``policy_file``).

        Raises:
            SpecError: a malformed ``policies.toml`` (a defect of the game, reported in one line).
        """
        book = self.__dict__.get("_policy_book")
        if book is None:
            if self.policy_packing is not None:
                book = self.policy_packing.book()  # the one cache (game_policy_book), checked
            elif self.policy_file is not None:
                book = game_policy_book(Path(self.policy_file))
            else:
                book = fixed_book(self.policies)
            self.__dict__["_policy_book"] = book
        files = active_policy_files()
        if files:
            book = self._extended_book(book, files)
        return book

    def _extended_book(self, book: PolicyBook, files: Sequence[str]) -> PolicyBook:
        """The game's book with the presets of the policies files in force whose families it has
        (files for other games are left out)."""
        cache = self.__dict__.setdefault("_extended_books", {})
        key = tuple((f, Path(f).stat().st_mtime_ns) for f in files)
        if key not in cache:
            out = book
            for f in files:
                try:
                    extra = load_policy_book(f, base=book)
                except SpecError:
                    raise  # already names the file
                except ValueError as e:
                    raise SpecError(f"{Path(f).name}: {e}") from None
                if extra.meta.get("game", self.name) != self.name:
                    continue
                out = out.extended(extra, where=Path(f).name)
                self._check_named_presets(out, extra, Path(f).name)
            cache[key] = out
        return cache[key]

    def _check_named_presets(self, book: PolicyBook, extra: PolicyBook, where: str) -> None:
        """Every ``[mixes.SIDE]`` and ``[exploitability.SIDE.PRESET]`` of a policies file names a side
        of this game and a preset that side may play (else the entry was silently never used).

        Raises:
            SpecError: (one line) the first side or preset that is not.
        """
        sides = list(self.sides or ())
        for table, rows in (("mixes", extra.mixes), ("exploitability", extra.exploits)):
            for side, names in (rows or {}).items():
                if sides and side not in sides:
                    raise SpecError(f"{where}: {table}.{side}: {self.name} has no side {side!r} "
                                    f"(sides: {', '.join(sides)})")
                allowed = book.side_presets(side)
                for p in names:
                    if p not in allowed:
                        raise SpecError(f"{where}: {table}.{side}.{p}: no preset {p!r} for side {side} "
                                        f"(presets: {', '.join(allowed)})")

    def resolve_mix(self, side: str, name: str) -> Mixture:
        """The mixed policy ``@mix:DIR`` of ``side``: the ``[mixes.<side>]`` weights of
        ``DIR/policies.toml`` (or of the file DIR names), each preset resolved with its knobs.

        Raises:
            SpecError: no such file, no mix for the side, or a preset the game cannot resolve.
        """
        target = name[len(MIX_PREFIX):]
        if not target:
            raise SpecError(f"policy {name!r}: give a solve directory or policies file after {MIX_PREFIX}")
        path = mix_file(target)
        base = self.policy_book()
        try:
            extra = load_policy_book(path, base=base)
        except SpecError:
            raise  # already names the file
        except ValueError as e:
            raise SpecError(f"{path.name}: {e}") from None
        if extra.meta.get("game", self.name) != self.name:
            raise SpecError(f"{path}: written for game {extra.meta.get('game')}, not {self.name}")
        mix = extra.mixes.get(side)
        if not mix:
            raise SpecError(f"{path}: no mix for side {side} (mixes: {', '.join(extra.mixes) or 'none'})")
        book = base.extended(extra, where=path.name) if str(path) not in active_policy_files() else base
        total = float(sum(mix.values()))
        comps = tuple((float(w) / total, book.resolve(side, p)) for p, w in mix.items() if w > 0)
        sides = list(self.sides or ())
        salt = sides.index(side) if side in sides else len(side)
        return Mixture(name, "mix", (), comps, salt)

    def side_policies(self, side: str) -> tuple[str, ...]:
        """The preset names ``side`` may play, in declaration order."""
        if self.policy_file is None:
            return tuple(self.policies.get(side, self.policies.get("*", ())))
        return self.policy_book().side_presets(side)

    def policy_unavailable(self, scenario: Scenario, side: str, name: str) -> str | None:
        """Why the preset ``name`` is not offered to ``side`` in ``scenario`` (one line), or ``None``.

        A game withholds a preset in a scenario where it would only repeat another preset (e.g.
        Dreadnought's ``make-for-objective`` where the scenario gives the side no objective). The
        sweep spec refuses such a cell with this line; ``meta`` and ``solve`` leave the preset out
        of the scenario's roster (:meth:`scenario_policies`). Default: every preset is offered.
        """
        return None

    def scenario_policies(self, scenario: Scenario, side: str) -> tuple[str, ...]:
        """The preset names ``side`` may play in ``scenario``: :meth:`side_policies` less those
        :meth:`policy_unavailable` withholds there, in declaration order."""
        return tuple(p for p in self.side_policies(side) if self.policy_unavailable(scenario, side, p) is None)

    def default_policy(self, side: str) -> str:
        return self.default_policies.get(side, self.default_policies.get("*"))

    def resolve_policies(self, sides: Sequence[str], given: Mapping[str, str],
                         knobs: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Policy]:
        """The policy of each side: defaults overlaid with ``given``, knob settings applied.

        Args:
            sides: the scenario's sides.
            given: ``{side: preset name}``.
            knobs: ``{side: {knob: value}}`` settings on top of the presets' values.

        Returns:
            ``{side: Policy}`` in ``sides`` order.

        Raises:
            SpecError: on an unknown side, policy or knob, or a knob value outside its bounds.
        """
        for s in list(given) + list(knobs or {}):
            if s not in sides:
                raise SpecError(f"unknown side '{s}' (sides: {', '.join(sides)})")
        book = self.policy_book()
        out = {}
        for s in sides:
            p = given.get(s, self.default_policy(s))
            if isinstance(p, str) and p.startswith(MIX_PREFIX):
                if (knobs or {}).get(s):
                    raise SpecError(f"side {s} plays the mixed policy {p}: its knobs cannot be set")
                mx = self.resolve_mix(s, p)
                out[s] = Mixture(mx.name, mx.family, (), mx.components, list(sides).index(s))
                continue
            if isinstance(p, str) and p.startswith(ROLLOUT_PREFIX):
                out[s] = self.resolve_rollout(s, p, (knobs or {}).get(s))
                continue
            out[s] = book.resolve(s, p, (knobs or {}).get(s))
        return out

    def resolve_rollout(self, side: str, name: str, knobs: Mapping[str, Any] | None = None) -> Policy:
        """The rollout exploiter ``@rollout:BASE[:R]`` of ``side`` (a
        :class:`~simlab.games.policy.RolloutPolicy`), ``knobs`` set on its base. A game with a
        rollout exploiter overrides this (issue 29: Mar Rojo).

        Raises:
            SpecError: this game has none.
        """
        raise SpecError(f"policy {name!r}: game {self.name} has no rollout exploiter yet (issue 29)")

    def policies_of(self, sides: Sequence[str], policies: Mapping[str, Policy | str]) -> dict[str, Policy]:
        """``policies`` as :class:`Policy` objects: a preset name is resolved with its preset's knobs.

        ``play_batch`` is called with resolved policies by the sweep runner; tests and notebooks
        may pass plain preset names.
        """
        names = {s: p for s, p in policies.items() if not isinstance(p, Policy)}
        out = dict(policies)
        if names:
            out.update(self.resolve_policies(sides, names))
        return {s: out[s] for s in sides if s in out}

    def split_settings(self, settings: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """Split ``--set``/``[options]`` entries into game options and knob settings
        (``<side>.<knob>``): returns ``(options, {side: {knob: value}})``.
        """
        opts: dict[str, Any] = {}
        knobs: dict[str, dict[str, Any]] = {}
        for k, v in settings.items():
            sk = split_knob_name(k)
            if sk is None:
                opts[k] = v
            else:
                knobs.setdefault(sk[0], {})[sk[1]] = v
        return opts, knobs

    def describe(self) -> dict:
        """What ``simlab games --json`` prints for this game.

        ``policies`` lists the preset names by side; ``policy_families`` and ``presets`` give
        each family's knobs (name, type, default, lo, hi, doc) and each preset's family and knob
        values, per side; ``decisions`` the decision inventory, ``{section, decision, side, knobs,
        doc[, gap]}`` per choice the rulebook gives a player.
        """
        sides = list(self.sides) if self.sides else None
        book = self.policy_book().describe(sides)
        out = {
            "name": self.name,
            "title": self.title,
            "sides": list(self.sides) if self.sides else "defined by the scenario",
            "scenarios": list(self.scenarios),
            "default_scenario": self.default_scenario,
            "policies": {k: list(self.side_policies(k)) for k in (sides or ["*"])},
            "default_policies": dict(self.default_policies),
            "policy_families": book["families"],
            "presets": book["presets"],
            "options": [o.describe() for o in self.options],
            "rulebook": self.rulebook,
        }
        out["decisions"] = [d.to_json() for d in self.decisions()]
        return out

    def decisions(self) -> tuple:
        """The game's decision inventory (:mod:`simlab.games.decisions`), read once per process
        from :attr:`decisions_file`; ``()`` for a game without one.

        Returns:
            ``tuple[Decision, ...]`` in file order.

        Raises:
            SpecError: a malformed inventory file (a programming error of the game).
        """
        if self.decisions_file is None:
            return ()
        got = self.__dict__.get("_decisions")
        if got is None:
            from .decisions import load_decisions
            got = load_decisions(self.decisions_file)
            self.__dict__["_decisions"] = got
        return got

    # ------------------------------------------------------------------ playing
    def load_scenario(self, name_or_path: str | None, data: DataPack | None = None) -> Scenario:
        """A built-in scenario by name, or a scenario file.

        Raises:
            ScenarioError: on an unknown name, a missing file or a malformed file.
        """
        raise NotImplementedError

    def play_batch(self, scenario: Scenario, options: Mapping[str, Any], policies: Mapping[str, Policy | str],
                   seeds: np.ndarray) -> Batch:
        """Play one game per seed.

        Args:
            scenario: from :meth:`load_scenario`.
            options: every option, resolved (:meth:`resolve_options`).
            policies: ``{side: Policy}`` resolved by :meth:`resolve_policies` (a plain preset
                name is accepted too: :meth:`policies_of` resolves it with the preset's knobs).
            seeds: ``ndarray(uint64, shape=(n,))``, one stream seed per game
                (:func:`simlab.rng.game_seeds`).

        Returns:
            A :class:`Batch` with ``n`` rows whose row ``i`` depends only on ``seeds[i]``.
        """
        raise NotImplementedError

    def end_reasons(self) -> Sequence[str]:
        """Labels of the ``end_reason`` column (if the game writes one)."""
        return ()

    def rescore(self, scenario: Scenario, games: Mapping[str, np.ndarray], options: Mapping[str, Any],
                changes: Mapping[str, Any]) -> np.ndarray | None:
        """Winners of played games had some ``score_only`` options taken other values.

        ``simlab tune`` uses this to draw a score-only option's whole curve from one sweep
        instead of replaying every value. Override it in games with ``score_only`` options. It
        works row by row: it may be called on any slice of the games, and first with zero rows to
        ask whether the shortcut holds under ``options``.

        Args:
            scenario: the scenario the games were played in.
            games: the played games' columns (``ndarray``, one row per game): ``winner`` as side
                indices (``-1`` draw), ``score_<side>``, ``turns`` and the game's own columns.
            options: every option the games were played with (resolved).
            changes: ``{option: new value}``, only options declared ``score_only``.

        Returns:
            ``ndarray(int8)`` of winners (side index, ``-1`` for a draw), or ``None`` where the
            shortcut is not valid under ``options`` (e.g. a rule that ends the game early on the
            running score, which a starting handicap would move). The default returns ``None``.
        """
        return None

    # ------------------------------------------------------------------ odds (`simlab odds <game>`)
    #: the options of ``simlab odds <game>`` (:class:`~simlab.games.odds.OddsOption`); empty: the
    #: game has no odds calculator and no such command
    odds_options: tuple[OddsOption, ...] = ()

    def odds(self, *args: Any, **kwargs: Any) -> dict:
        """The game's combat odds as plain values (``simlab.odds(game, ...)``, ``simlab odds <game>``).

        Takes the keywords named by :attr:`odds_options`. Returns a JSON-ready dict (what
        ``--json`` prints).

        Raises:
            SpecError: the default: the game has no odds calculator; a game's own bad-input errors
                otherwise (one-line :class:`~simlab.errors.InputError` s).
        """
        raise SpecError(f"game {self.name} has no odds calculator")

    def odds_report(self, result: Mapping[str, Any]) -> list[str | Table]:
        """The human-readable form of an :meth:`odds` result: lines and :class:`~simlab.games.odds.Table` s
        of plain strings, in order (the CLI draws them). The default lists the result's top-level
        numbers and strings, one per line."""
        return [f"{k}: {v}" for k, v in result.items() if isinstance(v, (int, float, str)) and not isinstance(v, bool)]

    # ------------------------------------------------------------------ benchmarks (`simlab bench`)
    def bench_cases(self, quick: bool = False) -> list[BenchCase]:
        """Kernel-level benchmarks for ``simlab bench`` beyond the generic per-scenario ones.

        Args:
            quick: a smoke run (fewer items per case).

        Returns:
            :class:`BenchCase` s (a plain ``{"name", "unit", "items", "fn", ...}`` dict with the same
            keys is accepted too). ``fn()`` does ``items`` units of work (battles, shots, draws...); the
            harness times it several times and reports the median rate (seconds when ``unit`` is
            ``"s"``). ``fn`` must be warmed up (compiled) by the harness's first call, which is not
            counted. Building the list must be cheap: compile and play nothing here (a probe belongs in
            ``fn``'s first call), because ``simlab bench --only`` builds every game's cases to check
            the names it was given before running any.
        """
        return []

    def bench_targets(self) -> dict[str, tuple[str, float]]:
        """The game's own speed targets: ``{benchmark name without the "<game>/" prefix: (op, value)}``
        with ``op`` ``">="`` or ``"<="`` in the benchmark's unit, e.g. ``{"standard sweep 2 workers":
        (">=", 5000)}``. ``simlab bench`` reports each as met or missed. Default: none."""
        return {}

    def bench_scenarios(self) -> Sequence[str]:
        """Scenarios the generic benchmark times (games/s in one process, and a 2-worker sweep)."""
        return (self.default_scenario,) if self.default_scenario else ()

    def bench_dice(self, scenario: Scenario, options: Mapping[str, Any], policies: Mapping[str, Policy | str],
                   seeds: np.ndarray, batch: Batch) -> DiceCount:
        """The dice each game of ``batch`` rolled, for the bench's dice-floor ratio (``simlab bench``).

        Args:
            scenario, options, policies, seeds: what ``batch`` was played with (``play_batch``); a
                game whose batch does not tell its dice may play the same seeds again (with an
                events option on, say) to count them, never changing what ``batch`` holds.
            batch: the played batch.

        Returns:
            A :class:`DiceCount`: ``per_game`` ``int64[n]`` in seed order, and ``what`` saying what
            was counted (and ``complete=False`` where only part of the dice is). The default: the
            ``dice`` column where the games table has one (every random draw from the game's
            stream), else ``per_game=None`` (not measured) with the reason.
        """
        if "dice" in batch.games:
            return DiceCount(np.asarray(batch.games["dice"], dtype=np.int64),
                             "every random draw from the game's stream (the `dice` column)")
        return DiceCount(None, "the game's rows do not count its dice (no `dice` column)", complete=False)

    # ------------------------------------------------------------------ soak (`simlab soak`, `make soak`)
    #: ``end_reason`` labels that mean a game stopped at a loop cap (a turn or round limit, a cap on
    #: a search) instead of ending by the rules. Every loop in a kernel has a cap; a game that stops
    #: at one says so with one of these labels, and ``simlab soak`` reports those games as hangs.
    cap_reasons: tuple[str, ...] = ("max_turns", "max_rounds", "loop_cap")

    def soak_policies(self, sides: Sequence[str]) -> dict[str, str]:
        """The policies a soak plays: ``random-legal`` for every side that has it, else the default.

        Override to soak other policies. Returns ``{side: policy}``.
        """
        out = {}
        for s in sides:
            out[s] = "random-legal" if "random-legal" in self.side_policies(s) else \
                self.default_policies.get(s, self.default_policies.get("*"))
        return out

    def soak_cases(self) -> list[tuple[str, dict[str, Any]]]:
        """``(scenario, options)`` pairs a soak plays (each gets the soak's full game count).

        The default: every built-in scenario with the default options. Override to cover the
        options that change the game loop (each extra case costs one more soak).
        """
        return [(s, {}) for s in self.scenarios]

    def invariant_violations(self, scenario: Scenario, batch: Batch, options: Mapping[str, Any]) -> list[str]:
        """Everything wrong with a played batch, as one-line messages (empty: nothing wrong).

        The default checks the generic contract (:func:`simlab.games.contract.batch_violation`:
        columns, dtypes, winner range, finite scores, category codes, events). Override to add the
        game's own invariants (units conserved, scores consistent with losses, ...) and call
        ``super()`` first.
        """
        n = len(np.asarray(batch.games.get("winner", ())))
        bad = batch_violation(self.name, scenario, batch, n)
        return [" ".join(bad.split())] if bad else []

    def capped(self, scenario: Scenario, batch: Batch, options: Mapping[str, Any]) -> np.ndarray:
        """``ndarray(bool, shape=(n,))``: games that stopped at a loop cap (see ``cap_reasons``).

        The default reads the ``end_reason`` column through ``batch.categories``; a game without
        one reports none.
        """
        g = batch.games
        n = len(np.asarray(g.get("winner", ())))
        labels = batch.categories.get("end_reason")
        if "end_reason" not in g or labels is None:
            return np.zeros(n, dtype=bool)
        codes = [i for i, lab in enumerate(labels) if lab in self.cap_reasons]
        return np.isin(np.asarray(g["end_reason"]), codes)


def _play_mixed(game: Game, play, scenario: Scenario, options, policies, seeds, *args, **kw) -> Batch:
    """Play a batch in which some sides play a :class:`Mixture`: each game's preset is drawn from
    its own seed, the games of each drawn combination are played together and put back in seed
    order; column ``mix_<side>`` holds the drawn preset (a category)."""
    seeds = np.asarray(seeds, dtype=np.uint64)
    n = seeds.shape[0]
    mixed = [s for s, p in policies.items() if isinstance(p, Mixture)]
    draws = {s: mix_draws(seeds, [w for w, _ in policies[s].components], policies[s].salt) for s in mixed}
    combo = np.zeros(n, dtype=np.int64)
    for s in mixed:
        combo = combo * len(policies[s].components) + draws[s]
    parts = []
    for c in np.unique(combo):
        idx = np.flatnonzero(combo == c)
        pol = dict(policies)
        for s in mixed:
            pol[s] = policies[s].components[int(draws[s][idx[0]])][1]
        parts.append((idx, play(game, scenario, options, pol, seeds[idx], *args, **kw)))
    if not parts:
        first = {s: (p.components[0][1] if isinstance(p, Mixture) else p) for s, p in policies.items()}
        parts.append((np.zeros(0, np.int64), play(game, scenario, options, first, seeds, *args, **kw)))
    cols = {}
    for k, v in parts[0][1].games.items():
        a = np.empty(n, dtype=np.asarray(v).dtype)
        for idx, b in parts:
            a[idx] = np.asarray(b.games[k])
        cols[k] = a
    cats = dict(parts[0][1].categories)
    for s in mixed:
        cols[f"mix_{s}"] = draws[s].astype(np.int16)
        cats[f"mix_{s}"] = [p.name for _, p in policies[s].components]
    events: dict = {}
    for name in parts[0][1].events:
        rows = [(idx, b.events[name]) for idx, b in parts if name in b.events]
        ev = {k: np.concatenate([np.asarray(e[k]) if k != "game" else idx[np.asarray(e["game"], np.int64)]
                                 for idx, e in rows]) for k in rows[0][1]}
        order = np.argsort(ev["game"], kind="stable")
        events[name] = {k: v[order] for k, v in ev.items()}
    return Batch(games=cols, categories=cats, events=events)


_PACKS: dict[tuple[str, str], DataPack] = {}


def _cached_pack(game: str, folder: str, schema: PackSchema) -> DataPack:
    key = (game, folder)
    if key not in _PACKS:
        _PACKS[key] = load_pack(folder, schema)
    return _PACKS[key]

