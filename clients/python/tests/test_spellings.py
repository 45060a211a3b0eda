"""Property: for generated route tables and a call that one route's handler takes, every spelling of that call that
Express, Starlette/FastAPI, Flask, Django (or the servers and proxies in front of them) would route to the same
handler is judged by both middlewares under the same route, or refused as a path under the strictest mode there is,
or (a path holding a dot segment, which a framework may route as written or as normalized) under a route at least as
strict as either reading's: never under a laxer mode. The spellings: letters in another case, a trailing slash, HEAD
for GET, a method in another case, percent-encoded unreserved characters, dot segments (also where a `*` stands, as
Express routes `/api/orders/..` to `/api/orders/:id`), repeated slashes, `;` parameters, a `#` fragment, `%3B`, `%23`,
`%5C`, a backslash for a slash, a query, and an absolute-form target."""
import asyncio
import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gatehouse_receipts import GatehouseMiddleware, GatehouseWSGIMiddleware
from gatehouse_receipts._paths import PathRefused, folded, origin_form, read_path
from gatehouse_receipts._routes import Settings, judged_method, strictness
from gatehouse_receipts._routes_source import FixedRoutes
from helpers import ENV

SETTINGS = settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MODES = ["off", "monitor", "enforce"]
LETTERS = string.ascii_letters + string.digits + "-_~"


async def _ok(scope, receive, send):
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b""})


WSGI = GatehouseWSGIMiddleware(lambda environ, start: (start("200 OK", []), [b""])[1],
                               gatehouse_url="http://127.0.0.1:9", environment=ENV, routes=[], report=False)
ASGI = GatehouseMiddleware(_ok, gatehouse_url="http://127.0.0.1:9", environment=ENV, routes=[], report=False)

literal = st.text(LETTERS, min_size=1, max_size=6).filter(lambda s: s not in (".", ".."))
pattern_segment = st.one_of(literal, literal, st.just("*"))


@st.composite
def tables(draw):
    """(routes, environment mode, index of the route whose handler is called, the call's method and path)."""
    count = draw(st.integers(1, 5))
    routes = []
    for i in range(count):
        segments = draw(st.lists(pattern_segment, min_size=0, max_size=4))
        if draw(st.booleans()):
            segments.append("**")
        pattern = "/" + "/".join(segments) + ("/" if segments and segments[-1] != "**" and draw(st.booleans()) else "")
        route = {"name": f"r{i}", "match": draw(st.sampled_from(["GET", "POST", "PUT", "DELETE", "*"])) + " " + pattern}
        mode = draw(st.sampled_from([None] + MODES))
        if mode is not None:
            route["mode"] = mode
        routes.append(route)
    index = draw(st.integers(0, count - 1))
    method, pattern = routes[index]["match"].split(" ", 1)
    if method == "*":
        method = draw(st.sampled_from(["GET", "POST", "PATCH"]))
    parts = []
    for segment in pattern.strip("/").split("/") if pattern.strip("/") else []:
        if segment == "*":
            parts.append(draw(st.one_of(literal, literal, literal, st.sampled_from([".", "..", "%2e", "%2E%2e"]))))
        elif segment == "**":
            parts += draw(st.lists(literal, max_size=2))
        else:
            parts.append(segment)
    return routes, draw(st.sampled_from(MODES)), method, "/" + "/".join(parts)


def _flip_case(data, path):
    return "".join(c.swapcase() if c.isalpha() and data.draw(st.booleans()) else c for c in path)


def _encode_some(data, path):
    out = []
    for c in path:
        if c != "/" and data.draw(st.integers(0, 4)) == 0:
            code = "%02X" % ord(c)
            out.append("%" + (code.lower() if data.draw(st.booleans()) else code))
        else:
            out.append(c)
    return "".join(out)


def _insert(data, path, piece):
    """`piece` inserted after a random segment's end (or at the end)."""
    slashes = [i for i, c in enumerate(path) if c == "/"][1:] + [len(path)]
    at = data.draw(st.sampled_from(slashes))
    return path[:at] + piece + path[at:]


