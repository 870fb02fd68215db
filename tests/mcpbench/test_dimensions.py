"""The dimensions seam (mcpbench/dimensions/): the registry and a dimension added to it from outside, a manifest
opting a server out of any registered dimension by name, what a run records of a dimension (its section and the
decision page's question at its point), `mcpbench verify` naming what a server does not offer, and the one
upgrade that fills an old recorded plan from its name — which must say what the dimension's module records."""

from __future__ import annotations

import copy
import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from mcpbench import dimensions
from mcpbench.catalog.manifest import discover, load_manifest
from mcpbench.catalog.selection import select
from mcpbench.dimensions import Dimension, Point, Question
from mcpbench.experiments.dimension import chosen_points, twins
from mcpbench.experiments.verify import not_offered_checks, with_not_offered
from mcpbench.results.model import DimensionSection
from mcpbench.results.upgrades import PLANS_BY_NAME, recorded_dimension_plan, upgrade_run
from mcpbench.results.write import RunRecord
from mcpbench.workload.checks import Check
from mcpbench.workload.dimension_tools import ToolSettings
from mcpbench.workload.verify import Verify

SERVERS = Path(__file__).resolve().parents[2] / "servers"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "results"
TOOLS_LIST = FIXTURES / "20261128-162656-local-dimension"   # a tools-list run recorded before plans had sections
BUILT_IN = ("payload", "tools-list", "surface", "agent", "churn", "sessions", "abandoned", "cancellation", "progress")

TOY = Dimension("toy-echo", "fastest toy echo", "persistent", "2", 0.0,
                points=(Point("toy1", "1 toy", ToolSettings(dimension_tools=True)),
                        Point("toy2", "2 toys", ToolSettings(dimension_tools=True))),
                asks=(Question("Most toys per CPU-second at {point}", "cpu_per_call", "toys per CPU-second"),),
                section=DimensionSection(columns=["memory_rank"], tables=[], latency_ranking=False, changes=True))


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> Dimension:
    monkeypatch.setattr(dimensions, "ADDED", {})   # whatever a test registers leaves with it
    return dimensions.register(TOY)


def test_the_registry_holds_the_built_in_dimensions_in_their_order() -> None:
    assert dimensions.names() == BUILT_IN
    with pytest.raises(ValueError, match=r"^--dimension 'nope': choose payload, tools-list"):
        dimensions.dimension("nope")


def test_a_dimension_registered_from_outside_is_a_choice_and_its_name_is_its_own(toy: Dimension) -> None:
    assert dimensions.names() == (*BUILT_IN, "toy-echo") and dimensions.dimension("toy-echo") is toy
    with pytest.raises(ValueError, match="'payload' is already registered"):
        dimensions.register(dataclasses.replace(TOY, name="payload"))
    assert [p.label for p in chosen_points(toy, False, "toy2")] == ["toy2"]


def _manifest_opting_out(tmp_path: Path, unsupported: str) -> Path:
    source = (SERVERS / "go" / "mcpbench.toml").read_text()
    server = tmp_path / "go"
    server.mkdir(exist_ok=True)
    (server / "mcpbench.toml").write_text(source.replace("[server]\n", f"[server]\nunsupported = {unsupported}\n", 1))
    return server / "mcpbench.toml"


def test_a_manifest_opts_out_of_any_registered_dimension_with_its_reason(tmp_path: Path, toy: Dimension) -> None:
    path = _manifest_opting_out(tmp_path, '{ toy-echo = "no toys here", agent = "one caller is not its use" }')
    (go,) = [s for s in load_manifest(path) if s.name == "go"]
    assert go.info.unsupported == {"toy-echo": "no toys here", "agent": "one caller is not its use"}
    # not measured in those: every point's twin listed with the reason, never started; the others measured
    measured = twins([go], toy, toy.points)
    assert [(t.name, t.unavailable) for t in measured] == [
        ("go-toy1", "it does not offer the toy-echo dimension: no toys here"),
        ("go-toy2", "it does not offer the toy-echo dimension: no toys here")]
    (alone,) = twins([go], dimensions.dimension("agent"), ())   # a dimension without points: the server itself
    assert alone.name == "go" and alone.unavailable == "it does not offer the agent dimension: one caller is not its use"
    payload = dimensions.dimension("payload")
    assert all(t.unavailable is None for t in twins([go], payload, payload.points))


