"""Schemathesis against the workbench's own OpenAPI schema: every endpoint, every
parameter, valid and type-confused values (issue 22).

Why schemathesis as well as ``test_fuzz.py``: it reads every operation, parameter, type and
range from ``/api/openapi.json`` and generates both values the schema allows and values it
forbids (wrong types, out of range, too long, missing), then checks each answer against
the schema: no 5xx, a documented status code, a body of the documented shape (every error
is the one JSON shape of :mod:`xaip.web.schema`, with a message), the right content type,
``Allow`` on 405. On top, for every GET endpoint the browser's page with the same query
must answer a page (HTML), never a 5xx.

Left out on purpose: schemathesis's "schema-valid request rejected" check. A schema-valid
request may name a model, run or explainer that does not exist, or combine options that do
not go together (``answers`` without a conditional explanation), and the workbench rightly
answers 400 or 404 with a message saying so.

Seeded (``deterministic``) and bounded: ``EXAMPLES`` cases per operation and a server with
a small budget, about a minute in all. Each case's answer is counted by status code
(``CODES``), printed at the end of the module for the record.
"""

from __future__ import annotations

import collections
import os
import re
import warnings
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("schemathesis")

import schemathesis  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis.checks import positive_data_acceptance  # noqa: E402

from tests.web.conftest import HTML  # noqa: E402
from tests.web.conftest import settings as app_settings  # noqa: E402
from xaip.web import create_app  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

#: Cases generated for each operation (positive and negative together); a longer campaign:
#: ``XAIP_SCHEMA_FUZZ_EXAMPLES=500 pytest tests/web/test_schema_fuzz.py``.
EXAMPLES = int(os.environ.get("XAIP_SCHEMA_FUZZ_EXAMPLES", "40"))

def _app() -> Any:
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="xaip-schema-fuzz-"))
    # Small budgets: generated cases may ask for expensive work, which must end.
    return create_app(app_settings(folder, max_seconds=0.5, max_nodes=20_000, workers=2,
                                   discovery_seconds=0.5))


APP = _app()
CODES: collections.Counter[tuple[str, str, int]] = collections.Counter()
schema = schemathesis.openapi.from_asgi("/api/openapi.json", APP)
schema.config.generation.update(modes=["positive", "negative"], max_examples=EXAMPLES,
                                deterministic=True)


def page_twin(path: str) -> str | None:
    """The browser page that shows an API endpoint's data (``/api/plan`` -> ``/plan``),
    or ``None`` for endpoints that have none (streams, listings of runs)."""
    if path.endswith("/events") or path in ("/api/capabilities/runs", "/api/models",
                                            "/api/explainers"):
        return None
    return re.sub(r"^/api", "", path)


@schema.parametrize()
@settings(deadline=None, suppress_health_check=list(HealthCheck))
def test_every_endpoint_answers_by_its_schema(case: Any) -> None:
    response = case.call()
    CODES[(case.method, case.path, response.status_code)] += 1
    case.validate_response(response, excluded_checks=[positive_data_acceptance])
    if response.status_code >= 400:
        kind = response.headers.get("content-type", [""])  # schemathesis: lists of values
        assert str(kind[0] if isinstance(kind, list) else kind).startswith("application/json")
    twin = page_twin(case.formatted_path) if case.method == "GET" else None
    if twin is None:
        return
    with TestClient(APP, raise_server_exceptions=False) as client:
        page = client.get(twin, params=case.query, headers=HTML)
    assert page.status_code < 500, page.text[:300]
    assert page.headers["content-type"].startswith("text/html")
    assert "<main" in page.text


def test_report_the_campaign() -> None:
    """Prints how many cases each operation answered with which status (``pytest -s``)."""
    if not CODES:
        pytest.skip("the fuzz test did not run in this session")
    assert not [key for key in CODES if key[2] >= 500]
    total = collections.Counter(code for (_, _, code), n in CODES.items() for _ in range(n))
    print(f"\nschema fuzz: {sum(CODES.values())} cases; status codes {dict(sorted(total.items()))}")
    for method, path in sorted({(m, p) for m, p, _ in CODES if m in ("GET", "POST")}):
        mine = {code: n for (m, p, code), n in sorted(CODES.items()) if (m, p) == (method, path)}
        print(f"  {method:4} {path:45} {mine}")
