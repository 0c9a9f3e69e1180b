"""The course on JupyterHub (issue 29): deploy/jupyterhub/jupyterhub_config.py, run as a small hub on 127.0.0.1
with JupyterHub's test authenticator and the local process spawner; several students log in, choose, and
get the course or the app. Needs JupyterHub (pip) and configurable-http-proxy (npm): .ci/run installs both.

    pytest -m jupyterhub
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import time
from pathlib import Path

import pytest
from servers import RUNAWAY_S, free_port, serve

pytestmark = pytest.mark.jupyterhub
ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "deploy" / "jupyterhub" / "jupyterhub_config.py"


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    pytest.importorskip(
        "jupyterhub", reason="JupyterHub is not installed: pip install -r deploy/jupyterhub/requirements.txt"
    )
    if shutil.which("configurable-http-proxy") is None:
        pytest.skip("configurable-http-proxy is not installed (npm install -g configurable-http-proxy)")
    pytest.importorskip("requests")
    work = tmp_path_factory.mktemp("hub")
    port, api, hub_port = free_port(), free_port(), free_port()
    path = os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"]  # the students' servers: this env
    root = "1" if os.geteuid() == 0 else "0"
    env = dict(os.environ, HWGUIDE_HUB_ALLOW_ROOT=root, HWGUIDE_HUB_USERS="alice,bob,carol", PATH=path)
    command = [
        sys.executable, "-m", "jupyterhub", "-f", str(CONFIG), f"--JupyterHub.bind_url=http://127.0.0.1:{port}",
        f"--JupyterHub.hub_port={hub_port}", f"--ConfigurableHTTPProxy.api_url=http://127.0.0.1:{api}",
        f"--JupyterHub.db_url=sqlite:///{work / 'hub.sqlite'}", f"--JupyterHub.cookie_secret_file={work / 'secret'}",
        "--JupyterHub.authenticator_class=dummy", "--JupyterHub.spawner_class=simple",
        f"--SimpleLocalProcessSpawner.home_dir_template={work}/home/{{username}}",
        # the hub's own patience with a student's server, not the test's: long, for a loaded machine
        "--Spawner.http_timeout=600", "--Spawner.start_timeout=600",
    ]  # fmt: skip
    with serve(command, port, "/hub/login", env=env, cwd=work, log=work / "hub.log") as url:
        yield url, work


def _student(url: str, name: str, choice: str):
    import requests

    s = requests.Session()
    page = s.get(f"{url}/hub/login")
    xsrf = s.cookies.get("_xsrf") or re.search(r'name="_xsrf" value="([^"]+)"', page.text).group(1)
    s.post(f"{url}/hub/login", data={"username": name, "password": "any", "_xsrf": xsrf}, allow_redirects=True)
    spawn = s.get(f"{url}/hub/spawn/{name}")
    form = spawn.content.decode("utf-8")
    assert 'name="open"' in form and "课程" in form  # the choice, in both languages
    xsrf = s.cookies.get("_xsrf", path="/hub/") or xsrf
    landed = s.post(f"{url}/hub/spawn/{name}", data={"open": choice, "_xsrf": xsrf}, allow_redirects=True)
    runaway = time.monotonic() + RUNAWAY_S
    # the spawn page polls until the server runs or the hub gives up; follow it the same way
    while not (f"/user/{name}/" in landed.url and landed.status_code == 200):
        assert "Spawn failed" not in landed.text and time.monotonic() < runaway, (name, landed.url, landed.text[-500:])
        time.sleep(0.5)
        landed = s.get(f"{url}/hub/user/{name}/", allow_redirects=True)
    return s, landed


def test_students_log_in_and_land_in_the_course_or_the_app(hub):
    url, work = hub
    alice, page = _student(url, "alice", "course-en")
    assert "/user/alice/lab/tree/hwguide-course/notebooks/00_start_here.ipynb" in page.url
    lesson = alice.get(f"{url}/user/alice/api/contents/hwguide-course/notebooks/00_start_here.ipynb?content=0")
    assert lesson.status_code == 200 and lesson.json()["type"] == "notebook"
    bob, page = _student(url, "bob", "course-zh")
    assert "/user/bob/lab/tree/hwguide-course/notebooks/zh/00_start_here.ipynb" in page.url
    carol, page = _student(url, "carol", "app-zh")
    assert "/voila/render/hwguide-course/notebooks/zh/app/calculators.ipynb" in page.url
    assert page.text.count("application/vnd.jupyter.widget-view+json") >= 9  # the nine calculators, run


def _config() -> dict:
    """The config file's namespace, loaded as JupyterHub loads it (get_config() returns a traitlets Config)."""
    import runpy

    from traitlets.config import Config

    return runpy.run_path(str(CONFIG), init_globals={"get_config": Config})


@pytest.mark.parametrize("choice, landing, lang", [
    ("course-zh", "/lab/tree/hwguide-course/notebooks/zh/00_start_here.ipynb", "zh"),
    ("app-en", "/voila/render/hwguide-course/notebooks/app/calculators.ipynb", "en"),
    ("nonsense", "/lab/tree/hwguide-course/notebooks/00_start_here.ipynb", "en"),
])  # fmt: skip
def test_the_choice_sets_the_landing_page_and_the_language(choice, landing, lang):
    from types import SimpleNamespace

    config = _config()
    spawner = SimpleNamespace(user_options=config["options_from_form"]({"open": [choice]}), environment={})
    config["landing"](spawner)
    assert spawner.default_url == landing and spawner.environment["HWGUIDE_LANG"] == lang


def test_a_students_saved_work_is_never_overwritten(tmp_path):
    from hwguide.hub import copy_course

    first = copy_course(tmp_path)
    lesson = tmp_path / "hwguide-course" / "notebooks" / "03_inference_memory.ipynb"
    assert lesson in first and (tmp_path / "hwguide-course" / "notebooks" / "zh" / "00_start_here.ipynb").is_file()
    lesson.write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}', encoding="utf-8")
    (tmp_path / "hwguide-course" / "notebooks" / "04_training_memory.ipynb").unlink()
    again = copy_course(tmp_path)  # the next start copies what is missing, nothing else
    assert again == [tmp_path / "hwguide-course" / "notebooks" / "04_training_memory.ipynb"]
    assert lesson.read_text(encoding="utf-8").startswith('{"cells": []')
