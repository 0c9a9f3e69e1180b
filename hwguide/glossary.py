"""The course's bilingual glossary (data/glossary.csv): each term in English and Chinese, with a
one-line definition in each language and the notebook that teaches it."""

from __future__ import annotations

import pandas as pd

from . import i18n
from .catalog import load_table

__all__ = ["glossary"]


def glossary(*, lang: str | None = None) -> pd.DataFrame:
    """The glossary, one term per row: ``term``, its translation, ``definition`` and ``notebook``.

    ``lang`` ("en" or "zh"; the language set by ``hg.setup`` when None) decides which language
    comes first and in which the definitions are given. Sorted as the file is: by topic.
    """
    lang = i18n.resolve(lang)
    table = load_table("glossary")
    other = "zh" if lang == "en" else "en"
    out = pd.DataFrame(
        {
            i18n.text("term", lang): table[lang],
            i18n.text("translation", lang): table[other],
            i18n.text("definition", lang): table[f"definition_{lang}"],
            i18n.text("notebook", lang): table["notebook"],
        }
    )
    # a title and caption, so that hg.style_table shows it whole (a plain DataFrame cuts long cells)
    out.attrs = {"title": i18n.text("Glossary", lang), "caption": i18n.text("Terms of the course grouped by topic "
                 "(data/glossary.csv).", lang), "lang": lang}  # fmt: skip
    return out
