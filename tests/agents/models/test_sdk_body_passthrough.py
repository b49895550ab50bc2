"""The plain-body chat client (public APIs only) sends what the SDK's own create sends and reads the same."""

from __future__ import annotations

import asyncio

from autogen_core.models import SystemMessage, UserMessage
from autogen_ext.models.openai import OpenAIChatCompletionClient

from debate_eval.agents.models.pool import build_openai_client
from debate_eval.agents.models.providers.openai import GENERIC_MODEL_INFO
from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
from debate_eval.agents.models.sdk_body_passthrough import PlainBodyClient
from debate_eval.agents.models.settings import ModelOverrides, resolve_model_config, with_sampling


def test_the_plain_body_is_the_sdk_body_and_the_answer_the_same() -> None:
    messages = [SystemMessage(content="You are a Scorer."), UserMessage(content='Rate: ünïcode "q"', source="user")]
    with ScriptedOpenAIServer(top_logprobs={"3": -0.1, "4": -2.3}) as server:
        models = resolve_model_config(ModelOverrides(base_url=server.base_url, model="scripted"), environ={})
        settings = with_sampling(models.for_role("scorer"), top_logprobs=2, max_tokens=5)
        create_args = {"model": "scripted", **settings.sampling.create_args()}

        async def both() -> list:
            reference = OpenAIChatCompletionClient(  # AutoGen's own client: the SDK's create, its body walk
                base_url=server.base_url,
                api_key="k",
                max_retries=0,
                model_info=GENERIC_MODEL_INFO,
                include_name_in_message=False,
                **create_args,
            )
            plain = build_openai_client(settings, server.base_url)  # the run's client
            assert isinstance(plain._client, PlainBodyClient)
            results = [await reference.create(messages), await plain.create(messages)]
            await reference.close()
            await plain.close()
            return results

        reference_result, plain_result = asyncio.run(both())
        sent = list(server.requests)
    assert len(sent) == 2 and sent[0] == sent[1]
    assert sent[1]["max_tokens"] == 5 and sent[1]["top_logprobs"] == 2 and sent[1]["stream"] is False
    assert plain_result.content == reference_result.content
    assert plain_result.usage == reference_result.usage
    assert plain_result.logprobs == reference_result.logprobs
