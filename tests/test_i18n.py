"""The course in Chinese: one language setting (hg.setup(lang=...)) for calculators, charts and tables,
with every word the calculators and charts show translated in data/translations.csv."""

import re
import warnings

import pytest

import hwguide as hg
from hwguide import charts, i18n
from hwguide import widgets as w

CJK = re.compile(r"[\u4e00-\u9fff]")
CALCULATORS = [w.vram_calculator, w.finetune_calculator, w.training_calculator, w.image_calculator,
               w.speed_calculator, w.roofline_calculator, w.interconnect_calculator, w.compare_calculator,
               w.planner_calculator]  # fmt: skip


@pytest.fixture
def untranslated(monkeypatch):
    """The keys looked up in Chinese that data/translations.csv has no Chinese for."""
    missing = []
    real = i18n.text

    def recording(key, lang=None, **fields):
        if i18n.resolve(lang) == "zh" and key not in i18n._ui():
            missing.append(key)
        return real(key, lang, **fields)

    for module in (w, charts):
        monkeypatch.setattr(module, "_t", recording)
    return missing


def test_setup_sets_the_language_and_refuses_an_unknown_one():
    hg.setup(lang="zh")
    assert i18n.language() == "zh"
    assert hg.guide_tables()[0].attrs["title"] == "1. 显卡性能排名表"
    hg.setup()
    assert i18n.language() == "en"
    assert hg.guide_tables()[0].attrs["title"] == "1. GPU performance ranking"
    with pytest.raises(ValueError, match="lang='fr' is not one of: en, zh"):
        hg.setup(lang="fr")


def test_using_restores_the_language():
    with i18n.using("zh"):
        assert i18n.text("Model") == "模型"
    assert i18n.text("Model") == "Model"
    assert i18n.text("Model", "zh") == "模型"  # an explicit lang wins over the setting


def test_text_fills_fields_after_translating():
    line = i18n.text("decode, batch {batch}", "zh", batch=4)
    assert line == "解码，批大小 4"


@pytest.mark.parametrize("make", CALCULATORS, ids=lambda f: f.__name__)
def test_every_calculator_is_chinese_throughout(make, untranslated):
    hg.setup(lang="zh")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        box = make()
    assert not untranslated, f"no Chinese in data/translations.csv for: {sorted(set(untranslated))}"
    title = box.children[0].value
    assert CJK.search(title), title
    labels = [c.description for c in box.children[1:-1] if hasattr(c, "description")]
    labels += [c.children[0].description for c in box.children[1:-1] if hasattr(c, "children") and c.children]
    assert labels and all(CJK.search(label) or label in ("GPU",) for label in labels), labels


def test_the_vram_calculator_reads_as_chinese():
    hg.setup(lang="zh")
    box = w.vram_calculator(model="Llama-3.1-8B", card="RTX 4090")
    html = box.children[-1].outputs[0]["data"]["text/html"]
    assert "每卡 16.26 GiB：1 × RTX 4090 装得下（每卡 24 GiB，留 10% 余量）。" in html
    frame = box.children[-1].outputs[1]["data"]["text/plain"]
    assert "权重" in frame and "KV 缓存" in frame and "每卡 GiB" in frame


def test_a_planner_with_no_build_explains_in_chinese(untranslated):
    hg.setup(lang="zh")
    with pytest.raises(ValueError) as err:
        w.planner_report(model="Llama-3.1-405B", weights="fp16", users=100, tokens_per_s=50, method="none",
                         budget=1000, currency="CNY", modded=True)  # fmt: skip
    message = str(err.value)
    assert message.startswith("没有配置满足这个需求：") and "装不下" in message and "超出预算" in message
    assert "CNY" not in message and not untranslated
    assert "请检查输入" in w.error_message(err.value).data


def test_charts_follow_the_language(untranslated):
    hg.setup(lang="zh")
    fig = charts.memory_vs_bandwidth(label=False)
    ax = fig.axes[0]
    assert ax.get_xlabel() == "显存（GiB，对数坐标）"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["消费级", "工作站", "数据中心"]
    fig = charts.decode_vs_batch("Llama-3.1-8B", ["RTX 4090"], batches=(1, 2))
    assert CJK.search(fig.axes[0].get_title())
    assert not untranslated


def test_a_title_the_notebook_passes_is_translated_when_the_data_has_it():
    ranking = hg.value_ranking("inference", currency="CNY", condition="any").dropna(subset=["score_per_1000"])
    title = "Inference score per 1,000 CNY (cards it fits on)"
    with i18n.using("zh"):
        fig = charts.ranking(ranking, column="score_per_1000", top=5, title=title)
    assert fig.axes[0].get_title() == "每千元推理得分（只含装得下的显卡）"
    assert charts.ranking(ranking, column="score_per_1000", top=5, title=title).axes[0].get_title() == title


