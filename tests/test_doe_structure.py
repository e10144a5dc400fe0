"""The Dawn of Empire package's layering: the rules never import the policies, nothing imports
the façade, no source file over ~800 lines, and the kernel modules the framework finds name every kernel module."""

import ast
import re
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "simlab" / "games" / "doe"
RULES = ("campaign_orders", "campaign_movement", "campaign_combat", "campaign_pursuit", "campaign_layout", "rules",
         "kernels", "dice", "enums")
POLICIES = ("policies", "policy_view", "policy_missions", "policy_deploy", "policy_layout")
#: files of the doe-battle game, owned elsewhere (left as they are)
NOT_OURS: tuple[str, ...] = ()


def _imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                out.add(node.module.split(".")[0])
            else:
                out.update(a.name for a in node.names)
    return out


def test_the_rules_do_not_import_the_policies():
    for m in RULES:
        bad = _imports(PKG / f"{m}.py") & set(POLICIES)
        assert not bad, f"{m} imports {bad}"


def test_nothing_imports_the_facade():
    for f in PKG.glob("*.py"):
        if f.stem != "campaign":
            assert "campaign" not in _imports(f), f"{f.name} imports the façade campaign.py"


def test_no_source_file_over_800_lines():
    for f in PKG.glob("*.py"):
        if f.name not in NOT_OURS:
            assert len(f.read_text().splitlines()) <= 820, f.name


def test_the_found_kernel_modules_name_every_kernel_module():
    # the framework finds them (kernel_cache.find_kernel_modules); both DoE games share the folder
    from simlab.games import get_game
    found = get_game("dawn-of-empire").kernel_modules
    assert found == get_game("doe-battle").kernel_modules
    have = {m.rsplit(".", 1)[1] for m in found if m.startswith("simlab.games.doe.")}
    for f in PKG.glob("*.py"):
        src = f.read_text()
        if re.search(r"^@(kernel|njit)\b", src, re.M) or f.stem in ("campaign_layout", "policy_layout", "enums"):
            assert f.stem in have, f"{f.name} is not found as a kernel module"
    assert not {"runtime", "campaign", "battle", "game"} & have  # façades: no kernel imports them
    assert found.index("simlab.games.doe.enums") < found.index("simlab.games.doe.kernels")  # dependencies first
