"""surface: the contract's resources, prompt and completion (docs/workload.md §7) as a client uses them, one method
per point, each call an arrival of its own: resources/read of product://{id} (the API service behind it),
prompts/get of cart_summary (Redis behind it) and completion/complete of its user_id as a user types a prefix
(Redis's sorted set behind it). One caller in a persistent session, one call after another, as a person at a
client is: its throughput is 1 / latency (the load model's by design), so each point is ranked on the all-calls
p50 as well as on CPU per call. A server whose SDK lacks a method says so in its manifest
(`unsupported.resources`, `prompts`, `completion`) and is listed as not offering that point."""

from __future__ import annotations

from mcpbench.dimensions.base import Dimension, Point, Question, dimension_workload
from mcpbench.results.model import DimensionSection
from mcpbench.workload import surface
from mcpbench.workload.dimension_tools import ToolSettings
from mcpbench.workload.file import Call, ReplyCheck, Workload, WorkloadFile

# The values each point's call varies over, so no server answers one cached reply: products 1000-1999, users
# user-01000 … user-01999 (every one has a cart), and the hundred prefixes user-000 … user-099 a user typing an
# id passes through (each matches 99 or 100 users, of which the first 10 are answered).
PRODUCT = "1{iteration%1000:03}"
USER = "user-01{iteration%1000:03}"
PREFIX = "user-0{iteration%100:02}"


def method_workload(label: str, call: Call) -> Workload:
    spec = WorkloadFile(description=f"{call.method} of the contract's surface (docs/workload.md §7)", call=[call])
    return dimension_workload(f"surface:{label}", spec)


READ = Call(method="resources/read", params=surface.read_params(surface.product_uri(PRODUCT)), arrival=True,
            check=[ReplyCheck(pointer="/sku"), ReplyCheck(pointer="/price", above=0)])
PROMPT = Call(method="prompts/get", params=surface.prompt_params(USER), arrival=True,
              check=[ReplyCheck(pointer="/messages", length=1)])
COMPLETE = Call(method="completion/complete", params=surface.complete_params(PREFIX), arrival=True,
                check=[ReplyCheck(pointer="/completion/values", length=surface.COMPLETIONS_AT_MOST)])

SETTINGS = ToolSettings(dimension_tools=True)
POINTS = (
    Point("read", "resources/read of a product", SETTINGS, method_workload("read", READ),
          opt_out=surface.RESOURCES),
    Point("prompt", "prompts/get cart_summary", SETTINGS, method_workload("prompt", PROMPT), opt_out=surface.PROMPTS),
    Point("complete", "completion/complete user_id", SETTINGS, method_workload("complete", COMPLETE),
          opt_out=surface.COMPLETION),
)

DIMENSION = Dimension(
    "surface", "resources, prompts and completions", "persistent", "1", 0.0, points=POINTS,
    asks=(Question("Most resource reads per CPU-second", "cpu_per_call", "reads per CPU-second",
                   point=POINTS[0].display),
          Question("Lowest completion latency", "p50_all_calls", "ms, p50 of all calls", point=POINTS[2].display)),
    section=DimensionSection(columns=[], tables=[], latency_ranking=True, changes=False),
    not_offered="its SDK serves no resources, prompts or completions",
    order=25)
