"""The verifier's deterministic checks on recorded steps: what the goal asks for, and
each check refusing a false "done" and accepting a true one. (The same checks run in
real Chromium in test_verify_browser.py; here the records are written out by hand so
each rule can be read next to its case.)"""

from __future__ import annotations

from colorbrowser.agent.verify import FinalPage, Proof, goal_kinds, values_in, verify
from colorbrowser.evidence import CookieChange, Evidence, RequestNote
from colorbrowser.steps import Step

SHOP = "[3] heading 'Trail shop'\n[4] listitem 'Wool hiking socks: $12.50, added on 2024-03-05'"


def step(n: int, action: str, *, page: str = "", evidence: Evidence | None = None,
         url: str = "http://127.0.0.1:8000/shop.html") -> Step:
    return Step(step=n, action=action, observation=page, url=url, evidence=evidence)


def post(url: str, status: int | None, fields=("title",), failure=None) -> RequestNote:
    return RequestNote(method="POST", url=url, status=status, kind="document",
                       fields=list(fields), failure=failure)


def doc(url: str, status: int) -> RequestNote:
    return RequestNote(method="GET", url=url, status=status, kind="document")


def proof(goal: str, answer: str, steps: list[Step], final_text: str = "",
          final_url: str = "http://127.0.0.1:8000/shop.html", title: str = "") -> Proof:
    return Proof(goal=goal, answer=answer, steps=steps,
                 final=FinalPage(url=final_url, title=title, text=final_text))


# -- what the goal asks for -------------------------------------------------------------
def test_goal_kinds_come_from_the_wording():
    assert goal_kinds("What is the price of the wool hiking socks?", []) == ["information"]
    assert goal_kinds("Add the comment \"Fixed\" to ticket #33.", []) == ["change"]
    assert goal_kinds("Set the priority of ticket #36 to critical.", []) == ["change"]
    assert goal_kinds("Log in as hugo", []) == ["sign_in"]
    assert goal_kinds("Open the wiki page that explains how to install Harbor.", []) == ["open"]
    assert goal_kinds("Find ticket 12 and close it", []) == ["change"]
    assert goal_kinds("Sign in and then post a reply saying thanks", []) == ["change", "sign_in"]


def test_a_search_for_a_quoted_term_asks_for_the_results_page_not_an_answer():
    assert goal_kinds('Search the store for "rain jacket".', []) == ["open"]
    assert goal_kinds("Please search the issue tracker for 'timeout'", []) == ["open"]
    assert goal_kinds("Search the wiki for the population of Harrow", []) == ["information"]
    assert goal_kinds('Search the store for "tea" and tell me the cheapest', []) == [
        "information"]


def test_a_question_inside_the_text_to_post_asks_for_no_answer():
    posted = [step(1, "click('5')", evidence=Evidence(requests=[post("http://h/topic", 200)]))]
    assert goal_kinds('Start a topic in the Books board titled "Mysteries" that says: I loved '
                      "the last three I read; what should I read next?", posted) == ["change"]
    assert goal_kinds("Reply to the topic with: Which mulch works best?", []) == ["change"]
    assert goal_kinds("Which board has a topic that says: hello?", []) == ["information"]


def test_following_a_link_opening_a_tab_or_saving_into_the_answer_asks_for_no_change():
    assert goal_kinds("Follow the Docs link and tell me the latest version.", []) == [
        "information"]
    assert "change" not in goal_kinds("Open a new tab with the wiki and find the Harbor "
                                      "install page", [])
    assert goal_kinds("Find the cheapest tent and save its name in your answer.", []) == [
        "information"]
    assert goal_kinds("Follow the user alice", []) == ["change"]
    assert goal_kinds("Find the cheapest tent and save it to my wishlist", []) == ["change"]


