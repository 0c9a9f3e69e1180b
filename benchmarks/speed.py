"""How quick is the kit? Medians over repeated runs, printed as a table.

    python benchmarks/speed.py            # everything
    python benchmarks/speed.py --quick    # skip executing the notebooks

Measures: `import hwguide` (fresh interpreter), one update of each calculator (the report function
behind it), `hg.recommend` over the whole catalog for each scenario's need, `hg.guide_tables()` (the
first call in a fresh interpreter, and repeated calls), the export of all formats with
`python -m hwguide export` (en and zh, a fresh interpreter each) and the time to execute each
notebook. Targets (2-core machine): import < 0.5 s, calculator update < 20 ms, recommend < 200 ms,
guide_tables < 1 s, export < 10 s, each notebook < 15 s.

Each line gives the wall-clock time and the CPU time of the process that did the work (its own, or
the child interpreter's): on a machine that other work shares, the wall-clock time grows with the
load and the CPU time much less, so "ok" is judged on each.
"""

from __future__ import annotations

import argparse
import itertools
import resource
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def median_seconds(fn: Callable[[], object], repeat: int = 7) -> tuple[float, float]:
    """Median wall-clock and CPU seconds (this process) of ``fn()``, after one warm-up call."""
    fn()  # warm-up: caches and lazy imports
    walls, cpus = [], []
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def fresh_seconds(code: str, repeat: int = 5) -> tuple[float, float]:
    """Median wall-clock and CPU seconds that ``code`` prints as "wall cpu", each run in a fresh interpreter."""
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
            for _ in range(repeat)]  # fmt: skip
    return statistics.median(float(w) for w, _ in runs), statistics.median(float(c) for _, c in runs)


def import_seconds(repeat: int = 5) -> tuple[float, float]:
    code = ("import time; t, c = time.perf_counter(), time.process_time(); import hwguide; "
            "print(time.perf_counter() - t, time.process_time() - c)")  # fmt: skip
    return fresh_seconds(code, repeat)


def first_guide_tables(lang: str, repeat: int = 5) -> tuple[float, float]:
    """The first ``hg.guide_tables()`` of a fresh interpreter, after ``import hwguide``: nothing computed yet."""
    code = ("import time, hwguide as hg; t, c = time.perf_counter(), time.process_time(); "
            f"hg.guide_tables({lang!r}); print(time.perf_counter() - t, time.process_time() - c)")  # fmt: skip
    return fresh_seconds(code, repeat)


def child_seconds(command: list[str], cwd: Path = ROOT) -> tuple[float, float]:
    """Wall-clock seconds of ``command`` and the CPU seconds (user + system) of it and its children."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, capture_output=True, check=True, cwd=cwd)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="do not execute the notebooks")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    import hwguide as hg
    from hwguide import widgets as w

    rows: list[tuple[str, tuple[float, float], float]] = [("import hwguide", import_seconds(), 0.5)]
    step = itertools.count(1)  # a new context length on every call, as when a learner moves a slider

    def ctx() -> int:
        return 1024 + next(step)

    calculators = {
        "vram_report": lambda: w.vram_report(model="Llama-3.1-8B", weights="Q4_K_M", kv="fp16", batch=4,
                                             context=ctx(), engine="vllm", card="RTX 4090", gpus=1),
        "finetune_report": lambda: w.finetune_report(model="Llama-3.1-8B", method="qlora", rank=16, context=ctx(),
                                                     batch=1, recompute="full", card="RTX 4090", gpus=1),
        "training_report": lambda: w.training_report(model="Llama-2-7B", precision="bf16-mixed", optimizer="adamw",
                                                     context=ctx(), batch=1, gpus=8, zero=3, recompute="full",
                                                     card="A100 SXM4 80GB"),
        "speed_report": lambda: w.speed_report(model="Llama-3.1-8B", card="RTX 4090", weights="Q4_K_M", batch=4,
                                               context=ctx(), gpus=1, engine="llama.cpp"),
        "interconnect_report": lambda: w.interconnect_report(model="Llama-2-7B", gpus=8),
        "compare_report": lambda: w.compare_report(a="RTX 3090", b="RTX 4090"),
    }  # fmt: skip
    for name, fn in calculators.items():
        rows.append((f"calculator update: {name}", median_seconds(fn), 0.02))
    for scenario in ("individual", "team", "company"):
        first = hg.scenarios().query("scenario == @scenario").iloc[0]
        need = dict(inference=dict(model=float(first["infer_finetune_max_b"]), users=int(first["users_max"])),
                    finetune=dict(model=float(first["infer_finetune_max_b"])),
                    pretrain=dict(model=float(first["train_b"]), tokens=20e9 * float(first["train_b"])))  # fmt: skip
        rows.append(
            (f"recommend, {scenario} need, whole catalog", median_seconds(lambda need=need: hg.recommend(**need)), 0.2)
        )
    for lang in ("en", "zh"):
        rows.append((f"guide_tables({lang!r}), first call in a fresh interpreter", first_guide_tables(lang), 1.0))
    rows.append(("guide_tables(), repeated calls", median_seconds(hg.guide_tables, repeat=3), 1.0))
    import tempfile

    with tempfile.TemporaryDirectory() as out:
        for lang in ("en", "zh"):
            command = [sys.executable, "-m", "hwguide", "export", "--out", out, "--lang", lang, "--format",
                       "html,pdf,md,csv,xlsx"]  # fmt: skip
            rows.append((f"python -m hwguide export, all formats, {lang}", child_seconds(command), 10.0))
    if not args.quick:
        for path in sorted((ROOT / "notebooks").rglob("*.ipynb")):
            if ".ipynb_checkpoints" in path.parts:
                continue
            command = [sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute", "--stdout",
                       str(path)]  # fmt: skip
            rows.append((f"execute {path.relative_to(ROOT)}", child_seconds(command, path.parent), 15.0))
    print(f"{'what':58} {'wall s':>9} {'CPU s':>9} {'target s':>9}  ok (wall / CPU)")
    for name, (wall, cpu), target in rows:
        ok = "" if target != target else " / ".join("yes" if v < target else "NO" for v in (wall, cpu))
        print(f"{name:58} {wall:9.4f} {cpu:9.4f} {target:9.3f}  {ok}")


if __name__ == "__main__":
    main()
