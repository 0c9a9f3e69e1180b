"""Course helpers: environment check, local GPU detection, the first chart."""

import pytest

import hwguide as hg


def test_environment_meets_requirements():
    table = hg.check_environment()
    assert table.loc[0, "package"] == "python"
    assert {"pandas", "matplotlib", "nbval", "jupyterlab"} <= set(table["package"])
    assert table["ok"].all(), table[~table["ok"]]


def test_local_gpus_has_a_fixed_shape():
    table = hg.local_gpus()  # empty on a machine without an NVIDIA driver
    assert list(table.columns) == ["index", "name", "memory_gib", "catalog"]


def test_memory_vs_bandwidth_chart_labels_units():
    fig = hg.charts.memory_vs_bandwidth()
    (ax,) = fig.axes
    assert "GiB" in ax.get_xlabel() and "GB/s" in ax.get_ylabel()
    labels = [t.get_text() for t in ax.texts]
    assert "RTX 4090" in labels and "A800 SXM4 80GB" not in " ".join(labels)  # the cards the course discusses
    assert len(labels) == len(set(labels)) <= len(hg.charts.LABELLED)
    every = " ".join(t.get_text() for t in hg.charts.memory_vs_bandwidth(label="all").axes[0].texts)
    assert "A100 SXM4 80GB / A800 SXM4 80GB" in every  # identical figures share a label
    assert len(ax.collections) == 3  # consumer, workstation, datacenter


def test_no_local_gpu_is_said_in_the_language():
    said = "No NVIDIA GPU found on this machine: that is fine, the course runs on the CPU."
    assert str(hg.course.NO_LOCAL_GPU) == said  # what notebook 00 printed before
    assert hg.course.NO_LOCAL_GPU.render("zh") != said and "NVIDIA GPU" in hg.course.NO_LOCAL_GPU.render("zh")


def test_check_environment_keeps_codes_and_labels_them_for_display():
    from hwguide import i18n

    table = hg.check_environment()
    assert list(table.columns) == ["package", "installed", "required", "ok"]
    assert table["ok"].dtype == bool
    shown = i18n.labelled(table.assign(installed=["missing", *table["installed"][1:]]), "zh")
    assert list(shown.columns) == ["软件包", "已安装版本", "最低要求", "是否满足"] and shown.iloc[0, 1] == "未安装"


def test_a_font_installed_after_matplotlib_cached_its_list_is_found(monkeypatch):
    """matplotlib caches its font list; a CJK font added later (the usual order) must still be found:
    hg.setup(lang="zh") rebuilds the list once before saying no font is installed."""
    from matplotlib import font_manager

    from hwguide import course

    if course.cjk_font() is None:
        pytest.skip("no CJK font on this machine (CI installs fonts-wqy-microhei)")
    stale = font_manager.FontManager.__new__(font_manager.FontManager)
    stale.__dict__.update(font_manager.fontManager.__dict__)
    stale.ttflist = [f for f in font_manager.fontManager.ttflist if f.name not in course.CJK_FONTS]
    monkeypatch.setattr(font_manager, "fontManager", stale)  # the cache from before the font was installed
    assert course.cjk_font() is not None  # found after one rebuild
    assert course.chinese_font_problem() is None


def test_a_chinese_export_refuses_rather_than_draw_boxes(monkeypatch, tmp_path):
    from hwguide import course, export

    monkeypatch.setattr(course, "chinese_font_problem", lambda: "no font")
    with pytest.raises(RuntimeError, match="apt-get install fonts-wqy-microhei"):
        export.export_guide(tmp_path / "guide", lang="zh", formats="html")
    assert not (tmp_path / "guide").exists() or not list((tmp_path / "guide").iterdir())