def test_a_write_the_episode_made_makes_it_a_change_goal_whatever_the_wording():
    steps = [step(1, "click('5')", evidence=Evidence(requests=[post("http://h/save", 500)]))]
    assert "change" in goal_kinds("Tell the shop my new address is 4 Elm Road", steps)
    sign_in = [step(1, "click('5')", evidence=Evidence(
        requests=[post("http://h/login", 303, fields=("user", "password"))]))]
    assert "change" not in goal_kinds("What is my account balance?", sign_in)


def test_values_in_an_answer_are_numbers_dates_quoted_strings_and_names():
    found = {(v.kind, v.text) for v in values_in(
        'Julian Moreau closed it on March 5, 2024 with "wontfix"; it cost $1,204.50')}
    assert found == {("name", "Julian Moreau"), ("date", "March 5, 2024"),
                     ("quoted", "wontfix"), ("number", "1,204.50")}
    assert values_in("Based on the page it is 7") == [values_in("7")[0]]


# -- empty and "cannot be done" ---------------------------------------------------------------
def test_an_empty_answer_to_a_question_is_refuted_and_a_real_one_accepted():
    steps = [step(1, "scroll(0, 300)", page=SHOP)]
    empty = verify(proof("What is the price of the wool hiking socks?", "", steps))
    assert empty.verdict == "refuted"
    assert "the answer is empty" in empty.reason_text()
    good = verify(proof("What is the price of the wool hiking socks?", "$12.50", steps))
    assert good.verdict == "verified", good.reasons


def test_a_how_many_question_needs_a_number_even_when_the_words_were_seen():
    page = "[20] link 'Timeline'\n[45] paragraph: 23 tickets"
    steps = [step(1, "click('20')", page=page)]
    goal = "How many tickets belong to milestone 1.1?"
    menu = verify(proof(goal, "Timeline", steps))
    assert menu.verdict == "unverified" and "gives no number" in menu.reason_text()
    assert verify(proof(goal, "23", steps)).verified
    assert verify(proof(goal, "23 tickets", steps)).verified
    assert verify(proof("Who owns ticket 18?", "Timeline", steps)).verified


def test_cannot_be_done_needs_a_reason():
    steps = [step(1, "scroll(0, 300)", page=SHOP)]
    bare = verify(proof("What does the trail map weigh?", "cannot be done", steps))
    assert bare.verdict == "unverified" and "gives no reason" in bare.reason_text()
    explained = verify(proof("What does the trail map weigh?",
                             "It cannot be done because the shop lists no weights", steps))
    assert explained.verdict == "verified"


# -- grounded answers -------------------------------------------------------------------------
def test_a_typed_answer_is_grounded_by_its_values_not_by_the_schemas_keys():
    steps = [step(1, "scroll(0, 300)", page=SHOP)]
    goal = "What is the price of the wool hiking socks?"
    typed = '{"product_name": "Wool hiking socks", "in_stock": true, "price": 12.5}'
    assert verify(proof(goal, typed, steps)).verdict == "verified"
    made_up = verify(proof(goal, '{"product_name": "Wool hiking socks", "price": 42}', steps))
    assert made_up.verdict == "refuted" and "'42'" in made_up.reason_text()
    assert "product_name" not in made_up.reason_text()


def test_a_value_seen_on_no_page_is_named_in_the_refusal():
    steps = [step(1, "scroll(0, 300)", page=SHOP)]
    made_up = verify(proof("What is the price of the wool hiking socks?", "$42.00", steps))
    assert made_up.verdict == "refuted"
    assert "'42.00'" in made_up.reason_text() and "on no page you saw" in made_up.reason_text()
    formatted = verify(proof("What is the price of the wool hiking socks?",
                             "It costs 12.5 dollars, since 2024-03-05", steps))
    assert formatted.verdict == "verified", formatted.reasons
    date = verify(proof("When were the socks added?", "5 March 2024", steps))
    assert date.verdict == "verified", date.reasons


