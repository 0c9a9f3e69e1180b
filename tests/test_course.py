"""Course helpers: environment check, local GPU detection, the first chart."""

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
