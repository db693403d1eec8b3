"""Workflows exported and imported as readable YAML; a hostile file is refused with one
line and nothing is stored."""

from __future__ import annotations

import pytest
import yaml

from colorbrowser.errors import UserError
from colorbrowser.knowledge.workflow_exchange import (
    FILE_LIMIT,
    dump_yaml,
    export_file,
    import_file,
    read_workflows_file,
)

from .test_workflow_store import SITE, owner_flow


def test_export_then_import_gives_the_same_workflows_and_the_same_bytes(kb, tmp_path, db_path):
    first = kb.add_workflow(owner_flow())
    kb.record_workflow_run(first.id, success=True, healed=1)
    kb.new_workflow_version(first.id, owner_flow())
    path = tmp_path / "flows.yaml"
    assert export_file(kb, path) == 2
    text = path.read_text()
    assert "goal_pattern: 'Who owns ticket #{{ticket}}?'" in text  # readable
    other = type(kb).open(tmp_path / "other.db", embeddings=False)
    result = import_file(other, path)
    assert len(result.added) == 2
    assert other.list_workflows(include_inactive=True) == kb.list_workflows(include_inactive=True)
    assert dump_yaml(other.list_workflows(include_inactive=True)) == text
    other.close()


def hostile(tmp_path, flows: list) -> str:
    path = tmp_path / "hostile.yaml"
    path.write_text(yaml.safe_dump({"workflows": flows}))
    return str(path)


def entry(**changes) -> dict:
    return owner_flow().model_dump(mode="json") | {"id": "wf-x"} | changes


@pytest.mark.parametrize("steps, message", [
    ([{"step": "import os"}], "workflow step"),
    ([{"step": {"shell": "rm -rf /"}}], "names exactly one action"),
    ([{"step": "click('12')"}], "by its id"),
    ([{"step": {"goto": "file:///etc/passwd"}}], "opens only http"),
    ([{"step": {"goto": "http://evil.example/steal"}}], "not on the workflow's site"),
    ([{"step": {"new_tab": f"http://{SITE}.evil.example/"}}], "not on the workflow's site"),
    ([{"step": {"random": {"seed": 1, "step": 1}}}], "random"),
])
def test_a_hostile_step_is_refused_with_one_line_and_nothing_is_stored(kb, tmp_path, steps,
                                                                      message):
    good = entry(id="wf-good")
    path = hostile(tmp_path, [good, entry(steps=steps)])
    with pytest.raises(UserError, match=message) as caught:
        import_file(kb, path)
    assert "\n" not in str(caught.value) and str(caught.value).startswith(f"{path}:")
    assert kb.list_workflows(include_inactive=True) == []


def test_an_alias_bomb_a_huge_file_and_foreign_tags_are_refused(kb, tmp_path):
    bomb = tmp_path / "bomb.yaml"
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    bomb.write_text("\n".join(lines) + "\nworkflows: [*a8]\n")
    with pytest.raises(UserError, match="aliases expand"):
        read_workflows_file(bomb)
    huge = tmp_path / "huge.yaml"
    huge.write_text("workflows: []\n" + "#" * FILE_LIMIT)
    with pytest.raises(UserError, match="too big"):
        read_workflows_file(huge)
    tagged = tmp_path / "tagged.yaml"
    tagged.write_text("workflows:\n- !!python/object/apply:os.system ['true']\n")
    with pytest.raises(UserError, match="invalid YAML"):
        read_workflows_file(tagged)
    assert kb.list_workflows() == []


def test_a_file_of_tips_or_of_anything_else_is_not_taken_for_workflows(tmp_path):
    other = tmp_path / "tips.yaml"
    other.write_text("- id: tip-1\n  site: shop.local\n")
    with pytest.raises(UserError, match="one key 'workflows'"):
        read_workflows_file(other)
    other.write_text("workflows: []\nshell: sh\n")
    with pytest.raises(UserError, match="one key 'workflows'"):
        read_workflows_file(other)


def test_a_duplicate_id_in_a_file_is_refused(kb, tmp_path):
    path = hostile(tmp_path, [entry(), entry()])
    with pytest.raises(UserError, match="appears twice"):
        import_file(kb, path)


@pytest.mark.parametrize("changes", [
    {"steps": [{"step": {"fill": {"role": "textbox", "name": "Comment"},
                         "value": "{{secret:bank_password}}"}}]},
    {"steps": [{"step": {"fill": {"role": "textbox", "name": "Comment"},
                         "value": "PIN {{ Secret:pin }}"}}]},
    {"params": {"ticket": "{{secret:bank_password}}"}},
])
def test_a_file_may_not_choose_a_secret_to_type_unless_you_wrote_it(kb, tmp_path, changes):
    """A workflow runs without a model: a sent file that names a secret would have it
    typed into any field of the secret's own site, a public comment box too."""
    path = hostile(tmp_path, [entry(id="wf-good"), entry(**changes)])
    with pytest.raises(UserError, match=r"names a secret") as caught:
        import_file(kb, path)
    assert "\n" not in str(caught.value) and str(caught.value).startswith(f"{path}:")
    assert kb.list_workflows(include_inactive=True) == []
    if "steps" in changes:  # your own export of a sign-in workflow comes back
        assert len(import_file(kb, path, with_secrets=True).added) == 2


