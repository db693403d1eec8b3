"""The arena shop's review form names its star choices. Oscar's own template draws five
bare star icons, which no plan or agent can pick by name; ours draws five radio buttons
named "1 star" to "5 stars". Rendered here by Django's template engine (Oscar's parent
templates stood in by one-line stand-ins) and read by Chromium's accessibility tree."""

from __future__ import annotations

from pathlib import Path

import django
import pytest
from django.conf import settings

import colorbrowser.arena.apps.shop as shop_app

TEMPLATES = Path(shop_app.__file__).parent / "templates"
NAMES = ["1 star", "2 stars", "3 stars", "4 stars", "5 stars"]


@pytest.fixture(scope="module")
def render(tmp_path_factory):
    """Render the override with a form like Oscar's review form (score 0..5)."""
    parents = tmp_path_factory.mktemp("oscar-parents")
    (parents / "oscar" / "catalogue").mkdir(parents=True)
    (parents / "oscar" / "partials").mkdir()
    (parents / "oscar" / "catalogue" / "detail.html").write_text(
        "<html><body>{% block product_review %}{% endblock %}</body></html>")
    (parents / "oscar" / "partials" / "form_field.html").write_text(
        '<label>{{ field.label }} {{ field }}</label>')
    if not settings.configured:
        settings.configure(USE_I18N=True, TEMPLATES=[{
            "BACKEND": "django.template.backends.django.DjangoTemplates",
            "DIRS": [str(TEMPLATES), str(parents)]}])
        django.setup()
    from django import forms
    from django.template.loader import render_to_string

    class ReviewForm(forms.Form):
        title = forms.CharField(label="Title")
        score = forms.TypedChoiceField(label="Score", coerce=int,
                                       choices=[(x, x) for x in range(0, 6)])
        body = forms.CharField(label="Body", widget=forms.Textarea)

    class Product:
        def get_absolute_url(self) -> str:
            return "/catalogue/lamp_1/"

    def rendered(data: dict | None = None) -> str:
        return render_to_string("oscar/catalogue/reviews/review_form.html",
                                {"form": ReviewForm(data), "product": Product()})

    return rendered


def test_the_override_sits_where_the_shop_settings_look():
    assert (TEMPLATES / "oscar/catalogue/reviews/review_form.html").is_file()
    text = (Path(shop_app.__file__).parent / "shop_settings.py").read_text()
    assert '"DIRS": [str(Path(__file__).resolve().parent / "templates")]' in text


def test_each_star_choice_has_an_accessible_name(render, page):
    page.set_content(render())
    radios = page.get_by_role("radio")
    assert radios.count() == 5
    for value, name in enumerate(NAMES, start=1):
        radio = page.get_by_role("radio", name=name, exact=True)
        assert radio.get_attribute("value") == str(value)
        assert radio.get_attribute("name") == "score"
    group = page.get_by_role("radiogroup", name="Score")
    assert group.count() == 1


def test_a_choice_picked_by_name_is_what_the_form_sends(render, page):
    page.set_content(render())
    page.get_by_role("radio", name="4 stars", exact=True).check()
    sent = page.evaluate("new FormData(document.getElementById('add_review_form'))"
                         ".get('score')")
    assert sent == "4"


def test_a_form_sent_back_with_errors_keeps_the_chosen_score(render, page):
    page.set_content(render({"score": "2", "title": "", "body": ""}))
    assert page.get_by_role("radio", name="2 stars", exact=True).is_checked()
    assert not page.get_by_role("radio", name="1 star", exact=True).is_checked()
