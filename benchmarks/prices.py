"""How much of the catalog a buyer in China can price today (issue 15's goal: 80%).

    python benchmarks/prices.py

A card counts as "sold in a market" when data/prices.csv holds any observation of it; it is
covered when it has a CNY observation (any kind, cloud rental included) dated no more than 12
months before the newest observation in the file. Prints the share and the cards not covered.
"""

from __future__ import annotations

import hwguide as hg
from hwguide.value import _months_before


def coverage(currency: str = "CNY", months: int = 12) -> tuple[float, list[str], list[str]]:
    """(share covered, cards covered, cards sold but not covered) for ``currency`` within ``months``."""
    prices = hg.prices()
    start = _months_before(max(prices["date"]), months)
    sold = sorted(set(prices["gpu"]))
    fresh = set(prices[(prices["currency"] == currency) & (prices["date"] >= start)]["gpu"])
    covered = [g for g in sold if g in fresh]
    return len(covered) / len(sold), covered, [g for g in sold if g not in fresh]


if __name__ == "__main__":
    prices = hg.prices()
    share, covered, missing = coverage()
    print(f"newest observation: {max(prices['date'])}; cards with any price: {len(covered) + len(missing)} of "
          f"{len(hg.gpus())} in the catalog")  # fmt: skip
    print(f"with a CNY price of the last 12 months: {len(covered)} ({share:.0%}; goal 80%)")
    kinds = prices[prices["currency"] == "CNY"].groupby("kind").size()
    print("CNY observations by kind: " + ", ".join(f"{k} {n}" for k, n in kinds.items()))
    print("not covered: " + ", ".join(missing))
