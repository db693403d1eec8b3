"""program_html on real pages served on 127.0.0.1, read by real Chromium."""

from __future__ import annotations

from colorbrowser.evaluation.evaluators import program_html
from colorbrowser.evaluation.spec import EvalSpec


def checks(*items: dict) -> EvalSpec:
    return EvalSpec.model_validate({"eval_types": ["program_html"], "program_html": list(items)})


def check(url="last", locator="", **required) -> dict:
    return {"url": url, "locator": locator, "required_contents": required}


def test_js_locator_exact_match_on_the_agents_page(page, bench_url):
    page.goto(f"{bench_url}/order.html")
    locator = "document.querySelector('#status').outerText"
    assert program_html(checks(check(locator=locator, exact_match="pending")), page).score == 1.0
    assert program_html(checks(check(locator=locator, exact_match="Complete")), page).score == 0.0


def test_whole_page_must_include_reads_the_html_with_entities_decoded(page, bench_url):
    page.goto(f"{bench_url}/order.html")
    spec = checks(check(must_include=["Tom & Jerry", "Quest Lumaflex™ Band"]))
    outcome = program_html(spec, page)
    assert outcome.score == 1.0
    # the whole page is its HTML, so markup can be required too (as in WebArena)
    assert program_html(checks(check(must_include=['<td class="qty">5</td>'])), page).score == 1.0


def test_must_include_items_are_all_required_and_each_may_have_or_alternatives(page, bench_url):
    page.goto(f"{bench_url}/order.html")
    ok = checks(check(must_include=["Shipped |OR| Pending", "Sprite Yoga Strap"]))
    assert program_html(ok, page).score == 1.0
    missing = checks(check(must_include=["Refunded |OR| Complete", "Sprite Yoga Strap"]))
    outcome = program_html(missing, page)
    assert outcome.score == 0.0
    assert outcome.info["checks"][0]["missing"] == ["Refunded |OR| Complete"]


def test_must_include_in_html_checks_is_substring_even_for_one_character(page, bench_url):
    page.goto(f"{bench_url}/order.html")
    # program_html never tokenizes: "7" is found inside "000000170"
    locator = "document.querySelector('h1').outerText"
    assert program_html(checks(check(locator=locator, must_include=["7"])), page).score == 1.0


def test_locator_that_throws_reads_as_empty_and_fails(page, bench_url):
    page.goto(f"{bench_url}/order.html")
    locator = "document.querySelector('#no-such-thing').outerText"
    outcome = program_html(checks(check(locator=locator, must_include=["anything"])), page)
    assert outcome.score == 0.0 and outcome.error is None
    assert outcome.info["checks"][0]["found"] == ""


def test_js_values_are_compared_as_text(page, bench_url):
    page.goto(f"{bench_url}/order.html")
    locator = "document.querySelectorAll('#items tr').length"
    assert program_html(checks(check(locator=locator, exact_match="2")), page).score == 1.0


def test_prep_actions_run_before_the_locator(page, bench_url):
    page.goto(f"{bench_url}/order.html")
    item = check(locator="document.querySelector('#history').outerText",
                 must_include=["shipped with UPS"])
    assert program_html(checks(item), page).score == 0.0
    item["prep_actions"] = ["document.querySelector('#show-history').click()"]
    assert program_html(checks(item), page).score == 1.0


def test_check_with_a_url_opens_it_in_a_new_tab_and_closes_it(page, context, bench_url):
    page.goto(f"{bench_url}/start.html")
    spec = checks(check(url=f"{bench_url}/order.html",
                        locator="document.querySelector('#status').outerText",
                        exact_match="Pending"))
    outcome = program_html(spec, page, settle_ms=200)
    assert outcome.score == 1.0
    assert outcome.info["checks"][0]["url"] == f"{bench_url}/order.html"
    assert len(context.pages) == 1 and page.url == f"{bench_url}/start.html"


def test_every_check_must_pass(page, bench_url):
    page.goto(f"{bench_url}/start.html")
    spec = checks(
        check(must_include=["Search shoes"]),
        check(url=f"{bench_url}/order.html", must_include=["Refunded"]),
    )
    assert program_html(spec, page, settle_ms=200).score == 0.0


def test_unreachable_check_page_is_unscored_not_failed(page, bench_url):
    page.goto(f"{bench_url}/start.html")
    spec = checks(check(url="http://127.0.0.1:9/nothing-listens-here", must_include=["x"]))
    outcome = program_html(spec, page, settle_ms=100, timeout_ms=5000)
    assert outcome.error is not None and outcome.error.startswith("cannot open")


def test_gitlab_member_role_helper_reads_the_role_of_an_account(page, bench_url):
    page.goto(f"{bench_url}/members.html")
    spec = checks(check(locator="func:gitlab_get_project_memeber_role(__page__, 'yjlou')",
                        must_include=["Developer"]))
    assert program_html(spec, page).score == 1.0
    absent = checks(check(locator="func:gitlab_get_project_memeber_role(__page__, 'nobody')",
                          exact_match=""))
    assert program_html(absent, page).score == 1.0  # an unknown account has no role


def test_unsupported_helper_is_reported_never_passed(page, bench_url):
    page.goto(f"{bench_url}/order.html")
    spec = checks(check(url="func:shopping_get_latest_order_url()", must_include=["x"]))
    outcome = program_html(spec, page)
    assert outcome.error == "needs func:shopping_get_latest_order_url"
