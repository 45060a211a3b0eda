"""Routes and paths as the edge check reads them: the tables of Tests/GatehouseTests/EnforcementRoutesTests.swift,
so the middlewares match what the edge matches (the shared vectors are test_matching_vectors.py)."""
import pytest

from gatehouse_receipts._paths import origin_form
from gatehouse_receipts._paths import PathRefused, normalized_segments
from gatehouse_receipts._routes import Route, RouteMatch, Settings


def text(path):
    return "/" + "/".join(s.decode() for s in normalized_segments(path))


@pytest.mark.parametrize("raw, normalized", [
    ("/", "/"), ("/a", "/a"), ("/a/", "/a/"), ("/a//b", "/a/b"), ("//a///b//", "/a/b/"),
    ("/api/pay%6Dents/1", "/api/payments/1"), ("/%41%7e%2d", "/A~-"), ("/a%20b", "/a%20b"), ("/a%3fb", "/a%3Fb"),
    ("/a/./b", "/a/b"), ("/a/b/..", "/a/"), ("/a/b/../c", "/a/c"), ("/a/%2e%2E/c", "/c"), ("/a/.", "/a/"),
    ("/a?x=/../..", "/a"), ("/a/b?", "/a/b"),
])
def test_paths_normalize(raw, normalized):
    assert text(raw) == normalized
    assert text(raw.encode()) == normalized


@pytest.mark.parametrize("raw, reason", [
    ("a/b", "notAPath"), ("", "notAPath"), ("?x", "notAPath"), ("/a b", "notAPath"), ("/\u00e9", "notAPath"),
    ("/a%2Fb", "encodedSeparator"), ("/a%2fb", "encodedSeparator"), ("/a%00", "encodedSeparator"),
    ("/a%", "invalidEncoding"), ("/a%4", "invalidEncoding"), ("/a%zz", "invalidEncoding"),
    ("/..", "aboveRoot"), ("/a/../..", "aboveRoot"), ("/%2e%2e/etc", "aboveRoot"),
    ("/a\x7f", "control"), ("/a\tb", "control"), (b"/\xff", "notAPath"), ("/a;b", "semicolon"), ("/a%3bb", "semicolon"),
    ("/a#b", "fragment"), ("/a%23", "fragment"), ("/a\\b", "backslash"), ("/a%5c", "backslash"), ("/a%0d", "control"),
    ("/a%1F", "control"), ("/a%7F", "control"), ("/a\x00", "control"), ("/a;b/../..", "semicolon"),
    ("/../a;b", "aboveRoot"), ("/a%2F;", "encodedSeparator"), ("/a%zz;", "invalidEncoding"), ("/a#?x", "fragment"),
])
def test_paths_that_could_mean_two_things_are_refused(raw, reason):
    with pytest.raises(PathRefused) as refused:
        normalized_segments(raw)
    assert refused.value.reason == "path:" + reason


@pytest.mark.parametrize("match, method, path, expected", [
    ("GET /api/orders", "GET", "/api/orders", True), ("GET /api/orders", "GET", "/api/orders/", True),
    ("GET /api/orders/", "GET", "/api/orders", True), ("GET /Api/Orders", "get", "/API/orders/", True),
    ("GET /api/orders", "HEAD", "/api/orders", True), ("HEAD /api/orders", "GET", "/api/orders", False),
    ("HEAD /api/orders", "head", "/api/orders", True), ("POST /api/orders", "HEAD", "/api/orders", False),
    ("POST /api/orders", "po\u017ft", "/api/orders", False), ("GET /api/orders", "GETX", "/api/orders", False),
    ("GET /api/*", "GET", "/api/%C3%A9", True), ("GET /api/a", "GET", "/api/a%25", False),
    ("GET /api/orders", "POST", "/api/orders", False), ("* /api/orders", "PATCH", "/api/orders", True),
    ("GET /api/*/items", "GET", "/api/7/items", True), ("GET /api/*/items", "GET", "/api/items", False),
    ("GET /api/*/items", "GET", "/api/7/8/items", False), ("GET /api/*", "GET", "/api/", False),
    ("POST /api/payments/**", "POST", "/api/payments", True), ("POST /api/payments/**", "POST", "/api/payments/", True),
    ("POST /api/payments/**", "POST", "/api/payments/a/b/c", True), ("POST /api/payments/**", "POST", "/api/paymentsx", False),
    ("* /**", "OPTIONS", "/", True), ("* /**", "GET", "/anything/at/all", True),
    ("GET /", "GET", "/", True), ("GET /", "GET", "/a", False), ("GET /", "GET", "//", True),
    ("GET /api/*", "GET", "/api/x/", True), ("GET /api/*/", "GET", "/api/x", True), ("* /a/**", "GET", "/A/", True),
    ("GET /api/*/**", "GET", "/api", False), ("GET /api/*/**", "GET", "/api//", False), ("GET /api/*/**", "GET", "/api/x", True),
    ("GET /api/*/**", "GET", "/api/x/y/", True), ("GET /*", "GET", "/", False), ("GET /*", "GET", "//", False),
    ("GET /api/orders", "GET", "/api/orders?page=2", True), ("GET /api/orders", "GET", "/api/%6Frders?x", True),
])
def test_matches(match, method, path, expected):
    assert RouteMatch(match).matches(method, normalized_segments(path)) is expected


