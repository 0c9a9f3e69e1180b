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
