"""The scenario examples in the docs are real scenarios that pass."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from altmafia.tools.scenario import run_file

DOCS = Path(__file__).resolve().parent.parent / "docs"
BLOCKS = [
    (doc.name, i, block)
    for doc in sorted(DOCS.rglob("*.md"))
    for i, block in enumerate(re.findall(r"```yaml\n(.*?)```", doc.read_text(encoding="utf-8"), re.S))
    if block.lstrip().startswith("ruleset:") and "steps:" in block and "..." not in block
]


def test_docs_have_runnable_examples():
    assert BLOCKS


@pytest.mark.parametrize(("doc", "index", "block"), BLOCKS, ids=[f"{d}#{i}" for d, i, _ in BLOCKS])
def test_doc_example_passes(tmp_path, doc, index, block):
    path = tmp_path / f"{doc}-{index}.yaml"
    path.write_text(block, encoding="utf-8")
    result = run_file(path)
    assert result.ok, "\n".join(result.failures)


# ---- the GM's guide in both languages -----------------------------------------------------------
def registered_commands() -> set[str]:
    """Every slash command the bot registers (qualified names: ``gm resolve``), from its cogs."""
    import asyncio

    from discord import app_commands

    from altmafia.bot.bot import COGS, create_bot
    from altmafia.bot.settings import Settings

    settings = Settings(token=None, db_path=Path("unused.sqlite3"), lang="ru", tz="Europe/Moscow", remind_minutes=60,
                        min_phase_minutes=30, scheduler_seconds=3600.0, db_sync="NORMAL")
    bot = create_bot(settings)

    async def load() -> None:
        for ext in COGS:
            await bot.load_extension(ext)

    asyncio.run(load())
    return {c.qualified_name for c in bot.tree.walk_commands() if isinstance(c, app_commands.Command)}


def test_every_command_is_in_the_guide_in_both_languages():
    """docs/bot.md and docs/bot.ru.md name every slash command the bot registers (``/gm settle``),
    and neither names a command the bot does not have."""
    commands = registered_commands()
    assert {"help", "gm settle", "lobby start", "action submit"} <= commands
    groups = {c.split()[0] for c in commands if " " in c}
    for doc in ("bot.md", "bot.ru.md"):
        body = (DOCS / doc).read_text(encoding="utf-8")
        missing = sorted(c for c in commands if not re.search(rf"`/{re.escape(c)}[` ]", body))
        assert not missing, f"{doc} does not document {missing}"
        named = set()
        for group, sub in re.findall(r"`/([a-z]+) ([a-z]+)", body):
            if group in groups:
                named.add(f"{group} {sub}")
        subgroups = {c.rsplit(" ", 1)[0] for c in commands if c.count(" ") == 2}  # `/gm ruleset upload`
        assert named <= commands | subgroups, f"{doc} names commands the bot lacks: {sorted(named - commands - subgroups)}"


# ---- docs/architecture.md matches the tree -----------------------------------------------------
ROOT = DOCS.parent
PACKAGES = ("engine", "altmafia", "cogs", "storage", "config")
TOPS = (*PACKAGES, "tests", "docs")
PATHLIKE = re.compile(r"^[\w.-][\w./-]*(\.py|/)$")


def architecture_paths() -> tuple[set[str], list[str]]:
    """The modules and folders docs/architecture.md names: a backticked path from the top
    anywhere, and in a table row whose first cell is a folder (`altmafia/bot/`) the names in
    its other cells, in that folder. Also what it names that cannot be placed."""
    named: set[str] = set()
    unplaced: list[str] = []
    for line in (DOCS / "architecture.md").read_text(encoding="utf-8").splitlines():
        cells = line.strip().strip("|").split("|") if line.lstrip().startswith("|") else [line]
        first = re.findall(r"`([^`]+)`", cells[0])
        base = first[0] if first and first[0].endswith("/") and first[0].startswith(TOPS) else None
        for cell in cells:
            for tok in re.findall(r"`([^`]+)`", cell):
                if not PATHLIKE.match(tok):
                    continue
                if tok.startswith(TOPS):
                    named.add(tok)
                elif base is not None:
                    named.add(base + tok)
                elif tok.endswith(".py"):
                    unplaced.append(tok)
    return named, unplaced


def test_every_module_the_architecture_names_exists():
    named, unplaced = architecture_paths()
    missing = sorted(p for p in named if not (ROOT / p).exists())
    assert not missing and not unplaced, f"named but not in the tree: {missing}; not placed in a folder: {unplaced}"


def test_every_module_is_in_the_architecture():
    named, _ = architecture_paths()
    modules = sorted(path.relative_to(ROOT).as_posix() for top in PACKAGES for path in (ROOT / top).rglob("*.py")
                     if path.name != "__init__.py")
    assert len(modules) > 80
    absent = [m for m in modules if m not in named]
    assert not absent, "modules docs/architecture.md does not name: " + ", ".join(absent)


def _headings(path: Path) -> list[int]:
    """The level of every heading outside code blocks, in order."""
    levels, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (m := re.match(r"(#+) ", line)):
            levels.append(len(m.group(1)))
    return levels


def _test_files(path: Path) -> set[str]:
    return set(re.findall(r"^\| `(test_\w+\.py)` \|", path.read_text(encoding="utf-8"), re.M))


@pytest.mark.parametrize("doc", ["bot", "variants"])
def test_russian_doc_says_what_the_english_one_says(doc):
    """A Russian reader of the bot's guide gets every section and every test row the English
    one has: the same headings at the same levels, in the same order, and the same test files."""
    en, ru = ROOT / "docs" / f"{doc}.md", ROOT / "docs" / f"{doc}.ru.md"
    assert _headings(ru) == _headings(en)
    assert _test_files(ru) == _test_files(en)
