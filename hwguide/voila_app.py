"""Voilà, run for a classroom: the server ``python -m hwguide app`` starts (``python -m hwguide.voila_app ARGS``).

It is Voilà itself (``voila.app.Voila``) with one addition: the pool of preheated kernels reports when
each kernel has run the notebook, and the server prints one line when the whole pool is ready
(``hwguide: ready …``), so the teacher knows when the class may open the page. The line is in the
language of ``HWGUIDE_LANG``; the number of kernels to wait for is ``HWGUIDE_STUDENTS`` (the pool size).
Everything else (arguments, templates, culling) is Voilà's; :func:`hwguide.course.app_command` builds
the arguments.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

READY_PREFIX = "hwguide: ready"  # the first words of the line the app prints when the pool is ready


def _counting(factory: Any) -> Any:
    """Wrap Voilà's kernel-manager factory so that a preheated kernel counts as ready once its notebook ran."""

    def wrapped(base_class: Any, preheat_kernel: bool, default_pool_size: int, page_config_hook: Any = None) -> Any:
        cls = factory(base_class, preheat_kernel, default_pool_size, page_config_hook)
        if not preheat_kernel:
            return cls
        target = int(os.environ.get("HWGUIDE_STUDENTS", default_pool_size) or default_pool_size)
        start = time.monotonic()
        state = {"ready": 0, "said": False}

        class CountingKernelManager(cls):  # type: ignore[misc, valid-type]
            async def _initialize(self, notebook_path: str, kernel_id: str | None = None, **kwargs: Any) -> Any:
                content = await super()._initialize(notebook_path, kernel_id, **kwargs)
                content["task"].add_done_callback(_done)
                return content

        def _done(task: Any) -> None:
            if task.cancelled() or task.exception() is not None:
                return
            state["ready"] += 1
            if state["ready"] >= target and not state["said"]:
                state["said"] = True
                from . import i18n

                lang = os.environ.get("HWGUIDE_LANG", "en")
                words = i18n.text("{count} kernels have run the calculators, {seconds:.0f} s after the start: the "
                                  "class may open the page.", lang, count=state["ready"],
                                  seconds=time.monotonic() - start)  # fmt: skip
                print(f"{READY_PREFIX} ({state['ready']}/{target}): {words}", flush=True)

        return CountingKernelManager

    return wrapped


def main(argv: list[str] | None = None) -> None:
    """Run Voilà with ``argv`` (its own command-line arguments) and the ready line."""
    import voila.app

    voila.app.voila_kernel_manager_factory = _counting(voila.app.voila_kernel_manager_factory)
    sys.argv = ["voila", *(sys.argv[1:] if argv is None else argv)]
    voila.app.main()


if __name__ == "__main__":
    main()
