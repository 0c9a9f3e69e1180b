"""What a generated token costs: owning a card against renting one, per million tokens.

``hg.token_cost("Llama-3.1-8B", "RTX 4090", weights="Q4_K_M", engine="llama.cpp", users=4)`` divides an
hour of the card by the tokens it generates in that hour:

- owned: the purchase price spread over ``years`` of use at ``utilization`` (the share of hours it
  works), plus electricity: ``power_w`` × ``pue`` × ``electricity_price``. The power is the card's
  measured draw while serving an LLM (data/power.csv: the run nearest in engine, batch and model),
  else its TDP; the tariff is the kit's default for the currency (data/electricity.csv), else none
  (no electricity cost). The working says which it used;
- rented: the newest dated cloud price per GPU-hour in ``currency`` (data/prices.csv, kind
  ``cloud-hourly``), paid only for the hours used.

Speed is :func:`hwguide.decode_tokens_per_s` for ``users`` sequences at once (all users together).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import math
from typing import Any

from . import checks, i18n

__all__ = ["TokenCost", "token_cost"]

HOURS_PER_YEAR = 365 * 24


@dataclasses.dataclass(frozen=True)
class TokenCost:
    """Cost per million generated tokens, owned and rented, in ``currency``; None where a price is missing.

    ``working`` holds the formula with the numbers put in, one message a line. ``power_w`` is the power
    the electricity was counted with and ``power_from`` where it came from: "measured" (data/power.csv),
    "tdp" (the card's TDP, when nobody measured it) or "given"; ``electricity_price`` the tariff per kWh
    (None: electricity not counted).
    """

    model: str
    card: str
    currency: str
    tokens_per_s: float
    owned_per_million: float | None
    rented_per_million: float | None
    working: tuple[i18n.Message, ...]
    power_w: float | None = None
    power_from: str = ""
    electricity_price: float | None = None

    def __str__(self) -> str:
        def money(value: float | None) -> Any:
            return i18n.msg("no price") if value is None else i18n.msg("{amount:,.2f} {currency}", amount=value,
                                                                       currency=i18n.msg(self.currency))  # fmt: skip

        head = i18n.msg("{model} on {card}: {tps:,.1f} tokens/s; per million tokens owned {owned}, rented {rented}",
                        model=self.model, card=self.card, tps=self.tokens_per_s,
                        owned=money(self.owned_per_million), rented=money(self.rented_per_million))  # fmt: skip
        return "\n".join([str(head), *(f"  {line}" for line in self.working)])


def _latest(card: str, kind: str, currency: str, as_of: _dt.date | None) -> dict[str, Any] | None:
    """The newest price row of ``card`` of ``kind`` in ``currency`` on or before ``as_of``."""
    from .catalog import prices

    table = prices()
    rows = table[(table["gpu"] == card) & (table["kind"] == kind) & (table["currency"] == currency)]
    if as_of is not None:
        rows = rows[rows["date"].map(lambda d: _dt.date.fromisoformat(str(d)[:10]) <= as_of)]
    if rows.empty:
        return None
    row = rows.sort_values("date").iloc[-1]
    return {"amount": float(row["amount"]), "date": str(row["date"])[:10], "source": str(row["source"])}


def _nearest_run(card: str, model: str, engine: str, users: int) -> dict[str, Any] | None:
    """The measured average power of ``card`` in data/power.csv nearest to this workload: the same
    engine first, then the batch closest to ``users`` (by ratio), then the same model, then one GPU."""
    from .catalog import _plain, measured_power

    rows = measured_power(card)
    rows = rows[rows["statistic"] == "average"]
    if rows.empty:
        return None
    runs = [{k: _plain(v) for k, v in row.items()} for row in rows.to_dict("records")]
    return min(runs, key=lambda r: (r["engine"] != engine, round(abs(math.log(r["batch"] / users)), 6),
                                    r["model"] != model, r["gpu_count"] != 1))  # fmt: skip


def token_cost(
    model: str,
    card: str,
    *,
    weights: str = "fp16",
    engine: str = "llama.cpp",
    users: int = 1,
    context: int = 4096,
    currency: str = "CNY",
    years: float = 3.0,
    utilization: float = 0.5,
    power_w: float | None = None,
    electricity_price: float | None = None,
    pue: float = 1.0,
    price: float | None = None,
    cloud_hourly: float | None = None,
    as_of: str | _dt.date | None = None,
) -> TokenCost:
    """Cost per million generated tokens of ``model`` on one ``card``, owned and rented, in ``currency``.

    ``users`` sequences decode together at ``context`` tokens (tokens/s of all users). Owned: ``price``
    (default: the card's newest new or used price in ``currency``, converted from the other currency
    when it has none, :func:`hwguide.value.priced`) over ``years`` × 8,760 h × ``utilization``, plus
    ``power_w`` × ``pue`` × ``electricity_price`` per kWh. ``power_w`` defaults to the card's measured
    average power while serving an LLM (data/power.csv, :func:`hwguide.measured_power`: the run with the
    same engine, the batch nearest ``users`` and the same model, in that order), else to its TDP (an
    upper figure: decode draws less). ``electricity_price`` defaults to the kit's tariff for ``currency``
    (data/electricity.csv, :func:`hwguide.electricity_tariffs`; CNY: Hubei's industrial and commercial
    tariff, below 1 kV); where there is none, electricity is not counted (give 0 to leave it out).
    Rented: ``cloud_hourly`` per GPU-hour (default: the newest ``cloud-hourly`` row of data/prices.csv in
    ``currency``). Raises ValueError when the workload does not fit the card's memory.
    """
    from .catalog import default_tariff, lookup_gpu, lookup_model
    from .memory import inference_memory
    from .speed import decode_tokens_per_s
    from .value import priced

    m, g = lookup_model(model), lookup_gpu(card, "card")
    currency = checks.currency(currency)
    users = checks.whole(users, "users", low=1, high=100_000)
    years = checks.number(years, "years", open_low=True, high=50, unit="years")
    utilization = checks.fraction(utilization, "utilization")
    pue = checks.number(pue, "pue", low=1.0, high=5.0)
    from .value import price_day

    day = None if as_of is None else price_day(as_of)
    need = inference_memory(m, weights=weights, batch=users, context=context, engine=engine)
    if not need.fits(g):
        raise ValueError(i18n.msg("{model} does not fit one {card} for {users} users: {gib:.1f} GiB per GPU",
                                  model=m.name, card=g.name, users=users, gib=need.per_gpu_gib))  # fmt: skip
    tps = decode_tokens_per_s(m, g, weights=weights, batch=users, context=context, engine=engine)
    per_hour = tps * 3600 / 1e6  # million tokens per hour
    money = i18n.msg(currency)
    working = [i18n.msg("Speed: {tps:,.1f} tokens/s for {users} users together = {mt:.3f} million tokens per hour "
                        "(hg.decode_tokens_per_s, {engine}, {weights}).", tps=tps, users=users, mt=per_hour,
                        engine=engine, weights=weights)]  # fmt: skip
    if price is None:
        row = priced(_prices(), currency, "any", day).reindex([g.name]).iloc[0]
        price = None if row.isna()["amount"] else float(row["amount"])
        if price is not None:
            kind = (
                row["label"]
                if isinstance(row["label"], i18n.Message)
                else i18n.Message(str(row["label"]), context="value")
            )
            working.append(i18n.msg("Price: {price:,.0f} {currency} ({label}, {date}; data/prices.csv).",
                                    price=price, currency=money, label=kind, date=str(row["date"])[:10]))  # fmt: skip
    else:
        price = checks.number(price, "price", open_low=True, high=1e9)
        working.append(i18n.msg("Price: {price:,.0f} {currency} (given).", price=price, currency=money))
    run = None if power_w is not None else _nearest_run(g.name, m.name, engine, users)
    if power_w is not None:
        power_w, power_from = checks.number(power_w, "power_w", open_low=True, high=1e6, unit="W"), "given"
        power_note = i18n.msg("given")
    elif run is not None:
        power_w, power_from = float(run["power_w"]), "measured"
        fields = dict(model=run["model"], engine=run["engine"], batch=run["batch"])
        if run["engine"] == engine:
            power_note = i18n.msg("measured: this card's average power running {model} on {engine} at batch {batch}, "
                                  "data/power.csv", **fields)  # fmt: skip
        else:
            power_note = i18n.msg("measured: this card's average power running {model} on {engine} at batch {batch}, "
                                  "the nearest run in data/power.csv (none with {asked})", asked=engine,
                                  **fields)  # fmt: skip
    elif g.tdp_w:
        power_w, power_from = float(g.tdp_w), "tdp"
        power_note = i18n.msg("the card's TDP, an upper figure: decode draws less; data/power.csv holds no "
                              "measurement of this card")  # fmt: skip
    else:
        power_w, power_from, power_note = None, "", None
    if electricity_price is not None:
        electricity_price = checks.number(electricity_price, "electricity_price", high=1e3, unit="per kWh")
        tariff_note = i18n.msg("given")
    elif (tariff := default_tariff(currency, day)) is not None:
        electricity_price = float(tariff["price_per_kwh"])
        tariff_note = i18n.msg("the kit's default: {region} {tariff}, {structure}, {voltage}, {month}; "
                               "data/electricity.csv", region=i18n.Message(tariff["region"], context="region"),
                               tariff=i18n.Message(tariff["tariff"], context="tariff"),
                               structure=i18n.Message(tariff["structure"], context="structure"),
                               voltage=i18n.Message(tariff["voltage"], context="voltage"),
                               month=tariff["date"].strftime("%Y-%m"))  # fmt: skip
    owned = None
    if price is not None:
        hours = years * HOURS_PER_YEAR * utilization
        energy = 0.0
        if electricity_price is None:
            working.append(i18n.msg("Electricity: not counted (give electricity_price per kWh to count it)."))
        elif power_w is None:
            working.append(i18n.msg("Electricity: not counted: the card has no measured power and no published TDP "
                                    "(give power_w to count it)."))  # fmt: skip
        else:
            energy = power_w / 1000 * pue * electricity_price
            working.append(i18n.msg("Electricity: {w:.0f} W ({note}) × PUE {pue:g} × {kwh:g} {currency}/kWh "
                                    "({tariff}) = {per_hour:.3f} {currency} per hour.", w=power_w, note=power_note,
                                    pue=pue, kwh=electricity_price, tariff=tariff_note, currency=money,
                                    per_hour=energy))  # fmt: skip
        owned = (price / hours + energy) / per_hour
        working.append(i18n.msg("Owned: {price:,.0f} ÷ ({years:g} years × 8,760 h × {util:.0%}) + electricity = "
                                "{hourly:.3f} {currency} per hour ÷ {mt:.3f} = {owned:,.2f} {currency} per million "
                                "tokens.", price=price, years=years, util=utilization, hourly=price / hours + energy,
                                currency=money, mt=per_hour, owned=owned))  # fmt: skip
    if cloud_hourly is None:
        cloud = _latest(g.name, "cloud-hourly", currency, day)
        if cloud is not None:
            cloud_hourly = cloud["amount"]
            working.append(i18n.msg("Rent: {hourly:g} {currency} per GPU-hour ({date}; data/prices.csv).",
                                    hourly=cloud_hourly, currency=money, date=cloud["date"]))  # fmt: skip
    else:
        cloud_hourly = checks.number(cloud_hourly, "cloud_hourly", open_low=True, high=1e6, unit="per hour")
        working.append(i18n.msg("Rent: {hourly:g} {currency} per GPU-hour (given).", hourly=cloud_hourly,
                                currency=money))  # fmt: skip
    rented = None if cloud_hourly is None else cloud_hourly / per_hour
    if rented is not None:
        working.append(i18n.msg("Rented: {hourly:g} ÷ {mt:.3f} = {rented:,.2f} {currency} per million tokens, paying "
                                "only for the hours used.", hourly=cloud_hourly, mt=per_hour, rented=rented,
                                currency=money))  # fmt: skip
    return TokenCost(m.name, g.name, currency, tps, owned, rented, tuple(working), power_w, power_from,
                     electricity_price)  # fmt: skip


def _prices() -> Any:
    from .catalog import prices

    return prices()
