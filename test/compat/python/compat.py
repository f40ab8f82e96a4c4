"""The OpenAI Python SDK against the gateway, as its users write it.

Run by the compatibility suite (test/compat/compat.test.ts) with the venv
that test/compat/setup-python.sh makes. Reads GATEWAY_URL (the base URL a
client is given), API_KEY and BAD_KEY from the environment, runs every
check with the sync and the async client, and prints one JSON object:
{client: {feature: {"ok": bool, "error": str, "detail": {...}}}}.
A check never stops the others; the suite reports each one.
"""

import asyncio
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


def plain(client):
    raw = client.chat.completions.with_raw_response.create(model="auto", messages=QUESTION)
    completion = raw.parse()
    expect(completion.choices[0].message.content, "no content")
    return {"text": completion.choices[0].message.content}


def stream(client):
    text = ""
    # The loop everybody writes: it needs choices[0] on every chunk.
    for chunk in client.chat.completions.create(model="auto", messages=QUESTION, stream=True):
        text += chunk.choices[0].delta.content or ""
    expect(text == plain(client)["text"], "the streamed text differs from the plain answer")
    return {}


def stream_usage(client):
    with client.chat.completions.stream(model="auto", messages=QUESTION, stream_options={"include_usage": True}) as events:
        for _ in events:
            pass
        usage = events.get_final_completion().usage
    expect(usage is not None and usage.completion_tokens > 0, f"get_final_completion().usage is {usage!r}")
    return {"usage": usage.model_dump()}


def stream_cost(client):
    last = None
    for chunk in client.chat.completions.create(model="auto", messages=QUESTION, stream=True):
        last = chunk
    outcome = getattr(last, "x_service", None)
    expect(isinstance(outcome, dict) and outcome.get("cost_usd"), f"the last chunk carries no x_service: {last!r}")
    return {"x_service": outcome}


def tools(client):
    first = client.chat.completions.create(model="auto", messages=WEATHER, tools=TOOLS)
    message = first.choices[0].message
    expect(message.tool_calls, "no tool call")
    call = message.tool_calls[0]
    # What agent loops send back: the message as the SDK dumps it, without its None fields (no "content" key).
    assistant = message.model_dump(exclude_none=True)
    expect("content" not in assistant, "the dumped assistant message kept a content key")
    follow = client.chat.completions.create(
        model="auto",
        messages=[*WEATHER, assistant, {"role": "tool", "tool_call_id": call.id, "content": '{"temp": 18}'}],
        tools=TOOLS,
    )
    expect(follow.choices[0].message.content, "no answer after the tool result")
    return {}


def structured(client):
    completion = client.chat.completions.parse(model="auto", messages=[{"role": "user", "content": "Describe a city."}], response_format=City)
    parsed = completion.choices[0].message.parsed
    expect(isinstance(parsed, City), f"parsed is {parsed!r}")
    return {}


def usage(client):
    raw = client.chat.completions.with_raw_response.create(model="auto", messages=QUESTION)
    completion = raw.parse()
    expect(completion.usage.total_tokens == completion.usage.prompt_tokens + completion.usage.completion_tokens, "inconsistent usage")
    return {"usage": completion.usage.model_dump(), "cost_usd": raw.headers.get("x-service-cost-usd"), "model": raw.headers.get("x-service-model")}


def request_id(client):
    raw = client.chat.completions.with_raw_response.create(model="auto", messages=QUESTION)
    completion = raw.parse()
    expect(completion._request_id == raw.headers.get("x-service-request-id"), f"_request_id is {completion._request_id!r}")
    return {}


def responses(client):
    response = client.responses.create(model="auto", instructions="You are terse.", input="Tell me about rivers.")
    expect(response.status == "completed" and response.output_text, f"response: {response!r}")
    text = ""
    with client.responses.stream(model="auto", instructions="You are terse.", input="Tell me about rivers.") as events:
        for event in events:
            if event.type == "response.output_text.delta":
                text += event.delta
        final = events.get_final_response()
    expect(text == response.output_text == final.output_text, "the streamed response differs")
    expect(final.usage.output_tokens > 0, "no usage in the final response")
    return {}


def error_auth(_client):
    try:
        openai.OpenAI(api_key=BAD_KEY, base_url=BASE_URL, max_retries=0).chat.completions.create(model="auto", messages=QUESTION)
    except openai.AuthenticationError as error:
        expect(error.status_code == 401, f"status {error.status_code}")
        return {}
    raise AssertionError("no AuthenticationError")


def error_model(client):
    try:
        client.chat.completions.create(model="gpt-99-ultra", messages=QUESTION)
    except openai.BadRequestError as error:
        expect(error.status_code == 400 and "gpt-99-ultra" in str(error), f"error {error}")
        return {}
    raise AssertionError("no BadRequestError")


async def async_plain(client):
    completion = await client.chat.completions.create(model="auto", messages=QUESTION)
    expect(completion.choices[0].message.content, "no content")
    return {}


async def async_stream(client):
    text = ""
    async for chunk in await client.chat.completions.create(model="auto", messages=QUESTION, stream=True):
        text += chunk.choices[0].delta.content or ""
    expect(text, "no text")
    return {}


async def async_stream_usage(client):
    async with client.chat.completions.stream(model="auto", messages=QUESTION, stream_options={"include_usage": True}) as events:
        async for _ in events:
            pass
        completion = await events.get_final_completion()
    expect(completion.usage is not None and completion.usage.completion_tokens > 0, "no usage")
    return {}


async def async_structured(client):
    completion = await client.chat.completions.parse(model="auto", messages=[{"role": "user", "content": "Describe a city."}], response_format=City)
    expect(isinstance(completion.choices[0].message.parsed, City), "not parsed")
    return {}


async def async_error_auth(_client):
    try:
        await openai.AsyncOpenAI(api_key=BAD_KEY, base_url=BASE_URL, max_retries=0).chat.completions.create(model="auto", messages=QUESTION)
    except openai.AuthenticationError:
        return {}
    raise AssertionError("no AuthenticationError")


async def async_error_model(client):
    try:
        await client.chat.completions.create(model="gpt-99-ultra", messages=QUESTION)
    except openai.BadRequestError:
        return {}
    raise AssertionError("no BadRequestError")


def outcome(run):
    try:
        return {"ok": True, "detail": run()}
    except Exception as error:  # every failure is reported, none stops the others
        return {"ok": False, "error": f"{type(error).__name__}: {error}", "trace": traceback.format_exc()}


async def async_outcome(run):
    try:
        return {"ok": True, "detail": await run()}
    except Exception as error:
        return {"ok": False, "error": f"{type(error).__name__}: {error}", "trace": traceback.format_exc()}


async def async_checks():
    client = openai.AsyncOpenAI(api_key=API_KEY, base_url=BASE_URL, max_retries=0)
    checks = {
        "plain": async_plain,
        "stream": async_stream,
        "stream_usage": async_stream_usage,
        "structured": async_structured,
        "error_auth": async_error_auth,
        "error_model": async_error_model,
    }
    return {name: await async_outcome(lambda check=check: check(client)) for name, check in checks.items()}


def main():
    client = openai.OpenAI(api_key=API_KEY, base_url=BASE_URL, max_retries=0)
    checks = [plain, stream, stream_usage, stream_cost, tools, structured, usage, request_id, responses, error_auth, error_model]
    results = {
        "openai_python": {check.__name__: outcome(lambda check=check: check(client)) for check in checks},
        "openai_python_async": asyncio.run(async_checks()),
        "version": openai.__version__,
    }
    print(json.dumps(results))


if __name__ == "__main__":
    main()
