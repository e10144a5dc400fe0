"""The rule-mutation run: its list follows the code, and a mutation is applied, judged and undone."""

import subprocess
import sys
from pathlib import Path

from simlab.testing.mutate import Mutation, load_mutations, run_mutation

ROOT = Path(__file__).resolve().parents[1]


def test_every_mutation_finds_its_code_exactly_once():
    muts = load_mutations(ROOT / "tests" / "mutations.toml")
    assert len(muts) >= 4
    for m in muts:
        text = (ROOT / m.file).read_text()
        assert text.count(m.find) == 1, f"{m.id}: 'find' occurs {text.count(m.find)} times in {m.file}"
        assert m.find != m.replace and all((ROOT / t.split("::")[0]).exists() for t in m.tests)


def test_a_mutation_is_killed_or_survives_and_the_file_is_restored(tmp_path):
    (tmp_path / "rule.py").write_text("def wins(vp):\n    return vp >= 6\n")
    (tmp_path / "test_rule.py").write_text("from rule import wins\n\ndef test_six():\n    assert wins(6) and not wins(5)\n")
    before = (tmp_path / "rule.py").read_bytes()
    killed = run_mutation(Mutation("k", "12.2", "rule.py", "vp >= 6", "vp >= 5", ("test_rule.py",)), tmp_path)
    assert killed["status"] == "killed"
    survived = run_mutation(Mutation("s", "12.2", "rule.py", "vp >= 6", "vp > 5", ("test_rule.py",)), tmp_path)
    assert survived["status"] == "survived"
    assert run_mutation(Mutation("n", "12.2", "rule.py", "vp >= 7", "vp", ("test_rule.py",)), tmp_path)["status"] == "no-match"
    assert (tmp_path / "rule.py").read_bytes() == before


def test_the_command_refuses_a_file_with_uncommitted_changes(tmp_path):
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "rule.py").write_text("x = 1\n")
    (tmp_path / "m.toml").write_text('[[mutation]]\nid = "a"\nrule = "1"\nfile = "rule.py"\nfind = "1"\n'
                                     'replace = "2"\ntests = ["t.py"]\n')
    r = subprocess.run([sys.executable, "-m", "simlab.testing.mutate", "--list", "m.toml"], cwd=tmp_path,
                       capture_output=True, text=True)
    assert r.returncode == 2 and "uncommitted changes in rule.py" in r.stderr
