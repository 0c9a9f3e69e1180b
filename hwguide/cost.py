"""What a generated token costs: owning a card against renting one, per million tokens.

``hg.token_cost("Llama-3.1-8B", "RTX 4090", weights="Q4_K_M", engine="llama.cpp", users=4)`` divides an
hour of the card by the tokens it generates in that hour:

- owned: the purchase price spread over ``years`` of use at ``utilization`` (the share of hours it
  works), plus electricity: ``power_w`` × ``pue`` × ``electricity_price`` (no electricity price, no
  electricity cost: the working says so);
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

    ``working`` holds the formula with the numbers put in, one message a line.
    """

    model: str
    card: str
    currency: str
    tokens_per_s: float
    owned_per_million: float | None
    rented_per_million: float | None
    working: tuple[i18n.Message, ...]

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
    ``power_w`` (default: the card's TDP, an upper figure: decode draws less) × ``pue`` × ``electricity_price``
    per kWh (not counted when None). Rented: ``cloud_hourly`` per GPU-hour (default: the newest
    ``cloud-hourly`` row of data/prices.csv in ``currency``). Raises ValueError when the workload does
    not fit the card's memory.
    """
    from .catalog import lookup_gpu, lookup_model
    from .memory import inference_memory
    from .speed import decode_tokens_per_s
    from .value import priced

    m, g = lookup_model(model), lookup_gpu(card, "card")
    currency = checks.currency(currency)
    users = checks.whole(users, "users", low=1, high=100_000)
    years = checks.number(years, "years", open_low=True, high=50, unit="years")
    utilization = checks.fraction(utilization, "utilization")
    pue = checks.number(pue, "pue", low=1.0, high=5.0)
    day = None if as_of is None else checks.date(as_of, "as_of")
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
    if power_w is None:
        power_w = float(g.tdp_w) if g.tdp_w else math.nan
        power_note = i18n.msg("the card's TDP, an upper figure: decode draws less")
    else:
        power_w = checks.number(power_w, "power_w", open_low=True, high=1e6, unit="W")
        power_note = i18n.msg("given")
    owned = None
    if price is not None:
        hours = years * HOURS_PER_YEAR * utilization
        energy = 0.0
        if electricity_price is not None and not math.isnan(power_w):
            electricity_price = checks.number(electricity_price, "electricity_price", high=1e3, unit="per kWh")
            energy = power_w / 1000 * pue * electricity_price
            working.append(i18n.msg("Electricity: {w:.0f} W ({note}) × PUE {pue:g} × {kwh:g} {currency}/kWh = "
                                    "{per_hour:.3f} {currency} per hour.", w=power_w, note=power_note, pue=pue,
                                    kwh=electricity_price, currency=money, per_hour=energy))  # fmt: skip
        else:
            working.append(i18n.msg("Electricity: not counted (give electricity_price per kWh to count it)."))
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
    return TokenCost(m.name, g.name, currency, tps, owned, rented, tuple(working))


def _prices() -> Any:
    from .catalog import prices

    return prices()
