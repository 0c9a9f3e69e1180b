"""Course helpers: notebook set-up, the environment check and "which GPU is in this machine?"."""

from __future__ import annotations

import importlib.metadata
import platform
import re
import sys
from pathlib import Path
from typing import Any

import pandas as pd

from . import checks, i18n

__all__ = ["NO_LOCAL_GPU", "check_environment", "chinese_font_problem", "cjk_font", "local_gpus", "setup"]

# Fonts tried in order for figure text; the CJK ones render the Chinese labels of figures where
# installed (Debian: fonts-noto-cjk or fonts-wqy-microhei), DejaVu Sans ships with matplotlib.
FONT_STACK = ["DejaVu Sans", "Noto Sans CJK SC", "Noto Sans CJK JP", "WenQuanYi Micro Hei"]


CJK_FONTS = FONT_STACK[1:]


def _installed(names: list[str]) -> list[str]:
    from matplotlib import font_manager

    found = {f.name for f in font_manager.fontManager.ttflist}
    return [name for name in names if name in found]


def _rebuild_font_list() -> None:
    """Make matplotlib list the fonts installed now: it caches its font list on first use, so a font
    installed after that (the usual order: install the kit, run it, then add a CJK font) is unseen."""
    from matplotlib import font_manager

    font_manager.fontManager = font_manager._load_fontmanager(try_read_cache=False)


def cjk_font() -> str | None:
    """The first font of :data:`FONT_STACK` that draws Chinese and is installed, or None.

    When matplotlib's cached font list has none, the list is rebuilt once before giving up.
    """
    found = _installed(CJK_FONTS)
    if not found:
        _rebuild_font_list()
        found = _installed(CJK_FONTS)
    return next(iter(found), None)


# Characters a font must draw to serve the Chinese figures (the words for GPU memory and compute)
CJK_SAMPLE = "\u663e\u5b58\u7b97\u529b"

FONT_MISSING = i18n.N_("No Chinese font found for the figures: install one (Debian/Ubuntu: apt-get install "
                       "fonts-wqy-microhei; Windows and macOS have one) and restart the kernel.")  # fmt: skip


def chinese_font_problem() -> Any:
    """None when the font matplotlib will draw Chinese with has the glyphs; else the message to show.

    Checks the font file matplotlib actually picks for the CJK family, not only that one is listed
    (``fc-list`` can list a font matplotlib does not see).
    """
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font

    family = cjk_font()
    if family is not None:
        try:
            path = font_manager.findfont(font_manager.FontProperties(family=family), fallback_to_default=False)
            if all(FT2Font(path).get_char_index(ord(c)) for c in CJK_SAMPLE):
                return None
        except (ValueError, RuntimeError, OSError):
            pass
    return i18n.msg(FONT_MISSING)


def font_params() -> dict[str, Any]:
    """matplotlib settings that draw Latin text in DejaVu Sans and Chinese in the first CJK font found.

    matplotlib falls back glyph by glyph only across the families listed in ``font.family``
    itself (not across ``font.sans-serif``), so the installed fonts are listed there.
    """
    return {"font.family": [*_installed(FONT_STACK), "sans-serif"], "font.sans-serif": FONT_STACK}


