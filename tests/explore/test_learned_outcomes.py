"""The Predictor learns from the Judger: an outcome that keeps repeating stops being a
surprise, and one seen only now and then leaves the rules' prediction alone."""

from __future__ import annotations

from colorbrowser.explore.candidates import Candidate
from colorbrowser.explore.judger import judge
from colorbrowser.explore.learned import Outcomes
from colorbrowser.explore.outcome import Outcome
from colorbrowser.explore.predict import rule_predict
from colorbrowser.explore.urls import url_template
from colorbrowser.steps import Target

TOPIC = "http://h/topic/5/cast-iron/"


def link(href: str, name: str = "x") -> Candidate:
    return Candidate(action="click('1')", kind="link", target=Target(bid="1", role="link",
                     name=name), signature=f"link|{href}", facts={"href": href})


def went(url: str, **kw) -> Outcome:
    return Outcome(**{"url": url, "navigated": True, "method": "GET", "key_before": "a",
                      "key_after": "b", **kw})


def predicted(outcomes: Outcomes, cand: Candidate, page: str):
    rule = rule_predict(cand, page)
    here = url_template(page)
    return outcomes.adjust(Outcomes.key(cand, rule, here), rule, here)


def seen_once(outcomes: Outcomes, cand: Candidate, page: str, out: Outcome) -> None:
    here = url_template(page)
    outcomes.observe(Outcomes.key(cand, rule_predict(cand, page), here), out, here)


def test_members_links_that_end_on_the_login_form_are_predicted_to_after_two():
    learned = Outcomes()
    for n, who in enumerate(["lazy-reader", "sunny_fox"]):
        member = link(f"http://h/user/{n + 40}/{who}/")
        out = went(f"http://h/user/login/?next=/user/{n + 40}/{who}/")
        assert judge(member, predicted(learned, member, TOPIC), out).missed
        seen_once(learned, member, TOPIC, out)

    other = link("http://h/user/12/ada_l/")
    pred = predicted(learned, other, TOPIC)
    assert pred.navigates and pred.template == "h/user/login/?next={}" and pred.learned
    verdict = judge(other, pred, went("http://h/user/login/?next=/user/12/ada_l/"))
    assert not verdict.missed and verdict.checks["url"]


def test_one_surprise_is_not_yet_how_the_app_works():
    learned = Outcomes()
    member = link("http://h/user/45/lazy-reader/")
    seen_once(learned, member, TOPIC, went("http://h/user/login/?next=/user/45/lazy-reader/"))
    assert predicted(learned, link("http://h/user/2/bo_b/"), TOPIC).url == "http://h/user/2/bo_b/"


def test_what_a_link_did_on_one_kind_of_page_is_not_assumed_on_another():
    """A category's badge inside a topic's row opens the topic; the same link in a
    breadcrumb opens the category."""
    learned = Outcomes()
    badge = link("http://h/category/4/home-cooking/", "Home Cooking")
    for n in (1, 2):
        seen_once(learned, badge, "http://h/", went(f"http://h/topic/{n}/soggy-pie/"))
    assert predicted(learned, badge, "http://h/").template == "h/topic/{id}/{title}/"
    crumb = predicted(learned, badge, "http://h/topic/7/more-pie/")
    assert crumb.url == "http://h/category/4/home-cooking/" and not crumb.learned


def test_a_page_view_that_writes_rows_is_predicted_to_and_a_miss_when_it_stops():
    learned = Outcomes()
    topic = link("http://h/topic/9/hiking-trails/")
    counted = went("http://h/topic/9/hiking-trails/", db={"app.topic": "rows changed"})
    assert judge(topic, predicted(learned, topic, "http://h/"), counted).checks["db"] is False
    seen_once(learned, topic, "http://h/", counted)
    seen_once(learned, topic, "http://h/", counted)

    pred = predicted(learned, link("http://h/topic/3/bread-rolls/"), "http://h/")
    assert pred.writes
    again = went("http://h/topic/3/bread-rolls/", db={"app.topic": "rows changed"})
    assert judge(link("http://h/topic/3/bread-rolls/"), pred, again).checks["db"] is True
    quiet = judge(link("http://h/topic/3/bread-rolls/"), pred, went("http://h/topic/3/bread-rolls/"))
    assert quiet.missed and quiet.checks["db"] is False and "rows written" in quiet.text


def test_an_outcome_seen_only_now_and_then_leaves_the_rules_prediction():
    learned = Outcomes()
    for n, url in enumerate(["http://h/user/login/?next=/item/1", "http://h/item/2",
                             "http://h/item/3"]):
        seen_once(learned, link(f"http://h/item/{n + 1}"), "http://h/", went(url))
    pred = predicted(learned, link("http://h/item/4"), "http://h/")
    assert pred.url == "http://h/item/4" and not pred.learned


def test_a_post_that_redirects_back_is_predicted_to_come_back_to_its_kind_of_page():
    learned = Outcomes()
    form = {"method": "post", "action": "http://h/basket/add/7/"}
    add = Candidate(action="click('2')", kind="submit", target=Target(
        bid="2", role="button", name="Add to cart"), signature="submit|add", facts={
        "form": form}, writes=True)
    for page in ("http://h/catalogue/tents_14/", "http://h/catalogue/kettles_8/"):
        seen_once(learned, add, page, went(page, method="POST", db={"basket.line": "+1 row"}))
    pred = predicted(learned, add, "http://h/catalogue/boots_5/")
    assert pred.template == "h/catalogue/{id}/" and pred.method == "POST"
    out = went("http://h/catalogue/boots_5/", method="POST", db={"basket.line": "2 -> 3 rows"},
               key_after="a")
    assert not judge(add, pred, out).missed


def test_a_select_that_reloads_its_page_is_predicted_to_navigate():
    learned = Outcomes()
    sort = Candidate(action="select_option('3', 'price')", kind="select", target=Target(
        bid="3", role="combobox", name="Sort by"), signature="select|Sort by",
        facts={"choice": "price"})
    page = "http://h/category/tents_14/"
    for _ in range(2):
        seen_once(learned, sort, page, went("http://h/category/tents_14/?sort_by=price"))
    pred = predicted(learned, sort, "http://h/category/boots_5/")
    assert pred.navigates and pred.template == "h/category/{id}/?sort_by={}"
    # the same name on another kind of page is not assumed to do the same
    assert not predicted(learned, sort, "http://h/account/").navigates


def test_what_was_learned_survives_a_resume():
    learned = Outcomes()
    for n, who in enumerate(["lazy-reader", "sunny_fox"]):
        seen_once(learned, link(f"http://h/user/{n}/{who}/"), TOPIC,
                  went(f"http://h/user/login/?next=/user/{n}/{who}/"))
    back = Outcomes.from_json(learned.to_json())
    assert predicted(back, link("http://h/user/2/bo_b/"), TOPIC).template == "h/user/login/?next={}"


def test_an_action_that_failed_teaches_nothing():
    learned = Outcomes()
    first = link("http://h/user/45/lazy-reader/")
    for _ in range(2):
        seen_once(learned, first, TOPIC, Outcome(url=TOPIC, error="timeout"))
    assert not predicted(learned, link("http://h/user/2/bo_b/"), TOPIC).learned
