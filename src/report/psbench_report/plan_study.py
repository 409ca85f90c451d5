"""The planning study (figure 10 and the section "Planning a cluster"): `psbench model plan`'s answer for the
sweep's workload on the report's platform within a node budget: its recommendation, its bottleneck in words, and
its predicted totals around the recommendation (docs/formats.md#plan-json), all from the model, none computed here."""

from dataclasses import dataclass

from .model import ModelClient, ModelUnavailable
from .predictions import reference_series, workload_request

#: The node budget the report plans for: 64 nodes, a rack's worth (2,048 ranks of Blue Waters' 32 a node), or
#: fewer where the platform has fewer (`this` is one node, rack:N has N).
PLAN_NODES = 64


def plan_nodes(platform: str) -> int:
    """The budget on PLATFORM: PLAN_NODES, 1 on `this`, at most N on rack:N:..."""
    if platform == "this":
        return 1
    fields = platform.split(":")
    if fields[0] == "rack" and len(fields) > 1 and fields[1].isdigit():
        return max(1, min(PLAN_NODES, int(fields[1])))
    return PLAN_NODES


@dataclass
class PlanStudy:
    """The plan's JSON (None without one) on a platform within a node budget; `failure` says why it is missing."""

    platform: str
    nodes: int
    plan: dict | None = None
    failure: str | None = None

    @property
    def recommendation(self) -> dict | None:
        """The recommended configuration, or None."""
        return self.plan["recommendation"] if self.plan else None

    def surface(self) -> dict:
        """{servers: [(workers, predicted total s)]} at the recommendation's I/O mode and ranks per node."""
        found = {}
        for point in (self.plan or {}).get("surface", []):
            found.setdefault(point["servers"], []).append((point["workers"], point["total_s"]))
        return found


def plan_study(client: ModelClient, sweep, platform: str) -> PlanStudy:
    """Asks `psbench model plan` about the sweep's reference workload (the study's series) within plan_nodes."""
    study = PlanStudy(platform, plan_nodes(platform))
    try:
        workload = workload_request(reference_series(sweep), "sequential", "whole", platform, (1,), 1, "mva")
        study.plan = client.plan(workload, study.nodes)
    except ModelUnavailable as why:
        study.failure = str(why)
    return study