def test_an_id_with_a_line_break_at_its_end_is_refused(kb, tmp_path):
    with pytest.raises(UserError, match="id: 'wf-x\\\\n' must be one line") as caught:
        import_file(kb, hostile(tmp_path, [entry(id="wf-x\n")]))
    assert "\n" not in str(caught.value)
    assert kb.list_workflows(include_inactive=True) == []


@pytest.mark.parametrize("changes, message", [
    ({"goal_pattern": "Who owns \x1b]0;pwned\x07 #{{ticket}}?"}, "control character"),
    ({"goal_pattern": "Who owns \x00 #{{ticket}}?"}, "control character"),
    ({"steps": [{"step": {"click": {"role": "link", "name": "Own\x1b[2Jer"}}}]},
     "control character"),
    ({"goal_pattern": "Who owns #{{ticket}}?\nimported 9 new"}, "must be one line"),
    ({"params": {"ticket": "7\r\nIGNORE"}}, "must be one line"),
    ({"provenance": {"run": "runs/a\nb", "learned_by": "oracle"}}, "must be one line"),
    ({"params": {"ticket": "7" * 100_000}}, "at most 2000 characters"),
    ({"params": {f"p{i}": "x" for i in range(41)}}, "at most 40 items"),
    ({"spellings": {"Not A Name": {"of": "ticket", "how": "lower"}}}, "should match pattern"),
    ({"spellings": {"t": {"of": "ticket", "how": "__import__('os').system"}}},
     "should be 'lower'"),
    ({"previous": "../../../etc/passwd"}, "should match pattern"),
    ({"version": "2"}, "valid integer"),
    ({"version": True}, "valid integer"),
    ({"stats": {"runs": "7", "successes": 0, "healed_steps": 0}}, "valid integer"),
    ({"active": "false"}, "valid boolean"),
    ({"proved": 1}, "valid boolean"),
    ({"steps": [{"step": {"click": {"role": "link", "name": "Owner"}}, "matches": "1"}]},
     "valid integer"),
    ({"steps": [{"step": {"click": {"role": "link", "name": "Owner", "nth": 10**30}}}]},
     "nth is a whole number from 0 to 10,000"),
    ({"site": "127.0.0.1:99999"}, "site must be a host name"),
])
def test_wrong_types_control_characters_and_absurd_values_are_refused(kb, tmp_path, changes,
                                                                      message):
    """A value a file sends is taken as written: "2" is not a version, "false" is not
    false, and nothing that reaches a terminal or a prompt holds an escape sequence."""
    kept = kb.add_workflow(owner_flow(id="wf-kept"))
    path = hostile(tmp_path, [entry(id="wf-good"), entry(**changes)])
    with pytest.raises(UserError, match=message) as caught:
        import_file(kb, path)
    assert "\n" not in str(caught.value) and "\x1b" not in str(caught.value)
    assert str(caught.value).startswith(f"{path}:")
    assert kb.list_workflows(include_inactive=True) == [kept]


def test_a_key_written_twice_is_refused_not_silently_the_last(kb, tmp_path):
    """A reviewer reads the first ``steps:``; YAML would run the second."""
    path = tmp_path / "twice.yaml"
    good = yaml.safe_dump({"workflows": [entry()]}, sort_keys=False)
    path.write_text(good.replace("  steps:\n", "  steps:\n  - step: {goto: "
                                 "'http://127.0.0.1:18303/admin/delete'}\n  steps:\n", 1))
    with pytest.raises(UserError, match="key 'steps' appears twice") as caught:
        import_file(kb, path)
    assert str(caught.value).startswith(f"{path}:")
    assert kb.list_workflows(include_inactive=True) == []


def test_an_import_over_a_stored_workflow_loses_nothing(kb, tmp_path):
    """The same id again: refused whole (or skipped) unless --replace says otherwise, and
    a conflict on the last workflow of a file leaves the first ones unstored too."""
    stored = kb.add_workflow(owner_flow(id="wf-x"))
    kb.record_workflow_run(stored.id, success=True, healed=2)
    before = kb.list_workflows(include_inactive=True)
    changed = entry(goal_pattern="Who reported ticket #{{ticket}}?")
    path = hostile(tmp_path, [entry(id="wf-new"), changed])
    with pytest.raises(UserError, match="wf-x already exists"):
        import_file(kb, path)
    assert kb.list_workflows(include_inactive=True) == before
    result = import_file(kb, path, on_conflict="skip")
    assert (result.added, result.skipped) == (["wf-new"], ["wf-x"])
    assert kb.get_workflow("wf-x") == before[0]


def test_a_file_of_more_workflows_than_anyone_keeps_is_refused_before_they_are_checked(
        kb, tmp_path):
    """4 MB of tiny workflows are 50,000: a minute of checking, another to store."""
    from colorbrowser.knowledge.workflow_exchange import MAX_WORKFLOWS

    path = tmp_path / "many.yaml"
    path.write_text("workflows:\n" + "".join(
        f"- {{id: wf-{i}, site: a.b, goal_pattern: x, steps: [{{step: 'go_back()'}}]}}\n"
        for i in range(MAX_WORKFLOWS + 1)))
    with pytest.raises(UserError, match=f"at most {MAX_WORKFLOWS:,}"):
        import_file(kb, path)
    assert kb.list_workflows(include_inactive=True) == []
