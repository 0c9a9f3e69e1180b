"""How quick is the kit? Medians over repeated runs, printed as a table.

    python benchmarks/speed.py            # everything
    python benchmarks/speed.py --quick    # skip executing the notebooks

Measures: `import hwguide` (fresh interpreter), one update of each calculator (the report function
behind it), `hg.recommend` over the whole catalog for each scenario's need, `hg.guide_tables()`,
the export of all formats (en and zh, one run each) and the time to execute each notebook. Targets
(2-core machine): import < 0.5 s, calculator update < 20 ms, recommend < 200 ms, export < 10 s,
each notebook < 15 s.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def median_seconds(fn: Callable[[], object], repeat: int = 7) -> float:
    fn()  # warm-up: caches and lazy imports
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def import_seconds(repeat: int = 5) -> float:
    code = "import time; t = time.perf_counter(); import hwguide; print(time.perf_counter() - t)"
    runs = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
            for _ in range(repeat)]  # fmt: skip
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="do not execute the notebooks")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    import hwguide as hg
    from hwguide import widgets as w

    rows: list[tuple[str, float, float]] = [("import hwguide", import_seconds(), 0.5)]
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
    rows.append(("guide_tables()", median_seconds(hg.guide_tables, repeat=3), float("nan")))
    import tempfile

    with tempfile.TemporaryDirectory() as out:
        for lang in ("en", "zh"):
            start = time.perf_counter()
            hg.export_guide(out, lang=lang)
            rows.append((f"export_guide all formats, {lang}", time.perf_counter() - start, 10.0))
    if not args.quick:
        for path in sorted((ROOT / "notebooks").rglob("*.ipynb")):
            if ".ipynb_checkpoints" in path.parts:
                continue
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute",
                            "--stdout", str(path)], capture_output=True, check=True, cwd=path.parent)  # fmt: skip
            rows.append((f"execute {path.relative_to(ROOT)}", time.perf_counter() - start, 15.0))
    print(f"{'what':58} {'median s':>10} {'target s':>9}  ok")
    for name, seconds, target in rows:
        ok = "" if target != target else ("yes" if seconds < target else "NO")
        print(f"{name:58} {seconds:10.4f} {target:9.3f}  {ok}")


if __name__ == "__main__":
    main()
