"""The evidence log under the order in which events arrive: each request is told once
with the answer its note gives, and an answer that arrives while the notes are written
is told afterwards, never marked told unseen.

Scripted stand-ins for Playwright's requests and responses: reading a post's headers
is a call into the browser during which any event may arrive, and which one does is a
matter of timing a real browser cannot be made to repeat. The real-browser side of the
same rule (events delivered while the log reads the page) is in test_evidence.py."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from colorbrowser.browser.evidence import EvidenceLog


@dataclass(eq=False)
class Request:
    url: str
    method: str = "POST"
    resource_type: str = "fetch"
    post_data_buffer: bytes = b"title=x"
    service_worker: None = None
    on_header_read: Callable[[], None] | None = None  # what the browser delivers meanwhile

    def header_value(self, name: str) -> str | None:
        if self.on_header_read is not None:
            deliver, self.on_header_read = self.on_header_read, None
            deliver()
        return "application/x-www-form-urlencoded"


@dataclass
class Response:
    request: Request
    status: int


def test_an_answer_that_arrives_while_a_later_note_is_written_is_told_next():
    log = EvidenceLog()
    log.begin([])
    first, second = Request("http://127.0.0.1/save"), Request("http://127.0.0.1/audit")
    log.on_request(first)
    log.on_request(second)
    second.on_header_read = lambda: log.on_response(Response(first, 500))
    evidence = log.collect(None, [])
    assert [(r.url, r.status) for r in evidence.requests] == [
        ("http://127.0.0.1/save", None), ("http://127.0.0.1/audit", None)]
    late = log.late(None, [])  # a stop now: the refusal of the save is its news
    assert late is not None
    assert [(r.url, r.status) for r in late.requests] == [("http://127.0.0.1/save", 500)]


def test_a_request_that_starts_while_the_notes_are_written_is_told_once_with_its_answer():
    log = EvidenceLog()
    log.begin([])
    first, started = Request("http://127.0.0.1/save"), Request("http://127.0.0.1/save-more")
    log.on_request(first)
    first.on_header_read = lambda: (log.on_request(started),
                                    log.on_response(Response(started, 303)))
    evidence = log.collect(None, [])
    log.begin([])  # the next action
    then = log.collect(None, [])
    told = [(r.url, r.status) for r in [*evidence.requests, *then.requests,
                                        *(then.late.requests if then.late else [])]]
    assert told.count(("http://127.0.0.1/save-more", 303)) == 1
    assert ("http://127.0.0.1/save", None) in told and then.requests == []
