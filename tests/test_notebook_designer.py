"""notebooks/designer.ipynb (issue 30) runs from top to bottom in a quick mode (parameters injected into its
first cell, as papermill does) and says what it found."""

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "designer.ipynb"

QUICK = '''GAMES = 100
SEED = 1898
WORKERS = 1
OUT = {out!r}
POLICY = ["us=blockade"]
VALUES = ["ports.*.defense", "units.*.attack", "areas.*.vp_spain"]
GROUP = True
TRAJECTORIES = 2
REPLICATES = 100
EQ_PARAM = "handicap"
EQ_RANGE = "-4:4:8"
EQ_BUDGET = 5000
EQ_SOLVE = {{"meta_games": 20, "search_games": 10, "confirm_games": 40, "generations": 1, "iterations": 1}}
KNOWN_ANSWER = False'''

pytestmark = pytest.mark.timeout(900)


def test_designer_notebook_is_stored_without_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")
    assert "parameters" in nb.cells[0].metadata.get("tags", [])


def test_designer_notebook_runs_the_loop_end_to_end(tmp_path):
    out = tmp_path / "designer"
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nb.cells[0].source = QUICK.format(out=str(out))
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    text = "\n".join(o.get("text", "") or str(o.get("data", {}).get("text/plain", ""))
                     for c in nb.cells for o in c.get("outputs", []))
    assert "8 design points x 100 games" in text and "policies fixed" in text
    assert "grid: ['data." in text and "the US mean score moves by" in text
    assert "fair handicap at equilibrium:" in text
    images = sum(1 for c in nb.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {}))
    assert images >= 2
    assert (out / "screen" / "sensitivity.json").is_file() and (out / "top-two" / "manifest.json").is_file()
    assert (out / "equilibrium" / "equilibrium.json").is_file()