def setup(lang: str = "en") -> None:
    """Make notebook output readable and deterministic: PNG figures, fixed sizes, wide tables.

    ``lang`` ("en" or "zh") sets the language of the calculators, charts, guide tables and
    exercises. With "zh" and no Chinese font installed, it says which to install (figures would
    otherwise draw empty boxes for every character).
    """
    import matplotlib as mpl

    lang = i18n.set_language(lang)

    mpl.rcParams.update(
        {
            "figure.figsize": (7.5, 4.5),
            "figure.dpi": 100,
            "savefig.dpi": 100,
            **font_params(),
            "axes.grid": True,
            "grid.alpha": 0.3,
            "svg.hashsalt": "hwguide",
        }
    )
    pd.set_option("display.max_columns", 40)
    pd.set_option("display.width", 160)
    pd.set_option("display.max_colwidth", 60)
    pd.set_option("display.max_rows", 120)  # the whole catalog (about 90 cards) in one table
    pd.set_option("display.unicode.east_asian_width", lang == "zh")  # Chinese columns line up in text
    if lang == "zh":
        mpl.rcParams.update(font_params())  # after a rebuilt font list, the CJK font is now listed
        problem = chinese_font_problem()
        if problem is not None:
            print(problem)
    try:
        from IPython import get_ipython

        if get_ipython() is not None:
            from matplotlib_inline.backend_inline import set_matplotlib_formats

            set_matplotlib_formats("png")
            from matplotlib.figure import Figure
            from pandas.io.formats.style import Styler

            # a Styler's default text form holds its memory address: show its title instead
            plain = get_ipython().display_formatter.formatters["text/plain"]
            plain.for_type(Styler, lambda obj, p, cycle: p.text(f"<styled table: {obj.data.attrs.get('title', '')}>"))
            plain.for_type(Figure, _figure_text)  # "<Figure size ...>" in the reader's language
            _show_frames_labelled(get_ipython())
    except ImportError:  # plain Python: nothing to configure
        pass


def _figure_text(fig: Any, p: Any, cycle: bool) -> None:
    """A figure's text form (shown beside its picture), as matplotlib writes it but in the current language."""
    width, height = fig.bbox.size
    p.text(
        i18n.text("<Figure size {width:g}x{height:g} with {axes} Axes>", width=width, height=height, axes=len(fig.axes))
    )


def _show_frames_labelled(shell: Any) -> None:
    """Make the notebook show every DataFrame and Series in the current language: column labels, codes
    and messages in the reader's words (``i18n.labelled``); in English the column names stay as they are."""

    def shown(obj: Any) -> Any:  # English keeps the machine column names, and shows codes in words
        return i18n.labelled(obj, columns=i18n.language() != "en")

    formatters = shell.display_formatter.formatters
    formatters["text/html"].for_type(pd.DataFrame, lambda obj: shown(obj)._repr_html_())
    for kind in (pd.DataFrame, pd.Series):
        formatters["text/plain"].for_type(kind, lambda obj, p, cycle: p.text(repr(shown(obj))))


def _requirements() -> list[tuple[str, str]]:
    """(package, lower bound) pairs from requirements.txt, in file order."""
    path = Path(__file__).resolve().parent.parent / "requirements.txt"
    pairs = []
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            match = re.match(r"^\s*([A-Za-z0-9_.\-]+)\s*>=\s*([0-9][0-9.]*)", line)
            if match:
                pairs.append((match.group(1), match.group(2)))
    return pairs


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text)[:3])


def check_environment() -> pd.DataFrame:
    """Python and each required package: the version found, the minimum tested, and ok or not.

    Columns ``package``, ``installed`` (a version, or the code ``"missing"``), ``required`` and ``ok``;
    a notebook shows them in the reader's language (``hg.setup``).
    """
    rows = [
        {
            "package": "python",
            "installed": platform.python_version(),
            "required": "3.11",
            "ok": sys.version_info >= (3, 11),
        }
    ]
    for package, minimum in _requirements():
        try:
            found = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            found = None
        ok = found is not None and _version_tuple(found) >= _version_tuple(minimum)
        rows.append({"package": package, "installed": found or "missing", "required": minimum, "ok": ok})
    return pd.DataFrame(rows)


def local_gpus() -> pd.DataFrame:
    """The NVIDIA GPUs in this machine, read through NVML (the nvidia-ml-py package).

    Columns: ``index``, ``name`` (as the driver reports it), ``memory_gib`` (total, GiB) and
    ``catalog`` (the matching catalog entry, or None). Empty when no NVIDIA driver or GPU is found:
    then :data:`NO_LOCAL_GPU` says so (``here if len(here) else print(hg.course.NO_LOCAL_GPU)``).
    """
    from .catalog import gpu

    columns = ["index", "name", "memory_gib", "catalog"]
    try:
        import pynvml

        pynvml.nvmlInit()
    except Exception:  # no library, no driver, or no GPU: all mean "none found"
        return pd.DataFrame(columns=columns)
    rows = []
    try:
        for index in range(pynvml.nvmlDeviceGetCount()):
            handle = pynvml.nvmlDeviceGetHandleByIndex(index)
            name = pynvml.nvmlDeviceGetName(handle)
            name = name.decode() if isinstance(name, bytes) else name
            memory = pynvml.nvmlDeviceGetMemoryInfo(handle).total / 2**30
            try:
                match = gpu(name).name
            except LookupError:
                match = None
            rows.append({"index": index, "name": name, "memory_gib": round(memory, 1), "catalog": match})
    finally:
        pynvml.nvmlShutdown()
    return pd.DataFrame(rows, columns=columns)


