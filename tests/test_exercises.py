"""The exercises (data/exercises.csv and hwguide/exercises.py): both languages, show(), check() and answers
that the package computes when checked."""

import re
from pathlib import Path

import pytest

import hwguide as hg
from hwguide import exercises

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
CJK = re.compile(r"[\u4e00-\u9fff]")
ALL = list(exercises.EXERCISES)
CHECKED = [i for i in ALL if exercises.EXERCISES[i].checked]
NOT_CHECKED = [i for i in ALL if not exercises.EXERCISES[i].checked]


def _wrong(expected):
    if isinstance(expected, bool) or type(expected).__name__ == "bool_":
        return not expected
    return "RTX 2080" if isinstance(expected, str) else expected * 1.5 + 1


def test_the_file_loads_through_the_catalog_and_matches_the_solvers():
    table = hg.load_table("exercises")
    assert list(table["id"]) == ALL and len(set(ALL)) == len(ALL)
    assert set(exercises.SOLVERS) == set(CHECKED)
    assert set(table["kind"]) == set(exercises.KINDS)


@pytest.mark.parametrize("exercise_id", ALL)
def test_every_exercise_has_both_languages(exercise_id):
    ex = exercises.EXERCISES[exercise_id]
    for part in (ex.question, ex.hint, ex.explanation):
        assert part["en"].strip() and part["zh"].strip()
        assert CJK.search(part["zh"]), f"{exercise_id}: the Chinese text has no Chinese"
        assert not CJK.search(part["en"]) or exercise_id == "10.1", f"{exercise_id}: Chinese in the English text"
        assert "CNY" not in part["zh"], f"{exercise_id}: Chinese prose writes 元, not CNY"
    assert exercises.question(exercise_id, lang="en").startswith(ex.question["en"])
    assert exercises.question(exercise_id, lang="zh").startswith(ex.question["zh"])


@pytest.mark.parametrize("exercise_id", ALL)
def test_ids_follow_the_notebooks_and_hints_are_not_the_answer_code(exercise_id):
    ex = exercises.EXERCISES[exercise_id]
    assert re.fullmatch(r"\d\d\.\d+", exercise_id)
    assert list(NOTEBOOKS.glob(f"{ex.notebook}_*.ipynb")), f"no notebook {ex.notebook}_*.ipynb"
    for lang in ("en", "zh"):
        assert "hg." not in ex.hint[lang] and "(" + '"' not in ex.hint[lang], f"{exercise_id}: the hint is a call"
    assert bool(ex.run) == (ex.kind == "predict"), f"{exercise_id}: a predict exercise gives the call to run"


