"""The command line: every error is one line on stderr and a non-zero exit, never a traceback."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(*args, cwd):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run(
        [sys.executable, "-m", "hwguide", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=300
    )


def _one_line_error(result, *words):
    assert result.returncode != 0
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("hwguide: error: ")
    for word in words:
        assert word in lines[0]
    return lines[0]


def test_out_that_is_a_file(tmp_path):
    note = tmp_path / "notes.txt"
    note.write_text("mine")
    result = _run("export", "--out", str(note), "--format", "md", cwd=tmp_path)
    _one_line_error(result, "out=", "is a file")
    assert note.read_text() == "mine"


@pytest.mark.parametrize("day", ["yesterday", "2024-13-45"])
def test_as_of_that_is_not_a_date(tmp_path, day):
    result = _run("export", "--out", str(tmp_path / "guide"), "--as-of", day, cwd=tmp_path)
    _one_line_error(result, "as_of", day)
    assert result.returncode == 2
    assert not (tmp_path / "guide").exists()


@pytest.mark.parametrize(
    ("option", "value", "name"),
    [("--format", "docx", "formats"), ("--lang", "fr", "lang"), ("--currency", "EUR", "currency")],
)
def test_unknown_choices(tmp_path, option, value, name):
    result = _run("export", "--out", str(tmp_path / "guide"), option, value, cwd=tmp_path)
    _one_line_error(result, name, value)
    assert not (tmp_path / "guide").exists()


@pytest.mark.parametrize("args", [[], ["bogus"], ["export", "--bogus"], ["export", "--out"]])
def test_argparse_errors_are_one_line_too(tmp_path, args):
    assert _one_line_error(_run(*args, cwd=tmp_path))


def test_a_folder_that_cannot_be_written(tmp_path):
    result = _run("export", "--out", "/proc/hwguide-test-out", "--format", "md", cwd=tmp_path)
    _one_line_error(result, "cannot write there")


def test_help_still_works(tmp_path):
    result = _run("export", "--help", cwd=tmp_path)
    assert result.returncode == 0 and "--as-of" in result.stdout and not result.stderr


@pytest.mark.parametrize(("lang", "said"), [("en", "wrote "), ("zh", "已写入 ")])
def test_what_it_prints_is_in_the_language_of_lang(tmp_path, lang, said):
    result = _run("export", "--out", str(tmp_path / "guide"), "--lang", lang, "--format", "md", "--no-charts",
                  cwd=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines and all(line.startswith(said) and line.endswith("kB)" if lang == "en" else "kB）") for line in lines)


def test_the_app_command_line_has_no_chinese_in_its_code():
    source = (ROOT / "hwguide" / "__main__.py").read_text(encoding="utf-8")
    assert not any("\u4e00" <= c <= "\u9fff" for c in source)