# What a notebook says when local_gpus() finds none; rendered in the reader's language when printed.
NO_LOCAL_GPU = i18n.msg("No NVIDIA GPU found on this machine: that is fine, the course runs on the CPU.")


def loading_words(lang: str | None = None) -> dict[str, str]:
    """The words of the app's loading page in ``lang``, for ``hwguide/jupyter/voila/templates/hwguide``:
    ``running`` (Voila's "Running ..."), and ``executing`` and ``reading`` (its "Executing 3 of 12" as
    cells run, "Reading 3 of 12" when rendering progressively), which keep Voila's JavaScript
    placeholders ``${cell_index}`` and ``${cell_count}``."""
    where = {"cell": "${cell_index}", "count": "${cell_count}"}
    return {
        "running": i18n.text("Running ...", lang),
        "executing": i18n.text("Executing {cell} of {count}", lang, **where),
        "reading": i18n.text("Reading {cell} of {count}", lang, **where),
        # the page's own check that no calculator is missing (the template fills {missing} and {count} in)
        "missing": i18n.text(
            "{missing} of {count} calculators did not load.", lang, missing="{missing}", count="{count}"
        ),
        "reload": i18n.text("Reload the page", lang),
    }


APP_NOTEBOOK = "notebooks/app/calculators.ipynb"
ROOT = Path(__file__).resolve().parent.parent  # the repository: the course's notebooks sit next to the package


# What one student costs the machine that serves the app (benchmarks/load.py measures them; 2026-12-02, a
# 2-core machine): the memory of one kernel after it has run the calculators notebook (resident set, MiB),
# the CPU seconds to start it and run the notebook, and the server's CPU seconds to send one page.
KERNEL_MIB = 165.0
KERNEL_CPU_S = 2.3
PAGE_CPU_S = 0.15
RESERVED_GIB = 1.5  # left to the system and the Voila server itself


