"""Classroom load at the protocol level: N students open the calculators app and change an input at once.

    python benchmarks/load.py                        # 10, 20 and 30 students, one app each
    python benchmarks/load.py --students 30          # one class size
    python benchmarks/load.py --students 30 --json out.json

No browsers: each student is what Voila receives from a browser, on 127.0.0.1. For each class size the
benchmark starts ``python -m hwguide app --students N`` on a free port and waits for its ``hwguide: ready``
line; then, all at the same moment, every student
  1. asks for the page (HTTP GET): complete when it holds the nine calculators (one widget view each, as
     many as the notebook has ``hg.widgets`` cells); the time is from the request to the last byte;
  2. connects to the page's kernel over the websocket (as the page's JavaScript does), finds an input of
     the first calculator (``request_state`` down the widget tree to the first whole-number box), and
     changes it (a ``comm_msg`` update, as a browser sends when a student types): the round trip is from
     the message to the kernel's ``idle`` after it, i.e. the calculator has recomputed and sent its output.
It reports complete pages, median and slowest time to the complete page (counted from the ready line),
the median and slowest round trip with everyone changing at once, the kernels and their memory (resident
set, MiB) at the peak, and the server's CPU seconds per page. A browser's own cost (drawing the page) is
``benchmarks/classroom.py``'s subject.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import socket
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
VIEW = "application/vnd.jupyter.widget-view+json"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _calculators() -> int:
    import nbformat

    cells = nbformat.read(ROOT / "notebooks/app/calculators.ipynb", as_version=4).cells
    return sum(1 for c in cells if c.cell_type == "code" and "hg.widgets." in c.source)


def _message(msg_type: str, content: dict, session: str, channel: str = "shell") -> dict:
    return {"header": {"msg_id": uuid.uuid4().hex, "username": "student", "session": session, "msg_type": msg_type,
                       "version": "5.3", "date": ""}, "parent_header": {}, "metadata": {}, "content": content,
            "channel": channel, "buffers": []}  # fmt: skip


class Kernel:
    """A page's kernel over Jupyter's websocket protocol (JSON text frames)."""

    def __init__(self, ws: object, session: str) -> None:
        self.ws, self.session, self.waiting = ws, session, {}

    async def send(self, msg_type: str, content: dict) -> str:
        msg = _message(msg_type, content, self.session)
        await self.ws.write_message(json.dumps(msg))  # type: ignore[attr-defined]
        return msg["header"]["msg_id"]

    async def until(self, test) -> dict:  # noqa: ANN001
        while True:
            raw = await self.ws.read_message()  # type: ignore[attr-defined]
            if raw is None:
                raise ConnectionError("the kernel's websocket closed")
            msg = json.loads(raw)
            if test(msg):
                return msg

    async def state(self, model_id: str) -> dict:
        """A widget's state (ipywidgets' request_state)."""
        await self.send("comm_msg", {"comm_id": model_id, "data": {"method": "request_state"}})
        msg = await self.until(lambda m: m.get("msg_type") == "comm_msg" and m["content"].get("comm_id") == model_id
                               and m["content"]["data"].get("method") == "update")  # fmt: skip
        return msg["content"]["data"]["state"]


async def _student(port: int, ready_at: float, expected: int, change_at: asyncio.Event, arrived: list) -> dict:
    from tornado.httpclient import AsyncHTTPClient
    from tornado.websocket import websocket_connect

    out: dict = {"complete": False}
    start = time.monotonic()
    try:
        page = await AsyncHTTPClient().fetch(f"http://127.0.0.1:{port}/", request_timeout=600)
    except Exception as err:  # noqa: BLE001 - reported, not raised
        out["error"] = f"page: {err}"
        arrived.append(1)
        return out
    html = page.body.decode("utf-8", "replace")
    outputs = re.findall(r'<script type="application/vnd.voila.cell-output\+json">(.*?)</script>', html, flags=re.S)
    views = [json.loads(o)["data"][VIEW] for o in outputs if VIEW in json.loads(o).get("data", {})]
    out.update(
        views=len(views),
        complete=len(views) >= expected,
        page_s=time.monotonic() - start,
        after_ready_s=time.monotonic() - ready_at,
    )
    kernel = re.search(r'"kernelId":\s*"([0-9a-f-]+)"', html)
    if not kernel or not views:
        out["error"] = "no kernel id or no widget in the page"
        arrived.append(1)
        return out
    session = uuid.uuid4().hex
    ws = await websocket_connect(f"ws://127.0.0.1:{port}/api/kernels/{kernel.group(1)}/channels?session_id={session}")
    k = Kernel(ws, session)
    target = None
    try:
        queue, target = [views[0]["model_id"]], None  # the first calculator's widget tree
        while queue and target is None:
            model = queue.pop(0)
            state = await k.state(model)
            if state.get("_model_name") in ("BoundedIntTextModel", "IntTextModel"):
                target = {"id": model, "value": state["value"], "max": state.get("max")}
            queue.extend(c.removeprefix("IPY_MODEL_") for c in state.get("children", []))
    except Exception as err:  # noqa: BLE001
        out["error"] = f"widgets: {err}"
    arrived.append(1)
    await change_at.wait()
    if target is not None:
        value = target["value"] + 1 if target["max"] is None or target["value"] < target["max"] else target["value"] - 1
        t0 = time.monotonic()
        update = {"method": "update", "state": {"value": value}, "buffer_paths": []}
        sent = await k.send("comm_msg", {"comm_id": target["id"], "data": update})
        await k.until(lambda m: m.get("msg_type") == "status" and m.get("parent_header", {}).get("msg_id") == sent
                      and m["content"].get("execution_state") == "idle")  # fmt: skip
        out["round_trip_s"] = time.monotonic() - t0
    ws.close()
    return out


def _tree(pid: int) -> list[psutil.Process]:
    root = psutil.Process(pid)
    return [root, *root.children(recursive=True)]


async def _class(n: int) -> dict:
    port = _free_port()
    app = subprocess.Popen([sys.executable, "-m", "hwguide", "app", "--students", str(n), "--port", str(port)],
                           cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)  # fmt: skip
    started = time.monotonic()
    try:
        said = []
        for line in app.stdout:  # type: ignore[union-attr]
            said.append(line)
            if line.startswith("hwguide: ready"):
                break
        else:
            raise RuntimeError("the app stopped before it was ready: " + "".join(said[-5:]))
        ready_at = time.monotonic()
        server = [p for p in _tree(app.pid) if "hwguide.voila_app" in " ".join(p.cmdline())][0]
        cpu_before = sum(server.cpu_times()[:2])
        expected = _calculators()
        change, arrived = asyncio.Event(), []
        tasks = [asyncio.create_task(_student(port, ready_at, expected, change, arrived)) for _ in range(n)]
        while len(arrived) < n and not all(t.done() for t in tasks):
            await asyncio.sleep(0.05)
        procs = _tree(app.pid)
        rss = sum(p.memory_info().rss for p in procs if p.is_running()) / 2**20
        kernels = sum(1 for p in procs if "ipykernel" in " ".join(p.cmdline()))
        pages_cpu = sum(server.cpu_times()[:2]) - cpu_before
        change.set()
        results = await asyncio.gather(*tasks)
    finally:
        for p in reversed(_tree(app.pid)):
            p.terminate()
        app.wait(timeout=60)
    done = [r for r in results if r.get("complete")]
    trips = [r["round_trip_s"] for r in results if "round_trip_s" in r]
    after = [r["after_ready_s"] for r in done]
    return {"students": n, "prepare_s": ready_at - started, "complete": len(done),
            "errors": [r["error"] for r in results if "error" in r][:3],
            "page_median_s": statistics.median(after) if after else None, "page_slowest_s": max(after, default=None),
            "round_trip_median_s": statistics.median(trips) if trips else None,
            "round_trip_slowest_s": max(trips, default=None), "round_trips": len(trips), "kernels": kernels,
            "memory_mib": rss, "server_cpu_s_per_page": pages_cpu / n}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, nargs="+", default=[10, 20, 30])
    parser.add_argument("--json", default=None, help="also write the results to this JSON file")
    args = parser.parse_args(argv)
    rows = [asyncio.run(_class(n)) for n in args.students]
    for r in rows:
        print(json.dumps(r))
        print(f"{r['students']:3} students: {r['complete']}/{r['students']} complete pages; page after ready "
              f"median {r['page_median_s']:.1f} s, slowest {r['page_slowest_s']:.1f} s; round trip with all "
              f"changing at once median {r['round_trip_median_s']:.2f} s, slowest {r['round_trip_slowest_s']:.2f} s "
              f"({r['round_trips']} of {r['students']}); {r['kernels']} kernels, {r['memory_mib'] / 1024:.1f} GiB; "
              f"prepared in {r['prepare_s']:.0f} s; server {r['server_cpu_s_per_page']:.2f} CPU-s per page"
              + (f"; errors: {r['errors']}" if r["errors"] else ""))  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0 if all(r["complete"] == r["students"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
