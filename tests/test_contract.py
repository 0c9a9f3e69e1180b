"""The input contract of docs/api.md, held with generated hostile calls (hypothesis).

Every public function is called with its valid base arguments, one argument replaced by a
hostile value (negative, zero, NaN, infinite, huge, the wrong type, a misspelled name ...).
The contract:

- only ``ValueError`` or ``LookupError`` (and subclasses such as ``hg.DataError``) escape, and
  the message names the argument (for a dict argument of ``recommend`` or a config of
  ``from_hf_config``: the key); a failed look-up may name what it looks up ("card", "model" ...);
- a result is finite and non-negative where it is a number (``break_even_days`` may be ``inf``);
  a table may hold NaN in rows it documents as "no price" / "not estimated", never inf or a
  negative number;
- each call returns within 2 s.

A hostile value that happens to be valid (``True`` for a flag, ``0`` for ``zero=``) must give a
result that passes the same checks.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import inspect
import json
import math
import numbers
import re
import reprlib
import signal
import threading
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from servers import RUNAWAY_S

import hwguide as hg

# A hang guard, not a speed target (speed is measured in benchmarks/speed.py): a call still running after this
# long is stopped, so that a runaway loop fails its test instead of stalling the suite, even on a loaded machine.
HANG_S = RUNAWAY_S
ALLOWED = (ValueError, LookupError)
LOOKUP_WORDS = ("card", "cards", "gpu", "model", "name", "engine", "reference")

M = "Llama-3.1-8B"
CARD = "RTX 4090"
LLAMA_CONFIG = json.loads((Path(__file__).resolve().parents[1] / "data" / "models" / "llama-3-1-8b.json").read_text())

CHEAP, MEDIUM, SLOW = 60, 40, 30  # max_examples per (function, argument); 30 draw every fixed value

# ----- hostile values ---------------------------------------------------------------------------

FIXED = [
    0,
    -0.0,
    0.5,
    math.nan,
    math.inf,
    -math.inf,
    1e308,
    10**12,
    True,
    False,
    None,
    "",
    " ",
    "five",
    "1e308",
    "RTX 4095",
    "lama-3.1-8b",
    "Q4_K_X",
]
HOSTILE = st.one_of(
    *(st.just(v) for v in FIXED),
    st.builds(list),
    st.builds(dict),
    st.builds(lambda: [1]),
    st.builds(set),
    st.builds(object),
    st.integers(max_value=-1),
    st.floats(max_value=-1e-9),
    st.text(max_size=8),
)

# ----- the table of public functions --------------------------------------------------------------


def _hg(name: str) -> Callable[[], Callable[..., Any]]:
    return lambda: getattr(hg, name)


def _widget(name: str) -> Callable[[], Callable[..., Any]]:
    def resolve() -> Callable[..., Any]:
        pytest.importorskip("ipywidgets")
        import hwguide.widgets

        return getattr(hwguide.widgets, name)

    return resolve


def _engine() -> Callable[..., Any]:
    # the spec lists engine(name) with the catalog; hg.engine when the package exports it
    from hwguide import catalog

    return getattr(hg, "engine", None) or catalog.engine


@functools.cache
def _memory() -> hg.Memory:
    return hg.inference_memory(M)


@dataclasses.dataclass(frozen=True)
class Case:
    label: str  # how a call is shown: hg.<label>(...)
    resolve: Callable[[], Callable[..., Any]]
    base: Mapping[str, Any]  # valid keyword arguments
    attack: tuple[str, ...]  # argument names; "outer.key" for a key of a dict argument
    positional: tuple[str, ...] | None  # the spec's positional parameters (subjects + at most one more)
    examples: int = CHEAP
    allow_inf: bool = False  # break_even_days: inf when renting is always cheaper
    ok_message: str | None = None  # a documented refusal of a valid but impossible need
    signature: Callable[[], Callable[..., Any]] | None = None  # what to inspect, when not resolve()

    @property
    def widget(self) -> bool:
        return self.label.startswith("widgets.")


INFERENCE = dict(model="Qwen2.5-7B", weights="Q4_K_M", context=4096, users=1, tokens_per_s=10, kv="fp16")
PRETRAIN = dict(model="Qwen2.5-0.5B", tokens=1e9, deadline_days=30)
PLAN = dict(
    budget=None,
    currency="CNY",
    cards=[CARD],
    gpu_counts=(1, 2),
    condition="any",
    prices=None,
    data_scale="GB",
    headroom=0.1,
)


def _all(base: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(base)


def _case(label, resolve, base, positional, attack=None, **extra) -> Case:
    return Case(label, resolve, base, tuple(attack) if attack is not None else _all(base), positional, **extra)


CASES = [
    _case("weights_bytes", _hg("weights_bytes"), dict(model=M, weights="fp16", active=False), ("model", "weights")),
    _case(
        "kv_cache_bytes", _hg("kv_cache_bytes"), dict(model=M, context=4096, batch=1, kv="fp16"), ("model", "context")
    ),
    _case(
        "activation_bytes",
        _hg("activation_bytes"),
        dict(model=M, context=2048, batch=1, flash_attention=True, recompute="none", tp=1, bytes_per_value=2),
        ("model", "context"),
    ),
    _case(
        "inference_memory",
        _hg("inference_memory"),
        dict(
            model=M,
            weights="fp16",
            kv="fp16",
            batch=1,
            context=4096,
            engine="transformers",
            gpus=1,
            flash_attention=True,
            cuda_context_mib=None,
        ),
        ("model",),
    ),
    _case(
        "training_memory",
        _hg("training_memory"),
        dict(
            model=M,
            precision="bf16-mixed",
            optimizer="adamw",
            batch=1,
            context=2048,
            gpus=1,
            zero=0,
            tp=1,
            pp=1,
            recompute="none",
            flash_attention=True,
            offload=None,
            fp32_grads=False,
            engine="transformers",
            cuda_context_mib=None,
        ),
        ("model",),
    ),
    _case(
        "finetune_memory",
        _hg("finetune_memory"),
        dict(
            model=M,
            method="lora",
            weights=None,
            rank=16,
            targets="all-linear",
            batch=1,
            context=2048,
            recompute="none",
            optimizer="adamw",
            flash_attention=True,
            gpus=1,
            zero=0,
            offload=None,
            engine="transformers",
            cuda_context_mib=None,
        ),
        ("model",),
    ),
    _case("lora_params", _hg("lora_params"), dict(model=M, rank=16, targets="all-linear"), ("model",)),
    _case("peak_flops", _hg("peak_flops"), dict(card=CARD, precision="fp16"), ("card", "precision")),
    _case("roofline", _hg("roofline"), dict(card=CARD, precision="fp16"), ("card", "precision")),
    _case("roofline_table", _hg("roofline_table"), dict(cards=[CARD, "H100 SXM"], precision="fp16"), ("cards",)),
    _case(
        "arithmetic_intensity",
        _hg("arithmetic_intensity"),
        dict(model=M, phase="decode", batch=1, context=1024, weights="fp16"),
        ("model", "phase"),
    ),
    _case(
        "decode_tokens_per_s",
        _hg("decode_tokens_per_s"),
        dict(
            model=M,
            card=CARD,
            weights="fp16",
            batch=1,
            context=1024,
            gpus=1,
            engine="llama.cpp",
            interconnect=None,
            kv="fp16",
        ),
        ("model", "card"),
    ),
    _case(
        "prefill_seconds",
        _hg("prefill_seconds"),
        dict(model=M, card=CARD, context=512, weights="fp16", batch=1, gpus=1, engine="llama.cpp", interconnect=None),
        ("model", "card", "context"),
    ),
    _case(
        "training_time",
        _hg("training_time"),
        dict(
            model=M,
            card="H100 SXM",
            tokens=1e9,
            gpus=1,
            mfu=None,
            precision="bf16",
            recompute="none",
            electricity_price=None,
            currency="CNY",
            engine="transformers",
            context=2048,
        ),
        ("model", "card"),
    ),
    _case(
        "training_tokens_per_s",
        _hg("training_tokens_per_s"),
        dict(model=M, card="H100 SXM", context=2048, precision="bf16", recompute="none", engine="megatron"),
        ("model", "card"),
    ),
    _case("training_flops_per_token", _hg("training_flops_per_token"), dict(model=M, context=2048), ("model",)),
    _case(
        "serving_tokens_per_s",
        _hg("serving_tokens_per_s"),
        dict(
            model=M,
            card="A100 SXM4 80GB",
            prompt=512,
            output=128,
            weights="fp16",
            batch=8,
            gpus=1,
            engine="vllm",
            interconnect=None,
            kv="fp16",
        ),  # fmt: skip
        ("model", "card"),
    ),
    _case(
        "inference_speed",
        _hg("inference_speed"),
        dict(
            model=M,
            card=CARD,
            weights="Q4_K_M",
            kv="fp16",
            batch=1,
            context=4096,
            gpus=1,
            engine="llama.cpp",
            interconnect=None,
            headroom=0.1,
        ),  # fmt: skip
        ("model", "card"),
    ),
    _case(
        "max_context",
        _hg("max_context"),
        dict(model=M, card=CARD, weights="Q4_K_M", kv="fp16", batch=1, engine="llama.cpp", gpus=1, headroom=0.1),
        ("model", "card"),
    ),
    _case(
        "max_users",
        _hg("max_users"),
        dict(model=M, card=CARD, context=4096, weights="Q4_K_M", kv="fp16", engine="llama.cpp", gpus=1, headroom=0.1),
        ("model", "card"),
    ),
    _case(
        "break_even_days",
        _hg("break_even_days"),
        dict(purchase_price=10_000, cloud_hourly=2.0, utilization=1.0, power_w=0.0, electricity_price=0.0),
        ("purchase_price",),
        allow_inf=True,
    ),
    _case(
        "rank_gpus",
        _hg("rank_gpus"),
        dict(task="inference", workload=None, reference="A100 SXM4 80GB", cards=[CARD, "RTX 3090"]),
        ("task",),
    ),
    _case(
        "value_ranking",
        _hg("value_ranking"),
        dict(
            task="inference",
            currency="CNY",
            as_of=None,
            prices=None,
            condition="new",
            workload=None,
            reference="A100 SXM4 80GB",
        ),
        ("task",),
        examples=SLOW,
    ),
    _case("compare", _hg("compare"), dict(a="RTX 3090", b=CARD), ("a", "b")),
    _case("decode_name", _hg("decode_name"), dict(name=CARD), ("name",)),
    _case(
        "recommend",
        _hg("recommend"),
        dict(inference=INFERENCE, **PLAN),
        (),
        attack=[*PLAN, *(f"inference.{key}" for key in INFERENCE)],
        examples=MEDIUM,
    ),
    _case(
        "recommend",
        _hg("recommend"),
        dict(pretrain=PRETRAIN, cards=[CARD], gpu_counts=(1, 2)),
        (),
        attack=[f"pretrain.{key}" for key in PRETRAIN],
        examples=MEDIUM,
    ),
    _case(
        "build_system",
        _hg("build_system"),
        dict(card=CARD, gpus=1, data_scale="GB", currency="CNY", gpu_price=None),
        ("card", "gpus"),
    ),
    _case("gpu", _hg("gpu"), dict(name=CARD), ("name",)),
    _case("model", _hg("model"), dict(name=M), ("name",)),
    _case("engine", _engine, dict(name="vllm"), ("name",)),
    _case("param_count", _hg("param_count"), dict(model=M, active=False), ("model",)),
    _case(
        "from_hf_config",
        _hg("from_hf_config"),
        dict(config=LLAMA_CONFIG, name=None, params_total_b=None, params_active_b=None, source=None),
        ("config",),
        attack=[
            *(
                f"config.{key}"
                for key in (
                    "num_hidden_layers",
                    "hidden_size",
                    "num_attention_heads",
                    "num_key_value_heads",
                    "num_local_experts",
                    "num_experts_per_tok",
                    "vocab_size",
                    "max_position_embeddings",
                    "tie_word_embeddings",
                )
            ),
            "name",
            "params_total_b",
            "params_active_b",
            "source",
        ],
    ),
    _case(
        "Memory.fits",
        lambda: _memory().fits,
        dict(card=CARD, headroom=0.1),
        None,  # not in the spec: only the general rule applies
        signature=lambda: hg.Memory.fits,
    ),
    # the calculators' pure reports: keyword-only, with the glossary's words
    _case(
        "widgets.vram_report",
        _widget("vram_report"),
        dict(model=M, weights="Q4_K_M", kv="fp16", batch=1, context=4096, engine="llama.cpp", card=CARD, gpus=1),
        (),
    ),
    _case(
        "widgets.finetune_report",
        _widget("finetune_report"),
        dict(model=M, method="qlora", rank=16, context=2048, batch=1, recompute="full", card=CARD, gpus=1),
        (),
    ),
    _case(
        "widgets.training_report",
        _widget("training_report"),
        dict(
            model="Llama-2-7B",
            precision="bf16-mixed",
            optimizer="adamw",
            context=2048,
            batch=1,
            gpus=8,
            zero=3,
            recompute="full",
            card="A100 SXM4 80GB",
        ),
        (),
    ),
    _case(
        "widgets.speed_report",
        _widget("speed_report"),
        dict(model=M, card=CARD, weights="Q4_K_M", batch=1, context=2048, gpus=1, engine="llama.cpp"),
        (),
    ),
    _case("widgets.interconnect_report", _widget("interconnect_report"), dict(model="Llama-2-7B", gpus=8), ()),
    _case("widgets.compare_report", _widget("compare_report"), dict(a="RTX 3090", b=CARD), ()),
    _case(
        "widgets.planner_report",
        _widget("planner_report"),
        dict(
            model="Qwen2.5-14B",
            weights="Q4_K_M",
            users=5,
            tokens_per_s=10,
            method="qlora",
            budget=30000,
            currency="CNY",
            modded=True,
        ),
        (),
        examples=SLOW,
        ok_message=r"^no build meets this need",  # a valid need that no build meets (documented)
    ),
]

PAIRS = [pytest.param(case, target, id=f"{case.label}-{target}") for case in CASES for target in case.attack]
FUNCTIONS = list({case.label: case for case in CASES}.values())  # one per function, for the signature tests

# ----- calling and checking -----------------------------------------------------------------------

_repr = reprlib.Repr()  # keyword arguments only from Python 3.12
_repr.maxstring = _repr.maxother = 60
_repr.maxlist = _repr.maxdict = _repr.maxset = _repr.maxtuple = 4


def _short(value: Any) -> str:
    if isinstance(value, hg.Model):
        return f"<Model {value.name}>"
    return _repr.repr(value)


def _show(label: str, args: tuple = (), kwargs: Mapping[str, Any] | None = None, focus: str | None = None) -> str:
    """The call as a learner would type it, with only the attacked key of a dict argument shown."""
    outer, _, key = (focus or "").partition(".")
    parts = [_short(a) for a in args]
    for name, value in (kwargs or {}).items():
        if key and name == outer and isinstance(value, Mapping):
            parts.append(f"{name}={{..., {key!r}: {_short(value.get(key))}}}")
        else:
            parts.append(f"{name}={_short(value)}")
    return f"hg.{label}({', '.join(parts)})"


class _Hung(BaseException):
    """Raised by the alarm inside a call that runs past HANG_S (a BaseException: no `except Exception` eats it)."""


@contextlib.contextmanager
def _alarm(seconds: float):
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def ring(signum, frame):
        raise _Hung

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _call(fn: Callable[..., Any], args: tuple, kwargs: Mapping[str, Any], shown: str) -> Any:
    """The result, or the ValueError/LookupError raised; anything else, or a runaway call, fails."""
    try:
        with _alarm(HANG_S), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args, **kwargs)
    except _Hung:
        raise AssertionError(f"{shown} was still running after {HANG_S:g} s: a runaway loop") from None
    except ALLOWED as err:
        return err
    except Exception as err:
        raise AssertionError(f"{shown} raised {type(err).__name__}: {err}") from err


def _names(message: str, word: str, *, strict: bool = False) -> bool:
    """Whether ``message`` names the argument ``word``: as a word, or (a short word, or ``strict``)
    the way the checks write an argument: ``a=...``, ``a must ...``, ``a is ...``, ``a[...]``, ``a: ...``."""
    if strict or len(word) <= 2:
        return re.search(rf"(?<![\w.]){re.escape(word)}(\s*=|\s+must\b|\s+is\b|\[|:)", message) is not None
    return re.search(rf"(?<![\w]){re.escape(word)}(?![\w])", message) is not None


def _check_error(err: BaseException, argument: str, shown: str, case: Case | None = None) -> None:
    message = str(err)
    if case is not None and case.ok_message and re.search(case.ok_message, message):
        return
    named = _names(message, argument)
    if isinstance(err, LookupError):  # a look-up may name what it looks up: card=..., model=..., name=...
        named = named or any(_names(message, w, strict=True) for w in LOOKUP_WORDS)
    assert named, f"{shown} raised {type(err).__name__} whose message does not name {argument!r}: {message}"


def _number_ok(value: Any, where: str, *, allow_nan: bool = False, allow_inf: bool = False) -> None:
    v = float(value)
    if math.isnan(v):
        assert allow_nan, f"{where} is NaN"
        return
    assert allow_inf or math.isfinite(v), f"{where} is {v}"
    assert v >= 0, f"{where} is negative: {v}"


def _frame_ok(frame: pd.DataFrame, where: str) -> None:
    for column in frame.columns:
        series = frame[column]
        if not pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series):
            continue
        values = pd.to_numeric(series, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
        bad = np.isinf(values) | (values < 0)
        assert not bad.any(), f"{where}[{column!r}] holds {values[bad][:5].tolist()}"


def _check_result(value: Any, where: str, *, allow_inf: bool = False, depth: int = 0) -> None:
    """Numbers finite and non-negative, in results of every shape the kit returns."""
    if value is None or isinstance(value, (bool, np.bool_, str, bytes)) or depth > 4:
        return
    if isinstance(value, numbers.Real):
        _number_ok(value, where, allow_nan=depth > 0, allow_inf=allow_inf)
    elif isinstance(value, hg.Memory):
        _number_ok(value.per_gpu_bytes, f"{where}.per_gpu_bytes")
        _number_ok(value.total_bytes, f"{where}.total_bytes")
        for part in ("per_gpu", "parts", "offloaded"):
            for name, size in getattr(value, part).items():
                _number_ok(size, f"{where}.{part}[{name!r}]")
    elif isinstance(value, hg.TrainingTime):
        for field in ("gpu_hours", "days", "energy_kwh", "flops"):
            _number_ok(getattr(value, field), f"{where}.{field}")
        if value.electricity_cost is not None:
            _number_ok(value.electricity_cost, f"{where}.electricity_cost")
    elif isinstance(value, hg.Plan):
        _frame_ok(value.builds, f"{where}.builds")
        _frame_ok(value.failed, f"{where}.failed")
    elif isinstance(value, pd.DataFrame):
        _frame_ok(value, where)
    elif isinstance(value, pd.Series):
        _frame_ok(value.to_frame(), where)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            _check_result(item, f"{where}[{key!r}]", allow_inf=allow_inf, depth=depth + 1)
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _check_result(item, f"{where}[{i}]", allow_inf=allow_inf, depth=depth + 1)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):  # GPU, Model, Engine records
        for field in dataclasses.fields(value):
            item = getattr(value, field.name)
            if isinstance(item, numbers.Real) and not isinstance(item, bool):
                _number_ok(item, f"{where}.{field.name}")
            elif isinstance(item, (list, tuple, Mapping)):
                _check_result(item, f"{where}.{field.name}", depth=depth + 1)


def _substitute(base: Mapping[str, Any], target: str, value: Any) -> dict[str, Any]:
    kwargs = copy.deepcopy(dict(base))
    outer, _, key = target.partition(".")
    if key:
        kwargs[outer] = {**kwargs[outer], key: value}
    else:
        kwargs[outer] = value
    return kwargs


def _checked_call(case: Case, fn: Callable[..., Any], kwargs: Mapping[str, Any], target: str | None) -> Any:
    shown = _show(case.label, (), kwargs, target)
    outcome = _call(fn, (), kwargs, shown)
    if isinstance(outcome, BaseException):
        if target is None:
            raise AssertionError(f"the valid base call {shown} raised {type(outcome).__name__}: {outcome}")
        _check_error(outcome, target.rpartition(".")[2], shown, case)
    else:
        _check_result(outcome, shown, allow_inf=case.allow_inf)
        if isinstance(outcome, hg.Model):  # a Model that from_hf_config accepted must also count its parameters
            count = _call(hg.param_count, (outcome,), {}, f"hg.param_count({shown})")
            assert not isinstance(count, BaseException), f"{shown} gave a Model that param_count refuses: {count}"
            _check_result(count, f"hg.param_count({shown})")
    return outcome


# ----- the calling convention ---------------------------------------------------------------------


def _parameters(case: Case) -> list[inspect.Parameter]:
    fn = (case.signature or case.resolve)()
    params = list(inspect.signature(fn).parameters.values())
    return [p for p in params if p.name != "self"]


@pytest.mark.parametrize("case", FUNCTIONS, ids=[c.label for c in FUNCTIONS])
def test_calling_convention(case: Case) -> None:
    """Subjects (and at most one more) positional, the rest keyword-only (docs/api.md)."""
    params = _parameters(case)
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    assert not any(p.kind is p.VAR_POSITIONAL for p in params), f"hg.{case.label} takes *args"
    if case.label != "compare":  # compare(a, b): two subjects
        assert len(positional) <= 3, f"hg.{case.label} has positional parameters {positional}"
    assert case.positional is None or tuple(positional) == case.positional, (
        f"hg.{case.label}: positional parameters {positional}, the spec says {list(case.positional)}"
    )


@pytest.mark.parametrize("case", FUNCTIONS, ids=[c.label for c in FUNCTIONS])
def test_table_names_real_parameters(case: Case) -> None:
    """The table's base arguments are the function's parameter names (the glossary's words)."""
    params = _parameters(case)
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return
    names = {p.name for p in params}
    used = {name for c in CASES if c.label == case.label for name in c.base}
    assert used <= names, f"hg.{case.label} has no parameter {sorted(used - names)} (it has {sorted(names)})"


@pytest.mark.parametrize("case", CASES, ids=[f"{c.label}-{'-'.join(c.base)[:40]}" for c in CASES])
def test_base_call_is_valid(case: Case) -> None:
    """The base arguments the hostile calls start from are valid, fast and give a sound result."""
    _checked_call(case, case.resolve(), case.base, None)


# ----- hostile values ---------------------------------------------------------------------------


@pytest.mark.parametrize("case, target", PAIRS)
def test_hostile_value(case: Case, target: str) -> None:
    fn = case.resolve()

    @settings(
        derandomize=True,
        max_examples=case.examples,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(value=HOSTILE)
    def attack(value: Any) -> None:
        _checked_call(case, fn, _substitute(case.base, target, value), target)

    attack()


# ----- guide_tables: seconds per call, so a few fixed cases -----------------------------------------


@pytest.mark.parametrize(
    "kwargs, argument",
    [
        (dict(lang="xx"), "lang"),
        (dict(currency="EUR"), "currency"),
        (dict(currency=1), "currency"),
        (dict(as_of="yesterday"), "as_of"),
        (dict(as_of=20240101), "as_of"),
    ],
    ids=["lang=xx", "currency=EUR", "currency=1", "as_of=yesterday", "as_of=20240101"],
)
def test_guide_tables_refuses(kwargs: dict[str, Any], argument: str) -> None:
    with pytest.raises(ValueError) as info:
        hg.guide_tables(**kwargs)
    assert _names(str(info.value), argument), f"hg.guide_tables({kwargs}): {info.value}"


# ----- regressions: the reproducers of the issue ----------------------------------------------------


def _refused(label: str, *args: Any, argument: str | tuple[str, ...], **kwargs: Any) -> None:
    """``hg.<label>(*args, **kwargs)`` raises a ValueError naming ``argument`` within the time limit."""
    fn = getattr(hg, label) if "." not in label else hg.Model.from_hf_config
    shown = _show(label, args, kwargs)
    outcome = _call(fn, args, kwargs, shown)
    assert isinstance(outcome, ValueError), f"{shown} gave {_short(outcome)}, not a ValueError"
    words = (argument,) if isinstance(argument, str) else argument
    assert any(_names(str(outcome), w) for w in words), f"{shown}: the message does not name {words}: {outcome}"


@pytest.mark.parametrize("function", ["inference_memory", "training_memory", "finetune_memory"])
@pytest.mark.parametrize("value", [-1e6, math.nan, math.inf, [1]], ids=["-1e6", "nan", "inf", "list"])
def test_cuda_context_mib_is_checked(function: str, value: Any) -> None:
    _refused(function, hg.model(M), cuda_context_mib=value, argument="cuda_context_mib")


def test_break_even_days_refuses_infinite_electricity_price() -> None:
    _refused("break_even_days", 1000, cloud_hourly=1, electricity_price=math.inf, argument="electricity_price")


def test_training_time_refuses_infinite_tokens() -> None:
    _refused("training_time", hg.model(M), "H100 SXM", tokens=math.inf, argument="tokens")


@pytest.mark.parametrize("kwargs, argument", [(dict(currency="EUR"), "currency"), (dict(gpu_price=-5), "gpu_price")])
def test_build_system_checks_currency_and_price(kwargs: dict[str, Any], argument: str) -> None:
    _refused("build_system", CARD, **kwargs, argument=argument)


FAST = dict(cards=[CARD], gpu_counts=(1, 2))


@pytest.mark.parametrize(
    "kwargs, argument",
    [
        (dict(inference=dict(model="Qwen2.5-7B"), cards=[]), "cards"),
        (dict(inference=dict(model="Qwen2.5-7B"), cards=""), "cards"),
        (dict(inference=dict(model="Qwen2.5-7B"), data_scale="PB", **FAST), "data_scale"),
        (dict(inference=dict(model="Qwen2.5-7B"), prices={}, **FAST), "prices"),
        (dict(inference=dict(model="Qwen2.5-7B"), budget="30000", **FAST), "budget"),
        (dict(pretrain=dict(model=1.5, tokens="2e11"), **FAST), ("model", "tokens")),
        (dict(inference=dict(model="Qwen2.5-7B", users=math.inf), **FAST), "users"),
        (dict(inference=dict(model="Qwen2.5-7B", users="five"), **FAST), "users"),
        (dict(inference=dict(model=math.inf), **FAST), "model"),
    ],
    ids=[
        "cards=[]",
        "cards=''",
        "data_scale=PB",
        "prices={}",
        "budget='30000'",
        "pretrain-model=1.5",
        "users=inf",
        "users=five",
        "model=inf",
    ],
)
def test_recommend_refuses(kwargs: dict[str, Any], argument: str | tuple[str, ...]) -> None:
    _refused("recommend", **kwargs, argument=argument)


def test_recommend_reads_one_card_name_as_one_name() -> None:
    kwargs = dict(inference=dict(model="Qwen2.5-7B"), cards=CARD, gpu_counts=(1, 2))
    shown = _show("recommend", (), kwargs)
    plan = _call(hg.recommend, (), kwargs, shown)
    assert isinstance(plan, hg.Plan), f"{shown} gave {_short(plan)}"
    _check_result(plan, shown)
    assert set(plan.builds["gpu"]) | set(plan.failed["gpu"]) == {CARD}


@pytest.mark.parametrize("weights", ["gptq-4bit-g0", "gptq-0bit-g128"])
def test_weights_bytes_refuses_zero_bits_or_group(weights: str) -> None:
    _refused("weights_bytes", hg.model(M), weights, argument="weights")


def test_prefill_seconds_refuses_a_number_as_weights() -> None:
    _refused("prefill_seconds", hg.model(M), CARD, 512, weights=0, argument="weights")


@pytest.mark.parametrize(
    "kwargs",
    [dict(prices="x"), dict(prices=[]), dict(prices=math.nan), dict(as_of=20240101), dict(as_of="yesterday")],
    ids=["prices='x'", "prices=[]", "prices=nan", "as_of=20240101", "as_of='yesterday'"],
)
def test_value_ranking_refuses(kwargs: dict[str, Any]) -> None:
    _refused("value_ranking", **kwargs, argument=next(iter(kwargs)))


def test_finetune_memory_names_weights() -> None:
    _refused("finetune_memory", hg.model(M), weights="xyz", argument="weights")


@pytest.mark.parametrize(
    "function, argument",
    [
        ("kv_cache_bytes", "batch"),
        ("inference_memory", "batch"),
        ("inference_memory", "context"),
        ("inference_memory", "gpus"),
        ("training_memory", "batch"),
        ("training_memory", "context"),
        ("training_memory", "gpus"),
        ("finetune_memory", "batch"),
        ("finetune_memory", "context"),
        ("finetune_memory", "rank"),
        ("finetune_memory", "gpus"),
        ("lora_params", "rank"),
        ("decode_tokens_per_s", "batch"),
        ("decode_tokens_per_s", "context"),
        ("decode_tokens_per_s", "gpus"),
        ("training_time", "gpus"),
        ("build_system", "gpus"),
    ],
)
def test_huge_counts_are_refused_not_overflowed(function: str, argument: str) -> None:
    case = next(c for c in CASES if c.label == function)
    kwargs = _substitute(case.base, argument, 1e308)
    _refused(function, **kwargs, argument=argument)


def test_from_hf_config_refuses_a_list() -> None:
    _refused("Model.from_hf_config", [], argument="config")


def test_from_hf_config_refuses_ten_million_layers_quickly() -> None:
    _refused("from_hf_config", {**LLAMA_CONFIG, "num_hidden_layers": 10**7}, argument="num_hidden_layers")
