"""Messages are data: every message the code can show has Chinese in the gettext catalog, with the same
named fields as its English, and no Chinese is written in the package's Python files."""

import re
import string
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir

import hwguide as hg
from hwguide import i18n

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "hwguide"
CJK = re.compile(r"[\u4e00-\u9fff]")  # Chinese characters (full-width punctuation in parsing code is fine)


def _extracted():
    found = extract_from_dir(str(PACKAGE), method_map=[("**.py", "python")],
                             keywords={"msg": None, "text": None, "N_": None})  # fmt: skip
    out = []
    for filename, lineno, message, _comments, context in found:
        if isinstance(message, str) and message:
            out.append((f"hwguide/{filename}:{lineno}", context, message))
    return out


def _fields(words):
    return sorted({name.split(".")[0].split("[")[0] for _, name, _, _ in string.Formatter().parse(words) if name})


MESSAGES = _extracted()


def test_the_code_has_messages_to_check():
    assert len(MESSAGES) > 100


def test_every_message_has_chinese_with_the_same_fields():
    zh = i18n.catalog("zh")
    missing = [f"{where}: {message!r}" for where, context, message in MESSAGES if (context, message) not in zh]
    assert not missing, (
        f"{len(missing)} messages have no Chinese in hwguide/locale/zh/LC_MESSAGES/hwguide.po:\n"
        + "\n".join(missing[:40])
    )
    wrong = [f"{where}: {message!r} -> {zh[(context, message)]!r}" for where, context, message in MESSAGES
             if _fields(message) != _fields(zh[(context, message)])]  # fmt: skip
    assert not wrong, "the Chinese uses other fields than the English:\n" + "\n".join(wrong)


def test_every_catalog_entry_formats_with_its_fields():
    for (context, english), words in i18n.catalog("zh").items():
        assert _fields(english) == _fields(words), f"{context}/{english!r}: fields differ in {words!r}"
        if CJK.search(english):
            pytest.fail(f"an English id holds Chinese: {english!r}")


def test_no_chinese_in_the_package_code():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if CJK.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:80]}")
    assert not found, "Chinese belongs in the catalog, not in the code:\n" + "\n".join(found)


def test_a_message_renders_in_the_language_it_is_shown_in():
    message = i18n.msg("No Chinese font found for the figures: install one (Debian/Ubuntu: apt-get install "
                       "fonts-wqy-microhei; Windows and macOS have one) and restart the kernel.")  # fmt: skip
    with i18n.using("en"):
        assert str(message).startswith("No Chinese font")
    with i18n.using("zh"):
        assert CJK.search(str(message))
    assert CJK.search(message.render("zh")) and message.render("en").startswith("No")


def test_a_message_with_fields_renders_nested_messages_in_the_same_language():
    inner = i18n.msg("Model")
    outer = i18n.msg("{id}: right.", id=inner)
    assert outer.render("en") == "Model: right."
    assert outer.render("zh").startswith(inner.render("zh"))


def test_a_message_needs_its_fields():
    with pytest.raises(KeyError, match="needs the fields"):
        i18n.msg("{id}: right.")


def test_labelled_shows_columns_and_codes_in_chinese_and_leaves_the_frame_alone():
    frame = hg.catalog.gpus()[["name", "segment", "memory_gib"]].head(3)
    shown = i18n.labelled(frame, "zh")
    assert list(frame.columns) == ["name", "segment", "memory_gib"]
    assert all(CJK.search(str(c)) for c in shown.columns[1:])
    assert shown.iloc[:, 2].tolist() == frame["memory_gib"].tolist()
