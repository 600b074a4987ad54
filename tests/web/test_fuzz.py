"""Property test of the API against its own OpenAPI schema: no input gives a 500.

Why from the schema: the endpoints and their fields are read from ``/api/openapi.json``, so
a new upload endpoint or field is fuzzed without editing this file. For every multipart
endpoint, hypothesis draws each field as absent, random bytes, a mutated bundled PDDL file
(:mod:`tests.fuzz.mutations`), or random text/numbers; for every GET endpoint it draws the
query parameters the same way, huge and type-confused values included (400-digit numbers,
2^70, NaN, 5,000 characters, 3,000 open parentheses). Uploads go to the API or, as a
browser sends them, to the page's form. Every answer must be a success or a 4xx -- a JSON
message for a script, a page for a browser (503 "busy" is allowed: a clean refusal) --
never a 5xx crash. Derandomised, so a run is repeatable. ``test_schema_fuzz.py`` adds
schemathesis's generator and checks over the same schema.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz.mutations import mutate
from tests.web.conftest import TestClient
from tests.web.conftest import settings as app_settings
from xaip.web import create_app

DOMAINS = Path(__file__).resolve().parents[2] / "src" / "xaip" / "domains"
SEEDS = [DOMAINS / "blocksworld/domain.pddl", DOMAINS / "blocksworld/problem-5.pddl",
         DOMAINS / "fetch/human.pddl", DOMAINS / "usar/annotations.txt",
         DOMAINS / "usar/plan.txt"]


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Any:
    folder = tmp_path_factory.mktemp("fuzz")
    # Tight budgets: the fuzzer may hit expensive work, which must end, not pile up.
    return create_app(app_settings(folder, max_seconds=2.0, max_nodes=20_000,
                                   discovery_seconds=0.5))


@pytest.fixture(scope="module")
def schema(app: Any) -> dict[str, Any]:
    with TestClient(app) as client:
        found: dict[str, Any] = client.get("/api/openapi.json").json()
    return found


def _resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if ref:
        found: dict[str, Any] = schema
        for part in ref.lstrip("#/").split("/"):
            found = found[part]
        return found
    return node


def _is_file(prop: dict[str, Any]) -> bool:
    options = prop.get("anyOf", [prop])
    return any(o.get("contentMediaType") or o.get("format") == "binary" for o in options)


def multipart_endpoints(schema: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for path, methods in schema["paths"].items():
        body = methods.get("post", {}).get("requestBody", {}).get("content", {})
        if "multipart/form-data" in body:
            out.append((path, _resolve(schema, body["multipart/form-data"]["schema"])))
        elif "application/x-www-form-urlencoded" in body:
            out.append((path, _resolve(schema, body["application/x-www-form-urlencoded"]
                                       ["schema"])))
    return out


def get_endpoints(schema: dict[str, Any]) -> list[tuple[str, list[dict[str, Any]]]]:
    return [(path, methods["get"].get("parameters", []))
            for path, methods in schema["paths"].items()
            if "get" in methods and "{" not in path and path != "/api/openapi.json"]


texts = st.one_of(st.text(max_size=40), st.sampled_from(
    ["fetch", "usar", "airport", "blocksworld", "restaurant-b2", "zelda", "3x4", "0", "-1",
     "1e999", "nan", "../etc/passwd", "(at station1)", "goal", "init", "y", "yn", "mce",
     "contrastive", "conditional", "avoid:move", "(move loc1 loc2)", "cost", "\x00",
     # huge and type-confused values
     "9" * 400, str(10**40), "-1e309", "inf", "-0", "0x10", "[]", "{}", "null", "true",
     "x" * 5000, "(" * 3000, "é" * 300]))
numbers = st.one_of(st.integers(-(2**70), 2**70), st.floats(allow_nan=True))


@st.composite
def file_value(draw: st.DrawFn) -> bytes | None:
    kind = draw(st.sampled_from(["absent", "bytes", "mutated", "seed"]))
    if kind == "absent":
        return None
    if kind == "bytes":
        return bytes(draw(st.binary(max_size=300)))
    text = draw(st.sampled_from(SEEDS)).read_text()
    if kind == "mutated":
        text = mutate(text, random.Random(draw(st.integers(0, 2**32))))
    return text.encode("utf-8", "surrogatepass")


def _plain(value: Any) -> str:
    return str(value)


@settings(max_examples=80, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(data=st.data())
def test_uploads_never_crash(app: Any, schema: dict[str, Any], data: st.DataObject) -> None:
    endpoints = multipart_endpoints(schema)
    assert {"/api/models", "/api/capabilities/runs"} <= {p for p, _ in endpoints}
    path, body = data.draw(st.sampled_from(endpoints))
    files: dict[str, tuple[str, bytes, str]] = {}
    fields: dict[str, str] = {}
    for name, prop in body.get("properties", {}).items():
        if _is_file(prop):
            value = data.draw(file_value())
            if value is not None:
                files[name] = (f"{name}.txt", value, "application/octet-stream")
        elif data.draw(st.booleans()):
            fields[name] = _plain(data.draw(st.one_of(texts, numbers)))
    browser = data.draw(st.booleans())  # the page's form (/models) instead of /api/models
    with TestClient(app, raise_server_exceptions=False) as client:
        response = client.post(path.removeprefix("/api") if browser else path,
                               files=files or None, data=fields,
                               headers={"accept": "text/html"} if browser else {})
    assert response.status_code < 500 or response.status_code == 503, response.text
    if response.status_code >= 400 and browser:
        assert "text/html" in response.headers["content-type"] and "<main" in response.text
    elif response.status_code >= 400:
        assert response.json()["message"]


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(data=st.data())
def test_queries_never_crash(app: Any, schema: dict[str, Any], data: st.DataObject) -> None:
    path, parameters = data.draw(st.sampled_from(get_endpoints(schema)))
    query: dict[str, str] = {}
    for parameter in parameters:
        if data.draw(st.booleans()):
            value = data.draw(st.one_of(texts, numbers))
            query[parameter["name"]] = _plain(value)
    with TestClient(app, raise_server_exceptions=False) as client:
        response = client.get(path, params=query)
    assert response.status_code < 500 or response.status_code == 503, response.text
    if response.status_code >= 400:
        assert response.json()["message"]
