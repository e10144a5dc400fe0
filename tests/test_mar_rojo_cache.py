"""The Mar Rojo kernel cache guard drops stale cached kernels when any kernel source changes."""

from __future__ import annotations

from pathlib import Path

from simlab.games.mar_rojo import cache


def test_refresh_drops_stale_kernels_and_keeps_fresh_ones(monkeypatch):
    from simlab.games.mar_rojo.engine import play_games_nb
    folder = Path(play_games_nb._cache._cache_path)
    folder.mkdir(parents=True, exist_ok=True)
    monkeypatch.setattr(cache, "KERNEL_MODULES", ("zz_fake",) + cache.KERNEL_MODULES)
    monkeypatch.setattr(cache, "source_digest", lambda: "digest-one")
    fake = folder / "zz_fake.kernel-1.py311.nbi"
    stamp = folder / cache._STAMP
    old = stamp.read_text() if stamp.exists() else None
    try:
        fake.write_text("stale")
        stamp.write_text("digest-one\n")
        assert cache.refresh_cache(force=True) is False  # sources unchanged: nothing removed
        assert fake.exists()
        monkeypatch.setattr(cache, "source_digest", lambda: "digest-two")
        # only the fake module's files may go: keep the real kernels cached
        monkeypatch.setattr(cache, "KERNEL_MODULES", ("zz_fake",))
        assert cache.refresh_cache(force=True) is True
        assert not fake.exists()
        assert stamp.read_text().strip() == "digest-two"
    finally:
        fake.unlink(missing_ok=True)
        if old is not None:
            stamp.write_text(old)


def test_digest_covers_every_kernel_module():
    here = Path(cache.__file__).parent
    kernels = {p.stem for p in here.glob("*.py") if "@njit" in p.read_text()}
    assert kernels <= set(cache.KERNEL_MODULES)
    assert len(cache.source_digest()) == 16