@pytest.mark.parametrize("match", [
    "GET", "GET  /a", "get /a", "GET a", "GET /a/**/b", "GET /a//b", "GET /a/../b", "GET /a/%41", "GET /a b", "GET /a?x",
    "G@T /a", "", "GET /" + "a" * 1024, "ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFG /a", None,
])
def test_match_texts_that_are_not_one_are_refused(match):
    with pytest.raises(ValueError):
        RouteMatch(match)


def test_the_first_matching_route_wins_and_the_rest_fall_to_the_mode():
    settings = Settings([
        {"name": "one", "match": "GET /api/orders/special", "mode": "off"},
        {"name": "all", "match": "* /api/orders/**", "mode": "enforce"},
        {"name": "never", "match": "GET /api/orders/special"},
    ], "monitor")
    assert settings.route("GET", normalized_segments("/api/orders/special")).name == "one"
    assert settings.route("POST", normalized_segments("/api/orders/special")).name == "all"
    assert settings.route("GET", normalized_segments("/api/other")) is None
    assert settings.mode_of(None) == "monitor"
    assert settings.mode_of(settings.routes[2]) == "monitor"
    assert settings.strictest == "enforce"
    assert Settings([], "monitor").strictest == "monitor"


@pytest.mark.parametrize("routes, pointer", [
    ([{"name": "Pay", "match": "GET /"}], "/routes/0/name"),
    ([{"name": "a", "match": "GET /"}, {"name": "b", "match": "get /"}], "/routes/1/match"),
    ([{"name": "a", "match": "GET /", "mode": "block"}], "/routes/0/mode"),
    ([{"name": "a", "match": "GET /", "require": {"bound": "yes"}}], "/routes/0/require/bound"),
    ([{"name": "a", "match": "GET /", "consume": 1}], "/routes/0/consume"),
    ([{"name": "a", "match": "GET /", "other": 1}], "/routes/0/other"),
    ([{"name": "a", "match": "GET /"}, {"name": "a", "match": "GET /b"}], "/routes/1/name"),
    ([{"name": f"r{i}", "match": "GET /"} for i in range(51)], "/routes"),
    (["GET /"], "/routes/0"),
])
def test_routes_are_read_as_the_environment_holds_them(routes, pointer):
    with pytest.raises(ValueError, match=pointer):
        Settings(routes, "monitor")


def test_route_fields():
    route = Route.from_json({"name": "payments", "match": "POST /api/payments/**", "mode": "enforce",
                             "require": {"bound": True, "attestation": "verified"}, "consume": True}, "/routes/0")
    assert route.require.bound and route.require.attestation == "verified" and route.consume and route.mode == "enforce"
    with pytest.raises(ValueError):
        Settings([], "block")


@pytest.mark.parametrize("target, path", [
    ("http://h/api/payments", "/api/payments"), ("HTTPS://h:8443/a?b=1", "/a?b=1"), ("http://h", "/"),
    ("http://h?x=1", "/?x=1"), ("http://h#f", "/#f"), ("http://h\\a/b", "/\\a/b"), ("http://user@h/a", "/a"),
    ("/api/payments", "/api/payments"), ("*", "*"), ("", ""), ("ftp://h/a", "ftp://h/a"),
])
def test_an_absolute_form_target_is_judged_by_its_path_and_query(target, path):
    assert origin_form(target) == path