def test_a_manifest_naming_no_registered_dimension_is_one_line(tmp_path: Path) -> None:
    _manifest_opting_out(tmp_path, '{ toy-echo = "no toys here" }')   # not registered here
    found = discover(tmp_path)
    (error,) = found.errors
    assert "'toy-echo': no such dimension or point" in str(error) and "\n" not in str(error)
    _manifest_opting_out(tmp_path, '{ progress = "" }')
    (error,) = discover(tmp_path).errors
    assert "server.unsupported.progress" in str(error) and "\n" not in str(error)


def test_the_repositorys_opt_outs_still_read() -> None:
    opted = {s.name: set(s.info.unsupported) for s in discover(SERVERS).servers if s.info.unsupported}
    assert opted and all(keys <= {"progress", "abandoned", "completion"} for keys in opted.values()), opted
    assert {name for name, keys in opted.items() if "progress" in keys} == {"go-mcp-go", "kotlin", "micronaut"}
    # SESSIONS=1 switches sessions on in every SDK stack but micronaut's (its extension serves HTTP stateless only);
    # baseline has no session layer at all
    assert {name for name, keys in opted.items() if "abandoned" in keys} == {"micronaut", "baseline"}
    # the surface's completion: the Kotlin SDK has no completion API (a point's opt-out, not a dimension's)
    assert {name for name, keys in opted.items() if "completion" in keys} == {"kotlin"}


def test_verify_names_each_dimension_a_server_does_not_offer_and_fails_nothing_for_it() -> None:
    (go,) = select(discover(SERVERS), ["go"])
    assert not_offered_checks(go) == []
    cannot = dataclasses.replace(go, info=go.info.model_copy(update={"unsupported": {"progress": "no SSE", "agent": "x"}}))
    checks = not_offered_checks(cannot)
    assert [c.model_dump() for c in checks] == [
        {"name": "dimension agent", "status": "warn", "reason": "not offered (its manifest): x"},
        {"name": "dimension progress", "status": "warn", "reason": "not offered (its manifest): no SSE"}]
    passed = Verify(status="pass", checks=[Check(name="initialize", status="pass", reason="")])
    assert with_not_offered(passed, checks) == Verify(status="warn", checks=[*passed.checks, *checks])
    failed = Verify(status="fail", checks=[])
    assert with_not_offered(failed, checks).status == "fail" and with_not_offered(passed, []) is passed


@pytest.mark.parametrize("name, points, modes, vus, question, point", [
    ("payload", ["1 KiB", "1 MiB"], ["persistent"], [10], "Most 1 MiB replies per CPU-second", "1 MiB"),
    ("tools-list", ["0 extra tools", "100 extra tools"], ["persistent"], [10],
     "Most calls per CPU-second with 100 extra tools registered", "100 extra tools"),
    ("agent", [], ["persistent"], [1], "Lowest latency for one agent", "persistent · 1 VUs"),
    ("churn", [], ["session", "persistent"], [20, 10], "Most sessions per CPU-second (connect, one call, disconnect)",
     "session · 10 VUs"),
    ("sessions", [], ["persistent"], [1, 20], "Smallest memory holding open sessions (persistent · 20 VUs)",
     "persistent · 20 VUs"),
    ("progress", ["1 notification", "100 notifications"], ["persistent"], [10],
     "Most streamed calls per CPU-second (100 notifications each)", "100 notifications"),
])
def test_a_run_records_the_decision_pages_question_at_its_point_and_the_upgrade_says_the_same(
        name, points, modes, vus, question, point) -> None:
    plan = dimensions.dimension(name).plan(points, modes, "closed", vus, None)
    assert [(asked.question, asked.point) for asked in plan.decisions] == [(question, point)]
    # a plan recorded before these fields existed reads as the module records it now
    old = {"schema": 4, "config": {"modes": modes, "vus": vus, "kind": "closed", "rates": None,
                                   "dimension": {"name": name, "question": plan.question, "points": points}}}
    assert recorded_dimension_plan(old)["config"]["dimension"] == plan.model_dump()


