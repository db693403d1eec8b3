"""The SQLite store: CRUD, WAL, transactions, FTS, frozen mode, stats, review queue."""

from __future__ import annotations

import sqlite3

import pytest

from colorbrowser.errors import UserError
from colorbrowser.knowledge import (
    InvalidTip,
    KnowledgeBase,
    QueueItem,
    ReadOnlyError,
    TipExists,
    TipNotFound,
)
from colorbrowser.knowledge.schema import SCHEMA_VERSION


def test_added_tip_reads_back_identical_after_reopening(db_path, shop_tip):
    tip = shop_tip(tags=["checkout"], author="dana")
    with KnowledgeBase.open(db_path, embeddings=False) as kb:
        kb.add(tip)
    with KnowledgeBase.open(db_path, embeddings=False) as kb:
        assert kb.get(tip.id) == tip
        assert [t.id for t in kb.list()] == [tip.id]


def test_store_creates_parent_folders_and_uses_wal_with_a_schema_version(db_path, kb):
    assert db_path.is_file()
    assert kb.journal_mode == "wal"
    raw = sqlite3.connect(db_path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION >= 1
    raw.close()


def test_update_changes_text_and_updated_time_but_keeps_created(kb, shop_tip):
    tip = kb.add(shop_tip(created="2024-01-01T00:00:00Z", updated="2024-01-01T00:00:00Z"))
    new = kb.update(tip.id, text="Pick a size first, then Add to Cart.", keywords=["size"])
    assert new.text == "Pick a size first, then Add to Cart."
    assert new.keywords == ["size"]
    assert new.created == tip.created
    assert new.updated > tip.updated
    assert kb.get(tip.id) == new


def test_update_with_invalid_values_saves_nothing(kb, shop_tip):
    tip = kb.add(shop_tip())
    with pytest.raises(InvalidTip, match="empty"):
        kb.update(tip.id, text="   ")
    with pytest.raises(InvalidTip, match="invalid regex"):
        kb.update(tip.id, url_patterns=["re:(unclosed"])
    with pytest.raises(InvalidTip, match="cannot edit"):
        kb.update(tip.id, id="renamed")
    assert kb.get(tip.id) == tip


def test_adding_an_existing_id_is_refused_and_keeps_the_first(kb, shop_tip):
    kb.add(shop_tip())
    with pytest.raises(TipExists, match="shop-size-first"):
        kb.add(shop_tip(text="Something else entirely."))
    assert kb.get("shop-size-first").text.startswith("On product pages")


def test_remove_is_all_or_nothing_when_an_id_is_unknown(kb, shop_tip):
    kb.add(shop_tip())
    kb.add(shop_tip(id="second", text="Another tip about the cart page."))
    with pytest.raises(TipNotFound, match="nope"):
        kb.remove("second", "nope")
    assert {t.id for t in kb.list()} == {"shop-size-first", "second"}
    kb.remove("second")
    assert [t.id for t in kb.list()] == ["shop-size-first"]
    with pytest.raises(TipNotFound):
        kb.get("second")


def test_list_filters_by_site_and_kind(kb, shop_tip):
    kb.add(shop_tip())
    kb.add(shop_tip(id="forum-1", site="forum.local", url_patterns=[], text="Forum tip."))
    kb.add(shop_tip(id="shop-search", kind="shortcut", text="Search by URL.",
                    url_template="http://shop.local/search?q={query}"))
    assert [t.id for t in kb.list(site="forum.local")] == ["forum-1"]
    assert [t.id for t in kb.list(kind="shortcut")] == ["shop-search"]


def test_failing_bulk_add_leaves_the_store_unchanged(kb, shop_tip):
    kb.add(shop_tip())
    good = shop_tip(id="fine", text="A valid tip about the product page.")
    clash = shop_tip(text="Same id as the stored tip.")
    with pytest.raises(TipExists):
        kb.add_many([good, clash])
    assert [t.id for t in kb.list()] == ["shop-size-first"]
    bad_regex = shop_tip(id="bad", url_patterns=["re:[a-"])
    with pytest.raises(InvalidTip, match="invalid regex"):
        kb.add_many([good, bad_regex])
    assert [t.id for t in kb.list()] == ["shop-size-first"]


def test_bulk_add_can_replace_or_skip_existing_ids(kb, shop_tip):
    kb.add(shop_tip())
    replaced = kb.add_many([shop_tip(text="Replaced text.")], on_conflict="replace")
    assert replaced.replaced == ["shop-size-first"]
    assert kb.get("shop-size-first").text == "Replaced text."
    skipped = kb.add_many([shop_tip(text="Ignored."), shop_tip(id="new", text="New one.")],
                          on_conflict="skip")
    assert (skipped.skipped, skipped.added) == (["shop-size-first"], ["new"])
    assert kb.get("shop-size-first").text == "Replaced text."


def test_keyword_search_uses_fts_with_stemming_and_stays_on_the_site(kb, shop_tip):
    kb.add(shop_tip())
    kb.add(shop_tip(id="refunds", site="admin.shop.local", url_patterns=[],
                    keywords=["refund"], text="Refunds are issued as credit memos."))
    kb.add(shop_tip(id="unrelated", keywords=[], text="Reviews are behind the Reviews tab."))
    hits = kb.keyword_hits("refunding an order", None)
    assert [h.tip.id for h in hits] == ["refunds"]
    assert hits[0].terms == ["refunding"]
    assert 0 < hits[0].coverage <= 1
    assert kb.keyword_hits("refunding an order", "http://shop.local/") == []
    cart = kb.keyword_hits("add shoes to the cart", "http://shop.local/product/1")
    assert [h.tip.id for h in cart] == ["shop-size-first"]


def test_fts_index_follows_updates_and_removals(kb, shop_tip):
    kb.add(shop_tip())
    kb.update("shop-size-first", text="Wishlist items need an account.", keywords=[])
    assert kb.keyword_hits("cart", None) == []
    assert [h.tip.id for h in kb.keyword_hits("wishlist", None)] == ["shop-size-first"]
    kb.remove("shop-size-first")
    assert kb.keyword_hits("wishlist", None) == []


def test_frozen_store_reads_but_refuses_every_write(db_path, shop_tip):
    with KnowledgeBase.open(db_path, embeddings=False) as kb:
        kb.add(shop_tip())
        item = kb.queue_add(QueueItem(site="shop.local", reason="url cycle"))
    with KnowledgeBase.open(db_path, readonly=True, embeddings=False) as frozen:
        assert frozen.get("shop-size-first").site == "shop.local"
        assert frozen.search("http://shop.local/product/9", "add to cart")
        writes = [
            lambda: frozen.add(shop_tip(id="other")),
            lambda: frozen.update("shop-size-first", text="changed"),
            lambda: frozen.remove("shop-size-first"),
            lambda: frozen.add_many([shop_tip(id="x")]),
            lambda: frozen.record_retrieval(["shop-size-first"]),
            lambda: frozen.record_outcome(["shop-size-first"], success=True),
            lambda: frozen.queue_add(QueueItem(reason="x")),
            lambda: frozen.queue_resolve(item.id, "skipped"),
        ]
        for write in writes:
            with pytest.raises(ReadOnlyError, match="frozen"):
                write()
        # Read-only at the SQLite level too, not only in our wrapper.
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            frozen._conn.execute("DELETE FROM tips")
    with KnowledgeBase.open(db_path, embeddings=False) as kb:
        assert kb.get("shop-size-first").text.startswith("On product pages")


def test_opening_a_missing_store_read_only_is_a_clear_error(tmp_path):
    with pytest.raises(UserError, match="no knowledge base"):
        KnowledgeBase.open(tmp_path / "absent.db", readonly=True)
    assert not (tmp_path / "absent.db").exists()


def test_a_file_that_is_not_a_store_is_refused(tmp_path):
    junk = tmp_path / "junk.db"
    junk.write_text("this is not sqlite at all, just text" * 100)
    with pytest.raises(UserError, match="cannot open knowledge base"):
        KnowledgeBase.open(junk)
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    with pytest.raises(UserError, match="not a colorbrowser knowledge base"):
        KnowledgeBase.open(other)


def test_store_from_a_newer_release_is_refused(db_path):
    KnowledgeBase.open(db_path).close()
    conn = sqlite3.connect(db_path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(UserError, match="upgrade colorbrowser"):
        KnowledgeBase.open(db_path)


def test_usage_statistics_count_retrievals_and_outcomes(kb, shop_tip):
    kb.add(shop_tip())
    kb.add(shop_tip(id="b", text="Another cart tip."))
    kb.record_retrieval(["shop-size-first", "b", "shop-size-first"])
    kb.record_retrieval(["shop-size-first"])
    kb.record_outcome(["shop-size-first", "b"], success=True)
    kb.record_outcome(["b"], success=False)
    a, b = kb.get("shop-size-first").stats, kb.get("b").stats
    assert (a.retrieved, a.successes, a.failures) == (2, 1, 0)
    assert (b.retrieved, b.successes, b.failures) == (1, 1, 1)


def test_review_queue_adds_lists_and_resolves_items(kb, shop_tip):
    kb.add(shop_tip())
    first = kb.queue_add(QueueItem(site="shop.local", url="http://shop.local/checkout",
                                   goal="buy socks", reason="no state change",
                                   summary="stuck at shipping", last_actions=["click('12')"],
                                   screenshot_path="runs/1/s.png", run_dir="runs/1"))
    second = kb.queue_add(QueueItem(site="forum.local", reason="url cycle"))
    assert [i.id for i in kb.queue_list()] == [first.id, second.id]
    done = kb.queue_resolve(first.id, "resolved", tip_id="shop-size-first")
    assert (done.status, done.tip_id) == ("resolved", "shop-size-first")
    assert done.resolved is not None
    assert done.last_actions == ["click('12')"]
    kb.queue_resolve(second.id, "skipped")
    assert kb.queue_list("open") == []
    assert [i.id for i in kb.queue_list("skipped")] == [second.id]
    assert len(kb.queue_list(None)) == 2
    with pytest.raises(UserError, match="unknown queue status"):
        kb.queue_resolve(second.id, "done")
    with pytest.raises(TipNotFound):
        kb.queue_resolve(second.id, "resolved", tip_id="missing")
    with pytest.raises(UserError, match="no review item"):
        kb.queue_resolve(999, "resolved")


def test_replacing_from_a_file_without_stats_keeps_the_usage_counts(kb, shop_tip):
    kb.add(shop_tip())
    kb.record_retrieval(["shop-size-first"])
    kb.record_outcome(["shop-size-first"], success=True)
    kb.add_many([shop_tip(text="Newer wording of the tip.")], on_conflict="replace")
    tip = kb.get("shop-size-first")
    assert tip.text == "Newer wording of the tip."
    assert (tip.stats.retrieved, tip.stats.successes) == (1, 1)
    kb.add_many([shop_tip(stats={"retrieved": 9})], on_conflict="replace")
    assert kb.get("shop-size-first").stats.retrieved == 9


def test_a_shortcut_can_become_a_plain_tip_by_clearing_its_template(kb, shop_tip):
    kb.add(shop_tip(kind="shortcut", url_template="http://shop.local/search?q={q}"))
    tip = kb.update("shop-size-first", kind="tip", url_template="")
    assert (tip.kind, tip.url_template) == ("tip", None)
