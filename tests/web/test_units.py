"""The workbench's small parts on their own: error locations, the work pool, settings and
the ``xaip serve`` command (which must work without the web extra)."""

from __future__ import annotations

import socket
import threading
from typing import Any

import anyio
import pytest

from xaip.errors import BudgetExhausted, InputError, PDDLSyntaxError
from xaip.web.problems import WebProblem, from_error, locate
from xaip.web.settings import Settings
from xaip.web.work import Unfinished, WorkPool

SOURCE = "(define (domain d)\n  ; predicate shiny is a comment here\n  (:predicates (shiny ?x))\n)"


def test_locate_finds_the_quoted_name_outside_comments() -> None:
    found = locate("undeclared predicate 'shiny' in '(shiny a)'", {"domain.pddl": SOURCE})
    assert found is not None and (found.line, found.column, found.exact) == (3, 17, False)


def test_locate_reads_a_file_line_prefix() -> None:
    found = locate("annotations.txt:2: unknown kind 'x'", {"annotations.txt": "a\nb\n"})
    assert found is not None and (found.file, found.line, found.exact) == (
        "annotations.txt", 2, False)


def test_locate_gives_up_without_a_match() -> None:
    assert locate("something 'absent' happened", {"domain.pddl": SOURCE}) is None


def test_syntax_error_excerpt_marks_the_token() -> None:
    problem = from_error(PDDLSyntaxError("domain.pddl", 3, 17, "bad"), {"domain.pddl": SOURCE})
    assert problem.status_code == 400 and problem.kind == "pddl_syntax"
    marked = [row for row in problem.excerpt() if row["marked"]]
    assert len(marked) == 1 and marked[0]["mark"] == "shiny"


def test_unexpected_errors_are_500_without_details() -> None:
    problem = from_error(KeyError("secret/path"))
    assert problem.status_code == 500 and "secret" not in problem.message


def test_settings_clamp_what_a_request_asks_for() -> None:
    limits = Settings(max_seconds=5, max_nodes=100)
    assert limits.budget(60, 10**9).max_seconds == 5 and limits.budget(60, 10**9).max_nodes == 100
    assert limits.budget(1, 7).max_seconds == 1 and limits.budget(1, 7).max_nodes == 7
    assert limits.budget(None, None).max_nodes == 100


def test_work_pool_turns_budget_errors_into_unfinished() -> None:
    def exhausted() -> None:
        raise BudgetExhausted("out", phase="grounding")

    result = anyio.run(WorkPool(1, 0).run, exhausted)
    assert isinstance(result, Unfinished) and result.to_dict()["phase"] == "grounding"


def test_work_pool_refuses_beyond_its_capacity() -> None:
    pool = WorkPool(1, 0)
    release = threading.Event()
    outcomes: list[Any] = []

    async def main() -> None:
        async def slow() -> None:
            outcomes.append(await pool.run(release.wait, 10))

        async with anyio.create_task_group() as group:
            group.start_soon(slow)
            await anyio.sleep(0.05)
            with pytest.raises(WebProblem) as refused:
                await pool.run(lambda: None)
            outcomes.append(refused.value.status_code)
            release.set()

    anyio.run(main)
    assert 503 in outcomes and True in outcomes and pool.pending == 0


def test_input_errors_pass_through_the_pool() -> None:
    def bad() -> None:
        raise InputError("nope")

    with pytest.raises(InputError):
        anyio.run(WorkPool(1, 0).run, bad)


# --------------------------------------------------------------------------- xaip serve


def test_serve_without_the_extra_exits_2(monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.util

    from xaip.cli import main

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "fastapi" else real(name, *a))
    assert main(["serve"]) == 2
    assert "install xaip[web]" in capsys.readouterr().err


def test_serve_refuses_a_taken_port(capsys: pytest.CaptureFixture[str]) -> None:
    from xaip.cli import main

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    assert "cannot listen" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["serve", "--port", "70000"], ["serve", "--workers", "0"],
                                  ["serve", "--host", "no-such-host.invalid"]])
