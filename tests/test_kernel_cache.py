"""The kernel-cache guard drops cached kernels when a source they embed changes, and only then."""

from simlab import kernel_cache


def test_refresh_drops_only_the_named_modules_when_sources_change(tmp_path):
    src = tmp_path / "mod.py"
    src.write_text("x = 1\n")
    cache = tmp_path / "cache"
    cache.mkdir()
    mine = cache / "kernels.play-12.py311.nbi"
    other = cache / "otherpkg.f-3.py311.nbc"
    mine.write_text("old")
    other.write_text("keep")
    assert kernel_cache.refresh(cache, "stamp", [src], ["kernels"]) is True  # no stamp yet: stale
    assert not mine.exists() and other.exists()
    mine.write_text("fresh")
    assert kernel_cache.refresh(cache, "stamp", [src], ["kernels"]) is False  # unchanged sources
    assert mine.exists()
    src.write_text("x = 2\n")
    assert kernel_cache.refresh(cache, "stamp", [src], ["kernels"]) is True
    assert not mine.exists()


def test_digest_depends_on_contents(tmp_path):
    a = tmp_path / "a.py"
    a.write_text("1")
    d1 = kernel_cache.digest([a])
    a.write_text("2")
    assert kernel_cache.digest([a]) != d1 and len(d1) == 16


def test_no_folder_is_a_no_op():
    assert kernel_cache.refresh(None, "stamp", [], ["x"]) is False


def _fake_package(root, name="zz_kernels_pkg"):
    pkg = root / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "consts.py").write_text("STEP = 1\n")
    (pkg / "kern.py").write_text("from numba import njit\n\nfrom .consts import STEP\n\n\n"
                                 "@njit(cache=True)\ndef step_nb(x):\n    return x + STEP\n")
    return pkg


def test_ensure_fresh_drops_a_games_cached_kernels_when_a_module_they_embed_changes(tmp_path, monkeypatch):
    import importlib

    pkg = _fake_package(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(kernel_cache, "_DONE", set())
    mods = ("zz_kernels_pkg.kern", "zz_kernels_pkg.consts")
    assert kernel_cache.ensure_fresh(mods) is False  # nothing cached yet; the stamp is written
    kern = importlib.import_module("zz_kernels_pkg.kern")
    assert kern.step_nb(1) == 2
    folder = kernel_cache.cache_path(kern.step_nb)
    assert any(p.name.startswith("kern.") for p in folder.iterdir())  # numba cached it
    monkeypatch.setattr(kernel_cache, "_DONE", set())
    assert kernel_cache.ensure_fresh(mods) is False  # sources unchanged: kept
    assert kernel_cache.ensure_fresh(mods) is False  # and once per process
    (pkg / "consts.py").write_text("STEP = 2\n")  # a constant the kernel embeds; kern.py itself unchanged
    monkeypatch.setattr(kernel_cache, "_DONE", set())
    assert kernel_cache.ensure_fresh(mods) is True
    assert not any(p.name.startswith("kern.") for p in folder.iterdir() if p.suffix in (".nbi", ".nbc"))


def test_ensure_fresh_refuses_a_declared_module_that_does_not_exist(monkeypatch):
    import pytest

    monkeypatch.setattr(kernel_cache, "_DONE", set())
    with pytest.raises(ModuleNotFoundError, match="no_such_kernels"):
        kernel_cache.ensure_fresh(["simlab.games.no_such_kernels"])
