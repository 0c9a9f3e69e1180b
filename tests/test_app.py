"""The classroom app sized for a class (issue 29): --students, --check, the ready line, Ctrl-C."""

from __future__ import annotations

import signal
import subprocess
import sys
import types

import psutil
import pytest
from servers import RUNAWAY_S, free_port

import hwguide as hg
from hwguide import course
from hwguide.__main__ import main


def test_a_class_gets_one_kernel_each_and_one_in_ten_spare():
    assert course.students_pool(30) == 33
    assert course.students_pool(1) == 2
    assert course.students_pool(10) == 11
    with pytest.raises(ValueError, match="students"):
        course.students_pool(0)


def test_the_command_preheats_the_pool_and_waits_for_slow_outputs():
    command, env = course.app_command(students=30)
    assert env["HWGUIDE_STUDENTS"] == "33" and "--pool_size=33" in command
    assert command[1:3] == ["-m", "hwguide.voila_app"]
    assert "--VoilaExecutor.iopub_timeout=120" in command  # nbclient's 4 s dropped outputs under load
    assert course.app_command()[1]["HWGUIDE_STUDENTS"] == "8"  # neither given: the old default pool


def test_capacity_from_memory_and_cores(monkeypatch):
    monkeypatch.setattr(psutil, "virtual_memory", lambda: types.SimpleNamespace(available=8 * 2**30))
    monkeypatch.setattr(course.os if hasattr(course, "os") else __import__("os"), "sched_getaffinity",
                        lambda pid: {0, 1}, raising=False)  # fmt: skip
    room = course.capacity(30)
    # (8 GiB - 1.5 GiB kept) x 1024 / 165 MiB per kernel / 1.1 (a spare in ten) = 36 students by memory
    assert room["by_memory"] == 36 and room["cores"] == 2
    assert room["by_cores"] == int(20 * 2 / course.PAGE_CPU_S)
    assert room["students"] == 36
    assert room["pool"] == 33 and room["memory_need_gib"] == pytest.approx(33 * 165 / 1024)
    assert room["prepare_s"] == pytest.approx(33 * 2.3 / 2)


def test_check_says_how_many_students_and_what_a_class_needs(capsys):
    assert main(["app", "--check", "--students", "5"]) == 0
    said = capsys.readouterr().out
    assert "students at once" in said and "For 5 students: 6 preheated kernels" in said


def test_ctrl_c_stops_the_server_and_every_kernel():
    port = free_port()
    app = subprocess.Popen(
        [sys.executable, "-m", "hwguide", "app", "--students", "1", "--port", str(port)],
        cwd=course.ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    lines = []
    for line in app.stdout:
        lines.append(line)
        if line.startswith("hwguide: ready"):
            break
    assert any(line.startswith("preparing 2 kernels") for line in lines)
    assert lines[-1].startswith("hwguide: ready (2/2)")
    started = psutil.Process(app.pid).children(recursive=True)
    assert sum("ipykernel" in " ".join(p.cmdline()) for p in started) == 2
    app.send_signal(signal.SIGINT)
    rest = app.communicate(timeout=RUNAWAY_S)[0]  # waits for the app to end; the guard only stops a hang
    assert app.returncode == 0 and "stopped: the server and its kernels" in rest
    assert not [p for p in started if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]


def test_the_ready_line_speaks_chinese():
    assert hg.i18n.text("{count} kernels have run the calculators, {seconds:.0f} s after the start: the class may "
                        "open the page.", "zh", count=3, seconds=12).startswith("3 个")  # fmt: skip