def test_element_ids_in_the_page_text_do_not_ground_a_number():
    steps = [step(1, "scroll(0, 300)", page=SHOP)]  # holds the ids [3] and [4]
    assert verify(proof("How many trail maps are left?", "4", steps)).verdict == "refuted"


def test_a_calculation_of_seen_values_grounds_its_result_and_one_of_unseen_values_does_not():
    page = "[3] listitem 'Socks $12.50' [4] listitem 'Map $4.20'"
    seen = [step(1, "scroll(0, 1)", page=page),
            step(2, "calculate('12.50 + 4.20')",
                 evidence=Evidence(calculations=["12.50 + 4.20 = 16.70"]))]
    assert verify(proof("What do the socks and the map cost together?", "$16.70",
                        seen)).verdict == "verified"
    unseen = [step(1, "scroll(0, 1)", page=page),
              step(2, "calculate('12.50 + 9.99')",
                   evidence=Evidence(calculations=["12.50 + 9.99 = 22.49"]))]
    refused = verify(proof("What do the socks and the map cost together?", "$22.49", unseen))
    assert refused.verdict == "refuted" and "'22.49'" in refused.reason_text()


def test_a_note_counts_only_when_its_own_values_were_seen():
    note_seen = [step(1, "scroll(0, 1)", page="[7] cell 'Owner: Julian Moreau'"),
                 step(2, "goto('http://h/other')", page="[2] heading 'Other'"),
                 step(3, "take_note('owner Julian Moreau')",
                      evidence=Evidence(notes=["owner Julian Moreau"]))]
    assert verify(proof("Who owns ticket 18?", "Julian Moreau",
                        note_seen)).verdict == "verified"
    note_unseen = [step(1, "take_note('owner Clara Oswin')",
                        evidence=Evidence(notes=["owner Clara Oswin"]))]
    refused = verify(proof("Who owns ticket 18?", "Clara Oswin", note_unseen))
    assert refused.verdict == "refuted" and "'Clara Oswin'" in refused.reason_text()


# -- changes ------------------------------------------------------------------------------------
GOAL = "Add a product titled \"Gaiters\"."
SAVED = "[3] text: Product Gaiters saved."


def test_a_change_needs_a_successful_write_after_the_last_change_action():
    ok = [step(1, "fill('5', 'Gaiters')"),
          step(2, "click('6')", evidence=Evidence(requests=[
              post("http://h/save", 303), doc("http://h/saved", 200)]))]
    verdict = verify(proof(GOAL, "Saved the product", ok, final_text=SAVED))
    assert verdict.verdict == "verified", verdict.reasons
    failed = [step(1, "fill('5', 'Gaiters')"),
              step(2, "click('6')", evidence=Evidence(requests=[post("http://h/save", 500)],
                                                     page_errors=["Internal Server Error"]))]
    verdict = verify(proof(GOAL, "Saved the product", failed))
    assert verdict.verdict == "refuted"
    assert "answered 500 to POST http://h/save at step 2" in verdict.reason_text()


def test_a_background_call_cut_off_by_the_saved_page_loading_is_no_failed_write():
    stash = RequestNote(method="POST", url="http://h/api.php", status=None, kind="fetch",
                        fields=["action"], failure="net::ERR_ABORTED")
    saved = [step(1, "fill('5', 'Gaiters')"),
             step(2, "click('6')", evidence=Evidence(requests=[
                 stash, post("http://h/save", 303), doc("http://h/saved", 200)]))]
    verdict = verify(proof(GOAL, "Saved the product", saved, final_text=SAVED))
    assert verdict.verdict == "verified", verdict.reasons
    # the same cut-off call on a page that never moved on is a write that failed
    saved_by_fetch = RequestNote(method="POST", url="http://h/save", status=200,
                                 kind="fetch", fields=["title"])
    alone = [step(1, "fill('5', 'Gaiters')"),
             step(2, "click('6')", evidence=Evidence(requests=[stash, saved_by_fetch]))]
    assert verify(proof(GOAL, "Saved the product", alone, final_text=SAVED)
                  ).verdict == "refuted"


