"""Command line: ``python -m hwguide`` validate, export, html, slides, worksheet, grade and app.

Every error, argparse's own included, is one line on stderr (``hwguide: error: ...``) and a
non-zero exit status (2), never a traceback. What it prints for the user is in the language of
``--lang`` (export, app; English otherwise); the ``--help`` texts are English.
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from . import i18n

PROG = "python -m hwguide"


class _Error(Exception):
    """A command-line error, already worded for the user."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors become one line instead of usage text and a message."""

    def error(self, message: str) -> NoReturn:
        raise _Error(message)


def _one_line(err: BaseException) -> str:
    return " ".join(str(err).split()) or type(err).__name__


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="hwguide command line")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sub.add_parser("validate", help="compare the kit's estimates with published measurements")
    export = sub.add_parser("export", help="write the guide's six tables as HTML/PDF/MD/CSV/XLSX handouts")
    export.add_argument("--out", default="guide", help="output folder (created if needed; default: guide)")
    export.add_argument("--lang", default="en", help="en or zh (default: en)")
    export.add_argument("--format", default="html,pdf,md,csv,xlsx", help="comma-separated: html,pdf,md,csv,xlsx")
    export.add_argument("--currency", default="CNY", help="CNY or USD (default: CNY)")
    export.add_argument("--as-of", default=None, help="price the value table as of this date (YYYY-MM-DD)")
    export.add_argument("--no-charts", action="store_true", help="leave the charts out of the HTML and PDF")
    page = sub.add_parser("html", help="write a course notebook as one offline HTML page (no CDN, formulas as MathML)")
    page.add_argument("notebook", help="the notebook, e.g. notebooks/03_inference_memory.ipynb")
    page.add_argument(
        "--out",
        default=None,
        help="a folder or an .html file (default: next to the notebook, named "
        "by it and its language: 03_inference_memory.zh.html)",
    )
    app = sub.add_parser("app", help="serve the calculators to a classroom with Voilà (offline, preheated kernels)")
    app.add_argument("--port", type=int, default=8866, help="port (default: 8866)")
    app.add_argument("--ip", default="127.0.0.1", help="address to listen on; 0.0.0.0 for a classroom network")
    app.add_argument(
        "--students",
        type=int,
        default=None,
        help="prepare for this many students at once: one preheated kernel each and one in ten spare",
    )
    app.add_argument(
        "--pool",
        type=int,
        default=None,
        help="kernels prepared before anyone asks (default: 8; --students sets it for you)",
    )
    app.add_argument("--check", action="store_true", help="say how many students this machine can serve, and stop")
    app.add_argument("--lang", default="en", choices=["en", "zh"], help="the app's language: en or zh (default: en)")
    slides = sub.add_parser("slides", help="write a lesson as an offline slide deck (reveal.js inlined, one HTML file)")
    slides.add_argument("notebook", help="the lesson, e.g. notebooks/zh/03_inference_memory.ipynb")
    slides.add_argument("--out", default="slides", help="a folder, or the .html file (default: slides)")
    sheet = sub.add_parser("worksheet", help="write a lesson's exercises as A4 PDF worksheets (students', teacher's)")
    sheet.add_argument("lesson", help="the lesson's number, e.g. 03")
    sheet.add_argument("--lang", default="en", choices=["en", "zh"], help="en or zh (default: en)")
    sheet.add_argument("--out", default="worksheets", help="output folder (default: worksheets)")
    grade = sub.add_parser("grade", help="grade a class's answers (CSV or XLSX: student, then one column per exercise)")
    grade.add_argument("answers", help="the class's answers file, e.g. answers.xlsx")
    grade.add_argument("--lang", default="en", choices=["en", "zh"], help="language of the headers (default: en)")
    grade.add_argument("--out", default="graded", help="output folder (default: graded)")
    return parser


def _kilobytes(path: object) -> i18n.Message:
    from pathlib import Path

    return i18n.msg("wrote {path} ({kb:,.0f} kB)", path=str(path), kb=Path(str(path)).stat().st_size / 1024)


