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