def test_a_change_never_submitted_is_refuted():
    typed_only = [step(1, "fill('5', 'Gaiters')")]
    verdict = verify(proof(GOAL, "Done", typed_only))
    assert verdict.verdict == "refuted" and "nothing was saved" in verdict.reason_text()
    saved_then_typed = [
        step(1, "click('6')", evidence=Evidence(requests=[post("http://h/save", 303)])),
        step(2, "fill('5', 'Gaiters v2')")]
    verdict = verify(proof(GOAL, "Done", saved_then_typed))
    assert verdict.verdict == "refuted" and "never submitted" in verdict.reason_text()


def test_a_write_caused_by_typing_is_no_submission():
    """An auto-preview posts the form as one types; only a submitting action commits."""
    preview = RequestNote(method="POST", url="http://h/ticket/33", status=200, kind="xhr",
                          fields=["comment"])
    typed = [step(1, "fill('5', 'Gaiters')", evidence=Evidence(requests=[preview]))]
    verdict = verify(proof(GOAL, "Done", typed))
    assert verdict.verdict == "refuted" and "nothing was saved" in verdict.reason_text()


def test_an_error_text_after_a_successful_status_refutes_the_change():
    steps = [step(1, "click('6')", evidence=Evidence(
        requests=[post("http://h/save", 200)], page_errors=["Title is required"]))]
    verdict = verify(proof(GOAL, "Done", steps))
    assert verdict.verdict == "refuted" and "'Title is required'" in verdict.reason_text()


def test_a_database_that_did_not_change_refutes_a_saved_page():
    steps = [step(1, "click('6')", evidence=Evidence(requests=[post("http://h/save", 200)]))]
    told = proof(GOAL, "Done", steps)
    told.state_changed = False
    verdict = verify(told)
    assert verdict.verdict == "refuted" and "nothing changed in its database" in \
        verdict.reason_text()
    told.state_changed = True
    told.final = FinalPage(url="http://h/saved", text=SAVED)
    assert verify(told).verdict == "verified"


# -- sign in and open a page ---------------------------------------------------------------------
def test_signing_in_needs_a_session_cookie_for_the_site():
    login = post("http://127.0.0.1:8000/login", 303, fields=("user", "password"))
    with_cookie = [step(1, "click('4')", evidence=Evidence(
        requests=[login], cookies=[CookieChange(site="127.0.0.1", set=["session"])]))]
    assert verify(proof("Log in as ann", "", with_cookie)).verdict == "verified"
    without = [step(1, "click('4')", evidence=Evidence(requests=[login]))]
    verdict = verify(proof("Log in as ann", "", without))
    assert verdict.verdict == "refuted"
    assert "no cookie was set for 127.0.0.1" in verdict.reason_text()
    removed = [*with_cookie, step(2, "click('9')", evidence=Evidence(
        cookies=[CookieChange(site="127.0.0.1", removed=["session"])]))]
    assert verify(proof("Log in as ann", "", removed)).verdict == "refuted"


def test_opening_a_page_needs_a_final_page_that_is_no_error_page():
    good = [step(1, "click('3')", evidence=Evidence(requests=[doc("http://h/wiki/Install", 200)]))]
    assert verify(proof("Open the install guide", "", good,
                        final_url="http://h/wiki/Install")).verdict == "verified"
    missing = [step(1, "click('3')", evidence=Evidence(
        requests=[doc("http://h/wiki/Instal", 404)], page_errors=["Not Found"]))]
    verdict = verify(proof("Open the install guide", "", missing,
                           final_url="http://h/wiki/Instal", title="404 Not Found"))
    assert verdict.verdict == "refuted" and "error page" in verdict.reason_text()


