"""Native fields say what they hold and how to fill them: formats of date and time
inputs, colour and file values, slider ranges, and a labelled control's own text."""

from __future__ import annotations

from .browser_helpers import find, line_of


def test_fields_show_values_formats_and_ranges(env, page_url):
    obs = env.reset(page_url("fields.html"))
    expect = {
        ("Start", "textbox"): "textbox 'Start' value='2024-03-15' format=yyyy-mm-dd",
        ("Alarm", "textbox"): "textbox 'Alarm' format=hh:mm",
        ("Colour", "button"): "button 'Colour' value='#3366cc'",
        ("Upload", "button"): "button 'Upload' value='No file chosen'",
        ("Volume", "slider"): "slider 'Volume' value='10' range=0..50",
        ("Count", "spinbutton"): "spinbutton 'Count' value='3' range=1..9",
        ("Open count", "spinbutton"): "spinbutton 'Open count' value='4'",
        ("Zoom", "slider"): "slider 'Zoom' value='2' range=1..5",
        ("Dark mode", "switch"): "switch 'Dark mode' unchecked: Off",
        ("Close", "button"): "button 'Close'",
    }
    for (name, role), text in expect.items():
        el = find(obs, name, role)
        assert line_of(obs, el.bid) == f"[{el.bid}] {text}"
    assert obs.axtree.count("Dark mode") == 2  # the label's own text, and the name


def test_a_date_filled_in_the_shown_format_is_accepted(env, page_url):
    obs = env.reset(page_url("fields.html"))
    start = find(obs, "Start")
    assert env.step(f"fill('{start.bid}', '2025-01-31')").ok
    after = env.observe()
    assert find(after, "Start").states["value"] == "2025-01-31"
    assert after.changes == f"changed: [{start.bid}] textbox 'Start' value='2025-01-31'"


def test_chosen_files_are_named(env, page_url, tmp_path):
    obs = env.reset(page_url("fields.html"))
    report = tmp_path / "report.pdf"
    report.write_bytes(b"%PDF-1.4")
    env.page.set_input_files("#upload", str(report))
    upload = find(env.observe(), "Upload")
    assert upload.bid == find(obs, "Upload").bid
    assert upload.states["value"] == "report.pdf"


def test_captions_name_their_container_once_and_long_ones_stay_whole(env, page_url):
    obs = env.reset(page_url("captions.html"))
    chart = find(obs, "Sales by month", "figure")
    assert line_of(obs, chart.bid) == f"[{chart.bid}] figure 'Sales by month'"
    assert obs.axtree.count("Sales by month") == 1
    assert obs.axtree.count("Prices") == 1  # the table caption, as its name
    long_caption = ("A long caption that goes on: the map shows every warehouse we run, the "
                    "roads between them, the ports they ship from, the cities they serve, and "
                    "which of them close on Sundays during the winter season.")
    assert long_caption in obs.axtree  # cut in the figure's name, whole as text
