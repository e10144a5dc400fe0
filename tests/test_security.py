"""Security: no eval/exec/pickle of user files, TOML/JSON-only parsing, no writes outside the output folder."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path

import pytest

import simlab
from simlab.errors import DataPackError, ScenarioError, SpecError
from simlab.games import get_game
from simlab.results import load
from simlab.rng import game_seeds
from simlab.sweeps.chunks import events_part_rel
from simlab.sweeps.runner import run_sweep
from simlab.sweeps.spec import SweepSpec, expand, load_spec
from simlab.sweeps.store import Store
from simlab.testing.faulty import register_faulty

PACKAGE = Path(simlab.__file__).parent

#: calls that run code or unpickle data: never on anything a user hands in
BANNED_CALLS = {"eval", "exec", "compile", "pickle.load", "pickle.loads", "pickle.Unpickler",
                "marshal.load", "marshal.loads", "shelve.open", "yaml.load", "yaml.unsafe_load",
                "pd.read_pickle", "pandas.read_pickle", "dill.load", "dill.loads", "cloudpickle.load",
                "cloudpickle.loads", "joblib.load"}


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_name(node.value)}.{node.attr}"
    return ""


def dangerous_calls(source: str) -> list[str]:
    """Banned calls in Python source: BANNED_CALLS, ``allow_pickle=True`` and ``shell=True`` keywords,
    ``__import__`` of a computed name, and imports of pickle-like modules."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            name = _name(node.func)
            if name in BANNED_CALLS or name.rsplit(".", 1)[-1] in {"eval", "exec"}:
                out.append(f"{name} at line {node.lineno}")
            if name == "__import__" and not (node.args and isinstance(node.args[0], ast.Constant)):
                out.append(f"__import__ of a computed name at line {node.lineno}")
            for kw in node.keywords:
                if kw.arg in ("allow_pickle", "shell") and isinstance(kw.value, ast.Constant) and kw.value.value:
                    out.append(f"{name}({kw.arg}=True) at line {node.lineno}")
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for m in mods:
                if m.split(".")[0] in ("pickle", "marshal", "shelve", "dill", "cloudpickle", "yaml"):
                    out.append(f"import {m} at line {node.lineno}")
    return out


def test_dangerous_calls_finds_what_it_must():
    assert dangerous_calls("x = 1\nprint(len('eval'))\nv = __import__('numba').__version__\n") == []
    for src in ["eval('1')", "exec(code)", "import pickle\npickle.loads(b)", "from pickle import loads",
                "np.load(f, allow_pickle=True)", "subprocess.run(c, shell=True)", "builtins.eval(s)",
                "pd.read_pickle(p)", "import yaml", "__import__(name)"]:
        assert dangerous_calls(src), src


def test_the_package_never_evaluates_or_unpickles():
    found = {}
    for p in sorted(PACKAGE.rglob("*.py")):
        bad = dangerous_calls(p.read_text())
        if bad:
            found[str(p.relative_to(PACKAGE))] = bad
    assert found == {}
    # the only dynamic imports are of names set by code: the game registry's targets (register /
    # _REGISTRY) and the kernel cache's modules (a game's Game.kernel_modules, found in its folder)
    users = sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py") if "import_module(" in p.read_text())
    assert users == ["games/__init__.py", "kernel_cache.py"]


def test_a_pickle_handed_in_as_a_spec_pack_or_battle_is_refused_not_loaded(tmp_path):
    class Boom:
        def __reduce__(self):
            return (Path.touch, (tmp_path / "pwned",))
    blob = tmp_path / "evil.toml"
    blob.write_bytes(pickle.dumps(Boom()))
    with pytest.raises(SpecError):
        load_spec(blob)
    g = get_game("doe-battle")
    with pytest.raises(DataPackError):
        g.load_data(blob)
    with pytest.raises(ScenarioError):
        g.load_scenario(str(blob))
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize("rel", ["../x", "games/../../x", "/etc/passwd", "", "games//x", ".hidden", "a/./b",
                                 "games/cell=0/../../../x"])
def test_store_refuses_names_outside_the_output_folder(tmp_path, rel):
    s = Store(tmp_path / "out")
    if rel == "":
        assert s.path(rel) == s.root  # the folder itself
        return
    with pytest.raises(ValueError, match="not a plain relative name"):
        s.path(rel)


@pytest.mark.parametrize("name", ["../evil", "a/b", "", "Upper", "x" * 65, "..", "a.b"])
def test_events_table_names_are_plain(name):
    with pytest.raises(ValueError):
        events_part_rel(name, 0, 0, 10)


@pytest.mark.parametrize("name", ["../up", "a/b", ".hidden", "-dash", "", "x" * 101, "name with space", "a\\b"])
def test_experiment_names_cannot_name_a_path(name):
    with pytest.raises(SpecError, match="experiment name"):
        run_sweep(SweepSpec(name=name, game="doe-battle", scenarios=[], games=5), None, workers=1, progress=False)


def test_a_game_naming_an_events_table_with_a_path_writes_nothing_outside(tmp_path):
    name = register_faulty()
    spec = SweepSpec(name="evil", game=name, scenarios=[], games=20, seed=1, chunk_size=10)
    seed = int(game_seeds(1, expand(spec)[1][0].key, 3, 4)[0])
    spec.options = {"fault": "evil-events", "fault_seed": seed}
    out = tmp_path / "a" / "b" / "out"
    res = run_sweep(spec, out, workers=1, progress=False)
    assert [(f["start"], f["stop"]) for f in res.failures] == [(0, 10)]
    assert "not a plain lower-case name" in res.failures[0]["error"]
    outside = [p for p in tmp_path.rglob("*") if out not in p.parents and p != out and p not in out.parents]
    assert outside == []
    assert sorted(load(out)["game_index"]) == list(range(10, 20))
