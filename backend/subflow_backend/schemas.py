"""API schemas (pydantic), separate from the ORM classes in :mod:`models`.

Families follow the ``XCreate / XPublic / XsPublic {data, count}`` pattern. A
scenario's create/update body is the scenario document itself
(:class:`subflow.scenario.document.Scenario`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from subflow.analysis.capacity import CapacityResult
from subflow.analysis.failures import FailureReport
from subflow.analysis.planning import AllocationOverTime, RoutesOverTime
from subflow.comparison.sweeps import SweepSpec
from subflow.results.document import ResultDocument, StrategyResult
from subflow.scenario.document import Scenario
from subflow.service.agent_api import Capabilities

from subflow_backend.comparison_state import Status as ComparisonStatus  # the one list of states


class ScenarioSummary(BaseModel):
    """A scenario in a list (no document)."""

    model_config = ConfigDict(from_attributes=True)

    id: str
    project_id: str = Field(description="The project the scenario belongs to.")
    name: str
    description: str
    version: int
    updated_at: datetime


class ScenarioPublic(ScenarioSummary):
    """A scenario with its document (``scenario``), creation time, and who saved this version
    (``updated_by``, a username; null if saved before accounts existed)."""

    created_at: datetime
    updated_by: str | None = None
    scenario: Scenario = Field(description="The scenario document.")


class ScenariosPublic(BaseModel):
    """A page of scenario summaries of the projects the caller is a member of."""

    data: list[ScenarioSummary]
    count: int = Field(description="Number of scenarios in total (not just this page).")


class ComparisonCreate(BaseModel):
    """Body of ``POST /api/scenarios/{id}/comparisons``.

    ``seed`` overrides the scenario's ``run.seed`` for this comparison; null keeps it.
    """

    model_config = ConfigDict(extra="forbid")

    strategies: list[str] = Field(default_factory=lambda: ["sptcp", "mptcp"], min_length=1, max_length=16)
    engine: str = Field(default="fluid", min_length=1, max_length=32)
    seed: int | None = Field(default=None, ge=0, le=2**63 - 1)
    repetitions: int = Field(default=1, ge=1, le=100, description="Runs per point, seeds run.seed + r.")
    sweep: SweepSpec | None = Field(
        default=None,
        description="Vary one scenario field, e.g. {'parameter': 'nodes.uav.range_m', 'values': [100, 200]}.",
    )

    @field_validator("strategies")
    @classmethod
    def _no_repeats(cls, v: list[str]) -> list[str]:
        if len(set(v)) != len(v):
            raise ValueError("a strategy is listed twice")
        return v


class ComparisonSummary(BaseModel):
    """A comparison without its result document (lists)."""

    model_config = ConfigDict(from_attributes=True)

    id: str
    scenario_id: str
    scenario_version: int
    status: ComparisonStatus
    progress: float = Field(ge=0, le=1, description="Fraction done, 0–1.")
    strategies: list[str]
    engine: str
    seed: int | None
    repetitions: int = 1
    sweep: SweepSpec | None = None
    units_total: int = 1
    units_done: int = 0
    error: str | None = Field(description="Why the comparison failed (null unless status is failed).")
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None


class ComparisonPublic(ComparisonSummary):
    """A comparison with its result document (null until ``succeeded``);
    see :mod:`subflow.results.document` for the shape."""

    result: ResultDocument | None


class ComparisonsPublic(BaseModel):
    """The comparisons of one scenario, newest first."""

    data: list[ComparisonSummary]
    count: int


class CapturePublic(BaseModel):
    """A packet capture of a comparison: one strategy's run on one link (scenario ``capture``, linux engine).
    The file itself: ``GET .../captures/{capture_id}`` (libpcap, ``application/vnd.tcpdump.pcap``)."""

    model_config = ConfigDict(from_attributes=True)

    id: str
    strategy: str
    link: str = Field(description="Scenario link id.")
    node: str = Field(description="The link end whose interface was recorded (both directions).")
    format: Literal["pcap"] = "pcap"
    snaplen_bytes: int = Field(description="Bytes kept of each packet.")
    size_bytes: int = Field(description="Size of the file, bytes.")
    packets: int
    truncated: bool = Field(description="The size cap stopped the recording before the run's end.")
    created_at: datetime


class CapturesPublic(BaseModel):
    """The packet captures of one comparison, by strategy then link."""

    data: list[CapturePublic]
    count: int


class StrategyPublic(BaseModel):
    """One transport strategy that can be compared (``GET /api/strategies``), with its source."""

    name: str
    family: str
    multipath: bool
    routing: str
    paths: str
    coupling: str
    handover: str
    description: str
    source: str


class ComparisonProgress(BaseModel):
    """One message of ``GET .../comparisons/{cid}/events`` (server-sent events)."""

    status: ComparisonStatus
    progress: float = Field(ge=0, le=1, description="Fraction done, 0–1.")
    error: str | None
    units_done: int = Field(default=0, description="Runs finished: units (sweep point × repetition, every strategy).")
    units_total: int = Field(default=1, description="Runs to make: sweep points × repetitions.")


class DependencyHealth(BaseModel):
    """One service the API depends on, as ``GET /api/health`` found it."""

    status: Literal["ok", "unavailable"]
    error: str | None = Field(default=None, description="The kind of failure (an error class name), null when ok.")


class Health(BaseModel):
    """``GET /api/health``: ``ok`` when the database, the broker and the emulator agent answer;
    ``degraded`` (still 200: the API serves, comparisons wait) when the broker or the agent does
    not; ``unavailable`` (503) when the database cannot be reached. ``database``, ``broker`` and
    ``agent`` say which."""

    status: Literal["ok", "degraded", "unavailable"]
    database: DependencyHealth | None = None
    broker: DependencyHealth | None = None
    agent: DependencyHealth | None = None


class EnginesPublic(Capabilities):
    """``GET /api/engines``: the agent's engines (see :mod:`subflow.capabilities`)."""

    agent_reachable: bool
    error: str | None = Field(default=None, description="Why the agent could not be reached (null if it could).")