def spell(data, method, path):
    """A spelling of `method path` that some framework, server or proxy routes to the same handler."""
    if data.draw(st.booleans()):
        path = _flip_case(data, path)
    if data.draw(st.booleans()):
        path = _encode_some(data, path)
    if data.draw(st.booleans()):
        path = _insert(data, path, data.draw(st.sampled_from(["/.", "/x/..", "/%2e", "/Ab/%2E%2e"])))
    if data.draw(st.booleans()):
        path = path.replace("/", data.draw(st.sampled_from(["//", "///"])), data.draw(st.integers(1, 3)))
    if data.draw(st.booleans()):
        path = path + "/"
    if data.draw(st.integers(0, 2)) == 0:
        piece = data.draw(st.sampled_from([";", ";jsessionid=1", ";v=2", "#", "#x", "#?a=1", "%3B", "%3bx", "%23",
                                           "%23x", "%5C", "%5c", "\\", "%09", "%0a"]))
        path = _insert(data, path, piece)
    if data.draw(st.integers(0, 4)) == 0 and path.count("/") > 1:
        path = path.replace("/", "\\", 1) if data.draw(st.booleans()) else path[::-1].replace("/", "\\", 1)[::-1]
    if data.draw(st.booleans()):
        path += "?" + data.draw(st.sampled_from(["a=1", "x=%3B#y", "", "p=/../..;"]))
    if data.draw(st.integers(0, 3)) == 0:
        path = data.draw(st.sampled_from(["http://api.example.com", "HTTPS://api.example.com:8443"])) + path
    if method == "GET" and data.draw(st.booleans()):
        method = "HEAD"
    if data.draw(st.booleans()):
        method = _flip_case(data, method)
    return method, path


def _asgi_judgement(method, target):
    raw_path, _, query = target.encode("utf-8").partition(b"?")
    scope = {"type": "http", "method": method, "path": "/", "raw_path": raw_path, "query_string": query,
             "headers": []}

    async def send(message):
        pass

    asyncio.run(ASGI(scope, None, send))
    return scope["state"]["gatehouse"]


def readings(table_settings, method, target):
    """The modes of the route each reading of the call picks (normalized; as written when it held a dot segment),
    as a framework routing either way would pick it, and whether it held a dot segment."""
    segments, written = read_path(origin_form(target))
    sent = judged_method(method)
    modes = [table_settings.mode_of(table_settings._first(sent, folded(segments)))]
    if written is not None:
        literal = table_settings._first(sent, folded(written))
        if literal is not None:
            modes.append(table_settings.mode_of(literal))
    return modes, written is not None


@SETTINGS
@given(table=tables(), data=st.data())
def test_no_spelling_is_judged_under_a_laxer_mode(table, data):
    routes, environment_mode, method, path = table
    table_settings = Settings(routes, environment_mode)
    try:
        _, canonical_dot = readings(table_settings, method, path)
    except PathRefused:
        return  # a `*` standing for ".." above the root: refused whatever the spelling
    canonical_route, canonical_mode, _ = table_settings.judge(method, path)
    spelled_method, spelled = spell(data, method, path)
    for middleware in (WSGI, ASGI):
        middleware.enforcer.routes = FixedRoutes(table_settings)
    judgement = WSGI.enforcer.judge(spelled_method, spelled, None, None)
    if judgement.reasons and judgement.reasons[0].startswith("path:"):
        assert (judgement.route, judgement.mode) == ("(unmatched)", table_settings.strictest)
    else:
        # A framework routes the spelling by one of its readings: never judged under a laxer mode than either's route.
        spelled_modes, spelled_dot = readings(table_settings, spelled_method, spelled)
        assert strictness(judgement.mode) >= max(map(strictness, spelled_modes)), (spelled_method, spelled, judgement)
        if not canonical_dot and not spelled_dot:
            expected_route = canonical_route.name if canonical_route is not None else "(unmatched)"
            assert (judgement.route, judgement.mode) == (expected_route, canonical_mode), (spelled_method, spelled)
    state = _asgi_judgement(spelled_method, spelled)
    assert (state["route"], state["outcome"]) == (judgement.route, judgement.outcome)
