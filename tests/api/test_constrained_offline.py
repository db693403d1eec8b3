"""The real offline model (SmolLM2 behind llama.cpp's server) under the grammar and
the JSON schema of a table with tools and an answer schema: whatever it writes parses,
and a stop's answer validates into the pydantic model. A 135M model cannot solve
anything; this proves the constraint, not the model."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from colorbrowser.actions import BUILTIN
from colorbrowser.agent.operator import split_reply
from colorbrowser.agent.output import OutputSpec
from colorbrowser.agent.tools import with_tools
from colorbrowser.config import ModelSettings
from colorbrowser.llm.client import OpenAIChatModel
from colorbrowser.llm.grammar import action_constraint
from colorbrowser.llm.offline import MODEL_ALIAS, OfflineServer
from colorbrowser.types import Message

pytestmark = [pytest.mark.model, pytest.mark.timeout(900)]  # a loaded machine is slow


class Seller(BaseModel):
    city: str
    stars: int


class Offer(BaseModel):
    product: str
    price: float
    seller: Seller
    tags: list[str]


def note_price(amount: float, exact: bool = True) -> str:
    """Keep a price for later."""
    return "kept"


PROMPT = [Message("system", "Reply with <think>a thought</think> and one <action>call"
                            "</action>. Give the answer with stop()."),
          Message("user", "The wool socks cost $14.50, sold in Oslo (4 stars).\n"
                          "[3] link 'Socks'")]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with OfflineServer(tmp_path_factory.mktemp("llm-cache")) as srv:
        yield srv


def client(server, constrain: str) -> OpenAIChatModel:
    return OpenAIChatModel(ModelSettings(
        base_url=server.base_url, api_key=server.token, model=MODEL_ALIAS, vision="off",
        max_tokens=300, constrain=constrain), offline=True)


def table_and_spec():
    spec = OutputSpec.of(Offer)
    table, _ = with_tools(BUILTIN, [note_price])
    return table.with_output(spec.schema), spec


@pytest.mark.parametrize("constrain", ["grammar", "json_schema"])
def test_a_constrained_stop_validates_into_the_model(server, constrain):
    table, spec = table_and_spec()
    constraint = action_constraint(["3"], actions=["stop"], table=table, max_thought_chars=60)
    reply = client(server, constrain).complete(PROMPT, constraint=constraint)
    _, action = split_reply(reply.text, table, spec)
    offer = spec.typed(action.args[0])
    assert isinstance(offer, Offer) and isinstance(offer.seller, Seller), reply.text
    assert type(offer.seller.stars) is int


def test_a_constrained_tool_call_parses_with_typed_arguments(server):
    table, spec = table_and_spec()
    constraint = action_constraint(["3"], actions=["note_price"], table=table,
                                   max_thought_chars=60)
    reply = client(server, "grammar").complete(PROMPT, constraint=constraint)
    _, action = split_reply(reply.text, table, spec)
    assert action.name == "note_price" and isinstance(action.args[0], int | float)
