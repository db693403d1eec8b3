"""What makes two pages the same kind of state: the URL template plus a hash of the
page's structure (which landmarks and kinds of controls it has, and the labels of its
form controls), never its content. Go-Browse keys by the exact URL, so every product
is a new node; here all product pages are one.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from colorbrowser.explore.urls import url_template
from colorbrowser.types import Observation

LANDMARKS = frozenset({"navigation", "main", "banner", "contentinfo", "complementary", "search",
                       "form", "dialog", "alertdialog", "alert", "table", "grid", "tablist",
                       "menu", "menubar", "tree", "toolbar"})
LABELLED = frozenset({"textbox", "searchbox", "combobox", "checkbox", "radio", "spinbutton",
                      "slider", "switch", "listbox"})


@dataclass(frozen=True)
class StateKey:
    template: str
    structure: str

    def __str__(self) -> str:
        return f"{self.template}#{self.structure}"

    @classmethod
    def parse(cls, text: str) -> StateKey:
        template, _, structure = text.rpartition("#")
        return cls(template, structure)


def _label(name: str) -> str:
    return re.sub(r"\d+", "#", " ".join(name.lower().split()))[:30]


def structure_tokens(obs: Observation) -> set[str]:
    """The page's skeleton: a set, so a list of 10 rows and one of 12 are alike."""
    tokens: set[str] = set()
    for el in obs.elements.values():
        role = el.role
        if role in LANDMARKS:
            tokens.add(role)
        elif role in LABELLED:
            tokens.add(f"{role}:{_label(el.name)}")
        elif role == "button" and el.tag in ("button", "input"):
            tokens.add(f"button:{_label(el.name)}")
        elif el.interactive:
            tokens.add(role or el.tag)
        elif role == "heading":
            tokens.add(f"heading{el.states.get('level', '')}")
    return tokens


def structure_hash(obs: Observation) -> str:
    text = "\n".join(sorted(structure_tokens(obs)))
    return hashlib.blake2b(text.encode(), digest_size=5).hexdigest()


def state_key(obs: Observation) -> StateKey:
    return StateKey(url_template(obs.url), structure_hash(obs))


def url_only_key(obs: Observation) -> str:
    """Go-Browse's key, for the benchmark's comparison: the exact URL."""
    return obs.url.split("#", 1)[0]