def test_opening_a_page_needs_to_leave_the_start_page_and_show_what_the_goal_names():
    start = "http://h/"
    stayed = [step(1, "scroll(0, 1)", url=start)]
    verdict = verify(proof("Show me the page of milestone 1.3.", "", stayed, final_url=start,
                           final_text="[3] link 'Roadmap'"))
    assert verdict.verdict == "unverified" and "still on the page" in verdict.reason_text()
    moved = [step(1, "click('3')", url=start)]
    other = verify(proof("Show me the page of milestone 1.3.", "", moved,
                         final_url="http://h/milestone/2.0",
                         final_text="[5] heading 'Milestone 2.0'"))
    assert other.verdict == "unverified" and "'1.3'" in other.reason_text()
    right = verify(proof("Show me the page of milestone 1.3.", "", moved,
                         final_url="http://h/milestone/1.3",
                         final_text="[5] heading 'Milestone 1.3'"))
    assert right.verdict == "verified", right.reasons


def test_a_page_one_click_short_of_the_goal_is_not_the_page():
    moved = [step(1, "click('20')", url="http://h/")]
    roadmap = "[31] link 'Milestone: 1.2'\n[35] link 'Milestone: 1.3'\n[40] text: 1.3 is late"
    short = verify(proof("Show me the page of milestone 1.3.", "", moved,
                         final_url="http://h/roadmap", title="Roadmap – Harbor",
                         final_text=roadmap))
    assert short.verdict == "unverified"
    assert "only links to 'Milestone: 1.3'" in short.reason_text()
    title = "HEIC import is very slow when two files share the same checksum"
    results = f"[12] link '#48: {title}'"
    goal = f'Open the ticket titled "{title}".'
    assert not verify(proof(goal, "", moved, final_url="http://h/search?q=HEIC",
                            title="Search Results", final_text=results)).verified
    # The page itself: its title names the target, whatever it links to.
    ticket = verify(proof(goal, "", moved, final_url="http://h/ticket/48",
                          title="#48 (HEIC import is very slow when two files share the same "
                                "checksum) – Harbor", final_text=results))
    assert ticket.verified, ticket.reasons
    # A link that names the value but not the thing ("#57" is a ticket, not a changeset).
    changeset = verify(proof("Open the changeset that references ticket #57.", "", moved,
                             final_url="http://h/changeset/1329514", title="Changeset 1329514",
                             final_text="[8] link '#57'\n[9] text: Scan folders, refs #57"))
    assert changeset.verified, changeset.reasons


def test_a_change_must_show_the_quoted_values_the_goal_asks_for_afterwards():
    goal = 'Add the comment "I can reproduce this on Debian 12." to ticket #33.'
    saved = Evidence(requests=[post("http://h/ticket/33", 303), doc("http://h/ticket/33", 200)])
    steps = [step(1, "fill('7', '…')"), step(2, "click('9')", evidence=saved)]
    wrong = verify(proof(goal, "", steps, final_url="http://h/ticket/33",
                         final_text="[40] paragraph 'I can reproduce this on Debian 12!'"))
    assert wrong.verdict == "unverified"
    assert "shows 'I can reproduce this on Debian 12.'" in wrong.reason_text()
    right = verify(proof(goal, "", steps, final_url="http://h/ticket/33",
                         final_text="[40] paragraph 'I can reproduce this on Debian 12.'"))
    assert right.verified, right.reasons
    # A later page that shows it counts too: reading back what was saved.
    later = [*steps, step(3, "goto('http://h/ticket/33')", page="[3] text: on Debian 12.",
                          evidence=Evidence(requests=[doc("http://h/ticket/33", 200)])),
             step(4, "scroll(0, 1)", page="[40] paragraph 'I can reproduce this on Debian 12.'")]
    assert verify(proof(goal, "", later, final_text="")).verified
    # "Set X to Y" and "that says: ..." name what must read so afterwards, quoted or not.
    ticket = [step(1, "click('9')", evidence=saved)]
    major = verify(proof("Set the priority of ticket #36 to critical.", "", ticket,
                         final_text="[7] text: Priority: major"))
    assert major.verdict == "unverified" and "shows 'critical'" in major.reason_text()
    assert verify(proof("Set the priority of ticket #36 to critical.", "", ticket,
                        final_text="[7] text: Priority: critical")).verified
    says = "Create a wiki page named FAQ that says: Thumbnails are rebuilt at night."
    assert not verify(proof(says, "", ticket, final_text="Thumbnails are rebuilt at noon.")
                      ).verified
    assert verify(proof(says, "", ticket, final_text="[5] paragraph 'Thumbnails are rebuilt "
                                                     "at night.'")).verified
    # A password is never shown back: nothing to read back.
    secret = verify(proof('Change my password to "hunter22"', "", steps, final_text=""))
    assert secret.verified, secret.reasons


