"""Domain errors of Subflow, in one hierarchy.

Library code raises these; only the service edges (FastAPI exception handlers,
the CLI) translate them into HTTP status codes or exit codes, as coreemu/core
does with ``daemon/core/errors.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class SubflowError(Exception):
    """Base class of every error Subflow raises on purpose."""


class ScenarioInvalid(SubflowError):
    """A scenario document breaks the schema or a cross-reference rule.

    Parameters
    ----------
    errors : list of dict
        One entry per problem, each ``{"loc": [path, parts...], "msg": str}``
        where ``loc`` is the JSON path of the offending field, e.g.
        ``["links", 2, "loss"]``.
    """

    def __init__(self, errors: list[dict[str, Any]]):
        self.errors = errors
        summary = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in errors
        )
        super().__init__(f"invalid scenario: {summary}")


class UnknownStrategy(SubflowError):
    """A strategy name that the registry does not know."""

    def __init__(self, name: str, known: list[str]):
        self.name = name
        self.known = known
        super().__init__(f"unknown strategy {name!r}; known: {', '.join(known)}")


class UnknownEngine(SubflowError):
    """An engine name that is not available."""

    def __init__(self, name: str, known: list[str]):
        self.name = name
        self.known = known
        super().__init__(f"unknown engine {name!r}; available: {', '.join(known)}")


class Unreachable(SubflowError):
    """A flow whose endpoints are never connected during the run."""

    def __init__(self, flow_id: str, src: str, dst: str):
        self.flow_id = flow_id
        super().__init__(
            f"flow {flow_id!r}: no path from {src!r} to {dst!r} at any time of the run"
        )


class AgentUnavailable(SubflowError):
    """The emulator agent could not be reached (transient: worth a retry)."""


class AgentRejected(SubflowError):
    """The emulator agent answered, but refused or failed the run (permanent)."""


class UnknownNode(SubflowError):
    """A node id that the topology does not have (a route query, a demand)."""

    def __init__(self, node: str, message: str | None = None):
        self.node = node
        super().__init__(message or f"unknown node {node!r}")


class LinkInvalid(SubflowError):
    """A link whose delay, loss or capacity cannot be used for planning.

    Parameters
    ----------
    link : str
        The link id (both directions of a full-duplex link share it).
    field : str
        ``"delay_ms"``, ``"loss"`` or ``"capacity_mbps"``.
    value : float
        The offending value.
    reason : str
        What is wrong, for people.
    """

    def __init__(self, link: str, field: str, value: float, reason: str):
        self.link = link
        self.field = field
        self.value = value
        super().__init__(f"link {link!r}: {field} = {value!r}: {reason}")


class DemandUnreachable(SubflowError):
    """A demand whose endpoints no usable path (positive capacity) joins."""

    def __init__(self, src: str, dst: str, demand_id: str | None = None):
        self.src = src
        self.dst = dst
        self.demand_id = demand_id
        name = f"demand {demand_id!r}" if demand_id else "demand"
        super().__init__(f"{name}: no path with capacity from {src!r} to {dst!r}")


class ImportFailed(SubflowError):
    """A topology file (GraphML, SNDlib) that cannot be read or converted."""

    def __init__(self, source: str, reason: str):
        self.source = source
        self.reason = reason
        super().__init__(f"{source}: {reason}")


class ExportRefused(SubflowError):
    """A scenario holds something a file format cannot carry: ``loc`` names the field (the API's 422).

    Parameters
    ----------
    format : str
        The format's name in :mod:`subflow.io.formats` (``"core-xml"``...).
    loc : list
        The field's path in the scenario document, e.g. ``["nodes", 3, "ephemeris"]``.
    reason : str
        Why the format cannot carry it.
    """

    def __init__(self, format: str, loc: list[Any], reason: str):
        self.format, self.loc, self.reason = format, list(loc), reason
        path = "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else str(p)) for i, p in enumerate(loc))
        super().__init__(f"{path}: the {format} format cannot carry it ({reason})")


class EngineCannotRun(SubflowError):
    """An engine cannot execute a plan on this host (raised before anything starts).

    The message names the plan or scenario parameter (or the host facility) at fault.
    """


class EngineFailed(SubflowError):
    """An engine started a run and the run failed: its measurement is not a result.

    Raised instead of returning a run of zeros, e.g. when an iperf3 client reports an error
    ("Network is unreachable"), a server's report is empty, or the testbed's script dies.

    Parameters
    ----------
    engine : str
        The engine's name, e.g. ``"mininet-wifi"``.
    reason : str
        What failed, as the testbed reported it.
    flow : str, optional
        The plan's flow id the failure belongs to (None: the whole run).
    """

    def __init__(self, engine: str, reason: str, flow: str | None = None):
        self.engine, self.reason, self.flow = engine, reason, flow
        where = f" flow {flow}:" if flow is not None else ""
        super().__init__(f"engine {engine}:{where} {reason}")


class LimitExceeded(ScenarioInvalid):
    """A request larger than a configured bound (:class:`subflow.service.limits.Limits`).

    A :class:`ScenarioInvalid` (the API answers 422) whose single entry has ``type``
    ``"limit_exceeded"`` and a message naming the setting, e.g.
    ``nodes: 3000 nodes exceed MAX_NODES = 2000``.

    Parameters
    ----------
    setting : str
        The environment variable of the bound (``MAX_NODES``...).
    limit : int
        Its value.
    actual : int or str
        What the request asked for.
    loc : list
        JSON path of the offending part (``["nodes"]``, ``["run", "interval_s"]``...).
    what : str
        The unit counted (``"nodes"``, ``"samples"``...).
    """

    def __init__(self, setting: str, limit: int, actual: int | str, loc: list[Any], what: str):
        self.setting = setting
        self.limit = limit
        self.actual = actual
        super().__init__([{"loc": list(loc), "msg": f"{actual} {what} exceed {setting} = {limit}",
                           "type": "limit_exceeded"}])


class EngineInvariantViolated(SubflowError):
    """An engine produced a result that cannot be physically (a NaN or negative goodput, a
    subflow above its path's capacity, a link carrying more than its capacity, more bytes
    delivered than sent, a window out of bounds); the run ends with this error instead of a result.

    Parameters
    ----------
    engine : str
        The engine that checked (``"fluid"``).
    invariant : str
        Which invariant broke (:mod:`subflow_engines.fluid.invariants`).
    t_s : float
        Start of the output sample where it broke, seconds from the start of the run.
    flow, subflow : str or None
        The flow and subflow concerned, if one is.
    link : str or None
        The resource (link direction ``l:a>b``, access point air ``air:ap``) concerned, if one is.
    value, bound : float
        What was found and the bound it broke, in ``unit``.
    unit : str
        ``"bits"`` (per sample) or ``"packets"``.
    """

    def __init__(self, engine: str, invariant: str, t_s: float, flow: str | None, subflow: str | None,
                 link: str | None, value: float, bound: float, unit: str):
        self.engine, self.invariant, self.t_s = engine, invariant, t_s
        self.flow, self.subflow, self.link = flow, subflow, link
        self.value, self.bound, self.unit = value, bound, unit
        where = []
        if flow is not None:
            where.append(f"flow {flow}" + (f" subflow {subflow}" if subflow and subflow != flow else ""))
        if link is not None:
            where.append(f"link {link}")
        super().__init__(f"{engine} engine broke an invariant ({invariant}) at t = {t_s:g} s"
                         f"{' on ' + ', '.join(where) if where else ''}: {value:.6g} {unit} against a bound of "
                         f"{bound:.6g} {unit}; the result would not be physically possible, so none is returned")


class RunCancelled(SubflowError):
    """An engine run stopped because its caller asked it to (``should_stop`` returned True)."""


class CommandFailed(SubflowError):
    """A system command an engine issued (``ip``, ``tc``, ``iperf3``...) failed."""

    def __init__(self, args: Sequence[str], returncode: int, stderr: str):
        self.args_list = list(args)
        self.returncode = returncode
        self.stderr = stderr.strip()
        super().__init__(f"command failed ({returncode}): {' '.join(args)}: {self.stderr}")


class Iperf3ParseError(SubflowError, ValueError):
    """A text is not exactly one iperf3 JSON document (the message says why)."""


class QualityModelInvalid(SubflowError, ValueError):
    """A voice quality model (E-model, jitter, packetisation: :mod:`subflow.results.voice`) cannot be evaluated
    for this input: ``field`` names the parameter (``"loss_fraction"``, ``"codec"``...)."""

    def __init__(self, field: str, reason: str):
        self.field, self.reason = field, reason
        super().__init__(f"{field}: {reason}")


class TrackInvalid(SubflowError):
    """A track file that cannot be used: ``field`` names the parameter or ``line``/``point`` where it fails.

    ``loc`` is the path for the API's 422 (``["file", "line", 12]``, ``["query", "mmsi"]``...)."""

    def __init__(self, message: str, loc: list[Any]):
        self.loc = loc
        super().__init__(message)


class TrackTooLarge(SubflowError):
    """A track file larger than ``MAX_TRACK_BYTES`` (413 at the API)."""

    setting = "MAX_TRACK_BYTES"

    def __init__(self, limit: int):
        self.limit = limit
        super().__init__(f"track file larger than MAX_TRACK_BYTES = {limit} bytes")


class FieldNotHonoured(EngineCannotRun):
    """A scenario sets a field the engine does not honour (or does not declare).

    ``loc``: the field's path in the scenario document, e.g. ``["links", 3, "jitter_ms"]``."""

    def __init__(self, message: str, engine: str, loc: list[Any]):
        self.engine = engine
        self.loc = loc
        super().__init__(message)


class AccountError(SubflowError):
    """Base class of account errors."""


class UsernameTaken(AccountError):
    """A user with this username exists already (API: 409)."""

    def __init__(self, username: str):
        self.username = username
        super().__init__(f"a user named {username!r} already exists")


class VersionConflict(SubflowError):
    """The scenario is no longer at the version the change was made from."""

    def __init__(self, scenario_id: str, expected: int, current: int):
        self.scenario_id, self.expected, self.current = scenario_id, expected, current
        super().__init__(
            f"scenario {scenario_id!r} is at version {current}, not {expected}: someone saved it meanwhile; "
            "reload it, or fork your copy"
        )


class UnknownVersion(SubflowError):
    """A scenario has no saved version with this number (API: 404)."""

    def __init__(self, scenario_id: str, version: int):
        self.scenario_id, self.version = scenario_id, version
        super().__init__(f"scenario {scenario_id!r} has no version {version}")


class ScenarioNameTaken(SubflowError):
    """Another scenario of the same project already has this name (names are unique per project)."""

    def __init__(self, name: str):
        self.name = name
        super().__init__(f"a scenario named {name!r} already exists in this project; choose another name")


class FlowUnreachable(Unreachable):
    """Flow number ``index`` of the scenario joins nodes that are never connected."""

    def __init__(self, index: int, flow_id: str, src: str, dst: str):
        self.index = index
        super().__init__(flow_id, src, dst)


class StrategyNotSupported(EngineCannotRun):
    """The engine does not run strategy ``strategy`` (number ``index`` of the request)."""

    def __init__(self, engine: str, strategy: str, index: int, supported: list[str]):
        self.engine = engine
        self.strategy = strategy
        self.index = index
        super().__init__(
            f"engine {engine!r} cannot run strategy {strategy!r}; it runs: {', '.join(supported) or 'none'}"
        )


class VmError(SubflowError, RuntimeError):
    """The testbed VM (QEMU) did not boot, its job did not finish in time, or the job failed; the console's tail
    is in the message."""


class QuotaExceeded(SubflowError):
    """A per-caller quota is exhausted: ``setting`` names it, ``retry_after_s`` (s) is the ``Retry-After``."""

    def __init__(self, setting: str, limit: int, what: str, retry_after_s: int):
        self.setting, self.limit, self.retry_after_s = setting, limit, retry_after_s
        super().__init__(f"quota exceeded: {what} at most {setting} = {limit} per caller (token or session); "
                         f"try again in {retry_after_s} s")


class ComparisonGone(SubflowError):
    """The comparison ``comparison_id`` was deleted while it ran (its scenario was deleted)."""


class ComparisonCancelled(SubflowError):
    """The user cancelled the comparison ``comparison_id`` while it ran."""


class RemoteConfigInvalid(SubflowError):
    """The remote CLI's settings cannot be used: ``source`` (a config file, or the variable or option) and
    why (a config file others may read, an unknown key, a server address that is not http(s))."""

    def __init__(self, source: str, reason: str):
        self.source, self.reason = source, reason
        super().__init__(f"{source}: {reason}")


class RemoteCallFailed(SubflowError):
    """A call of the remote CLI to the service failed. ``status`` is the HTTP status (None: the service could
    not be reached or answered something unreadable), ``errors`` the field errors of a 422
    (``[{"loc": [...], "msg": ...}]``, FastAPI's ``detail``), ``retry_after_s`` the ``Retry-After`` of a 429."""

    def __init__(self, message: str, status: int | None = None, errors: list[dict[str, Any]] | None = None,
                 retry_after_s: float | None = None):
        self.status, self.errors, self.retry_after_s = status, errors or [], retry_after_s
        super().__init__(message)
