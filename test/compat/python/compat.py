"""The OpenAI Python SDK against the gateway, as its users write it.

Run by the compatibility suite (test/compat/compat.test.ts) with the venv
that test/compat/setup-python.sh makes. Reads GATEWAY_URL (the base URL a
client is given), API_KEY and BAD_KEY from the environment, runs every
check with the sync and the async client, and prints one JSON object:
{client: {feature: {"ok": bool, "error": str, "detail": {...}}}}.
A check never stops the others; the suite reports each one.

Each check is written once, as a coroutine, and runs against both clients:
`settle`, `each` and `opened` take a sync client's value, iterator or
context manager and an async client's awaitable, async iterator or async
context manager alike, so the two clients are held to the same checks.
"""

import asyncio
import contextlib
import inspect
import json
import os
import traceback

import openai
import pydantic

BASE_URL = os.environ["GATEWAY_URL"]
API_KEY = os.environ["API_KEY"]
BAD_KEY = os.environ["BAD_KEY"]

QUESTION = [{"role": "user", "content": "Tell me about rivers."}]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "The weather in a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
                "additionalProperties": False,
            },
        },
    }
]
WEATHER = [{"role": "user", "content": "What is the weather in Paris? Use get_weather."}]


class City(pydantic.BaseModel):
    name: str
    population: int
    landmarks: list[str]
    mayor: str | None


def expect(condition, message):
    if not condition:
        raise AssertionError(message)


async def settle(value):
    return await value if inspect.isawaitable(value) else value


async def each(stream):
    if hasattr(stream, "__aiter__"):
        async for item in stream:
            yield item
    else:
        for item in stream:
            yield item


@contextlib.asynccontextmanager
async def opened(manager):
    if hasattr(manager, "__aenter__"):
        async with manager as value:
            yield value
    else:
        with manager as value:
            yield value


async def raw_completion(client, **request):
    raw = await settle(client.chat.completions.with_raw_response.create(model="auto", messages=QUESTION, **request))
    return raw, await settle(raw.parse())


async def plain(client):
    _, completion = await raw_completion(client)
    expect(completion.choices[0].message.content, "no content")
    return {"text": completion.choices[0].message.content}


async def stream(client):
    text = ""
    # The loop everybody writes: it needs choices[0] on every chunk.
    async for chunk in each(await settle(client.chat.completions.create(model="auto", messages=QUESTION, stream=True))):
        text += chunk.choices[0].delta.content or ""
    expect(text == (await plain(client))["text"], "the streamed text differs from the plain answer")
    return {}


async def stream_usage(client):
    async with opened(client.chat.completions.stream(model="auto", messages=QUESTION, stream_options={"include_usage": True})) as events:
        async for _ in each(events):
            pass
        usage = (await settle(events.get_final_completion())).usage
    expect(usage is not None and usage.completion_tokens > 0, f"get_final_completion().usage is {usage!r}")
    return {"usage": usage.model_dump()}


async def stream_cost(client):
    last = None
    async for chunk in each(await settle(client.chat.completions.create(model="auto", messages=QUESTION, stream=True))):
        last = chunk
    outcome = getattr(last, "x_service", None)
    expect(isinstance(outcome, dict) and outcome.get("cost_usd"), f"the last chunk carries no x_service: {last!r}")
    return {"x_service": outcome}


async def tools(client):
    first = await settle(client.chat.completions.create(model="auto", messages=WEATHER, tools=TOOLS))
    message = first.choices[0].message
    expect(message.tool_calls, "no tool call")
    call = message.tool_calls[0]
    # What agent loops send back: the message as the SDK dumps it, without its None fields (no "content" key).
    assistant = message.model_dump(exclude_none=True)
    expect("content" not in assistant, "the dumped assistant message kept a content key")
    follow = await settle(
        client.chat.completions.create(
            model="auto",
            messages=[*WEATHER, assistant, {"role": "tool", "tool_call_id": call.id, "content": '{"temp": 18}'}],
            tools=TOOLS,
        )
    )
    expect(follow.choices[0].message.content, "no answer after the tool result")
    return {}


async def structured(client):
    completion = await settle(
        client.chat.completions.parse(model="auto", messages=[{"role": "user", "content": "Describe a city."}], response_format=City)
    )
    parsed = completion.choices[0].message.parsed
    expect(isinstance(parsed, City), f"parsed is {parsed!r}")
    return {}


async def usage(client):
    raw, completion = await raw_completion(client)
    expect(completion.usage.total_tokens == completion.usage.prompt_tokens + completion.usage.completion_tokens, "inconsistent usage")
    return {"usage": completion.usage.model_dump(), "cost_usd": raw.headers.get("x-service-cost-usd"), "model": raw.headers.get("x-service-model")}


async def request_id(client):
    raw, completion = await raw_completion(client)
    expect(completion._request_id == raw.headers.get("x-service-request-id"), f"_request_id is {completion._request_id!r}")
    return {}


async def responses(client):
    response = await settle(client.responses.create(model="auto", instructions="You are terse.", input="Tell me about rivers."))
    expect(response.status == "completed" and response.output_text, f"response: {response!r}")
    text = ""
    async with opened(client.responses.stream(model="auto", instructions="You are terse.", input="Tell me about rivers.")) as events:
        async for event in each(events):
            if event.type == "response.output_text.delta":
                text += event.delta
        final = await settle(events.get_final_response())
    expect(text == response.output_text == final.output_text, "the streamed response differs")
    expect(final.usage.output_tokens > 0, "no usage in the final response")
    return {}


async def error_auth(client):
    stranger = type(client)(api_key=BAD_KEY, base_url=BASE_URL, max_retries=0)
    try:
        await settle(stranger.chat.completions.create(model="auto", messages=QUESTION))
    except openai.AuthenticationError as error:
        expect(error.status_code == 401, f"status {error.status_code}")
        return {}
    raise AssertionError("no AuthenticationError")


async def error_model(client):
    try:
        await settle(client.chat.completions.create(model="gpt-99-ultra", messages=QUESTION))
    except openai.BadRequestError as error:
        expect(error.status_code == 400 and "gpt-99-ultra" in str(error), f"error {error}")
        return {}
    raise AssertionError("no BadRequestError")


CHECKS = [plain, stream, stream_usage, stream_cost, tools, structured, usage, request_id, responses, error_auth, error_model]


async def outcome(check, client):
    try:
        return {"ok": True, "detail": await check(client)}
    except Exception as error:  # every failure is reported, none stops the others
        return {"ok": False, "error": f"{type(error).__name__}: {error}", "trace": traceback.format_exc()}


async def run_checks(client):
    return {check.__name__: await outcome(check, client) for check in CHECKS}


async def main():
    results = {
        "openai_python": await run_checks(openai.OpenAI(api_key=API_KEY, base_url=BASE_URL, max_retries=0)),
        "openai_python_async": await run_checks(openai.AsyncOpenAI(api_key=API_KEY, base_url=BASE_URL, max_retries=0)),
        "version": openai.__version__,
    }
    print(json.dumps(results))


if __name__ == "__main__":
    asyncio.run(main())
