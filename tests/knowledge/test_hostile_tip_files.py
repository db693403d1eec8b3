"""A tip file from someone else: any value in any field is one ``error:`` line and no
saved tip lost; ``tips import`` says that tips are trusted instructions, and
``tips lint`` flags tips that read like orders to the agent."""

from __future__ import annotations

import random

import pytest
import yaml

from colorbrowser.knowledge import Tip
from colorbrowser.knowledge.exchange import dump_markdown, dump_yaml

from . import test_cli
from .test_cli import add_sample, assert_one_line_error

tips_cli = test_cli.tips_cli  # the fixture: `colorbrowser tips --db <tmp> ...`


def tip_yaml(**fields) -> str:
    base = {"id": "t1", "site": "shop.local", "text": "Pick a size before Add to Cart."}
    return yaml.safe_dump([base | fields], sort_keys=False)


def tip_md(*field_lines: str) -> str:
    return "\n".join(["# Tips", "", "## t1", "", "- site: shop.local", *field_lines, "",
                      "Pick a size before Add to Cart.", ""])


HOSTILE_FILES = {
    "a count past SQLite's integers": ("yaml", tip_yaml(stats={"retrieved": 2**70})),
    "a count of 5,000 digits": ("yaml", tip_yaml().replace(
        "text:", "stats: {retrieved: " + "9" * 5000 + "}\n  text:")),
    "a date before year 1 in UTC": ("yaml", tip_yaml().replace(
        "text:", "created: 0001-01-01T00:00:00+05:00\n  text:")),
    "a date after 9999 in UTC": ("yaml", tip_yaml().replace(
        "text:", "updated: 9999-12-31T23:00:00-05:00\n  text:")),
    "a day that does not exist": ("yaml", tip_yaml().replace(
        "text:", "created: 2024-02-30\n  text:")),
    "a Markdown superscript digit": ("md", tip_md("- stats: retrieved ²")),
    "Markdown counts of 5,000 digits": ("md", tip_md("- stats: retrieved " + "9" * 5000)),
    "a Markdown count past the limit": ("md", tip_md("- stats: retrieved 99999999999999")),
    "a Markdown date before year 1": ("md", tip_md("- created: 0001-01-01T00:00:00+05:00")),
    "a Markdown date after 9999": ("md", tip_md("- updated: 9999-12-31T23:30:00-01:00")),
    "deep YAML nesting": ("yaml", "- " + "[" * 5000 + "]" * 5000 + "\n"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE_FILES))
def test_a_tip_file_with_values_out_of_range_is_one_error_line(tips_cli, tmp_path, case):
    add_sample(tips_cli)
    before = tips_cli("export")[1]
    fmt, text = HOSTILE_FILES[case]
    path = tmp_path / f"tips.{fmt}"
    path.write_text(text, encoding="utf-8")
    code, _, err = tips_cli("import", str(path))
    assert_one_line_error(code, err, str(path))
    assert len(err) < 500
    assert tips_cli("export")[1] == before


def test_a_tip_from_year_one_is_saved_and_read_back(tips_cli, tmp_path):
    """glibc writes year 1 as "1": a store that saved it so could not read it back."""
    path = tmp_path / "tips.yaml"
    path.write_text(tip_yaml().replace("text:", "created: 0001-01-01T00:00:00Z\n  text:"))
    assert tips_cli("import", str(path))[0] == 0
    code, out, err = tips_cli("export")
    assert code == 0 and "created: '0001-01-01T00:00:00Z'" in out, err
    assert tips_cli("show", "t1")[0] == 0


_VALUES = [None, True, -1, 0, 2**64, 1.5e308, float("nan"), "", " ", "²", "x" * 3000,
           "\u202e", [], [None], {}, {"a": {"b": 1}}, "re:(", "http://other.host/", "*",
           "0001-01-01", "9999-12-31T23:59:59-12:00", ["a,b"], "a\nb"]
_FIELDS = ["id", "site", "url_patterns", "keywords", "tags", "text", "kind", "url_template",
           "source", "author", "created", "updated", "stats", "extra"]


def test_random_values_in_tip_files_never_give_a_traceback_or_lose_tips(tips_cli, tmp_path):
    add_sample(tips_cli)
    before = tips_cli("export")[1]
    rng = random.Random(25)
    base = {"id": "fuzz", "site": "shop.local", "url_patterns": ["http://shop.local/*"],
            "text": "Pick a size first.", "stats": {"retrieved": 1}}
    for attempt in range(120):
        fields = dict(base)
        for _ in range(rng.randint(1, 3)):
            name = rng.choice(_FIELDS)
            value = rng.choice(_VALUES)
            if name == "stats" and rng.random() < 0.5:
                value = {"retrieved": value}
            fields[name] = value
        fields["id"] = fields["id"] if attempt % 3 else f"fuzz-{attempt}"
        fmt = "yaml" if attempt % 2 else "md"
        try:
            tip = Tip.model_validate(fields)
            text = dump_markdown([tip]) if fmt == "md" else dump_yaml([tip])
        except Exception:  # not a valid tip: write the raw fields instead
            text = (yaml.safe_dump([fields], allow_unicode=True) if fmt == "yaml" else
                    "## " + str(fields["id"]) + "\n\n" + "".join(
                        f"- {k}: {v}\n" for k, v in fields.items() if k not in ("id", "text"))
                    + "\n" + str(fields.get("text")) + "\n")
        path = tmp_path / f"fuzz{attempt}.{fmt}"
        path.write_text(text, encoding="utf-8")
        code, _, err = tips_cli("import", str(path), "--skip-existing")
        assert code in (0, 2) and "Traceback" not in err, (fields, err)
        if code == 2:
            assert err.startswith("error: ") and err.count("\n") == 1, err
        else:  # what was saved reads back
            code, _, err = tips_cli("export")
            assert code == 0, err
    code, out, _ = tips_cli("export")
    assert code == 0 and all(line in out for line in before.splitlines())