def test_every_notebook_has_exercises_beyond_look_ups():
    numbers = sorted(p.name[:2] for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    for number in numbers:
        kinds = [ex.kind for ex in exercises.exercises(number)]
        assert sum(kind != "lookup" for kind in kinds) >= 2, (number, kinds)
    kinds = {ex.kind for ex in exercises.exercises()}
    assert kinds == {"lookup", "compute", "predict", "design", "why"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_show_prints_every_exercise_of_a_notebook(capsys, lang):
    for number in ("00", "03", "07"):
        exercises.show(number, lang=lang)
        out = capsys.readouterr().out
        mine = exercises.exercises(number)
        assert mine and [line.split(" · ")[0] for line in out.split("\n\n")] == [ex.id for ex in mine]
        for ex in mine:
            assert ex.question[lang] in out
    exercises.show("03", lang=lang)
    first = capsys.readouterr().out.split("\n\n")[0]
    question = exercises.EXERCISES["03.1"].question[lang]
    assert first == ("03.1 · 算一算：" if lang == "zh" else "03.1 · Compute: ") + question


def test_show_follows_the_language_of_setup(capsys):
    from hwguide import i18n

    try:
        i18n.set_language("zh")
        exercises.show("04")
        assert "04.1 · 算一算：" in capsys.readouterr().out
        predict = exercises.question("04.3")
        assert "先写下你的猜测，再运行：" in predict and exercises.EXERCISES["04.3"].run in predict
    finally:
        i18n.set_language("en")
    exercises.show("4")  # a number or a notebook's file name works too
    assert "04.1 · Compute: " in capsys.readouterr().out
    exercises.show("04_training_memory")
    assert "04.3 · Predict, then run: " in capsys.readouterr().out
    with pytest.raises(LookupError, match="00, 01"):
        exercises.show("42")


@pytest.mark.parametrize("exercise_id", CHECKED)
def test_every_checked_exercise_accepts_its_own_answer_and_rejects_a_wrong_one(exercise_id):
    expected = exercises.answer(exercise_id)
    assert exercises.check(exercise_id, expected, show=False)
    assert not exercises.check(exercise_id, _wrong(expected), show=False)
    assert not exercises.check(exercise_id, None, show=False)


def test_check_speaks_the_language():
    hint_en, hint_zh = exercises.EXERCISES["03.1"].hint["en"], exercises.EXERCISES["03.1"].hint["zh"]
    right = exercises.answer("03.1")
    assert repr(exercises.check("03.1", right, show=False, lang="en")) == "03.1: right."
    assert repr(exercises.check("03.1", right, show=False, lang="zh")) == "03.1：正确。"
    assert repr(exercises.check("03.1", right * 4, show=False, lang="en")) == f"03.1: not quite. Hint: {hint_en}"
    assert repr(exercises.check("03.1", right * 4, show=False, lang="zh")) == f"03.1：还不对。提示：{hint_zh}"


def test_check_prints_in_a_script_and_returns_one_verdict(capsys):
    right = exercises.check("07.1", "a100-sxm4-80gb")
    assert right and right.checked and repr(right) == "07.1: right."
    assert capsys.readouterr().out == "07.1: right.\n"
    wrong = exercises.check("07.1", "RTX 3090", show=False)
    assert not wrong and "Hint" in repr(wrong) and capsys.readouterr().out == ""


def test_names_accept_aliases_yes_no_both_languages_and_unknown_ids_suggest():
    assert exercises.check("07.1", "a100-sxm4-80gb", show=False)
    assert not exercises.answer("04.3")  # a 14B base in bf16 does not fit 24 GiB
    for no in ("no", "No.", "否", "不能", False):
        assert exercises.check("04.3", no, show=False), no
    for yes in ("yes", "是", True, 0):
        assert not exercises.check("04.3", yes, show=False), yes
    assert not exercises.check("03.1", True, show=False)  # a bool is not a number
    with pytest.raises(LookupError, match="03.1"):
        exercises.check("03.10", 1)


@pytest.mark.parametrize("exercise_id", NOT_CHECKED)
def test_design_and_why_are_not_checked_and_point_to_the_solutions(exercise_id):
    assert exercises.EXERCISES[exercise_id].kind in ("design", "why")
    en = exercises.check(exercise_id, "anything", show=False, lang="en")
    zh = exercises.check(exercise_id, "anything", show=False, lang="zh")
    assert not en and not en.checked and not zh.checked
    assert "cannot be checked automatically" in repr(en) and "notebooks/solutions/solutions.ipynb" in repr(en)
    assert "无法自动判分" in repr(zh) and "notebooks/zh/solutions/solutions.ipynb" in repr(zh)
    assert exercises.answer(exercise_id, lang="zh") == exercises.explanation(exercise_id, lang="zh")


def test_numeric_answers_are_computed_by_the_package():
    assert exercises.answer("03.1") == pytest.approx(hg.kv_cache_bytes("Qwen2.5-7B", 32768) / 2**30)
    assert exercises.answer("03.1") == pytest.approx(2 * 28 * 4 * 128 * 2 * 32768 / 2**30)  # K and V, by hand
    card = hg.gpu("H200 SXM")
    assert exercises.answer("01.1") == pytest.approx(card.fp16_tflops * 1e12 / (card.bandwidth_gbs * 1e9))
    assert exercises.answer("04.1") == pytest.approx(16 * hg.param_count("Llama-2-13B") / 8 / 2**30)
    assert exercises.answer("04.2") == 32 * 2 * 8 * (4096 + 4096)
    assert exercises.answer("04.4") == pytest.approx(8 * hg.param_count("Llama-3.1-8B") / 2**30)
    assert exercises.answer("02.1") == pytest.approx(hg.gpu("RTX 4090").fp16_tflops / hg.gpu("RTX 3090").fp16_tflops)
    assert exercises.answer("03.4") == pytest.approx(32768 / 4096)  # Mistral-7B's window: 4,096 tokens
    assert exercises.answer("09.3") == hg.build_system("RTX 4090", 2)["psu_w"] == 1250  # 1.25 × (2 × 450 + 100) W
    assert exercises.answer("09.2") == pytest.approx(15.75 * 4 / 16)  # 20 lanes / 4 cards -> x4, the card's PCIe 3.0
    gradients = hg.weights_bytes("Llama-3.1-8B", "fp16")
    assert exercises.answer("01.6") == pytest.approx(hg.speed.allreduce_seconds(gradients, gpus=8, link="PCIe 4.0 x16"))
    memory = hg.inference_memory("Llama-2-70B", weights="fp16", batch=100, context=4096, engine="vllm", gpus=4)
    assert exercises.answer("08.1") == pytest.approx(memory.per_gpu_gib)
    engine = hg.engine("llama.cpp")
    assert exercises.answer("05.3") == pytest.approx((engine.step_us + 32 * engine.layer_us) / 1000)


def test_answers_follow_the_package_not_a_typed_number(monkeypatch):
    monkeypatch.setattr(hg, "kv_cache_bytes", lambda *args, **kwargs: 3 * 2**30)
    assert exercises.answer("03.1") == 3
    assert exercises.check("03.1", 3, show=False)


@pytest.mark.parametrize("exercise_id", [i for i in ALL if exercises.EXERCISES[i].kind == "predict"])
def test_the_call_of_a_predict_exercise_runs_and_shows_the_answer(exercise_id):
    shown = eval(exercises.EXERCISES[exercise_id].run, {"hg": hg})  # noqa: S307 - our own data file
    expected = exercises.answer(exercise_id)
    if isinstance(expected, str):
        assert expected in str(shown)
    elif isinstance(shown, dict):
        assert max(shown.values()) / min(shown.values()) == pytest.approx(expected)
    else:
        assert bool(shown) == bool(expected)


# The glossary (data/glossary.csv, hg.glossary): the course's terms in both languages.
GLOSSARY_TERMS = [
    "显存",
    "显存带宽",
    "算力",
    "张量核心",
    "CUDA核心",
    "稠密/稀疏",
    "FP32累加",
    "TF32",
    "BF16",
    "FP8",
    "MXFP4",
    "KV缓存",
    "GQA",
    "MLA",
    "MoE",
    "量化",
    "GGUF",
    "LoRA",
    "QLoRA",
    "ZeRO",
    "激活重计算",
    "张量并行",
    "NVLink",
    "NVSwitch",
    "PCIe",
    "TDP",
    "MFU",
    "屋顶线",
    "算术强度",
    "解码",
    "预填充",
    "TTFT",
    "吞吐量",
    "性价比",
    "魔改卡",
    "出口管制",
    "GiB",
]


def test_every_glossary_row_is_complete_and_names_a_notebook():
    table = hg.load_table("glossary")
    assert len(table) >= 50
    stems = {p.stem for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")}
    for row in table.to_dict("records"):
        for column in ("en", "zh", "definition_en", "definition_zh", "notebook"):
            assert row[column] and row[column].strip(), (row["en"], column)
        assert CJK.search(row["definition_zh"]) and not CJK.search(row["definition_en"]), row["en"]
        assert row["notebook"] in stems, f"{row['en']}: no notebook {row['notebook']}"
        assert not row["source"] or row["source"].startswith("https://"), row["en"]
    assert table["en"].is_unique and table["zh"].is_unique


def test_the_glossary_has_the_terms_the_course_uses():
    table = hg.load_table("glossary")
    both = (" | ".join(table["zh"]) + " | " + " | ".join(table["en"])).replace(" ", "")
    missing = [term for term in GLOSSARY_TERMS if term not in both]
    assert not missing, missing


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_glossary_reads_in_either_language(lang):
    shown = hg.glossary(lang=lang)
    assert len(shown) == len(hg.load_table("glossary")) and shown.shape[1] == 4
    first = shown.iloc[0]
    assert first.iloc[0] == ("显存" if lang == "zh" else "GPU memory (VRAM)")
    assert CJK.search(first.iloc[2]) if lang == "zh" else not CJK.search(first.iloc[2])


def test_every_word_the_checker_shows_has_its_chinese_in_the_catalog():
    from hwguide import i18n

    keys = list(exercises.KIND_LABELS.values()) + [
        "Write your guess, then run: {call}",
        "{id}: right.",
        "{id}: not quite. Hint: {hint}",
        "{id}: this one cannot be checked automatically; compare your answer with the worked solution in {notebook}.",
        "{id} · {kind}: {question}",
        *exercises.SLIP_HINTS.values(),
    ]
    missing = [key for key in keys if (None, key) not in i18n.catalog("zh")]
    assert not missing, f"no Chinese in hwguide/locale/zh/LC_MESSAGES for: {missing}"


def test_a_verdict_is_a_message_shown_in_the_language_of_its_check():
    from hwguide import i18n

    zh = exercises.check("03.1", exercises.answer("03.1"), show=False, lang="zh")
    assert isinstance(zh.message, i18n.Message) and zh.message.id == "{id}: right."
    assert zh.message.render("en") == "03.1: right." and str(zh) == "03.1：正确。"
    with i18n.using("zh"):
        follows = exercises.check("03.1", 0, show=False)
    assert follows.message.id == "{id}: not quite. Hint: {hint}"
    assert repr(follows) == "03.1：还不对。提示：" + exercises.hint("03.1", lang="zh")


def test_show_prints_the_kind_and_question_in_chinese(capsys):
    exercises.show("05", lang="zh")
    out = capsys.readouterr().out
    assert "05.1 · " in out and "Compute" not in out and "Look up" not in out and "：" in out
