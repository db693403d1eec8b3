"""What a model or a page wrote reaches the terminal without escape sequences.

A thought holding ``ESC ] 0 ; title BEL`` retitled the window and ``ESC [ 2 J``
cleared the screen; every place that prints foreign text strips them.
"""

from __future__ import annotations

import io

from rich.console import Console

from colorbrowser.cli import main
from colorbrowser.evaluation.coordinator import StudyProgress
from colorbrowser.evaluation.records import EpisodeRecord
from colorbrowser.hitl.asking import HelpRequest
from colorbrowser.hitl.terminal import TerminalAsker
from colorbrowser.testing import ScriptedEndpoint, act

# Escape sequences, and the bidirectional overrides that show text in another order.
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\u202e\u2066\u200f"
BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def no_controls(text: str) -> bool:
    return ("\x1b" not in text and "\x07" not in text and "\x9b" not in text
            and not any(c in text for c in BIDI))


def test_a_hostile_thought_answer_and_error_print_without_escapes(tmp_path, monkeypatch, capsys,
                                                                  pages_url):
    monkeypatch.setenv("COLORBROWSER_API_KEY", "scripted-token-xyz")
    replies = iter([act(f"thinking {HOSTILE} hard", f"click('{HOSTILE}')"),
                    act(f"done {HOSTILE}", f"stop('answer {HOSTILE}')")])
    with ScriptedEndpoint(lambda messages: next(replies), token="scripted-token-xyz") as model:
        main(["run", "look", "--url", f"{pages_url}/agent/login.html", "--base-url",
              model.url, "--model", "m", "--knowledge", "off", "--memory", "none",
              "--verify", "off", "--out", str(tmp_path / "run")])  # returns: exit code 0
    err = capsys.readouterr().err
    assert "thinking" in err and "hard" in err and "answer" in err
    assert no_controls(err), repr(err)


def recording_console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=200, force_terminal=False), out


def test_eval_progress_lines_strip_escapes_from_tasks_and_errors():
    console, out = recording_console()
    with StudyProgress(console, 1) as progress:
        progress.finished(EpisodeRecord(task=f"t{HOSTILE}", config_hash="h", variant="v\x1bc",
                                        error_class="browser", error=f"page said {HOSTILE}"))
    assert "page said" in out.getvalue() and no_controls(out.getvalue())


def test_a_help_request_quoting_the_page_is_shown_without_escapes():
    console, out = recording_console()
    asker = TerminalAsker(console, io.StringIO("s\n"))
    asker.ask(HelpRequest(title=f"stuck {HOSTILE}", reason=f"the page says {HOSTILE}",
                          goal="g", url=f"http://x/{HOSTILE}", step=2, site="x",
                          summary=f"summary {HOSTILE}", last_actions=[f"click {HOSTILE}"]))
    assert "the page says" in out.getvalue() and no_controls(out.getvalue())
