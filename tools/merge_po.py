"""Merge several gettext catalogs of one language into hwguide.po (used once, when the messages of the
package's modules were written in parallel; kept for the next such merge).

    python tools/merge_po.py zh CHOICES.json    # CHOICES: {"context\\u0004msgid": "words"} for conflicts

Entries are taken in file order (hwguide.po first); a conflict without a choice stops the merge.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent


def main(lang: str, choices_path: str | None = None) -> None:
    folder = ROOT / "hwguide" / "locale" / lang / "LC_MESSAGES"
    choices = json.loads(Path(choices_path).read_text(encoding="utf-8")) if choices_path else {}
    main_path = folder / "hwguide.po"
    paths = [main_path] + sorted(p for p in folder.glob("*.po") if p != main_path)
    with main_path.open("rb") as f:
        merged = read_po(f)  # its header and entries first
    conflicts = []
    for path in paths[1:]:
        with path.open("rb") as f:
            for entry in read_po(f):
                if not entry.id:
                    continue
                key = f"{entry.context or ''}\u0004{entry.id}"
                old = merged.get(entry.id, context=entry.context)
                if old is None:
                    merged.add(
                        entry.id,
                        choices.get(key, entry.string),
                        context=entry.context,
                        auto_comments=entry.auto_comments,
                        user_comments=entry.user_comments,
                    )
                elif old.string != entry.string and key not in choices:
                    conflicts.append(f"{entry.context}/{entry.id}: {old.string!r} vs {entry.string!r} ({path.name})")
    if conflicts:
        raise SystemExit("conflicts without a choice:\n" + "\n".join(conflicts))
    with main_path.open("wb") as f:
        write_po(f, merged, width=0, omit_header=False)
    for path in paths[1:]:
        path.unlink()
    print(f"{main_path.relative_to(ROOT)}: {len(merged)} entries from {len(paths)} files")


if __name__ == "__main__":
    main(*sys.argv[1:])