def test_a_chinese_font_is_installed_for_the_figures():
    # .ci/run installs fonts-wqy-microhei; without one, hg.setup(lang="zh") says what to install
    assert hg.course.cjk_font() is not None


def test_setup_says_which_font_to_install_when_none_is_found(monkeypatch, capsys):
    monkeypatch.setattr(hg.course, "cjk_font", lambda: None)
    hg.setup(lang="zh")
    assert "fonts-wqy-microhei" in capsys.readouterr().out


def test_the_source_claims_are_stated_in_the_language():
    zh = hg.source_claims(lang="zh")
    en = hg.source_claims()
    assert list(zh["verdict"]) == list(en["verdict"])  # codes, compared as codes
    assert set(en["verdict"]) <= set(hg.claims.VERDICTS)
    assert {i18n.label(v, "zh", context="verdict") for v in zh["verdict"]} <= {"成立", "有条件成立", "不成立"}
    assert all(CJK.search(claim) for claim in zh["claim"])
    assert all(CJK.search(evidence) for evidence in zh["evidence"])
    # the sentences around the numbers are Chinese; the numbers are the same
    english_words = re.compile(r"\b(vs|the|and|score|training|holds|wins|times|price)\b")
    for zh_evidence, en_evidence in zip(zh["evidence"], en["evidence"]):
        assert sorted(re.findall(r"\d+\.\d+", zh_evidence)) == sorted(re.findall(r"\d+\.\d+", str(en_evidence)))
        if "Turing" not in zh_evidence:  # the two claims on Turing quote data/support.csv's (English) words
            assert not english_words.search(zh_evidence), zh_evidence
    # without lang, the language of hg.setup
    hg.setup(lang="zh")
    assert hg.source_claims()["evidence"].tolist() == zh["evidence"].tolist()
    assert i18n.labelled(en, "zh").columns.tolist() == ["结论", "判定", "依据"]


def test_an_empty_cell_says_not_published_in_the_language():
    table = hg.gpus()[["name", "fp16_tflops"]]
    table = table[table["fp16_tflops"].isna()].head(2)
    assert "not published" in hg.style_table(table, empty="not published", title=False).to_html()
    hg.setup(lang="zh")
    assert "未公布" in hg.style_table(table, empty="not published", title=False).to_html()
    with pytest.raises(ValueError, match="empty must be the text"):
        hg.style_table(table, empty=0)


def test_the_chinese_app_serves_the_chinese_page():
    command, _ = hg.course.app_command(lang="zh", pool=0)
    assert "notebooks/zh/app/calculators.ipynb" in command
    with pytest.raises(ValueError, match="lang='fr' is not one of"):
        hg.course.app_command(lang="fr")


@pytest.mark.parametrize("make", CALCULATORS, ids=lambda f: f.__name__)
def test_every_line_of_a_calculators_working_is_chinese(make):
    """The "How this was computed" part: each line is matched by a `sentence` row of data/translations.csv
    (or built from a ui key); a line the package words differently falls back to English and fails here."""
    import html as html_module

    hg.setup(lang="zh")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        box = make()
    shown = "".join(o["data"].get("text/html", "") for o in box.children[-1].outputs)
    lines = [html_module.unescape(item) for item in re.findall(r"<li>(.*?)</li>", shown, flags=re.S)]
    english = [line for line in lines if not CJK.search(line)]
    assert not english, f"working lines with no Chinese: {english}"


def test_working_lines_for_other_inputs_are_chinese_too():
    hg.setup(lang="zh")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reports = [
            w.vram_report(model="DeepSeek-V3", weights="Q4_K_M", kv="fp16", batch=4, context=8192, engine="vllm",
                          card="H200 SXM", gpus=8),
            w.vram_report(model="Gemma-3-12B", weights="int8", kv="fp16", batch=2, context=32768,
                          engine="llama.cpp", card="RTX 4090"),
            w.finetune_report(model="Llama-3.1-8B", method="full", rank=16, context=2048, batch=1,
                              recompute="selective", card="A100 SXM4 80GB", gpus=2),
            w.training_report(model="Llama-2-7B", precision="bf16-mixed", optimizer="lion", context=2048, batch=1,
                              gpus=8, zero=1, recompute="none", card="H100 SXM"),
            w.speed_report(model="DeepSeek-R1", card="RTX 4090", weights="Q4_K_M", batch=1, context=4096, gpus=1,
                           engine="llama.cpp", cpu_moe="all"),
            w.image_report(model="FLUX.1-dev", card="RTX 4070 Ti SUPER", weights="fp8", text_weights="fp8",
                           width=1024, height=1024, steps=28, batch=1, engine="webui", offload="sequential"),
        ]  # fmt: skip
    for report in reports:
        working = report[-1].data
        lines = re.findall(r"<li>(.*?)</li>", working, flags=re.S)
        assert lines and all(CJK.search(line) for line in lines), [line for line in lines if not CJK.search(line)]
