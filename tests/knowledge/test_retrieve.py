"""The retrieval cascade: stage order, merging, token budget, and the real embedding stage."""

from __future__ import annotations

import pytest

from colorbrowser.errors import UserError
from colorbrowser.knowledge import KnowledgeBase, Tip, estimate_tokens

ADMIN_TIPS = [
    Tip(id="order-view", site="admin.shop.local",
        url_patterns=["http://admin.shop.local/sales/order/view/*"], keywords=["cancel"],
        text="In the order view, Cancel is available only until the order is invoiced."),
    Tip(id="admin-wide", site="admin.shop.local", url_patterns=["http://admin.shop.local/*"],
        text="Admin grids keep the filters of the previous visit; clear them first."),
    Tip(id="refunds", site="admin.shop.local", keywords=["refund", "credit memo"],
        url_patterns=["http://admin.shop.local/sales/creditmemo/*"],
        text="Refunds are issued as credit memos from the invoiced order."),
    Tip(id="reports", site="admin.shop.local", url_patterns=["http://admin.shop.local/reports/*"],
        keywords=["report"],
        text="Sales figures come from the REPORTS menu: choose a period, then Show Report."),
    Tip(id="other-site", site="forum.local", url_patterns=["http://forum.local/*"],
        keywords=["refund"], text="Refund requests on the forum go to the help board."),
]


@pytest.fixture
def admin_kb(kb):
    kb.add_many(ADMIN_TIPS)
    return kb


def ids(results) -> list[str]:
    return [r.tip.id for r in results]


def test_url_stage_ranks_the_most_specific_matching_pattern_first(admin_kb):
    found = admin_kb.search("http://admin.shop.local/sales/order/view/id/7/", "", k=5)
    assert ids(found) == ["order-view", "admin-wide"]
    assert found[0].why == "url pattern http://admin.shop.local/sales/order/view/*"
    assert found[0].score > found[1].score


def test_keyword_stage_finds_tips_whose_url_scope_does_not_match(admin_kb):
    url = "http://admin.shop.local/dashboard/"
    url_only = admin_kb.search(url, "issue a refund for the broken mug", stages=["url"])
    assert "refunds" not in ids(url_only)
    found = admin_kb.search(url, "issue a refund for the broken mug")
    assert ids(found)[0] == "refunds"
    assert found[0].why == "keywords: issue, refund"


def test_tips_of_other_sites_are_never_returned_for_a_url(admin_kb):
    found = admin_kb.search("http://admin.shop.local/", "refund", k=10)
    assert "other-site" not in ids(found)
    everywhere = admin_kb.search(None, "refund", k=10)
    assert {"other-site", "refunds"} <= set(ids(everywhere))


def test_a_tip_found_by_several_stages_appears_once_with_every_reason(admin_kb):
    found = admin_kb.search("http://admin.shop.local/sales/order/view/id/7/", "cancel this order",
                            k=5)
    assert ids(found).count("order-view") == 1
    top = found[0]
    assert top.tip.id == "order-view"
    assert top.reasons == ["url pattern http://admin.shop.local/sales/order/view/*",
                           "keywords: cancel, order"]
    assert set(top.parts) == {"url", "keyword"}
    # Both stages add up: more than the URL match alone gives.
    alone = admin_kb.search("http://admin.shop.local/sales/order/view/id/7/", "", k=1)[0]
    assert top.score > alone.score


def test_results_respect_k_and_the_token_budget(admin_kb):
    url = "http://admin.shop.local/sales/order/view/id/7/"
    goal = "cancel the order or refund it; check the sales report"
    assert len(admin_kb.search(url, goal, k=2)) == 2
    everything = admin_kb.search(url, goal, k=10, token_budget=10_000)
    assert len(everything) == 4
    cost = [r.tokens for r in everything]
    budget = cost[0] + cost[2]  # room for the first and the third, not the second
    assert cost[1] > cost[2]
    limited = admin_kb.search(url, goal, k=10, token_budget=budget)
    assert sum(r.tokens for r in limited) <= budget
    assert ids(limited)[0] == ids(everything)[0]
    assert ids(limited)[1] == ids(everything)[2]  # the longer second one did not fit
    assert admin_kb.search(url, goal, token_budget=cost[0] - 1, k=1) != everything[:1]