def test_a_bracketed_value_on_the_page_is_no_element_id():
    page = "[40] term '[087f6ce4]: Clean up logging (fixes #17)'"
    steps = [step(1, "scroll(0, 1)", page=page)]
    assert verify(proof("Which commit fixed ticket #17?", "087f6ce", steps)).verified
    assert verify(proof("Which ticket did it fix?", "40", steps)).verdict == "refuted"


def test_an_episode_without_a_stop_is_unverified():
    told = proof("What is the price?", "", [])
    told.stopped, told.status = False, "step_limit"
    verdict = verify(told)
    assert verdict.verdict == "unverified"
    assert verdict.reasons == ["the episode ended without an answer (step_limit)"]


def test_a_quote_the_tree_splits_at_a_link_is_shown_but_words_of_two_elements_are_not():
    """Redmine renders "#66" in a comment as a link, so the posted sentence is three
    lines of the tree; it is shown all the same. Words of the same sentence spread over
    two elements (two paragraphs, or either side of a list) are no text the page shows."""
    goal = ('Add a comment to issue #66 that says "Same problem as Trac ticket #66: " '
            "followed by that ticket's title.")
    saved = Evidence(requests=[post("http://h/issues/66", 302), doc("http://h/issues/66", 200)])
    steps = [step(1, "fill('7', 'Same problem as Trac ticket #66: Tag renaming fails')"),
             step(2, "click('9')", evidence=saved)]
    split = ("[110] paragraph\n"
             "  text: Same problem as Trac ticket\n"
             "  [115] link '#66'\n"
             "  text: : Tag renaming fails\n")

    def shown(page: str):
        return verify(proof(goal, "", steps, final_url="http://h/issues/66", final_text=page))

    assert shown(split).verified, shown(split).reasons
    apart = ("[110] paragraph\n"
             "  text: Same problem as Trac ticket\n"
             "[111] paragraph\n"
             "  [115] link '#66'\n"
             "  text: : Tag renaming fails\n")
    assert not shown(apart).verified
    across_a_list = ("[110] paragraph\n"
                     "  text: Same problem as Trac ticket\n"
                     "  [112] list\n"
                     "    [113] listitem: one\n"
                     "  [115] link '#66'\n"
                     "  text: : Tag renaming fails\n")
    assert not shown(across_a_list).verified
    inside_a_child = ("[110] paragraph\n"
                      "  text: Same problem as Trac ticket\n"
                      "  [115] link '#66'\n"
                      "    [116] image 'ticket'\n"
                      "  text: : Tag renaming fails\n")
    assert not shown(inside_a_child).verified


def test_pieces_joined_at_a_link_make_no_number_the_page_does_not_show():
    page = "[4] paragraph\n  text: Version 1\n  [5] link '.5'\n  text: is out\n"
    steps = [step(1, "scroll(0, 1)", page=page)]
    assert verify(proof("Which version is out?", "1.5", steps)).verdict == "refuted"