def students_pool(students: int) -> int:
    """Kernels to preheat for ``students``: one each and one in ten spare (a student who reloads the page)."""
    students = checks.whole(students, "students", high=1000)
    return students + max(1, -(-students // 10))


def capacity(students: int | None = None) -> dict[str, Any]:
    """How many students this machine can serve the app to, from its free memory and its cores.

    ``memory_gib`` (available now, /proc/meminfo's MemAvailable or psutil), ``cores`` (those this process
    may use), ``by_memory`` (students whose kernels fit, :data:`KERNEL_MIB` each plus one spare in ten,
    keeping :data:`RESERVED_GIB`), ``by_cores`` (students whose pages the cores serve within 20 s of each
    other: 20 s × cores ÷ :data:`PAGE_CPU_S`), ``students`` (the smaller), and for ``students`` (default:
    that many) the ``pool``, the ``memory_need_gib`` and the ``prepare_s`` (the pool's kernels started and
    run on all cores) the app needs.
    """
    import os

    import psutil

    memory = psutil.virtual_memory().available / 2**30
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    by_memory = int(max(memory - RESERVED_GIB, 0) * 1024 / KERNEL_MIB / 1.1)
    by_cores = int(20 * cores / PAGE_CPU_S)
    fits = max(min(by_memory, by_cores), 0)
    wanted = checks.whole(students, "students", high=1000) if students is not None else max(fits, 1)
    pool = students_pool(wanted)
    need_gib, prepare_s = pool_needs(pool, cores)
    return {"memory_gib": memory, "cores": cores, "by_memory": by_memory, "by_cores": by_cores, "students": fits,
            "asked": wanted, "pool": pool, "memory_need_gib": need_gib, "prepare_s": prepare_s}  # fmt: skip


def pool_needs(pool: int, cores: int) -> tuple[float, float]:
    """What ``pool`` preheated kernels take: GiB of memory, and seconds to start them and run the notebook on
    ``cores`` cores (:data:`KERNEL_MIB`, :data:`KERNEL_CPU_S`)."""
    return pool * KERNEL_MIB / 1024, pool * KERNEL_CPU_S / max(cores, 1)


def app_command(*, port: int = 8866, ip: str = "127.0.0.1", pool: int | None = None, students: int | None = None,
                cull_after: int = 120, notebook: str | None = None,
                lang: str = "en") -> tuple[list[str], dict[str, str]]:  # fmt: skip
    """The command and environment that serve the calculators app to a classroom with Voilà.

    ``students`` sizes the pool of preheated kernels for a class (:func:`students_pool`); ``pool`` sets it
    directly (default 8 when neither is given); 0 serves without preheating.

    ``lang="zh"`` serves the Chinese page (``notebooks/zh/app/calculators.ipynb``, which calls
    ``hg.setup(lang="zh")``); ``notebook`` another page of the repository.

    - ``template=hwguide`` (shipped in ``hwguide/jupyter``): Voilà's lab page without its CDN
      stylesheets, so a page asks nothing of any host but the server;
    - ``pool`` preheated kernels (``preheat_kernel``): the notebook is run before anyone asks, so a
      page is served from a ready kernel instead of each load starting and running one while
      others do the same (on a 2-core machine that is what made concurrent loads stall); the pool
      refills 45 s after a kernel is taken, so the refill does not compete with a class arriving;
    - kernels idle for ``cull_after`` seconds with no tab connected are shut down (jupyter-server's
      kernel culling), so closed tabs free their memory;
    - in a language other than English, the words of the page shown while it loads (Voilà's
      "Running ...", "Executing 3 of 12"), passed to the template as ``resources.hwguide_loading``.
    """
    import json
    import os

    lang = i18n.resolve(lang)
    if notebook is None:
        notebook = APP_NOTEBOOK if lang == "en" else APP_NOTEBOOK.replace("notebooks/", f"notebooks/{lang}/")
    if not (ROOT / notebook).is_file():
        raise ValueError(i18n.msg("notebook={notebook!r} is not in {root}: run the app from a clone of the course "
                                  "repository", notebook=notebook, root=str(ROOT)))  # fmt: skip
    port = checks.whole(port, "port", low=1, high=65535)
    if students is not None:
        pool = students_pool(students)
    pool = checks.whole(8 if pool is None else pool, "pool", low=0, high=1100)
    cull_after = checks.whole(cull_after, "cull_after", low=10, high=86_400)
    env = dict(os.environ)
    templates = str(Path(__file__).resolve().parent / "jupyter")
    env["JUPYTER_PATH"] = os.pathsep.join(p for p in (templates, env.get("JUPYTER_PATH", "")) if p)
    env["HWGUIDE_STUDENTS"], env["HWGUIDE_LANG"] = str(pool), lang  # hwguide.voila_app says when they are ready
    command = [
        sys.executable, "-m", "hwguide.voila_app", notebook, "--no-browser", f"--port={port}", f"--Voila.ip={ip}",
        "--template=hwguide", "--show_tracebacks=False",
        # wait for a busy kernel's outputs instead of dropping them after nbclient's 4 s (a page with
        # calculators missing and nothing saying so, issue 29)
        "--VoilaExecutor.iopub_timeout=120", "--VoilaExecutor.raise_on_iopub_timeout=True",
        f"--MappingKernelManager.cull_idle_timeout={cull_after}", "--MappingKernelManager.cull_interval=15",
        "--MappingKernelManager.cull_connected=False",
    ]  # fmt: skip
    if lang != "en":  # English keeps Voila's own words (and the template's own English for a missing calculator)
        command.append("--VoilaConfiguration.resources=" + json.dumps({"hwguide_loading": loading_words(lang)}))
    if pool:  # refill the pool a while after a kernel is taken, not during the rush of a class arriving
        command += ["--preheat_kernel=True", f"--pool_size={pool}", "--VoilaKernelManager.fill_delay=45"]
    return command, env