def _run(argv: list[str] | None) -> int:
    args = _parser().parse_args(argv)
    i18n.set_language(getattr(args, "lang", "en"))  # what is printed from here on, errors too, is in --lang
    if args.command == "validate":
        from .validate import validate

        validate(show=True)
    elif args.command == "export":
        from .export import export_guide

        paths = export_guide(
            args.out,
            lang=args.lang,
            formats=args.format,
            currency=args.currency,
            as_of=args.as_of,
            charts=not args.no_charts,
        )
        for path in paths:
            print(_kilobytes(path))
    elif args.command == "html":
        from .export import notebook_html

        print(_kilobytes(notebook_html(args.notebook, args.out)))
    elif args.command == "slides":
        from .slides import notebook_slides

        print(_kilobytes(notebook_slides(args.notebook, args.out)))
    elif args.command == "worksheet":
        from .worksheet import worksheet

        for path in worksheet(args.lesson, lang=args.lang, out=args.out):
            print(_kilobytes(path))
    elif args.command == "grade":
        from .grading import grade

        for path in grade(args.answers, out=args.out, lang=args.lang):
            print(_kilobytes(path))
    elif args.command == "app":
        return _app(args)
    return 0


def _app(args: argparse.Namespace) -> int:
    """``app``: say what the class needs, serve it, and on Ctrl-C stop the server and every kernel it started."""
    import os
    import signal
    import subprocess

    from .course import ROOT, app_command, capacity, pool_needs

    i18n.set_language(args.lang)
    room = capacity(args.students)
    if args.check:
        print(i18n.msg("This machine: {memory:.1f} GiB of memory free and {cores} cores. It can serve the "
                       "calculators to about {students} students at once (memory: {by_memory}; cores: {by_cores}). "
                       "For {asked} students: {pool} preheated kernels, about {need:.1f} GiB of memory and "
                       "{prepare:.0f} s to prepare.", memory=room["memory_gib"], cores=room["cores"],
                       students=room["students"],
                       by_memory=room["by_memory"], by_cores=room["by_cores"], asked=room["asked"], pool=room["pool"],
                       need=room["memory_need_gib"], prepare=room["prepare_s"]))  # fmt: skip
        return 0 if room["asked"] <= room["students"] else 3
    command, env = app_command(port=args.port, ip=args.ip, pool=args.pool, students=args.students, lang=args.lang)
    pool = int(env["HWGUIDE_STUDENTS"])
    if pool:
        need_gib, prepare_s = pool_needs(pool, room["cores"])
        print(i18n.msg("preparing {pool} kernels: about {need:.1f} GiB of memory ({free:.1f} GiB free) and about "
                       "{prepare:.0f} s on {cores} cores; wait for the line 'hwguide: ready' before the class opens "
                       "the page.", pool=pool, need=need_gib, free=room["memory_gib"], prepare=prepare_s,
                       cores=room["cores"]), flush=True)  # fmt: skip
        if need_gib > room["memory_gib"]:
            print(i18n.msg("warning: that is more memory than this machine has free; python -m hwguide app --check "
                           "says how many students it holds"), file=sys.stderr, flush=True)  # fmt: skip
    print(i18n.msg("serving the calculators on {url} (Ctrl-C stops)", url=f"http://{args.ip}:{args.port}/"), flush=True)
    server = subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True)  # its own group: Ctrl-C is ours
    try:
        return server.wait()
    except KeyboardInterrupt:
        os.killpg(server.pid, signal.SIGTERM)  # Voila stops and shuts its kernels down; then nothing is left
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        print(i18n.msg("stopped: the server and its kernels"), flush=True)
        return 0


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status: 0, or 2 after printing one line on stderr
    (1 for an unexpected error, a bug in the kit)."""
    before = i18n.language()
    try:
        return _run(argv)
    except _Error as err:  # argparse's own words stay English, like --help
        message = i18n.text("{error} (see: {help})", error=_one_line(err), help=f"{PROG} --help")
    except (ValueError, LookupError, RuntimeError, OSError) as err:
        message = _one_line(err)
    except KeyboardInterrupt:
        message = i18n.text("interrupted")
    except Exception as err:  # a bug in the kit: still one line, saying so
        words = i18n.text("internal error ({kind}: {error}); please report it", kind=type(err).__name__,
                          error=_one_line(err))  # fmt: skip
        print(f"hwguide: error: {words}", file=sys.stderr)
        return 1
    finally:
        i18n.set_language(before)
    print(f"hwguide: error: {message}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