def test_serve_bad_options_exit_2(argv: list[str]) -> None:
    from xaip.cli import main

    assert main(argv) == 2


def test_command_module_does_not_import_fastapi() -> None:
    import subprocess
    import sys

    code = ("import sys, xaip.web.command, xaip.cli; xaip.cli.build_parser(); "
            "sys.exit(1 if 'fastapi' in sys.modules else 0)")
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_pictures_without_graphviz_use_our_own_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    import xaip.render.dot as dot
    from xaip.web.pages import svg_of

    graph = dot.Graph(title="t")
    graph.node("a", "(at <home>)")
    graph.node("b", "(at gate)")
    graph.edge("a", "b")
    monkeypatch.setattr(dot.shutil, "which", lambda name: None)
    picture = str(svg_of(graph.to_dot(), 5))
    assert picture.startswith("<svg") and "&lt;home&gt;" in picture and "<home>" not in picture


def test_a_run_follower_gets_every_event_after_the_list_is_full() -> None:
    """The run keeps its last ``KEPT_EVENTS`` events; a follower (the server-sent events)
    must still get each new one once, also after the list stopped growing."""
    from xaip.web.discoveries import KEPT_EVENTS, Run, params

    run = Run(params("zelda", "3x4", 1, "search"))
    received: list[int] = []
    seen = 0
    for batch in range(6):
        for n in range(batch * 15, (batch + 1) * 15):
            run.report({"n": n})
        fresh, seen = run.events_since(seen)
        received += [event["n"] for event in fresh]
    assert received == list(range(90)) and len(run.events) == KEPT_EVENTS
    for n in range(90, 90 + KEPT_EVENTS + 5):  # more than are kept between two reads
        run.report({"n": n})
    fresh, seen = run.events_since(seen)
    assert [e["n"] for e in fresh] == list(range(95, 135)) and seen == 135
    assert run.events_since(seen) == ([], 135)


def test_a_model_parses_each_file_once_also_from_many_threads(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Requests on one model share its parsed files: one parse per file, whichever of
    several worker threads asks first, and the same objects for every later request."""
    from concurrent.futures import ThreadPoolExecutor

    import xaip.planning.pddl as pddl
    from xaip.web.models import ModelStore

    calls: list[str] = []
    real = pddl.parse_domain

    def counted(text: str, name: str = "") -> Any:
        calls.append(name)
        return real(text, name)

    monkeypatch.setattr(pddl, "parse_domain", counted)
    model = ModelStore(2).get("fetch")
    with ThreadPoolExecutor(8) as pool:
        found = list(pool.map(lambda _: (model.domain(), model.problem(),
                                         model.domain("human_domain"), model.human_task()),
                              range(32)))
    assert all(f[:3] == found[0][:3] for f in found) and found[0][3] is None
    assert len({id(f[1]) for f in found}) <= 8  # at most one parse per racing thread
    assert model.domain() is model.domain() and model.problem() is model.problem()
    assert sorted(set(calls)) == ["domain.pddl", "human-domain.pddl"]
    assert len(calls) <= 16  # not one per request (32 requests parse the domain 64 times)


def test_explanation_types_in_words_on_the_explain_page(client: Any) -> None:
    """The page names the type ('minimally complete (MCE)'), never the bare abbreviation,
    in its heading, its type menu and its comparison links (issue 23: plain words)."""
    from tests.web.conftest import HTML
    from xaip.web.wording import explanation_type

    assert explanation_type("mce") == "minimally complete (MCE)"
    assert explanation_type("conformant") == "conformant (for an uncertain model)"
    page = client.get("/explain?model=fetch&type=mce", headers=HTML).text
    assert "Explanation: minimally complete (MCE)" in page
    assert '<option value="mme">minimally monotonic (MME)</option>' in page
    assert ">minimally monotonic (MME)</a>" in page and "MCE with MME" not in page
