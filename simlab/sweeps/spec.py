"""Experiment specs: what to play, parsed from TOML or from CLI arguments, and expanded into cells.

An experiment file (``experiments/*.toml``)::

    [experiment]
    name = "prp-speed"              # optional; default: the file's stem
    description = "..."             # optional
    game = "doe-battle"
    scenario = "puerto-rico-passage"   # or a list: one grid axis
    games = 100000                  # per cell
    seed = 20261130                 # master seed
    chunk_size = 10000              # optional (default: chosen from games and workers)
    crn = false                     # common random numbers across cells (default false)
    data = "my-counters.toml"       # optional override pack (relative to this file)

    [policies]                      # side = policy, or a list of policies (a grid axis)
    us = "line-order"

    [options]                       # fixed option values
    max_rounds = 1000

    [grid]                          # swept options: every combination is one cell
    speed_disengage = ["never", "when-able"]

The grid is the product of the scenario list, the policy lists and the ``[grid]`` lists, in that
order. Every problem raises :class:`simlab.errors.SpecError` with a one-line message.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
)

from ..data_axes import data_column, is_data_name, parse_data_value, resolve_edits, split_data_name
from ..errors import InputError, SpecError
from ..games import Game, get_game
from ..games.policy import active_policy_files, split_knob_name, using_policies
from ..rng import cell_key
from ..tomlio import read_toml

__all__ = ["Cell", "SweepSpec", "cell_scenario", "check_name", "expand", "load_spec", "spec_from_args", "split_kv"]

MAX_CELLS = 100_000
MAX_GAMES = 10**12
#: experiment names: they name the default output folder ``results/<name>-<time>``, so they are one
#: plain path component (no ``/``, no leading dot)
NAME_PATTERN = r"^[A-Za-z0-9_][A-Za-z0-9_.\-]{0,99}$"
_NAME = re.compile(NAME_PATTERN)


def check_name(name: object) -> str:
    """Check an experiment name (``NAME_PATTERN``: letters, digits, ``_ . -``, not starting with ``.`` or ``-``).

    Raises:
        SpecError: on any other name (a path, an empty name, more than 100 characters).
    """
    if not isinstance(name, str) or not _NAME.match(name):
        raise SpecError(f"experiment name {name!r} must be 1-100 letters, digits, '_', '.' or '-', "
                        "starting with a letter, digit or '_'")
    return name


@dataclass
class SweepSpec:
    """A resolved experiment: plain data, JSON-serialisable (written into the manifest).

    Attributes:
        name: experiment name (the ``experiment`` column).
        game: registered game name.
        scenarios: one or more scenario names or files (more than one is a grid axis).
        policies: ``{side: [policy, ...]}`` (a list of more than one is a grid axis).
        options: fixed option values, as given.
        grid: ``{option: [value, ...]}`` swept options, as given.
        games: games per cell (``>= 1``).
        seed: master seed (``0 <= seed < 2**64``).
        chunk_size: games per chunk, or None for automatic.
        crn: common random numbers across cells.
        data: override-pack path or None.
        description: free text.
        precision: if set, play each cell in chunks until the larger Wilson half-width of its
            sides' win rates (95%) is at most this (then ``games`` is the minimum per cell).
        max_games: ceiling of games per cell under ``precision`` (default 1,000,000).
        policies_files: ``policies.toml`` files (``--policies-file``, what ``simlab solve`` wrote)
            whose presets the policies may name (default: those of the enclosing
            :func:`simlab.games.policy.using_policies`).
    """

    name: str
    game: str
    scenarios: list[str]
    policies: dict[str, list[str]] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    grid: dict[str, list[Any]] = field(default_factory=dict)
    games: int = 1000
    seed: int = 0
    chunk_size: int | None = None
    crn: bool = False
    data: str | None = None
    description: str = ""
    precision: float | None = None
    max_games: int | None = None
    policies_files: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)

    def fingerprint(self) -> str:
        """Hash of everything that decides the rows (not the name or description)."""
        d = self.to_dict()
        d.pop("description")
        if self.precision is None:
            d.pop("chunk_size")  # rows do not depend on the chunk size (they do under precision)
        for k in ("precision", "max_games"):
            if d[k] is None:
                d.pop(k)
        if not d["policies_files"]:
            d.pop("policies_files")
        return hashlib.sha256(json.dumps(d, sort_keys=True, default=str).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Cell:
    """One combination of the grid.

    Attributes:
        id: 0-based position in the grid (the ``cell`` column).
        key: stable 63-bit seed key (``simlab.rng.cell_key`` of ``params``; 0 under CRN).
        scenario: scenario name or file.
        policies: ``{side: Policy}`` (preset name, family and the full knob vector).
        options: every option, resolved and typed.
        params: what varies across the grid, as written to the manifest and the report.
        data: the data-pack edits of this cell, ``((data name, value), ...)`` (fixed ones first,
            then the grid's data axes; :mod:`simlab.data_axes`), empty when it plays the pack as is.
        data_hash: the hash of the cell's resolved pack when it has edits (else ``""``).
    """

    id: int
    key: int
    scenario: str
    policies: dict[str, str]
    options: dict[str, Any]
    params: dict[str, Any]
    data: tuple = ()
    data_hash: str = ""


class _ExperimentIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: StrictStr | None = Field(default=None, min_length=1, max_length=100, pattern=NAME_PATTERN)
    description: StrictStr = ""
    game: StrictStr
    scenario: StrictStr | list[StrictStr] | None = None
    games: StrictInt | None = Field(default=None, ge=1, le=MAX_GAMES)
    seed: StrictInt = Field(default=0, ge=0, lt=2**64)
    chunk_size: StrictInt | None = Field(default=None, ge=1, le=10**9)
    crn: StrictBool = False
    data: StrictStr | None = Field(default=None, min_length=1)
    precision: StrictFloat | None = Field(default=None, gt=0, lt=0.5)
    max_games: StrictInt | None = Field(default=None, ge=1, le=MAX_GAMES)


class _SpecIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    experiment: _ExperimentIn
    policies: dict[str, StrictStr | list[StrictStr]] = {}
    options: dict[str, Any] = {}
    grid: dict[str, list[Any]] = {}


def _one_line(e: ValidationError, where: str) -> str:
    err = e.errors()[0]
    loc = ".".join(str(x) for x in err["loc"])
    msg = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
    if err["type"] == "missing":
        msg = "missing"
    return f"{where}: {loc}: {msg}"


def load_spec(path: str | Path, overrides: Mapping[str, Any] | None = None) -> SweepSpec:
    """Read an experiment file.

    Args:
        path: the TOML file.
        overrides: values that replace the file's ``[experiment]`` keys (e.g. ``games`` or
            ``seed`` given on the command line).

    Returns:
        The :class:`SweepSpec` (not yet checked against the game: see :func:`expand`).

    Raises:
        SpecError: on a missing file, a TOML syntax error (duplicate keys included), an unknown or
            missing key, or a value of the wrong type.
    """
    p = Path(path)
    doc = read_toml(p, SpecError, "experiment file")
    if overrides:
        exp = doc.setdefault("experiment", {})
        if isinstance(exp, dict):
            exp.update({k: v for k, v in overrides.items() if v is not None})
    for tbl in ("options", "grid"):
        if isinstance(doc.get(tbl), dict):
            doc[tbl] = _flatten_knobs(doc[tbl], f"{p.name}: {tbl}")
            _refuse_quoted_values(doc[tbl], f"{p.name}: {tbl}")
    try:
        s = _SpecIn.model_validate(doc)
    except ValidationError as e:
        raise SpecError(_one_line(e, p.name)) from None
    e = s.experiment
    if e.scenario is not None and (e.scenario == [] or any(not x.strip() for x in
                                                          (e.scenario if isinstance(e.scenario, list) else [e.scenario]))):
        raise SpecError(f"{p.name}: experiment.scenario: an empty list or name (leave it out for the game's default)")
    scen = e.scenario if isinstance(e.scenario, list) else ([e.scenario] if e.scenario else [])
    scen = [_rel(x, p.parent) for x in scen]
    data = str(_resolve(e.data, p.parent)) if e.data else None
    if e.games is None and e.precision is None:
        raise SpecError(f"{p.name}: experiment.games: missing (or give experiment.precision)")
    spec = SweepSpec(
        name=e.name or _name_from_stem(p.stem), game=e.game, scenarios=scen,
        policies={k: (v if isinstance(v, list) else [v]) for k, v in s.policies.items()},
        options=dict(s.options), grid={k: list(v) for k, v in s.grid.items()},
        games=e.games if e.games is not None else 1, seed=e.seed,
        chunk_size=e.chunk_size, crn=e.crn, data=data, description=e.description,
        precision=e.precision, max_games=e.max_games, policies_files=list(active_policy_files()),
    )
    check_precision(spec)
    return spec


def _flatten_knobs(table: dict, where: str) -> dict:
    """``{"us": {"share": 0.7}}`` (TOML's dotted key ``us.share = 0.7``) -> ``{"us.share": 0.7}``;
    a data name (``data.ports.havana.defense = 8``) is flattened to any depth.

    Raises:
        SpecError: the same knob given both ways.
    """
    out: dict = {}
    for k, v in table.items():
        items = [(f"{k}.{kk}", vv) for kk, vv in v.items()] if isinstance(v, dict) else [(k, v)]
        while any(is_data_name(kk) and isinstance(vv, dict) for kk, vv in items):
            # a data value written with TOML's dotted keys (data.ports.havana.defense = 8) nests deeper
            items = [x for kk, vv in items for x in
                     ([(f"{kk}.{k3}", v3) for k3, v3 in vv.items()] if is_data_name(kk) and isinstance(vv, dict)
                      else [(kk, vv)])]
        for kk, vv in items:
            if kk in out:
                raise SpecError(f"{where}: '{kk}' is given twice")
            out[kk] = vv
    return out


def _refuse_quoted_values(table: dict, where: str) -> None:
    """A number or a boolean written as a TOML string (``x = "0.7"``, ``flag = "true"``) is refused:
    TOML has numbers and booleans, and a quoted one is a typo the command line cannot make.

    Raises:
        SpecError: naming the key and the value.
    """
    for k, v in table.items():
        for x in (v if isinstance(v, list) else [v]):
            if not isinstance(x, str):
                continue
            t = x.strip()
            if is_data_name(k) and t[:1] in ("*", "+"):
                continue  # a data value's scale or shift (simlab.data_axes) is text
            quoted = t in ("true", "false")
            if not quoted:
                try:
                    float(t)
                    quoted = True
                except ValueError:
                    pass
            if quoted:
                raise SpecError(f"{where}: '{k}': {x!r} is a string; write it without quotes ({t})")


def _name_from_stem(stem: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_.\-]", "_", stem)[:100]
    return name if _NAME.match(name) else f"_{name}"[:100]


def check_precision(spec: SweepSpec) -> None:
    """Check the precision fields of a spec.

    Raises:
        SpecError: a precision outside (0, 0.5), max_games without precision, or max_games below games.
    """
    if spec.precision is None:
        if spec.max_games is not None:
            raise SpecError("max_games needs precision (a target Wilson half-width)")
        return
    if not (0 < spec.precision < 0.5):
        raise SpecError(f"precision must be between 0 and 0.5 (a Wilson half-width), got {spec.precision}")
    if spec.max_games is not None and spec.max_games < spec.games:
        raise SpecError(f"max_games ({spec.max_games}) is below games ({spec.games})")


def _resolve(x: str, base: Path) -> Path:
    q = Path(x)
    return q if q.is_absolute() else (base / q)


def _rel(x: str, base: Path) -> str:
    # a scenario that names an existing file next to the spec is taken relative to the spec
    if x.endswith(".toml"):
        q = _resolve(x, base)
        if q.exists() or not Path(x).exists():
            return str(q)
    return x


def split_kv(items: Sequence[str], flag: str) -> list[tuple[str, str]]:
    """``KEY=VALUE`` command-line items as ``[(key, value)]`` in order, the key stripped (``--set``, ``--grid``).

    Raises:
        SpecError: an item without ``=``, naming ``flag`` in the one-line message.
    """
    out = []
    for it in items:
        if "=" not in it:
            raise SpecError(f"{flag} {it!r}: expected NAME=VALUE")
        k, v = it.split("=", 1)
        k = k.strip()
        if not k:
            raise SpecError(f"{flag} {it!r}: empty name")
        out.append((k, v))
    return out




def spec_from_args(game: str, *, scenario: str | None = None, policy: Sequence[str] = (),
                   set_: Sequence[str] = (), grid: Sequence[str] = (), games: int = 1000, seed: int = 0,
                   chunk_size: int | None = None, crn: bool = False, data: str | None = None,
                   name: str | None = None, precision: float | None = None,
                   max_games: int | None = None, policies_files: Sequence[str] = ()) -> SweepSpec:
    """Build a spec from ``simlab sweep --game ...`` arguments.

    ``policy`` items are ``SIDE=NAME`` (``SIDE=A,B`` makes a grid axis); ``set_`` items
    ``OPTION=VALUE``; ``grid`` items ``OPTION=V1,V2,...``; ``scenario`` may be ``A,B`` for an axis.

    Raises:
        SpecError: on a malformed item, a repeated option, a non-positive game count or a bad seed.
    """
    if games is None or games < 1:
        raise SpecError(f"--games must be at least 1 (got {games})")
    if games > MAX_GAMES:
        raise SpecError(f"--games must be at most {MAX_GAMES:,} (got {games})")
    if seed is None or seed < 0 or seed >= 2**64:
        raise SpecError(f"--seed must be in 0..2**64-1 (got {seed})")
    if chunk_size is not None and (chunk_size < 1 or chunk_size > 10**9):
        raise SpecError(f"--chunk-size must be at least 1 and at most 1,000,000,000 (got {chunk_size})")
    if max_games is not None and (max_games < 1 or max_games > MAX_GAMES):
        raise SpecError(f"--max-games must be in 1..{MAX_GAMES:,} (got {max_games})")
    pol: dict[str, list[str]] = {}
    for k, v in split_kv(policy, "--policy"):
        if k in pol:
            raise SpecError(f"--policy {k} given twice")
        pol[k] = [x.strip() for x in v.split(",")]
    opts: dict[str, Any] = {}
    for k, v in split_kv(set_, "--set"):
        if k in opts:
            raise SpecError(f"--set {k} given twice")
        opts[k] = v
    g: dict[str, list[Any]] = {}
    for k, v in split_kv(grid, "--grid"):
        if k in g:
            raise SpecError(f"--grid {k} given twice")
        vals = [x.strip() for x in v.split(",")]
        if any(x == "" for x in vals):
            raise SpecError(f"--grid {k}: empty value in {v!r}")
        g[k] = vals
    if scenario is not None and any(not x.strip() for x in scenario.split(",")):
        raise SpecError(f"--scenario {scenario!r}: an empty scenario name (leave --scenario out for the default)")
    scen = [x.strip() for x in scenario.split(",")] if scenario else []
    if name is None and not game.strip():
        raise SpecError("--game '': give a game's name (`simlab games` lists them)")
    check_name(game if name is None else name)
    spec = SweepSpec(name=name or game, game=game, scenarios=scen, policies=pol, options=opts, grid=g,
                     games=int(games), seed=int(seed), chunk_size=chunk_size, crn=crn, data=data,
                     precision=precision, max_games=max_games,
                     policies_files=[str(x) for x in (policies_files or active_policy_files())])
    check_precision(spec)
    return spec


def _parse_knob_axis(game: Game, spec: SweepSpec, sides, name: str, vals: list) -> list:
    """Check a knob axis' values against the knob of every family its side may play in the sweep.

    Raises:
        SpecError: a knob none of the side's policies in this sweep has, or a bad value.
    """
    side, knob = split_knob_name(name)
    book = game.policy_book()
    names = spec.policies.get(side) or [game.default_policy(side)]
    fams = [book.families[book.presets[p].family] for p in names if p in book.presets]
    have = [f for f in fams if any(k.name == knob for k in f.knobs)]
    if not have:
        fam = fams[0] if fams else None
        known = ", ".join(k.name for k in fam.knobs) if fam else ""
        raise SpecError(f"knob '{name}': policy family {fam.name if fam else '?'} has no knob "
                        f"'{knob}' (knobs: {known or 'none'})")
    return [have[0].knob(knob).parse(v, where=name) for v in vals]


def expand(spec: SweepSpec) -> tuple[Game, list[Cell], dict]:
    """Check a spec against its game and list its cells.

    Loads the game, the data pack (with the override, if any) and every scenario, so a spec that
    passes will run. Nothing is written.

    Returns:
        ``(game, cells, info)`` where ``info`` holds ``sides``, ``scenarios`` (name -> Scenario),
        ``data`` (pack summary with provenance counts of the values the scenarios read), and
        ``options``/``grid``: the spec's settings with typed values (options and ``SIDE.KNOB`` knobs).

    Raises:
        SpecError, ScenarioError, DataPackError: on any problem, with a one-line message.
    """
    with using_policies(*spec.policies_files):
        return _expand(spec)


def _expand(spec: SweepSpec) -> tuple[Game, list[Cell], dict]:
    game = get_game(spec.game)
    if spec.data is not None and not Path(spec.data).is_file():
        raise SpecError(f"data pack override not found: {spec.data}")
    pack = game.load_data(spec.data)
    scen_names = spec.scenarios or [game.default_scenario]
    if len(set(scen_names)) != len(scen_names):
        raise SpecError("a scenario is listed twice")
    scenarios = {}
    for s in scen_names:
        scenarios[s] = game.load_scenario(s, pack)
    sides_set = {sc.sides for sc in scenarios.values()}
    if len(sides_set) != 1:
        raise SpecError("all scenarios of one sweep must have the same sides: " + " vs ".join(
            "/".join(x) for x in sides_set))
    sides = next(iter(sides_set))
    for s, lst in spec.policies.items():
        if s not in sides:
            raise SpecError(f"unknown side '{s}' in policies (sides: {', '.join(sides)})")
        if not lst:
            raise SpecError(f"empty policy list for side {s}")
        if len(set(lst)) != len(lst):
            raise SpecError(f"a policy is listed twice for side {s}")
        for p in lst:
            game.resolve_policies(sides, {s: p})
            for sc in scenarios.values():
                why = game.policy_unavailable(sc, s, p) if isinstance(p, str) else None
                if why:
                    raise SpecError(why)
    om = game.option_map()
    for k in list(spec.options) + list(spec.grid):
        if is_data_name(k):
            split_data_name(k)
            if pack is None:
                raise SpecError(f"game {game.name} has no data pack: '{k}' addresses nothing")
            continue
        sk = split_knob_name(k)
        if sk is not None:
            if sk[0] in om:
                raise SpecError(f"option {sk[0]} takes one {om[sk[0]].kind.__name__} value, not a table "
                                f"('{k}')")
            if sk[0] not in sides:
                raise SpecError(f"knob '{k}': unknown side '{sk[0]}' (sides: {', '.join(sides)})")
            if not sk[1]:
                raise SpecError(f"knob '{k}': no knob name after '{sk[0]}.'")
        elif k not in om:
            raise SpecError(f"game {game.name} has no option '{k}' (options: {', '.join(om) or 'none'}; "
                            "a policy knob is set as SIDE.KNOB)")
    both = set(spec.options) & set(spec.grid)
    if both:
        raise SpecError(f"option '{sorted(both)[0]}' is both fixed and in the grid")
    fixed_opts, fixed_knobs = game.split_settings({k: v for k, v in spec.options.items() if not is_data_name(k)})
    fixed = {k: om[k].parse(v) for k, v in fixed_opts.items()}
    fixed_data = tuple((k, parse_data_value(k, v)) for k, v in spec.options.items() if is_data_name(k))
    typed_options = {k: (fixed[k] if k in fixed else parse_data_value(k, v) if is_data_name(k)
                         else _parse_knob_axis(game, spec, sides, k, [v])[0])
                     for k, v in spec.options.items()}
    typed_grid: dict[str, list[Any]] = {}
    axes: list[tuple[str, list[Any]]] = []
    if len(scen_names) > 1:
        axes.append(("scenario", scen_names))
    for s in sides:
        lst = spec.policies.get(s)
        if lst and len(lst) > 1:
            axes.append((f"policy_{s}", lst))
    for k, vals in spec.grid.items():
        if not vals:
            raise SpecError(f"grid option '{k}' has no values")
        parsed = ([om[k].parse(v) for v in vals] if k in om else
                  [parse_data_value(k, v) for v in vals] if is_data_name(k) else
                  _parse_knob_axis(game, spec, sides, k, vals))
        typed_grid[k] = parsed
        if len(set(map(repr, parsed))) != len(parsed):
            raise SpecError(f"grid option '{k}' lists a value twice")
        axes.append((k, parsed))
    columns: dict[str, str] = {}
    for k in spec.grid:
        if is_data_name(k):
            col = data_column(k)
            if col in columns:
                raise SpecError(f"data axes '{columns[col]}' and '{k}' would both be column {col}")
            columns[col] = k
    n_cells = 1
    for _, v in axes:
        n_cells *= len(v)
    if n_cells > MAX_CELLS:
        raise SpecError(f"the grid has {n_cells} cells; the limit is {MAX_CELLS}")
    schema = game.data_schema() if pack is not None else None
    packs: dict[tuple, Any] = {}
    data_scenarios: dict[tuple, dict[str, Any]] = {}
    cells = []
    for cid, combo in enumerate(itertools.product(*[v for _, v in axes]) if axes else [()]):
        params = dict(zip([a for a, _ in axes], combo, strict=True))
        scen = params.get("scenario", scen_names[0])
        pols = {s: params.get(f"policy_{s}", (spec.policies.get(s) or [None])[0]) for s in sides}
        knob_settings = {s: dict(v) for s, v in fixed_knobs.items()}
        for k, v in params.items():
            sk = None if is_data_name(k) else split_knob_name(k)
            if sk is not None:
                knob_settings.setdefault(sk[0], {})[sk[1]] = v
        try:
            pols = game.resolve_policies(sides, {k: v for k, v in pols.items() if v is not None}, knob_settings)
        except InputError as e:
            raise SpecError(f"cell {params}: {e}" if params else str(e)) from None
        opts = dict(fixed)
        opts.update({k: v for k, v in params.items() if k in om})
        try:
            opts = game.resolve_options(opts)
        except InputError as e:
            raise SpecError(f"cell {params}: {e}") from None
        # the seed key: what varies across the grid (knob axes included; fixed settings are not, as
        # for options), so a grid with one more value leaves the other cells' games unchanged
        key_params = {"scenario": scen, **{f"policy_{s}": p.name for s, p in pols.items()},
                      **{k: v for k, v in params.items()
                         if k in om or split_knob_name(k) is not None or is_data_name(k)}}
        key = 0 if spec.crn else cell_key(key_params)
        edits = fixed_data + tuple((k, v) for k, v in params.items() if is_data_name(k))
        if edits and edits not in packs:
            # the pack's own checks on every resulting pack, before anything plays
            packs[edits] = resolve_edits(pack, edits, schema)
            data_scenarios[edits] = {s: game.load_scenario(s, packs[edits]) for s in scen_names}
        cells.append(Cell(cid, key, scen, pols, opts, params, edits, packs[edits].hash if edits else ""))
    data_summary = None
    if pack is not None:
        # counts over the first cell's pack: a swept or set data value is a user value there
        shown = packs.get(cells[0].data, pack)
        shown_sc = data_scenarios.get(cells[0].data, scenarios)
        used = frozenset().union(*(sc.used for sc in shown_sc.values()))
        data_summary = shown.summary(used)
        data_summary["hash"] = pack.hash  # the pack as loaded; each cell's edits are in the spec and its record
        if packs:
            data_summary["data_axes"] = {k: data_column(k) for k in spec.grid if is_data_name(k)}
            data_summary["data_fixed"] = [k for k, _ in fixed_data]
            data_summary["user_values_used"] = sorted(
                ".".join(u) for u in used if shown.tables[u[0]][u[1]][u[2]].kind == "user")
        data_summary["values_used"] = len(used)
        data_summary["provisional_used"] = sorted(
            ".".join(u) for u in used if shown.tables[u[0]][u[1]][u[2]].kind == "provisional")
    info = {"sides": sides, "scenarios": scenarios, "data": data_summary, "options": typed_options,
            "grid": typed_grid, "data_packs": packs, "data_scenarios": data_scenarios}
    return game, cells, info


def cell_scenario(info: dict, cell: Cell):
    """The :class:`~simlab.games.base.Scenario` a cell plays: compiled from its own data pack when
    it has data edits (``info`` as :func:`expand` returns it)."""
    if cell.data:
        return info["data_scenarios"][cell.data][cell.scenario]
    return info["scenarios"][cell.scenario]
