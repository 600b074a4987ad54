"""The JSON API and the pages, endpoint by endpoint, with FastAPI's test client.

Every endpoint returns the CLI's ``--json`` payload (compared here with the library's
``to_dict()`` where that is cheap), answers bad input with a 4xx and a message, and ends an
exhausted budget with ``status: budget_exhausted`` and ``verified: false``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import HTML, settings
from xaip.web import create_app

DOMAINS = Path(__file__).resolve().parents[2] / "src" / "xaip" / "domains"


def bw_files() -> dict[str, tuple[str, bytes, str]]:
    return {"domain": ("d.pddl", (DOMAINS / "blocksworld/domain.pddl").read_bytes(),
                       "text/plain"),
            "problem": ("p.pddl", (DOMAINS / "blocksworld/problem-5.pddl").read_bytes(),
                        "text/plain")}


def ok(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    payload: dict[str, Any] = response.json()
    return payload


def refused(response: Any, code: int) -> dict[str, Any]:
    assert response.status_code == code, response.text
    payload: dict[str, Any] = response.json()
    assert payload["status"] == "error" and payload["message"]
    return payload


# --------------------------------------------------------------------------- models


def test_models_lists_the_bundled_examples(client: Any) -> None:
    ids = [m["id"] for m in ok(client.get("/api/models"))["models"]]
    assert {"blocksworld", "fetch", "usar", "airport", "restaurant-b2"} <= set(ids)
    fetch = ok(client.get("/api/models/fetch"))
    assert set(fetch["texts"]) == {"domain", "problem", "human_domain"}


def test_upload_then_plan_the_upload(client: Any) -> None:
    model = ok(client.post("/api/models", files=bw_files(), data={"title": "my bw"}))["model"]
    assert model["id"].startswith("u-") and model["title"] == "my bw"
    again = ok(client.post("/api/models", files=bw_files()))["model"]
    assert again["id"] == model["id"]  # same content, same identifier
    planned = ok(client.get("/api/plan", params={"model": model["id"]}))
    bundled = ok(client.get("/api/plan", params={"model": "blocksworld"}))
    assert planned["plan"]["plan"] == bundled["plan"]["plan"]
    assert planned["plan"]["cost"] == 10 and planned["verified"] is True


def test_uploads_are_bounded_in_number(client: Any) -> None:
    first = None
    for n in range(6):  # max_models is 4 in the tests
        files = bw_files()
        files["plan"] = ("plan.txt", f"; upload {n}\n(unstack b1 b2)\n".encode(), "text/plain")
        model = ok(client.post("/api/models", files=files))["model"]
        first = first or model["id"]
    uploads = [m for m in ok(client.get("/api/models"))["models"] if not m["bundled"]]
    assert len(uploads) == 4
    refused(client.get(f"/api/models/{first}"), 404)


def test_malformed_pddl_names_file_line_and_column(client: Any) -> None:
    files = bw_files()
    files["domain"] = ("d.pddl", b"(define (domain bw)\n  (:predicates (on ?x ?y)\n", "text/plain")
    payload = refused(client.post("/api/models", files=files), 400)
    assert payload["error"] == "pddl_syntax"
    assert payload["location"]["file"] == "domain.pddl" and payload["location"]["line"] >= 2
    page = client.post("/models", files=files, headers=HTML)
    assert page.status_code == 400
    assert "<mark>" in page.text and "domain.pddl" in page.text  # highlighted in the source


def test_mismatched_domain_and_problem_is_located(client: Any) -> None:
    files = {"domain": ("d.pddl", (DOMAINS / "fetch/robot.pddl").read_bytes(), "text/plain"),
             "problem": ("p.pddl", (DOMAINS / "blocksworld/problem-5.pddl").read_bytes(),
                         "text/plain")}
    payload = refused(client.post("/api/models", files=files), 400)
    location = payload["location"]
    assert location["file"] == "problem.pddl"
    assert "'blocksworld'" in payload["message"] and "'fetch'" in payload["message"]
    line = (DOMAINS / "blocksworld/problem-5.pddl").read_text().splitlines()[location["line"] - 1]
    assert "(:domain" in line and line[location["column"] - 1:].startswith("blocksworld")


def test_semantic_error_is_located(client: Any) -> None:
    files = bw_files()
    problem = (DOMAINS / "blocksworld/problem-5.pddl").read_text()
    files["problem"] = ("p.pddl", problem.replace("(clear b1)", "(shiny b1)", 1).encode(),
                        "text/plain")
    payload = refused(client.post("/api/models", files=files), 400)
    assert "shiny" in payload["message"]
    location = payload["location"]
    line = problem.splitlines()[location["line"] - 1].replace("(clear b1)", "(shiny b1)")
    assert location["file"] == "problem.pddl"
    assert line[location["column"] - 1:].lstrip("(").startswith("shiny")


def test_binary_empty_and_missing_uploads_are_refused(client: Any) -> None:
    files = bw_files()
    files["domain"] = ("d.pddl", b"\x7fELF\x00\x01\x02" * 50, "application/octet-stream")
    assert "binary" in refused(client.post("/api/models", files=files), 400)["message"]
    files["domain"] = ("d.pddl", b"\xff\xfe(define", "text/plain")
    assert "UTF-8" in refused(client.post("/api/models", files=files), 400)["message"]
    files["domain"] = ("d.pddl", b"   \n", "text/plain")
    assert "empty" in refused(client.post("/api/models", files=files), 400)["message"]
    only_problem = {"problem": bw_files()["problem"]}
    assert "domain" in refused(client.post("/api/models", files=only_problem), 400)["message"]


def test_oversized_file_and_body_are_refused(client: Any) -> None:
    files = bw_files()
    files["plan"] = ("plan.txt", b"; " + b"x" * 60_000 + b"\n", "text/plain")  # > 50 kB
    assert refused(client.post("/api/models", files=files), 413)["error"] == "too_large"
    files["plan"] = ("plan.txt", b"; " + b"x" * 300_000 + b"\n", "text/plain")  # > body
    assert client.post("/api/models", files=files).status_code == 413


def test_too_many_files_or_fields_are_refused(client: Any) -> None:
    files = [("domain", ("d.pddl", b"(define (domain d))", "text/plain"))] * 7
    assert "files" in refused(client.post("/api/models", files=files), 400)["message"]
    long_title = {"title": "x" * 5000}
    refused(client.post("/api/models", files=bw_files(), data=long_title), 400)


def test_annotations_without_human_domain_are_refused(client: Any) -> None:
    files = bw_files()
    files["annotations"] = ("a.txt", b"0.5 init (clear b1)\n", "text/plain")
    assert "human domain" in refused(client.post("/api/models", files=files), 400)["message"]


# --------------------------------------------------------------------------- plan


def test_plan_validates_and_draws_landmarks(client: Any) -> None:
    payload = ok(client.get("/api/plan", params={"model": "fetch"}))
    assert payload["status"] == "solved" and payload["validation"]["valid"] is True
    assert payload["landmarks"]["landmarks"]
    page = client.get("/plan", params={"model": "fetch"}, headers=HTML)
    assert page.status_code == 200 and "<svg" in page.text


def test_plan_of_the_models_plan_file_is_validated(client: Any) -> None:
    payload = ok(client.get("/api/plan", params={"model": "usar"}))
    assert payload["validated"] == "the model's plan file" and payload["validation"]["valid"]


def test_plan_budget_exhausted(client: Any) -> None:
    payload = ok(client.get("/api/plan", params={"model": "blocksworld", "max_nodes": 1}))
    assert payload["status"] == "budget_exhausted" and payload["verified"] is False


def test_probabilistic_model_is_bad_input_for_the_planner(client: Any) -> None:
    payload = refused(client.get("/api/plan", params={"model": "airport"}), 400)
    assert payload["location"]["file"] == "domain.pddl"


@pytest.mark.parametrize("query", [{"model": "nope"}, {"model": "../../etc/passwd"},
                                   {"model": "/etc/passwd"}])
def test_unknown_models_and_paths_are_404(client: Any, query: dict[str, str]) -> None:
    refused(client.get("/api/plan", params=query), 404)


@pytest.mark.parametrize("query", [{"max_seconds": "-1"}, {"max_nodes": "0"},
                                   {"max_seconds": "abc"}, {"model": "x" * 200}])
def test_bad_parameters_are_422(client: Any, query: dict[str, str]) -> None:
    refused(client.get("/api/plan", params=query), 422)


# --------------------------------------------------------------------------- explain


def test_explain_matches_the_library(client: Any) -> None:
    from xaip.reconcile import explain
    from xaip.reconcile.registry import fetch_mrp

    payload = ok(client.get("/api/explain", params={"model": "fetch", "type": "mce"}))
    direct = explain(fetch_mrp(), "mce").to_dict()
    assert payload["edits"] == direct["edits"] and payload["verified"] is True
    assert payload["expected_plan"] == direct["expected_plan"]


def test_veto_corrects_the_robot_and_explains_again(client: Any) -> None:
    first = ok(client.get("/api/explain", params={"model": "fetch"}))
    dialogue = ok(client.get("/api/explain", params={"model": "fetch", "veto": 1}))
    assert dialogue["type"] == "dialogue" and len(dialogue["rounds"]) == 2
    assert dialogue["rounds"][0]["vetoed"] == first["edits"][0]["text"]
    new = dialogue["rounds"][1]["explanation"]["edits"]
    assert new and new != first["edits"]
    page = client.get("/explain", params={"model": "fetch", "veto": 1}, headers=HTML)
    assert "corrected model" in page.text and new[0]["text"] in page.text
    changes = page.text[page.text.index('id="corrected-changes"'):]
    assert '<span class="remove">-        (hand-tucked)</span>' in changes  # the vetoed edit
    refused(client.get("/api/explain", params={"model": "fetch", "veto": 9}), 400)
    refused(client.get("/api/explain", params={"model": "fetch", "veto": 0}), 400)


def test_why_not_this_plan(client: Any) -> None:
    foil = "(pick-up b1 loc1)\n(move loc1 loc2)\n(put-down b1 loc2)"
    payload = ok(client.get("/api/explain", params={"model": "fetch", "type": "contrastive",
                                                    "foil": foil}))
    assert payload["type"] == "contrastive" and payload["edits"]
    assert payload["foils"]
    bad = refused(client.get("/api/explain", params={"model": "fetch", "type": "contrastive",
                                                     "foil": "(fly loc1)"}), 400)
    assert "fly" in bad["message"]
    refused(client.get("/api/explain", params={"model": "fetch", "type": "contrastive"}), 400)


def test_conditional_explanation_as_questions_and_answers(client: Any) -> None:
    payload = ok(client.get("/api/explain", params={"model": "usar", "type": "conditional"}))
    assert payload["policy"]["node"] in ("tell", "ask") and payload["verified"] is True
    page = client.get("/explain", params={"model": "usar", "type": "conditional"},
                      headers=HTML)
    assert "Robot asks" in page.text and "answers=y" in page.text
    done = client.get("/explain", params={"model": "usar", "type": "conditional",
                                          "answers": "yy"}, headers=HTML)
    assert done.status_code == 200 and "now explained" in done.text
    refused(client.get("/api/explain", params={"model": "usar", "type": "conditional",
                                               "answers": "yyyyyyyy"}), 400)
    refused(client.get("/api/explain", params={"model": "usar", "type": "conditional",
                                               "answers": "maybe"}), 422)


def test_explain_bad_input(client: Any) -> None:
    refused(client.get("/api/explain", params={"model": "blocksworld"}), 400)
    refused(client.get("/api/explain", params={"model": "fetch", "type": "conditional"}), 400)
    refused(client.get("/api/explain", params={"model": "fetch", "type": "what"}), 400)


def test_explain_budget_exhausted(client: Any) -> None:
    payload = ok(client.get("/api/explain", params={"model": "fetch", "max_nodes": 1}))
    assert payload["status"] == "budget_exhausted" and payload["verified"] is False
    page = client.get("/explain", params={"model": "fetch", "max_nodes": 1}, headers=HTML)
    assert page.status_code == 200 and "budget exhausted" in page.text


# --------------------------------------------------------------------------- summaries


def test_summary_and_drill_down(client: Any) -> None:
    payload = ok(client.get("/api/summaries"))
    assert payload["verified"] is True and "station 1" in payload["summary"]
    drill = ok(client.get("/api/summaries", params={"source": "(at station1)",
                                                    "target": "goal"}))["drill"]
    assert "(at the-airport)" in drill["common_landmarks"] and drill["verified"]
    page = client.get("/summaries", params={"source": "(at station1)"}, headers=HTML)
    assert "to where?" in page.text and "<svg" in page.text
    refused(client.get("/api/summaries", params={"source": "(at mars)", "target": "goal"}),
            400)
    exhausted = ok(client.get("/api/summaries", params={"max_nodes": 1}))
    assert exhausted["status"] == "budget_exhausted" and exhausted["verified"] is False


# --------------------------------------------------------------------------- concepts, explicable


def test_concepts_answer_with_picture(client: Any) -> None:
    payload = ok(client.get("/api/concepts"))
    assert payload["verified"] is True and "switch-on" in payload["concepts"]
    assert "data:image/png;base64," in client.get("/concepts", headers=HTML).text
    assert ok(client.get("/api/concepts", params={"max_nodes": 1}))["status"] == \
        "budget_exhausted"
    refused(client.get("/api/concepts", params={"env": "chess"}), 400)
    refused(client.get("/api/concepts", params={"level": "../switch-1"}), 400)


def test_explicable_plan_beside_expected(client: Any) -> None:
    payload = ok(client.get("/api/explicable"))
    assert payload["verified"] is True and payload["nearest_expected"]
    assert ok(client.get("/api/explicable", params={"max_nodes": 1}))["status"] == \
        "budget_exhausted"
    refused(client.get("/api/explicable", params={"distance": "vibes"}), 400)


# --------------------------------------------------------------------------- capabilities


def wait_for(client: Any, run: str, seconds: float = 60) -> dict[str, Any]:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        payload = ok(client.get(f"/api/capabilities/runs/{run}"))
        if payload["status"] != "running":
            return payload
        time.sleep(0.1)
    raise AssertionError(f"run {run} did not finish")


def assert_capability_picture(client: Any, run_id: str, png: bytes) -> None:
    """The workbench's capability picture is the CLI's (``discover --pictures``): the
    capability's sheet drawn with xaip.figures -- titled, legend, named cells -- and at
    least twice the old hand-drawn 120x96 state picture in each direction."""
    from xaip.render.capabilities import capability_png
    from xaip.vocab.registry import get_game

    run = client.app.state.bench.extras["discoveries"].get(run_id)
    width = int.from_bytes(png[16:20], "big")
    height = int.from_bytes(png[20:24], "big")
    assert width >= 240 and height >= 192
    capability = run.result.model.capabilities[0]
    assert png == capability_png(run.simulator, capability, "before",
                                 get_game("zelda").vocabulary())


def test_discovery_runs_and_reloads_from_its_store(tmp_path: Path) -> None:
    from tests.web.conftest import TestClient

    app_settings = settings(tmp_path)
    with TestClient(create_app(app_settings)) as client:
        started = ok(client.post("/api/capabilities/runs",
                                 data={"game": "zelda", "grid": "3x4", "seed": 1}))
        done = wait_for(client, started["run"])
        assert done["status"] == "finished" and done["result"]["verified"] is True
        assert done["result"]["capabilities"] and done["result"]["pddl"].startswith("(define")
        assert done["events"][-1]["phase"] == "done"
        picture = client.get(f"/capabilities/runs/{started['run']}/pictures/0/before.png")
        assert picture.status_code == 200 and picture.content[:8] == b"\x89PNG\r\n\x1a\n"
        assert_capability_picture(client, started["run"], picture.content)
        page = client.get(f"/capabilities/runs/{started['run']}", headers=HTML)
        assert "capability-card" in page.text
    with TestClient(create_app(app_settings)) as later:  # a new server, the same runs
        listed = ok(later.get("/api/capabilities/runs"))["runs"]
        assert [r["run"] for r in listed] == [started["run"]]
        reloaded = wait_for(later, started["run"])
        assert reloaded["resumed"] is True
        assert reloaded["result"]["stats"]["cached"] == reloaded["result"]["queries"]
        assert reloaded["result"]["capabilities"] == done["result"]["capabilities"]


def test_discovery_progress_as_server_sent_events(client: Any) -> None:
    started = ok(client.post("/api/capabilities/runs", data={"seed": 4}))
    with client.stream("GET", f"/api/capabilities/runs/{started['run']}/events") as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        body = "".join(stream.iter_text())
    events = [block for block in body.split("\n\n") if block.strip()]
    assert events[-1].startswith("event: done")
    assert any(e.startswith("event: progress") for e in events[:-1])
    done = json.loads(events[-1].split("data: ", 1)[1])
    assert done["status"] == "finished" and done["result"]["capabilities"]


def test_interrupted_run_is_listed_and_resumes(tmp_path: Path) -> None:
    from tests.web.conftest import TestClient
    from xaip.runtime import RunStore
    from xaip.web.discoveries import INDEX_KIND, params

    app_settings = settings(tmp_path)
    wanted = params("zelda", "3x4", 2, "search")
    app_settings.runs_dir.mkdir(parents=True)
    with RunStore(app_settings.runs_dir / "index.sqlite", INDEX_KIND, {"workbench": 1}) as ix:
        ix.put("runs", wanted.id, {"params": wanted.to_dict(), "state": "running",
                                   "started": 1.0, "payload": None, "error": ""})
    with TestClient(create_app(app_settings)) as client:
        assert ok(client.get("/api/capabilities/runs"))["runs"][0]["state"] == "interrupted"
        assert wait_for(client, wanted.id)["status"] == "finished"


def test_discovery_bad_input(client: Any) -> None:
    refused(client.post("/api/capabilities/runs", data={"game": "chess"}), 400)
    refused(client.post("/api/capabilities/runs", data={"grid": "20x20"}), 400)
    refused(client.post("/api/capabilities/runs", data={"grid": "axb"}), 400)
    refused(client.post("/api/capabilities/runs", data={"seed": "-3"}), 422)
    refused(client.get("/api/capabilities/runs/d-000000000000"), 404)
    assert client.get("/capabilities/runs/x/pictures/0/before.png").status_code == 404


def test_discovery_budget_ends_the_run(tmp_path: Path) -> None:
    from tests.web.conftest import TestClient

    with TestClient(create_app(settings(tmp_path, discovery_seconds=0.001))) as client:
        started = ok(client.post("/api/capabilities/runs", data={"seed": 3}))
        done = wait_for(client, started["run"])
        assert done["status"] == "budget_exhausted"
        assert done["result"]["verified"] is False


# --------------------------------------------------------------------------- the rest


def test_every_api_path_is_in_the_openapi_schema(client: Any) -> None:
    schema = ok(client.get("/api/openapi.json"))
    paths = set(schema["paths"])
    for path in ("/api/models", "/api/models/{model_id}", "/api/plan", "/api/explain",
                 "/api/summaries", "/api/concepts", "/api/explicable",
                 "/api/capabilities/runs", "/api/capabilities/runs/{run_id}",
                 "/api/explainers"):
        assert path in paths
    assert all(p.startswith("/api/") for p in paths)  # pages are not in the API
    upload = schema["paths"]["/api/models"]["post"]["requestBody"]["content"]
    assert "multipart/form-data" in upload


def test_explainers_lists_the_registry(client: Any) -> None:
    from xaip.contract import explainers

    names = [e["name"] for e in ok(client.get("/api/explainers"))["explainers"]]
    assert names == [spec.name for spec in explainers()]
    home = client.get("/", headers=HTML).text  # the home page lists the same registry
    assert all(f"<td><code>{name}</code></td>" in home.replace(".<wbr>", ".") for name in names)


@pytest.mark.parametrize("path", ["/", "/models", "/models/usar", "/plan", "/explain",
                                  "/summaries", "/capabilities", "/concepts", "/explicable"])
def test_pages_render(client: Any, path: str) -> None:
    page = client.get(path, headers=HTML)
    assert page.status_code == 200 and "<main" in page.text
    assert page.headers["content-security-policy"].startswith("default-src 'self'")


@pytest.mark.parametrize("path", ["/plan", "/explain", "/summaries", "/concepts",
                                  "/explicable", "/explainers/reconcile.mce"])
def test_result_pages_badge_their_status(client: Any, path: str) -> None:
    """Every result page shows the payload's status in the one badge of
    ``templates/_macros.html``, classed from the payload (verified here)."""
    page = client.get(path, headers=HTML)
    assert page.status_code == 200
    assert '<span class="status verified">' in page.text and ", verified</span>" in page.text
    starved = client.get(path, params={"max_nodes": 1}, headers=HTML)
    assert starved.status_code == 200
    assert "budget exhausted" in starved.text or "budget_exhausted" in starved.text
    assert '<span class="status verified">' not in starved.text


def test_errors_are_pages_for_browsers_and_json_for_scripts(client: Any) -> None:
    page = client.get("/no/such/page", headers=HTML)
    assert page.status_code == 404 and "Not found" in page.text
    assert json.loads(client.get("/no/such/page").text)["error"] == "not_found"
    assert client.delete("/api/plan").status_code == 405
    swapped = client.get("/plan", params={"model": "nope"}, headers={"HX-Request": "true"})
    assert swapped.status_code == 404 and "<main" in swapped.text  # htmx swaps the page in


def test_static_files_are_vendored(client: Any) -> None:
    htmx = client.get("/static/htmx.min.js")
    assert htmx.status_code == 200 and "htmx" in htmx.text[:200]
    assert "Zero-Clause BSD" in client.get("/static/htmx-LICENSE.txt").text
    assert client.get("/static/../app.py").status_code == 404


def test_uploaded_text_is_escaped_in_pages(client: Any) -> None:
    files = bw_files()
    problem = (DOMAINS / "blocksworld/problem-5.pddl").read_text()
    files["problem"] = ("p.pddl", ("; <script>alert(2)</script>\n" + problem).encode(),
                        "text/plain")
    model = ok(client.post("/api/models", files=files,
                           data={"title": "<img src=x onerror=alert(1)>"}))["model"]
    for path in ("/models", f"/models/{model['id']}"):
        page = client.get(path, headers=HTML).text
        assert "<img src=x" not in page and "<script>alert" not in page
        assert "&lt;" in page


def test_every_registered_explainer_has_a_page(client: Any) -> None:
    summary = ok(client.get("/api/explainers/policy-summary"))
    assert summary["status"] == "found" and summary["verified"] is True
    page = client.get("/explainers/policy-summary", headers=HTML)
    assert page.status_code == 200 and "<svg" in page.text  # the summary's picture
    mce = client.get("/explainers/reconcile.mce", headers=HTML)
    assert "hand-tucked" in mce.text
    exhausted = ok(client.get("/api/explainers/reconcile.mce", params={"max_nodes": 1}))
    assert exhausted["status"] == "budget_exhausted" and exhausted["verified"] is False
    refused(client.get("/api/explainers/no.such"), 404)
    listing = client.get("/explainers", headers=HTML).text
    assert "reconcile.mme" in listing and "policy-drill-down" in listing
