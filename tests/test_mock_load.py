"""The mock provider under concurrent load: every answer right, the journal counts exact.

Bounded in count (16 clients x 40 requests) and time (a 60 s ceiling), loopback only.
"""

from __future__ import annotations

import asyncio
import time

import aiohttp

from hermetic.mock import MockProvider

CLIENTS = 16
REQUESTS_PER_CLIENT = 40
EXPECTED = {"healthy-model": 200, "gone-model": 404, "retired-model": 410}


async def _client(session: aiohttp.ClientSession, url: str, client: int) -> list[tuple[str, int]]:
    answers = []
    models = list(EXPECTED)
    for number in range(REQUESTS_PER_CLIENT):
        model = models[(client + number) % len(models)]
        body = {"model": model, "messages": [{"role": "user", "content": f"{client}-{number}"}]}
        async with session.post(url, json=body) as response:
            await response.read()
            answers.append((model, response.status))
    return answers


async def _load(url: str) -> list[tuple[str, int]]:
    timeout = aiohttp.ClientTimeout(total=60)
    connector = aiohttp.TCPConnector(limit=CLIENTS)
    async with aiohttp.ClientSession(timeout=timeout, connector=connector) as session:
        results = await asyncio.gather(*(_client(session, url, c) for c in range(CLIENTS)))
    return [answer for client in results for answer in client]


def test_every_concurrent_request_is_answered_and_journaled() -> None:
    with MockProvider() as mock:
        mock.serve_model("healthy-model")
        mock.remove_model("gone-model")
        mock.retire_model("retired-model")
        started = time.monotonic()
        answers = asyncio.run(_load(f"{mock.api_base}/chat/completions"))
        elapsed = time.monotonic() - started
        total = CLIENTS * REQUESTS_PER_CLIENT
        assert len(answers) == total
        wrong = [(model, status) for model, status in answers if status != EXPECTED[model]]
        assert wrong == []
        counts = mock.counts()
        assert counts["total"] == total and counts["unmatched"] == 0
        for model in EXPECTED:
            sent = sum(1 for answered, _ in answers if answered == model)
            entries = mock.chat_requests(model)
            assert len(entries) == sent == counts["by_model"][model]
            # Attempt numbers are per model and gap-free even under concurrency.
            assert sorted(entry.attempt for entry in entries) == list(range(1, sent + 1))
        print(f"{total} requests from {CLIENTS} clients in {elapsed:.2f}s")
