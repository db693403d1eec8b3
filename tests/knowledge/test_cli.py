"""``colorbrowser tips ...`` end to end, through the real entry point."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from colorbrowser.knowledge import KnowledgeBase
from colorbrowser.testing import run_cli

SRC = Path(__file__).resolve().parents[2] / "src"
BENCH_DATA = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "retrieval_cases.yaml"


@pytest.fixture
def tips_cli(tmp_path, capsys, monkeypatch):
    """Run ``colorbrowser tips --db <tmp> ARGS``; returns (exit code, stdout, stderr)."""
    db = tmp_path / "kb.db"
    monkeypatch.delenv("COLORBROWSER_KB", raising=False)

    def run(*args: str, db_flag: bool = True) -> tuple[int, str, str]:
        code = run_cli("tips", *(["--db", str(db)] if db_flag else []), *args)
        out, err = capsys.readouterr()
        return code, out, err

    run.db = db
    return run


def add_sample(run) -> None:
    code, out, _ = run("add", "--site", "shop.local", "--id", "shop-size",
                       "--pattern", "http://shop.local/product/*", "--keyword", "cart, size",
                       "--text", "On product pages pick a size before Add to Cart.")
    assert (code, out) == (0, "shop-size\n")
    code, _, _ = run("add", "--site", "shop.local", "--id", "shop-search", "--kind", "shortcut",
                     "--template", "http://shop.local/search?q={query}", "--pattern", "/*",
                     "--text", "Search products by opening the search URL directly.")
    assert code == 0


def assert_one_line_error(code: int, err: str, fragment: str) -> None:
    assert code != 0
    assert err.startswith("error: ")
    assert err.count("\n") == 1, err
    assert fragment in err
    assert "Traceback" not in err


def test_add_list_show_and_rm(tips_cli):
    add_sample(tips_cli)
    code, out, _ = tips_cli("list", "--json")
    assert code == 0
    assert [t["id"] for t in json.loads(out)] == ["shop-search", "shop-size"]
    code, out, _ = tips_cli("list")
    assert code == 0 and "shop-size" in out and "2 tips" in out
    code, out, _ = tips_cli("show", "shop-size")
    assert code == 0
    assert out.startswith("- id: shop-size\n  site: shop.local\n  kind: tip\n")
    code, out, _ = tips_cli("show", "shop-size", "--format", "md")
    assert "## shop-size" in out
    code, out, _ = tips_cli("rm", "shop-size")
    assert (code, out) == (0, "removed 1 tip\n")
    code, out, _ = tips_cli("list", "--json")
    assert [t["id"] for t in json.loads(out)] == ["shop-search"]


def test_search_json_prints_id_score_and_why(tips_cli):
    add_sample(tips_cli)
    code, out, _ = tips_cli("search", "--url", "http://shop.local/product/42",
                            "--goal", "add these boots to my cart", "--k", "3", "--json")
    assert code == 0
    results = json.loads(out)
    assert [r["id"] for r in results] == ["shop-size", "shop-search"]
    for r in results:
        assert {"id", "score", "why"} <= set(r)
        assert isinstance(r["score"], float) and isinstance(r["why"], str)
    assert "url pattern http://shop.local/product/*" in results[0]["why"]
    assert "keywords: add, cart" in results[0]["why"]
    assert "embedding 0." in results[0]["why"]
    assert results[0]["score"] > results[1]["score"]
    code, out, _ = tips_cli("search", "--url", "http://shop.local/product/42", "--goal", "x",
                            "--k", "1", "--json", "--no-embeddings")
    assert [r["id"] for r in json.loads(out)] == ["shop-size"]


def test_edit_with_flags_and_with_an_editor(tips_cli, tmp_path, monkeypatch):
    add_sample(tips_cli)
    code, out, _ = tips_cli("edit", "shop-size", "--text", "Choose a size, then Add to Cart.",
                            "--pattern", "/product/*")
    assert (code, out) == (0, "shop-size updated\n")
    editor = tmp_path / "editor.py"
    editor.write_text(textwrap.dedent("""
        import sys, yaml
        path = sys.argv[1]
        data = yaml.safe_load(open(path))
        data["text"] = "Edited in the editor: " + data["text"]
        data["keywords"] = ["size"]
        open(path, "w").write(yaml.safe_dump(data))
    """))
    monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
    code, out, _ = tips_cli("edit", "shop-size")
    assert (code, out) == (0, "shop-size updated\n")
    with KnowledgeBase.open(tips_cli.db, embeddings=False) as kb:
        tip = kb.get("shop-size")
    assert tip.text == "Edited in the editor: Choose a size, then Add to Cart."
    assert tip.url_patterns == ["/product/*"] and tip.keywords == ["size"]


def test_editor_leaving_broken_yaml_saves_nothing(tips_cli, tmp_path, monkeypatch):
    add_sample(tips_cli)
    editor = tmp_path / "editor.py"
    editor.write_text("import sys\nopen(sys.argv[1], 'w').write('site: [oops\\ntext: x\\n')\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
    code, _, err = tips_cli("edit", "shop-size")
    assert_one_line_error(code, err, "invalid YAML")
    with KnowledgeBase.open(tips_cli.db, embeddings=False) as kb:
        assert kb.get("shop-size").text == "On product pages pick a size before Add to Cart."


def test_export_then_import_into_another_store_round_trips(tips_cli, tmp_path):
    add_sample(tips_cli)
    for fmt in ("yaml", "md"):
        path = tmp_path / f"tips.{fmt}"
        code, _, err = tips_cli("export", str(path))
        assert code == 0 and "exported" in err
        other = tmp_path / f"other-{fmt}.db"
        code, out, _ = tips_cli("--db", str(other), "import", str(path), db_flag=False)
        assert (code, out) == (0, f"imported 2 new, 0 replaced, 0 skipped from {path}\n")
        code, again, _ = tips_cli("--db", str(other), "export", "--format", fmt, db_flag=False)
        assert again == path.read_text()
    code, out, _ = tips_cli("import", str(tmp_path / "tips.yaml"), "--skip-existing")
    assert out.startswith("imported 0 new, 0 replaced, 2 skipped")


def test_import_of_the_benchmark_file_and_lint_of_it(tips_cli):
    code, out, _ = tips_cli("import", str(BENCH_DATA))
    assert code == 0 and out.startswith("imported 49 new")
    code, out, err = tips_cli("lint", "--strict")
    assert (code, out) == (0, "")
    assert err.startswith("49 tips, 0 errors, 0 warnings")


def test_lint_prints_one_line_per_finding_and_fails_when_strict(tips_cli, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(textwrap.dedent("""
        - id: specific
          site: shop.local
          text: Click the blue button to buy the red socks.
        - id: grader
          site: shop.local
          text: The grader only checks the last page, so stop there.
        - id: pattern
          site: shop.local
          url_patterns: ['re:(broken']
          text: A tip with a broken regex.
    """))
    code, out, _ = tips_cli("lint", str(bad))
    lines = out.splitlines()
    assert code == 1  # a broken pattern is an error even without --strict
    assert lines[0].startswith("specific: warning: query-specific:")
    assert lines[1].startswith("grader: warning: grader:")
    assert lines[2].startswith("pattern: error: pattern: invalid regex")
    bad.write_text("- id: a\n  site: shop.local\n  text: The benchmark wants lower case.\n")
    assert tips_cli("lint", str(bad))[0] == 0
    assert tips_cli("lint", str(bad), "--strict")[0] == 1


@pytest.mark.parametrize(("args", "fragment"), [
    (("show", "missing"), "no tip with id 'missing'"),
    (("rm", "shop-size", "missing"), "no tip with id 'missing'"),
    (("edit", "missing", "--text", "x"), "no tip with id 'missing'"),
    (("add", "--site", "shop.local", "--text", "x", "--pattern", "re:(oops"), "invalid regex"),
    (("add", "--site", "shop.local", "--text", "   "), "tip text is empty"),
    (("add", "--site", "shop.local", "--text", "x", "--kind", "recipe"), "'recipe'"),
    (("add", "--site", "shop.local", "--id", "shop-size", "--text", "again"), "already exists"),
    (("edit", "shop-size", "--text", ""), "tip text is empty"),
    (("import", "/nonexistent/tips.yaml"), "no such file"),
    (("search", "--goal", "x", "--stage", "magic"), "magic"),
])
def test_user_mistakes_are_one_line_errors_and_lose_nothing(tips_cli, args, fragment):
    add_sample(tips_cli)
    before = tips_cli("export")[1]
    code, _, err = tips_cli(*args)
    assert_one_line_error(code, err, fragment)
    assert tips_cli("export")[1] == before


def test_broken_yaml_import_names_the_line_and_imports_nothing(tips_cli, tmp_path):
    add_sample(tips_cli)
    before = tips_cli("export")[1]
    path = tmp_path / "tips.yaml"
    path.write_text("- id: ok\n  site: shop.local\n  text: Fine.\n- id: b\n  site: [x\n")
    code, _, err = tips_cli("import", str(path))
    assert_one_line_error(code, err, f"{path}:6: invalid YAML")
    path.write_text("- id: ok\n  site: shop.local\n  text: Fine.\n"
                    "- id: bad\n  site: shop.local\n  kind: recipe\n  text: x\n")
    code, _, err = tips_cli("import", str(path))
    assert_one_line_error(code, err, f"{path}:6: tip bad: kind: unknown kind 'recipe'")
    assert tips_cli("export")[1] == before


def test_frozen_flag_refuses_writes(tips_cli):
    add_sample(tips_cli)
    code, _, err = tips_cli("--db", str(tips_cli.db), "--frozen", "rm", "shop-size",
                            db_flag=False)
    assert_one_line_error(code, err, "frozen")
    code, out, _ = tips_cli("--db", str(tips_cli.db), "--frozen", "list", "--json",
                            db_flag=False)
    assert code == 0 and len(json.loads(out)) == 2


def test_store_location_from_env_or_the_user_data_dir(tips_cli, tmp_path, monkeypatch):
    env_db = tmp_path / "env" / "nested" / "kb.db"
    monkeypatch.setenv("COLORBROWSER_KB", str(env_db))
    assert tips_cli("add", "--site", "a.local", "--text", "t", db_flag=False)[0] == 0
    assert env_db.is_file()
    monkeypatch.delenv("COLORBROWSER_KB")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert tips_cli("add", "--site", "b.local", "--text", "t", db_flag=False)[0] == 0
    assert (tmp_path / "data" / "colorbrowser" / "knowledge.db").is_file()


def test_real_process_exit_codes_and_stderr(tmp_path):
    env = os.environ | {"PYTHONPATH": str(SRC), "COLORBROWSER_KB": str(tmp_path / "kb.db")}
    cmd = [sys.executable, "-c", "from colorbrowser.cli import main; main()", "tips"]
    ok = subprocess.run([*cmd, "add", "--site", "shop.local", "--text", "A tip."],
                        env=env, capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0 and ok.stdout.startswith("shop-local-")
    bad = subprocess.run([*cmd, "show", "nope"], env=env, capture_output=True, text=True,
                         timeout=60)
    assert bad.returncode == 2
    assert bad.stderr == "error: no tip with id 'nope'\n"


def test_a_store_damaged_inside_is_a_one_line_error(tips_cli):
    """A bad page SQLite only meets while reading or writing (the header still reads, so
    the store opens) is reported like any other mistake: one line naming the file."""
    add_sample(tips_cli)
    with KnowledgeBase.open(tips_cli.db, embeddings=False) as kb:
        kb._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(tips_cli.db.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    data[page:] = b"\xde\xad" * ((len(data) - page) // 2)  # every page but the first
    tips_cli.db.write_bytes(bytes(data))
    for args in (("list", "--json"), ("search", "--goal", "size", "--no-embeddings",
                                      "--url", "http://shop.local/product/1"),
                 ("add", "--site", "shop.local", "--text", "A new tip."),
                 ("rm", "shop-size"), ("export",)):
        code, _, err = tips_cli(*args)
        assert_one_line_error(code, err, f"knowledge base {tips_cli.db} is damaged")


def test_db_and_frozen_also_work_after_the_command_name(tips_cli):
    add_sample(tips_cli)
    db = str(tips_cli.db)
    code, out, _ = tips_cli("search", "--url", "http://shop.local/product/42", "--goal", "size",
                            "--k", "3", "--json", "--no-embeddings", "--db", db, db_flag=False)
    assert code == 0 and json.loads(out)[0]["id"] == "shop-size"
    code, _, err = tips_cli("rm", "shop-size", "--db", db, "--frozen", db_flag=False)
    assert_one_line_error(code, err, "frozen")
    code, out, _ = tips_cli("list", "--json", "--db", db, db_flag=False)
    assert code == 0 and len(json.loads(out)) == 2


def test_a_secret_pasted_into_a_tip_is_stored_masked_by_add_edit_and_import(
        tips_cli, tmp_path, monkeypatch):
    password, key = "hunter2-long", "sk-test-0123456789"
    config = tmp_path / "config.toml"
    config.write_text('[secrets.shop_password]\nenv = "SHOP_PASSWORD"\nhosts = ["shop.local"]\n'
                      '[secrets.unset_here]\nenv = "NOT_SET_ANYWHERE"\nhosts = ["shop.local"]\n')
    monkeypatch.setenv("COLORBROWSER_CONFIG", str(config))
    monkeypatch.setenv("SHOP_PASSWORD", password)
    monkeypatch.setenv("COLORBROWSER_API_KEY", key)
    code, _, err = tips_cli("add", "--site", "shop.local", "--id", "shop-login",
                            "--keyword", f"login, {password}",
                            "--text", f"Sign in as ann with {password.upper()} (key {key}).")
    assert code == 0 and "tip shop-login held a secret; it is stored masked" in err
    code, _, _ = tips_cli("edit", "shop-login", "--text", f"The password is {password}.")
    assert code == 0
    tips_file = tmp_path / "tips.yaml"
    tips_file.write_text(textwrap.dedent(f"""\
        - id: shop-admin
          site: shop.local
          text: The admin password is {password}; the API key is {key}.
        """))
    code, _, err = tips_cli("import", str(tips_file))
    assert code == 0 and "tip shop-admin held a secret" in err
    with KnowledgeBase.open(tips_cli.db, embeddings=False) as kb:
        assert kb.get("shop-login").text == "The password is {{secret:shop_password}}."
        assert kb.get("shop-login").keywords == ["login", "{{secret:shop_password}}"]
        assert kb.get("shop-admin").text == ("The admin password is {{secret:shop_password}}; "
                                             "the API key is ***.")
    for f in tmp_path.glob("kb.db*"):
        data = f.read_bytes().lower()
        assert password.encode() not in data and key.encode() not in data