JobStatus = Literal["queued", "running", "succeeded", "failed"]


class JobAccepted(BaseModel):
    """202 answer of a planning request with ``"background": true``."""

    job_id: str
    status: Literal["queued"]
    status_url: str = Field(description="Where to poll: `/api/jobs/{job_id}`.")


class JobPublic(BaseModel):
    """``GET /api/jobs/{job_id}``: a background planning job."""

    job_id: str
    status: JobStatus
    progress: float = Field(ge=0, le=1, description="Fraction done, 0–1.")
    done: int | None = Field(default=None, ge=0, description="Items done so far (routes: node pairs); null "
                                                              "when the job does not count them.")
    total: int | None = Field(default=None, ge=0, description="Items in all (routes: node pairs); null when "
                                                               "the job does not count them.")
    result: RoutesOverTime | AllocationOverTime | FailureReport | CapacityResult | None = Field(
        description="The routes, allocation, failure analysis or capacity search document once succeeded.")
    error: str | None
    runs_done: int | None = Field(default=None, description="Engine runs finished so far (jobs that run the engine).")
    runs_total: int | None = Field(default=None, description="Engine runs planned (an upper bound for a search).")


class SweepPointRunSummary(BaseModel):
    """A sweep point whose representative run (its first repetition) is stored: ``point`` (0-based index
    of the point: into ``sweep.values``, or row-major over ``values`` × ``values_y`` for a grid), the
    swept ``value`` (and ``value_y`` of a grid, else null) and the run's ``seed``."""

    point: int = Field(ge=0)
    value: float | int | str | bool | None
    value_y: float | int | str | bool | None = None
    seed: int


class SweepPointRunsPublic(BaseModel):
    """Answer of ``GET .../comparisons/{id}/sweep-points``: the points with a stored run, in point order
    (every point up to ``SWEEP_POINT_DOCUMENTS``, else that many spread evenly, first and last included)."""

    parameter: str | None = Field(description="Swept parameter (dotted path); null if the comparison is no sweep.")
    data: list[SweepPointRunSummary]


class SweepPointRunPublic(SweepPointRunSummary):
    """The representative run of one sweep point: the scenario as run and every strategy's
    per-flow series, events and summary (shapes of :class:`subflow.results.document.StrategyResult`)."""

    scenario: Scenario
    strategies: dict[str, StrategyResult]