def test_a_dimension_without_a_point_to_ask_at_records_no_question() -> None:
    churn = dimensions.dimension("churn")
    assert churn.plan([], ["persistent"], "closed", [10], None).decisions == []   # no session-mode load
    silent = dataclasses.replace(TOY, asks=())   # a dimension that asks the decision page nothing
    assert silent.plan(["1 toy"], ["persistent"], "closed", [2], None).decisions == []


def test_the_upgrade_fills_an_old_recorded_plan_from_its_name_and_only_there(tmp_path: Path) -> None:
    recorded = json.loads((TOOLS_LIST / "run.json").read_text())
    assert set(recorded["config"]["dimension"]) == {"name", "question", "points"}   # as written then
    plan = upgrade_run(copy.deepcopy(recorded), TOOLS_LIST / "run.json")["config"]["dimension"]
    assert plan["decisions"] == [{"question": "Most calls per CPU-second with 10,000 extra tools registered",
                                  "figure": "cpu_per_call", "point": "10,000 extra tools",
                                  "unit": "calls per CPU-second"}]
    assert plan["section"] == {"columns": ["tools_list"], "tables": [], "latency_ranking": False, "changes": True}
    # a name the upgrade does not know asks nothing and shows every point's figures and their changes
    recorded["config"]["dimension"]["name"] = "retired"
    plan = upgrade_run(recorded, TOOLS_LIST / "run.json")["config"]["dimension"]
    assert plan["decisions"] == [] and plan["section"]["changes"] and plan["section"]["columns"] == []
    # a plan that has its fields is read as it is
    again = upgrade_run({**recorded, "config": {**recorded["config"], "dimension": {**plan, "question": "q"}}}, Path("r"))
    assert again["config"]["dimension"]["question"] == "q"
    # every dimension that ran before plans recorded their section; one added since records its own
    assert set(PLANS_BY_NAME) == set(BUILT_IN) - {"abandoned", "cancellation", "surface"}
    # a plan that recorded its one question as `decision` reads as a list of it
    one = {**plan, "decision": plan["decisions"], "section": plan["section"]}
    one["decision"] = {"question": "q", "figure": "cpu_per_call", "point": "p", "unit": "u"}
    del one["decisions"]
    upgraded = upgrade_run({**recorded, "config": {**recorded["config"], "dimension": one}}, Path("r"))
    assert upgraded["config"]["dimension"]["decisions"] == [one["decision"]]


def test_a_run_recorded_without_the_fields_reopens_to_be_resumed_or_marked(tmp_path: Path) -> None:
    copy_dir = tmp_path / TOOLS_LIST.name
    shutil.copytree(TOOLS_LIST, copy_dir)
    plan = RunRecord.reopen(copy_dir).run.config.dimension
    assert [asked.point for asked in plan.decisions] == ["10,000 extra tools"]
    assert plan.section.columns == ["tools_list"]


def test_a_question_named_for_its_point_is_asked_there_or_not_at_all() -> None:
    surface = dimensions.dimension("surface")
    every = [point.display for point in surface.points]
    asked = surface.plan(every, ["persistent"], "closed", [1], None).decisions
    assert [(d.question, d.point) for d in asked] == [
        ("Most resource reads per CPU-second", "resources/read of a product"),
        ("Lowest completion latency", "completion/complete user_id")]
    # `--points complete`: the completion's question alone, never the resource reads' asked of completions
    alone = surface.plan(["completion/complete user_id"], ["persistent"], "closed", [1], None).decisions
    assert [d.question for d in alone] == ["Lowest completion latency"]
    assert surface.plan(["prompts/get cart_summary"], ["persistent"], "closed", [1], None).decisions == []