def test_token_estimate_grows_with_text():
    assert estimate_tokens("x") == 1
    assert estimate_tokens("word " * 100) == 125


def test_unknown_stage_is_a_clear_error(admin_kb):
    with pytest.raises(UserError, match="unknown retrieval stage 'magic'"):
        admin_kb.search("http://admin.shop.local/", "x", stages=["url", "magic"])


def test_cascade_works_without_embeddings(db_path):
    with KnowledgeBase.open(db_path, embeddings=False) as kb:
        kb.add_many(ADMIN_TIPS)
        assert kb.embedder is None
        found = kb.search("http://admin.shop.local/reports/sales", "sales report for March")
        assert ids(found)[0] == "reports"
        assert all("embedding" not in r.parts for r in found)


def test_embedding_stage_adds_a_paraphrase_that_keywords_miss(db_path, embedder):
    with KnowledgeBase.open(db_path, embedder=embedder) as kb:
        kb.add_many(ADMIN_TIPS)
        url = "http://admin.shop.local/dashboard/"
        goal = "How much revenue did the store bring in this quarter?"  # no word of the tip
        without = kb.search(url, goal, stages=["url", "keyword"])
        assert "reports" not in ids(without)
        found = kb.search(url, goal)
        assert ids(found)[0] == "reports"
        assert found[0].reasons[-1].startswith("embedding 0.")
        assert set(found[0].parts) == {"embedding"}


def test_embeddings_are_stored_once_and_recomputed_when_text_changes(db_path, embedder):
    with KnowledgeBase.open(db_path, embedder=embedder) as kb:
        kb.add_many(ADMIN_TIPS)
        first = kb.vectors(kb.list())
        assert len(first) == len(ADMIN_TIPS)
        assert first["reports"].dtype.name == "float32" and first["reports"].shape == (384,)
    calls = []

    class Counting:
        name = embedder.name

        def encode(self, texts):
            calls.append(list(texts))
            return embedder.encode(texts)

    with KnowledgeBase.open(db_path, embedder=Counting()) as kb:
        again = kb.vectors(kb.list())
        assert calls == []  # read back from the database, not recomputed
        assert (again["reports"] == first["reports"]).all()
        kb.update("reports", text="Revenue numbers are under REPORTS > Sales > Orders.")
        kb.vectors(kb.list())
        assert calls == [["Revenue numbers are under REPORTS > Sales > Orders.\n"
                          "Keywords: report"]]

    class OtherModel(Counting):
        name = "another-model"

    calls.clear()
    with KnowledgeBase.open(db_path, embedder=OtherModel()) as kb:
        kb.vectors(kb.list())
        assert len(calls[0]) == len(ADMIN_TIPS)  # a different model means new vectors


def test_frozen_store_still_uses_embeddings_without_writing(db_path, embedder):
    with KnowledgeBase.open(db_path, embeddings=False) as kb:
        kb.add_many(ADMIN_TIPS)
    with KnowledgeBase.open(db_path, readonly=True, embedder=embedder) as frozen:
        found = frozen.search("http://admin.shop.local/",
                              "How much revenue did the store bring in this quarter?")
        assert ids(found)[0] == "reports"
        assert "embedding" in found[0].parts
    with KnowledgeBase.open(db_path, embeddings=False) as kb:
        assert kb._conn.execute("SELECT count(*) FROM embeddings").fetchone()[0] == 0


def test_pages_without_a_host_get_no_site_tips(admin_kb):
    assert admin_kb.search("about:blank", "refund an order", k=5) == []
    assert admin_kb.shortcuts_for("file:///tmp/page.html") == []


def test_the_goal_is_embedded_once_per_episode_not_once_per_step(db_path, embedder):
    goals = []

    class Counting:
        name = embedder.name

        def encode(self, texts):
            goals.extend(texts)
            return embedder.encode(texts)

    with KnowledgeBase.open(db_path, embedder=Counting()) as kb:
        kb.add_many(ADMIN_TIPS)
        kb.reindex()
        goals.clear()
        for step_url in ("http://admin.shop.local/", "http://admin.shop.local/reports/sales"):
            kb.search(step_url, "sales report for March")
        assert goals == ["sales report for March"]
