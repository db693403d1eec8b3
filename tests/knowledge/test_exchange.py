"""YAML and Markdown forms: exact round trips and errors that point at the line."""

from __future__ import annotations

import pytest

from colorbrowser.knowledge import (
    KnowledgeBase,
    Tip,
    TipFileError,
    dump_markdown,
    dump_yaml,
    load_markdown,
    load_yaml,
)
from colorbrowser.knowledge.exchange import export_text, import_file


def awkward_tips() -> list[Tip]:
    """Tips that stress the text forms: multi-line text, headings, quotes, regexes."""
    return [
        Tip(id="admin-refunds", site="admin.shop.local",
            url_patterns=["http://admin.shop.local/sales/order/view/*",
                          r"re:^https?://admin\.shop\.local/sales/creditmemo/\d+$"],
            keywords=["refund", "credit memo"], tags=["orders"], author="dana",
            text="Refunds are credit memos.\n\n# Steps\n1. Open the order.\n"
                 "2. Click *Credit Memo*: adjust quantities.\n\\# not a heading either",
            created="2024-03-01T10:00:00Z", updated="2024-03-02T11:30:00Z",
            stats={"retrieved": 4, "successes": 2, "failures": 1}),
        Tip(id="shop-search", site="shop.local", kind="shortcut", source="exploration",
            url_patterns=["/*"], url_template="http://shop.local/search?q={query}&sort=price",
            text='Search by URL: "q" holds the words; key: value pairs are fine - even `ticks`.',
            created="2024-03-01T10:00:00Z", updated="2024-03-01T10:00:00Z"),
        Tip(id="forum-plain", site="forum.local", url_patterns=[],
            text="  A tip with no patterns covers the whole forum.  ",
            created="2024-01-01T00:00:00Z", updated="2024-01-01T00:00:00Z"),
    ]


@pytest.mark.parametrize(("dump", "load"), [(dump_yaml, load_yaml),
                                            (dump_markdown, load_markdown)])
def test_text_forms_round_trip_exactly(dump, load):
    tips = awkward_tips()
    text = dump(tips)
    back = load(text)
    assert back == tips
    assert dump(back) == text


@pytest.mark.parametrize("fmt", ["yaml", "md"])
def test_export_import_export_through_a_store_is_identical(tmp_path, fmt):
    with KnowledgeBase.open(tmp_path / "a.db", embeddings=False) as kb:
        kb.add_many(awkward_tips())
        first = export_text(kb, fmt)
    path = tmp_path / f"tips.{fmt}"
    path.write_text(first, encoding="utf-8")
    with KnowledgeBase.open(tmp_path / "b.db", embeddings=False) as kb2:
        import_file(kb2, path)
        assert export_text(kb2, fmt) == first
        assert kb2.get("admin-refunds").stats.failures == 1


def test_yaml_export_is_readable_with_text_as_a_block():
    text = dump_yaml(awkward_tips()[:1])
    assert "text: |-\n    Refunds are credit memos.\n" in text
    assert text.startswith("- id: admin-refunds\n  site: admin.shop.local\n  kind: tip\n")


def test_minimal_yaml_entries_get_defaults_and_import_source():
    tips = load_yaml("- id: a\n  site: shop.local\n  url_patterns: ['/cart*']\n"
                     "  text: Cart tip.\n  keywords: [cart]\n")
    assert tips[0].source == "import"
    assert tips[0].kind == "tip"
    assert tips[0].keywords == ["cart"]


def test_broken_yaml_reports_file_and_line():
    text = "- id: a\n  site: shop.local\n  text: fine\n- id: b\n  site: [unclosed\n"
    with pytest.raises(TipFileError, match=r"^tips\.yaml:\d+: invalid YAML"):
        load_yaml(text, "tips.yaml")


@pytest.mark.parametrize(("text", "message"), [
    ("- id: a\n  site: shop.local\n  text: ok\n- site: shop.local\n  text: no id\n",
     r"^f\.yaml:4: tip has no id$"),
    ("- id: a\n  site: shop.local\n  text: ok\n- id: b\n  site: shop.local\n  text: '  '\n",
     r"^f\.yaml:6: tip b: text: tip text is empty$"),
    ("- id: a\n  site: shop.local\n  kind: recipe\n  text: t\n",
     r"^f\.yaml:3: tip a: kind: unknown kind 'recipe' \(use tip or shortcut\)$"),
    ("- id: a\n  site: shop.local\n  url_patterns: ['re:(x']\n  text: t\n",
     r"^f\.yaml:1: tip a: invalid regex 're:\(x'"),
    ("- id: a\n  site: shop.local\n  colour: red\n  text: t\n",
     r"^f\.yaml:3: tip a: colour: unknown field$"),
    ("- id: a\n  site: shop.local\n  text: t\n- id: a\n  site: shop.local\n  text: u\n",
     r"appears twice"),
    ("id: a\nsite: shop.local\n", r"^f\.yaml:1: expected a list of tips"),
])
def test_invalid_yaml_entries_give_one_line_with_the_line_number(text, message):
    with pytest.raises(TipFileError, match=message) as info:
        load_yaml(text, "f.yaml")
    assert "\n" not in str(info.value)


def test_broken_markdown_reports_the_line():
    text = "# Tips\n\n## a\n\n- site: shop.local\n- url_patterns:\n  - /no-backticks\n\nText.\n"
    with pytest.raises(TipFileError, match=r"^t\.md:7: write patterns .* in backticks"):
        load_markdown(text, "t.md")
    with pytest.raises(TipFileError, match=r"^t\.md:3: tip a: site: missing"):
        load_markdown("# Tips\n\n## a\n\n- kind: tip\n\nText.\n", "t.md")


def test_import_of_a_broken_file_changes_nothing(tmp_path):
    path = tmp_path / "tips.yaml"
    path.write_text("- id: good\n  site: shop.local\n  text: A fine tip.\n"
                    "- id: bad\n  site: shop.local\n  url_patterns: ['re:[z-a]']\n"
                    "  text: Broken regex.\n")
    with KnowledgeBase.open(tmp_path / "kb.db", embeddings=False) as kb:
        kb.add(Tip(id="kept", site="shop.local", text="Already here."))
        with pytest.raises(TipFileError, match=r"tips\.yaml:4: tip bad: invalid regex"):
            import_file(kb, path)
        assert [t.id for t in kb.list()] == ["kept"]
