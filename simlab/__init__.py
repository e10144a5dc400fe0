"""simlab: play thousands of complete naval wargames with scripted policies and turn the results
into balance answers (win rates with intervals, fair handicaps and bids).

The public functions are imported lazily so that ``import simlab`` is cheap::

    import simlab
    res = simlab.sweep("experiments/demo.toml")
    df = simlab.load(res.path)
    simlab.report(res.path)
"""

from __future__ import annotations

__all__ = ["__version__", "compare", "data_check", "data_show", "list_games", "load", "meta", "odds", "plot",
           "report", "solve", "sweep", "tune", "using_policies"]


def __getattr__(name: str):
    if name == "__version__":  # read from the installed metadata (~50 ms) only when asked for
        from ._version import __version__
        return __version__
    if name in ("sweep", "report", "load", "odds", "list_games", "data_show", "data_check", "tune", "compare", "meta",
                "plot", "solve", "using_policies"):
        from . import api
        return getattr(api, name)
    raise AttributeError(f"module 'simlab' has no attribute {name!r}")
