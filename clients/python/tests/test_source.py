"""JWKSSource against a fake Gatehouse: cached for max-age, revalidated with ETag (304), fetched again on an unknown
kid at most once in 30 s from the last fetch of any kind, the last good set kept while Gatehouse is down, one fetch
for many threads, and the asyncio methods never blocking the event loop."""
import asyncio
import threading
import time

import pytest

from gatehouse_receipts import GatehouseUnavailable, JWKSSource, verify_session_token
from helpers import ENV, FakeGatehouse, Signer, claims

KEYS = "/api/v4/receipts/keys"


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


@pytest.fixture
def server():
    s = FakeGatehouse([Signer("kid-a")])
    yield s
    s.close()


def source_for(server, clock=None, url=None):
    source = JWKSSource(url or server.url, timeout=1.0)
    if clock is not None:
        source._clock = clock
    return source


def wait_idle(source):
    thread = source._background
    if thread is not None:
        thread.join(5)


def check(source, token):
    return verify_session_token(token, jwks=source, environment=ENV, method="GET", path_and_query="/x")


def test_url_forms():
    assert JWKSSource("http://g.example").url == "http://g.example/api/v4/receipts/keys"
    assert JWKSSource("https://g.example/").url == "https://g.example/api/v4/receipts/keys"
    assert JWKSSource("https://g.example/custom/jwks.json").url == "https://g.example/custom/jwks.json"
    for bad in ["ftp://g.example", "file:///etc/passwd", "g.example", "https://user:pw@g.example", "https://g/?a=1"]:
        with pytest.raises(ValueError):
            JWKSSource(bad)


def test_cached_for_max_age_then_revalidated_with_the_etag(server):
    clock = Clock()
    source = source_for(server, clock)
    token = server.signers[0].token(claims(iat=int(time.time()) - 10))
    for _ in range(100):
        assert check(source, token).valid
    assert server.count(KEYS) == 1
    clock.now += 299
    assert check(source, token).valid
    assert server.count(KEYS) == 1
    clock.now += 1
    assert check(source, token).valid  # a stale set is used while it is revalidated in the background
    wait_idle(source)
    assert server.count(KEYS) == 2
    assert server.requests[-1]["headers"].get("If-None-Match", "").startswith('"')
    keys = source.keys
    clock.now += 300
    source.get()
    wait_idle(source)
    assert source.keys is keys, "a 304 keeps the set (and what it remembers)"
    assert source.fetches == 3


def test_an_unknown_kid_fetches_again_at_most_once_in_30_seconds(server):
    clock = Clock()
    source = source_for(server, clock)
    old = server.signers[0]
    now = int(time.time())
    assert check(source, old.token(claims(iat=now))).valid
    new = Signer("kid-b")
    server.signers.append(new)
    token = new.token(claims(iat=now))
    clock.now += 29
    assert check(source, token).reasons == ["signatureInvalid"]
    assert server.count(KEYS) == 1, "under 30 s since the last fetch"
    clock.now += 1
    assert check(source, token).valid
    assert server.count(KEYS) == 2
    stranger = Signer("kid-c").token(claims(iat=now))
    for _ in range(50):
        assert check(source, stranger).reasons == ["signatureInvalid"]
    assert server.count(KEYS) == 2
    clock.now += 30
    assert check(source, stranger).reasons == ["signatureInvalid"]
    assert server.count(KEYS) == 3
    # A revalidation counts as a fetch for the 30 s.
    clock.now += 300
    source.get()
    wait_idle(source)
    assert server.count(KEYS) == 4
    clock.now += 10
    check(source, stranger)
    assert server.count(KEYS) == 4


def test_the_last_good_set_is_kept_while_gatehouse_is_down(server):
    clock = Clock()
    source = source_for(server, clock)
    token = server.signers[0].token(claims(iat=int(time.time())))
    assert check(source, token).valid
    server.fail = True
    clock.now += 301
    assert check(source, token).valid
    wait_idle(source)
    assert server.count(KEYS) == 2
    clock.now += 10
    assert check(source, token).valid
    wait_idle(source)
    assert server.count(KEYS) == 2, "a failed fetch waits 30 s before the next try"
    clock.now += 30
    assert check(source, token).valid
    wait_idle(source)
    assert server.count(KEYS) == 3
    server.close()
    clock.now += 3600
    assert check(source, token).valid
    wait_idle(source)


def test_no_keys_ever_is_unavailable(server):
    clock = Clock()
    server.fail = True
    source = source_for(server, clock)
    token = server.signers[0].token(claims(iat=int(time.time())))
    with pytest.raises(GatehouseUnavailable):
        check(source, token)
    with pytest.raises(GatehouseUnavailable):
        check(source, token)
    assert server.count(KEYS) == 1, "a failed first fetch is retried after a second"
    clock.now += 1
    server.fail = False
    assert check(source, token).valid
    assert source.fetches == 2


def test_a_bad_answer_keeps_the_last_good_set(server):
    clock = Clock()
    source = source_for(server, clock)
    token = server.signers[0].token(claims(iat=int(time.time())))
    assert check(source, token).valid
    server.jwks_body = lambda: b'{"keys": "nope"}'
    clock.now += 300
    source.refresh()
    assert check(source, token).valid


def test_one_fetch_for_many_threads(server):
    server.keys_delay = 0.2
    source = source_for(server)
    token = server.signers[0].token(claims(iat=int(time.time())))
    results = []

    def work():
        results.append(check(source, token).valid)

    threads = [threading.Thread(target=work) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [True] * 16
    assert server.count(KEYS) == 1


def test_asyncio_methods_fetch_in_a_thread(server):
    server.keys_delay = 0.3
    source = source_for(server)

    async def main():
        ticks = 0

        async def ticker():
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        task = asyncio.ensure_future(ticker())
        keys = await source.get_async()
        task.cancel()
        return keys, ticks

    keys, ticks = asyncio.run(main())
    assert keys is not None and len(keys) == 1
    assert ticks >= 10, "the event loop ran while the keys were fetched"
    new = Signer("kid-b")
    server.signers.append(new)
    source._clock = lambda: time.monotonic() + 31
    fresher = asyncio.run(source.get_for_unknown_kid_async("kid-b"))
    assert "kid-b" in fresher
