"""JupyterHub for the hwguide course: each student logs in and lands in the course or in the calculators app.

Works as it is on The Littlest JupyterHub (one server: copy to /opt/tljh/config/jupyterhub_config.d/) and
with Zero to JupyterHub on Kubernetes (the user image of deploy/jupyterhub/Dockerfile; this file's
options form as ``hub.extraConfig``). The student chooses on the spawn page:

- the course in JupyterLab, in English or in Chinese (``notebooks/`` or ``notebooks/zh/``);
- the calculators app (Voila's server extension), in English or in Chinese.

Their copy of the course is made in their home folder each time their server starts
(``~/hwguide-course``, by ``python -m hwguide.hub``, run as the student), never over their own work: a file
they saved is left as it is. The kit must be installed in the environment the spawner starts (see README).
Settings read from the environment:

``HWGUIDE_HUB_USERS``
    Comma-separated user names allowed in (default: whom the authenticator's own settings allow).
``HWGUIDE_HUB_ALLOW_ROOT``
    ``1`` lets the student servers run as root (a test hub, or one person's): off otherwise.
"""

from __future__ import annotations

import html
import os

c = get_config()  # noqa: F821 - JupyterHub provides get_config() when it loads this file

FOLDER = "hwguide-course"  # in each student's home (hwguide/hub.py copies the course there)
# what a student may open, and where JupyterHub sends them once their server runs (relative to it)
CHOICES = {
    "course-en": ("The course in JupyterLab (English)", f"/lab/tree/{FOLDER}/notebooks/00_start_here.ipynb"),
    "course-zh": ("课程：JupyterLab（中文）", f"/lab/tree/{FOLDER}/notebooks/zh/00_start_here.ipynb"),
    "app-en": ("The calculators (English)", f"/voila/render/{FOLDER}/notebooks/app/calculators.ipynb"),
    "app-zh": ("计算器（中文）", f"/voila/render/{FOLDER}/notebooks/zh/app/calculators.ipynb"),
}

c.Spawner.options_form = (
    '<label for="hwguide-open">Open / 打开</label><select class="form-control" name="open" id="hwguide-open">'
    + "".join(f'<option value="{key}">{html.escape(label)}</option>' for key, (label, _) in CHOICES.items())
    + "</select>"
)


def options_from_form(formdata: dict) -> dict:
    """The student's choice from the spawn page (``open``), course-en when the form sent none or an odd one."""
    choice = (formdata.get("open") or ["course-en"])[0]
    return {"open": choice if choice in CHOICES else "course-en"}


c.Spawner.options_from_form = options_from_form


def landing(spawner) -> None:  # noqa: ANN001 - JupyterHub passes its Spawner
    """Before a student's server starts: the page of their choice and the kit's language."""
    choice = spawner.user_options.get("open", "course-en")
    spawner.default_url = CHOICES.get(choice, CHOICES["course-en"])[1]
    spawner.environment = {**spawner.environment, "HWGUIDE_LANG": "zh" if choice.endswith("-zh") else "en"}


c.Spawner.pre_spawn_hook = landing
# the student's server copies the course into their home (never over their own files), then runs
# jupyterhub-singleuser: hwguide/hub.py, in the student's environment, as the student
c.Spawner.cmd = ["python", "-m", "hwguide.hub"]
# a classroom's idle servers give their memory back: kernels idle 20 minutes are culled by the server
# (Voila's server extension and the kit are installed in the environment the spawner starts)
c.Spawner.args = ["--MappingKernelManager.cull_idle_timeout=1200", "--MappingKernelManager.cull_interval=60"]
if os.environ.get("HWGUIDE_HUB_ALLOW_ROOT") == "1":  # a test or one-person hub running as root
    c.Spawner.args.append("--allow-root")

users = [u.strip() for u in os.environ.get("HWGUIDE_HUB_USERS", "").split(",") if u.strip()]
if users:
    c.Authenticator.allowed_users = set(users)
