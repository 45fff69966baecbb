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
