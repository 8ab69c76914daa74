"""Vectorised, compiled kernel of the ``fluid`` engine.

Same model and equations as :mod:`subflow_engines.fluid` (see its
docstring), over arrays of all subflows, with the path incidence kept as
(subflow, resource) pairs in CSR form (``M[i, l] = 1`` when subflow i crosses
resource l):

    RTT   = base_RTT + M·(q / C)
    A     = Mᵀ·x
    pass  = exp(M·log(departed / arrived)),  dropped = M·drop_fraction

The continuous part of each step (rates, LowRTT scheduling, queues, losses,
window growth, RTT estimation) is one numba-compiled function, :func:`_step`,
looping over subflows and path incidences; discrete events (segment changes,
handshakes, retransmission timers, flow start/stop/completion) are handled in
Python for the few subflows they concern. :func:`supports` says which plans
this kernel takes: single-path flows with the ``bare`` handover, MPTCP (LIA)
and CMT (uncoupled) multipath, NewReno congestion control, no jitter. The fluid engine
dispatches to it whenever it supports a plan and runs everything else
itself; tests pin both to the same results on plans both accept.

Every draw (random link loss, queue overflow, the timeout decisions) is
counter-based (:mod:`subflow_engines.draws`) and identical in both kernels.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from subflow.plan import RunPlan
from subflow._kernels import njit
from subflow.results import EngineOutput, FlowResult, SubflowResult

from subflow_engines import draws

CLOCK_GRANULARITY_S = 0.001
MAX_CWND_PACKETS = 1e5
#: bytes a full-sized segment carries besides its payload, as a shaper counts them: IPv4 (20)
#: + TCP (20) + timestamp option (12, RFC 7323 §3) + Ethernet header (14); the linux engine's
#: MTU is MSS + 52 and HTB sees 1514-byte frames for a 1448-byte MSS
FRAME_OVERHEAD_BYTES = 66


def goodput_fraction(mss_bytes: float) -> float:
    """Payload share of a full-sized frame: a link (or a controller's rate limit) of rate R
    carries at most R·MSS/(MSS + 66) of TCP goodput, which is what iperf3 reports over an
    HTB class of rate R (1448/1514 ≈ 0.956)."""
    return mss_bytes / (mss_bytes + FRAME_OVERHEAD_BYTES)

# phases
DEAD, HANDSHAKE, OPEN, STALLED = 0, 1, 2, 3


@njit(cache=True)
def timeout_probability(p, w):
    """Probability that a loss episode in a window of ``w`` packets ends in a retransmission
    timeout rather than fast recovery, for packet loss probability ``p``: Padhye et al.,
    "Modeling TCP throughput", SIGCOMM 1998, Eq. 24,
    Q̂(p, w) = min(1, (1 − (1−p)³)(1 + (1−p)³(1 − (1−p)^(w−3))) / (1 − (1−p)^w)); 1 for w ≤ 3
    (too few packets after the lost one to return three duplicate ACKs)."""
    if p <= 0.0:
        return 0.0
    if w <= 3.0:
        return 1.0
    s = 1.0 - p
    den = 1.0 - s ** w
    if den <= 0.0:
        return 1.0
    q = (1.0 - s ** 3) * (1.0 + s ** 3 * (1.0 - s ** (w - 3.0))) / den
    return q if q < 1.0 else 1.0


def supports(plan: RunPlan) -> bool:
    """True if this kernel implements every feature ``plan`` uses."""
    if plan.transport.congestion_control != "newreno":
        return False
    if any(r.jitter_ms > 0 for r in plan.resources):  # RTT-sample variance: scalar kernel
        return False
    for fp in plan.flows:
        if not fp.multipath and fp.handover != "bare":
            return False
        if fp.multipath and fp.coupling not in ("lia", "uncoupled"):  # OLIA: scalar kernel
            return False
    return True


def run(
    plan: RunPlan,
    on_progress: Callable[[float], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    stop_error: type[Exception] = RuntimeError,
) -> EngineOutput:
    """Simulate ``plan`` (see :func:`subflow_engines.fluid.run` for the contract)."""
    if not supports(plan):
        raise ValueError("plan uses features the vectorised kernel does not implement")
    tr = plan.transport
    pkt_bits = tr.mss_bytes * 8.0
    rbuf_bits = math.inf if tr.rbuf_bytes is None else tr.rbuf_bytes * 8.0
    resources = plan.resources
    rindex = {r.id: i for i, r in enumerate(resources)}
    n_res = len(resources)
    wire = goodput_fraction(tr.mss_bytes)  # capacities and rate limits in goodput bit/s
    cap = np.array([r.capacity_mbps * 1e6 * wire for r in resources])
    buf = np.array([r.queue_packets * pkt_bits for r in resources])
    delay_s = np.array([r.delay_ms * 1e-3 for r in resources])
    log_keep = np.array([math.log1p(-r.loss) for r in resources])
    queue = np.zeros(n_res)
    queue_t = np.zeros(n_res)  # when queue[i] was last brought up to date, s

    # ---------------------------------------------------------------- subflow slots
    slot_of: dict[tuple[int, str], int] = {}
    slot_conn: list[int] = []
    slot_id: list[str] = []
    for c, fp in enumerate(plan.flows):
        for seg in fp.segments:
            for sp in seg.subflows:
                key = (c, sp.id)
                if key not in slot_of:
                    slot_of[key] = len(slot_id)
                    slot_conn.append(c)
                    slot_id.append(sp.id)
    S = len(slot_id)
    draw_keys = np.array([draws.subflow_key(plan.seed, sid) for sid in slot_id], dtype=np.uint64)
    loss_keys = np.array([draws.subflow_key(plan.seed, sid + draws.LOSS_STREAM) for sid in slot_id], dtype=np.uint64)
    timeout_keys = np.array([draws.subflow_key(plan.seed, sid + draws.TIMEOUT_STREAM) for sid in slot_id],
                            dtype=np.uint64)
    conn_of = np.array(slot_conn, dtype=np.int64) if S else np.zeros(0, dtype=np.int64)
    n_conn = len(plan.flows)
    multipath = np.array([fp.multipath for fp in plan.flows], dtype=bool)
    coupled_conn = np.array([fp.multipath and fp.coupling == "lia" for fp in plan.flows], dtype=bool)
    slow_first_conn = np.array([fp.multipath and fp.coupling == "uncoupled" for fp in plan.flows], dtype=bool)
    demand = np.array([math.inf if fp.rate_mbps is None else fp.rate_mbps * 1e6 for fp in plan.flows])
    remaining_bits = np.array([math.inf if fp.size_bytes is None else fp.size_bytes * 8.0 for fp in plan.flows])
    start_s = np.array([fp.start_s for fp in plan.flows])
    stop_s = np.array([fp.stop_s for fp in plan.flows])
    done_t = np.full(n_conn, np.nan)

    phase = np.zeros(S, dtype=np.int8)
    cwnd = np.full(S, float(tr.initial_cwnd_packets))
    ssthresh = np.full(S, np.inf)
    srtt = np.full(S, np.nan)
    rttvar = np.zeros(S)
    rto = np.full(S, tr.initial_rto_s)
    t_open = np.full(S, np.inf)
    next_rto_t = np.full(S, np.inf)
    next_sample_t = np.zeros(S)
    last_red = np.full(S, -np.inf)
    recover_end = np.full(S, -np.inf)  # fast recovery: no window growth until then, s
    loss_at = np.full(S, np.inf)  # when a pending drop is detected (one RTT after it), s
    limit = np.full(S, np.inf)
    base_rtt = np.full(S, 1e-4)
    path_log_keep = np.zeros(S)
    retrans = np.zeros(S, dtype=np.int64)
    has_path = np.zeros(S, dtype=bool)
    paths: list[list[str]] = [[] for _ in range(S)]
    res_lists: list[list[int]] = [[] for _ in range(S)]
    order: list[list[int]] = [[] for _ in range(n_conn)]  # slots in order of first appearance
    active_slot = [-1] * n_conn  # single-path: slot carrying the connection
    seg_idx = [-1] * n_conn

    interval = plan.interval_s
    n_bins = max(1, int(math.ceil(plan.duration_s / interval - 1e-9)))
    min_rtt = min(
        (max(1e-4, 2 * sum(delay_s[rindex[r]] for r in sp.resources))
         for fp in plan.flows for seg in fp.segments for sp in seg.subflows),
        default=0.04,
    )
    per_bin = max(1, int(math.ceil(interval / min(0.01, max(0.001, min_rtt / 2)))))
    dt = interval / per_bin
    n_steps = int(round(plan.duration_s / dt))
    cap_dt = cap * dt
    bits = np.zeros((S, n_bins))
    cwnd_samples = np.zeros((S, n_bins))
    events: list[dict] = []

    def emit(t: float, kind: str, c: int, slot: int | None = None, **extra) -> None:
        ev = {"t_s": round(t, 6), "kind": kind, "node": plan.flows[c].src, "flow": plan.flows[c].id}
        if slot is not None:
            ev["subflow"] = slot_id[slot]
        ev.update(extra)
        events.append(ev)

    matrix_dirty = True
    inc_cols = np.zeros(0, dtype=np.int64)  # resources of the current paths, path after path

    row_ptr = np.zeros(0, dtype=np.int64)  # start of each path's run in inc_cols
    path_rows = np.zeros(0, dtype=np.int64)  # the subflows that have a path

    # the loop works on the resources that current paths use ("u" arrays, local indices)
    used = np.zeros(0, dtype=np.int64)
    inc_local = np.zeros(0, dtype=np.int64)
    cap_u = capdt_u = buf_u = queue_u = pass_u = np.zeros(0)
    pass_g = np.ones(n_res)  # pass fraction of each resource in the last step it was used

    def set_path(slot: int, sp) -> None:
        nonlocal matrix_dirty
        paths[slot] = sp.nodes
        res_lists[slot] = [rindex[r] for r in sp.resources]
        base_rtt[slot] = max(1e-4, 2 * float(delay_s[res_lists[slot]].sum()))
        path_log_keep[slot] = float(log_keep[res_lists[slot]].sum())
        limit[slot] = math.inf if sp.rate_limit_mbps is None else sp.rate_limit_mbps * 1e6 * wire
        has_path[slot] = True
        matrix_dirty = True

    def reset(slot: int, t: float) -> None:
        phase[slot] = HANDSHAKE
        t_open[slot] = t + base_rtt[slot]
        cwnd[slot] = float(tr.initial_cwnd_packets)
        ssthresh[slot] = np.inf
        srtt[slot] = np.nan
        rttvar[slot] = 0.0
        rto[slot] = tr.initial_rto_s
        next_rto_t[slot] = np.inf
        next_sample_t[slot] = 0.0
        last_red[slot] = -np.inf
        recover_end[slot] = -np.inf
        loss_at[slot] = np.inf

    def new_slot(c: int, slot: int, sp, t: float) -> None:
        set_path(slot, sp)
        reset(slot, t)
        order[c].append(slot)
        emit(t, "subflow_up", c, slot, path=sp.nodes)

    def stall(slot: int, t: float) -> None:
        if phase[slot] == OPEN:
            ssthresh[slot] = max(cwnd[slot] / 2.0, 2.0)
        phase[slot] = STALLED
        next_rto_t[slot] = t + rto[slot]
        loss_at[slot] = np.inf

    def apply_segment(c: int, t: float) -> None:
        nonlocal matrix_dirty
        fp = plan.flows[c]
        wanted = {sp.id: sp for sp in fp.segments[seg_idx[c]].subflows}
        if fp.multipath:
            for slot in order[c]:
                if slot_id[slot] not in wanted and phase[slot] != DEAD:
                    phase[slot] = DEAD
                    has_path[slot] = False
                    matrix_dirty = True
                    emit(t, "subflow_down", c, slot, path=paths[slot])
            for sid, sp in wanted.items():
                slot = slot_of[(c, sid)]
                if slot not in order[c]:
                    new_slot(c, slot, sp, t)
                elif phase[slot] == DEAD or paths[slot] != sp.nodes:
                    set_path(slot, sp)
                    reset(slot, t)
                    emit(t, "subflow_up", c, slot, path=sp.nodes)
                else:
                    set_path(slot, sp)
            return
        cur = active_slot[c]
        sp = next(iter(wanted.values()), None)
        if sp is None:
            if cur >= 0 and phase[cur] not in (STALLED, DEAD):
                stall(cur, t)
                emit(t, "route_lost", c, cur, path=paths[cur])
            if cur >= 0:
                has_path[cur] = False
                matrix_dirty = True
            return
        slot = slot_of[(c, sp.id)]
        if cur < 0:
            new_slot(c, slot, sp, t)
            active_slot[c] = slot
            return
        if slot == cur and paths[cur] == sp.nodes:
            set_path(cur, sp)
            return
        old = paths[cur]
        if phase[cur] != STALLED:
            stall(cur, t)
        if slot != cur:  # the connection's state moves to the new path's slot
            for arr in (phase, cwnd, ssthresh, srtt, rttvar, rto, t_open, next_rto_t, last_red):
                arr[slot] = arr[cur]
            phase[cur] = DEAD
            has_path[cur] = False
            if slot not in order[c]:
                order[c].append(slot)
            active_slot[c] = slot
        set_path(slot, sp)
        if old != sp.nodes:
            emit(t, "route_change", c, slot, path=sp.nodes, previous_path=old)

    def refresh_state(t: float, step: int) -> tuple[np.ndarray, float]:
        """Handshakes that complete, timers that fire, flows that start or stop at ``t``;
        returns the live mask and the next time anything of that kind can happen."""
        opening = (phase == HANDSHAKE) & (t >= t_open)
        if opening.any():
            phase[opening] = OPEN
            next_sample_t[opening] = t
        timers = np.nonzero((phase == STALLED) & (t >= next_rto_t))[0]
        for slot in timers:
            c = int(conn_of[slot])
            retrans[slot] += 1
            if has_path[slot] and draws.uniform(timeout_keys[slot], step) < -math.expm1(path_log_keep[slot]):
                # the retransmission is lost on the path too: back off again (RFC 6298 §5.5)
                emit(t, "rto", c, int(slot), rto_s=round(float(rto[slot]), 4), resumed=False)
                rto[slot] = min(2.0 * rto[slot], tr.max_rto_s)
                next_rto_t[slot] = t + rto[slot]
            elif has_path[slot]:
                emit(t, "rto", c, int(slot), rto_s=round(float(rto[slot]), 4), resumed=True)
                phase[slot] = OPEN
                cwnd[slot] = 1.0
                last_red[slot] = t
                next_sample_t[slot] = t
            else:
                emit(t, "rto", c, int(slot), rto_s=round(float(rto[slot]), 4), resumed=False)
                rto[slot] = min(2.0 * rto[slot], tr.max_rto_s)
                next_rto_t[slot] = t + rto[slot]
        conn_on = (t >= start_s) & (t < stop_s) & np.isnan(done_t)
        live = (phase == OPEN) & has_path & conn_on[conn_of]
        pending = [t_open[phase == HANDSHAKE], next_rto_t[phase == STALLED]]
        nxt = min((float(a.min()) for a in pending if a.size), default=math.inf)
        later = flow_times[flow_times > t + 1e-12]
        if later.size:
            nxt = min(nxt, float(later.min()))
        return live, nxt

    flow_times = np.concatenate((start_s, stop_s))
    state_dirty = True
    next_state_t = 0.0
    live = np.zeros(S, dtype=bool)
    progress_every = max(1, n_steps // 50)
    next_boundary = [fp.segments[0].t_start_s if fp.segments else math.inf for fp in plan.flows]
    next_any_boundary = min(next_boundary, default=math.inf)
    conn_idx = np.arange(n_conn)
    any_multipath = bool(multipath.any())
    any_finite = bool(np.isfinite(remaining_bits).any())
    changes = [(c.t_s, rindex[c.resource], c.capacity_mbps * 1e6 * wire) for c in plan.capacity_changes]
    next_change = 0
    conn_ptr = np.searchsorted(conn_of, np.arange(n_conn + 1)).astype(np.int64)  # slots are grouped by connection
    got = np.zeros(S)
    for step in range(n_steps):
        t = step * dt
        b = min(n_bins - 1, step // per_bin)
        if step % progress_every == 0:
            if should_stop is not None and should_stop():
                raise stop_error()
            if on_progress is not None:
                on_progress(step / n_steps)
        # ---- discrete events
        while next_change < len(changes) and changes[next_change][0] <= t + 1e-12:
            _, i, c_bps = changes[next_change]
            cap[i] = c_bps
            cap_dt[i] = c_bps * dt
            next_change += 1
            matrix_dirty = True  # refresh the working copies of cap
        if next_any_boundary <= t + 1e-12:
            for c in range(n_conn):
                if next_boundary[c] <= t + 1e-12:
                    fp = plan.flows[c]
                    while seg_idx[c] + 1 < len(fp.segments) and fp.segments[seg_idx[c] + 1].t_start_s <= t + 1e-12:
                        seg_idx[c] += 1
                        apply_segment(c, t)
                        state_dirty = True
                    nxt = seg_idx[c] + 1
                    next_boundary[c] = fp.segments[nxt].t_start_s if nxt < len(fp.segments) else math.inf
            next_any_boundary = min(next_boundary, default=math.inf)
        if matrix_dirty:
            with_path = [i for i in range(S) if has_path[i] and res_lists[i]]
            inc_cols = np.array([r for i in with_path for r in res_lists[i]], dtype=np.int64)
            path_rows = np.array(with_path, dtype=np.int64)
            row_ptr = np.cumsum([0] + [len(res_lists[i]) for i in with_path[:-1]]).astype(np.int64)
            pass_g[used] = pass_u
            queue[used] = queue_u  # keep the queues of resources that leave the working set,
            queue_t[used] = t  # and drain them at their capacity while no path uses them
            used, inc_local = np.unique(inc_cols, return_inverse=True)
            inc_local = inc_local.astype(np.int64)
            cap_u, capdt_u, buf_u = cap[used], cap_dt[used], buf[used]
            queue_u = np.maximum(0.0, queue[used] - cap_u * (t - queue_t[used]))
            pass_u = pass_g[used].copy()
            matrix_dirty = False
        if state_dirty or t >= next_state_t:
            live, next_state_t = refresh_state(t, step)
            state_dirty = False
        # ---- rates, queues, losses, growth, RTT estimation: compiled (see _step)
        if _step(
            t, step, dt, pkt_bits, rbuf_bits, tr.min_rto_s, tr.max_rto_s, CLOCK_GRANULARITY_S, MAX_CWND_PACKETS,
            live, conn_of, conn_ptr, slow_first_conn, coupled_conn, any_multipath,
            path_rows, row_ptr, inc_local, cap_u, capdt_u, buf_u, queue_u, pass_u,
            base_rtt, path_log_keep, limit, demand, remaining_bits, draw_keys, loss_keys, timeout_keys,
            cwnd, ssthresh, srtt, rttvar, rto, next_sample_t, last_red, loss_at, retrans, bits[:, b], got,
            phase, next_rto_t, recover_end,
        ):
            state_dirty = True  # a loss episode ended in a retransmission timeout
        # ---- finite transfers
        if any_finite:
            delivered = np.bincount(conn_of, weights=got, minlength=n_conn)
            conn_on = (t >= start_s) & (t < stop_s) & np.isnan(done_t)
            remaining_bits -= np.where(conn_on, delivered, 0.0)
            finished = conn_on & (remaining_bits <= 0)
            for c in np.nonzero(finished)[0]:
                state_dirty = True
                done_t[c] = t + dt
                emit(t + dt, "flow_complete", int(c), None, completion_s=round(t + dt - start_s[c], 6))
        if (step + 1) % per_bin == 0:
            cwnd_samples[:, b] = np.where((phase == OPEN) | (phase == HANDSHAKE), np.round(cwnd, 3), 0.0)

    t_s = [round(k * interval, 9) for k in range(n_bins)]
    thr = bits / interval / 1e6
    flows: list[FlowResult] = []
    for c, fp in enumerate(plan.flows):
        subs = [
            SubflowResult(
                id=slot_id[s],
                path=paths[s],
                t_s=t_s,
                throughput_mbps=[round(float(v), 6) for v in thr[s]],
                cwnd_packets=[float(v) for v in cwnd_samples[s]],
                retransmissions=int(retrans[s]),
            )
            for s in order[c]
        ]
        total = thr[order[c]].sum(axis=0) if order[c] else np.zeros(n_bins)
        extra = {}
        if fp.size_bytes is not None:
            extra["completion_s"] = None if np.isnan(done_t[c]) else round(float(done_t[c] - fp.start_s), 6)
        flows.append(FlowResult(id=fp.id, src=fp.src, dst=fp.dst, t_s=t_s,
                                throughput_mbps=[round(float(v), 6) for v in total], subflows=subs, **extra))
    if on_progress is not None:
        on_progress(1.0)
    events.sort(key=lambda e: e["t_s"])
    return EngineOutput(engine="fluid", strategy=plan.strategy, flows=flows, events=events)


# --------------------------------------------------------------------------- compiled step


@njit(cache=True)
def _step(
    t, step, dt, pkt_bits, rbuf_bits, min_rto, max_rto, granularity, max_cwnd,
    live, conn_of, conn_ptr, slow_first_conn, coupled_conn, any_multipath,
    path_rows, row_ptr, inc_local, cap_u, capdt_u, buf_u, queue_u, pass_u,
    base_rtt, path_log_keep, limit, demand, remaining_bits, draw_keys, loss_keys, timeout_keys,
    cwnd, ssthresh, srtt, rttvar, rto, next_sample_t, last_red, loss_at, retrans, bits_col, got,
    phase, next_rto_t, recover_end,
):
    """One time step of the continuous dynamics, in place (the equations of
    :mod:`subflow_engines.fluid`). Random link loss, overflow losses and timeout decisions
    are counter-based draws (:mod:`.draws`) of the keys given, as in the scalar kernel.
    ``got`` receives the bits each subflow delivered in the step. Returns True when a loss
    episode ended in a retransmission timeout (the subflow is then STALLED and not live)."""
    S = cwnd.shape[0]
    n_conn = conn_ptr.shape[0] - 1
    n_u = cap_u.shape[0]
    n_paths = path_rows.shape[0]
    n_inc = inc_local.shape[0]
    # per-subflow queueing delay along the path
    qd = np.zeros(S)
    for k in range(n_paths):
        end = row_ptr[k + 1] if k + 1 < n_paths else n_inc
        s_ = 0.0
        for j in range(row_ptr[k], end):
            u = inc_local[j]
            s_ += queue_u[u] / cap_u[u]
        qd[path_rows[k]] = s_
    rtt = base_rtt + qd
    w = np.zeros(S)
    for i in range(S):
        if live[i]:
            wi = cwnd[i] * pkt_bits / rtt[i]
            w[i] = wi if wi < limit[i] else limit[i]
    x = np.zeros(S)
    for c in range(n_conn):
        budget = max(0.0, min(demand[c], remaining_bits[c] / dt))  # a finished file: nothing left
        a, b = conn_ptr[c], conn_ptr[c + 1]
        if rbuf_bits < np.inf:
            mx = 0.0
            for i in range(a, b):
                if live[i] and rtt[i] > mx:
                    mx = rtt[i]
            if mx > 0:
                budget = min(budget, rbuf_bits / max(mx, 1e-12))
        if any_multipath and b - a > 1:
            # LowRTT (CMT: slowest first) fill in key order, ties by slot (stable)
            n = b - a
            order = np.empty(n, dtype=np.int64)
            keys = np.empty(n)
            for j in range(n):
                i = a + j
                kr = rtt[i] if np.isnan(srtt[i]) else srtt[i]
                keys[j] = -kr if slow_first_conn[c] else kr
                order[j] = i
            for j in range(1, n):
                kj, oj = keys[j], order[j]
                m = j - 1
                while m >= 0 and keys[m] > kj:
                    keys[m + 1] = keys[m]
                    order[m + 1] = order[m]
                    m -= 1
                keys[m + 1] = kj
                order[m + 1] = oj
            before = 0.0
            for j in range(n):
                i = order[j]
                v = budget - before
                x[i] = 0.0 if v < 0.0 else (w[i] if v > w[i] else v)
                before += w[i]
        else:
            for i in range(a, b):
                x[i] = w[i] if w[i] < budget else budget
    # fluid drop-tail queues
    arrived = np.zeros(n_u)
    arr_last = x * dt  # bits reaching each path's last hop in this step
    last_u = np.full(S, -1, dtype=np.int64)
    for k in range(n_paths):
        i = path_rows[k]
        end = row_ptr[k + 1] if k + 1 < n_paths else n_inc
        xi = x[i]
        for j in range(row_ptr[k], end):  # tandem queues: attenuated by the hops before (last step)
            arrived[inc_local[j]] += xi * dt
            arr_last[i] = xi * dt
            last_u[i] = inc_local[j]
            xi *= pass_u[inc_local[j]]
    logpass = np.zeros(n_u)
    dropf = np.zeros(n_u)
    overflow = False
    for u in range(n_u):
        qa = queue_u[u] + arrived[u]
        departed = qa if qa < capdt_u[u] else capdt_u[u]
        q = qa - capdt_u[u]
        if q > buf_u[u]:
            overflow = True
            if arrived[u] > 0:
                dropf[u] = (q - buf_u[u]) / arrived[u]
        queue_u[u] = 0.0 if q < 0.0 else (buf_u[u] if q > buf_u[u] else q)
        if arrived[u] > 0:
            logpass[u] = np.log(departed / arrived[u])
            pass_u[u] = departed / arrived[u]
        else:
            pass_u[u] = 1.0
    dropped = np.zeros(S)
    for k in range(n_paths):
        end = row_ptr[k + 1] if k + 1 < n_paths else n_inc
        sd = 0.0
        for j in range(row_ptr[k], end):
            sd += dropf[inc_local[j]]
        dropped[path_rows[k]] = sd
    for i in range(S):
        # what the last hop lets through of what reached it (tandem queues)
        g = arr_last[i] * np.exp(path_log_keep[i] + (logpass[last_u[i]] if last_u[i] >= 0 else 0.0))
        got[i] = g
        bits_col[i] += g
    # losses, detected one round trip after the drop
    for i in range(S):
        if x[i] <= 0.0:
            continue
        sent = x[i] * (dt / pkt_bits)
        lost = False
        p = -np.expm1(path_log_keep[i])
        if p > 0 and draws.uniform(loss_keys[i], step) < -np.expm1(-sent * p):
            lost = True
        if overflow and dropped[i] > 0:
            if draws.uniform(draw_keys[i], step) < -np.expm1(-sent * min(1.0, dropped[i])):
                lost = True
        if lost:
            retrans[i] += 1
            if np.isinf(loss_at[i]):
                loss_at[i] = t + rtt[i]
    react = np.zeros(S, dtype=np.bool_)
    stalled = False
    for i in range(S):
        if loss_at[i] <= t and x[i] > 0:
            react[i] = True
            loss_at[i] = np.inf
            ref = rtt[i] if np.isnan(srtt[i]) else srtt[i]
            if t - last_red[i] >= ref:
                w_lost = cwnd[i]
                ssthresh[i] = max(cwnd[i] / 2.0, 2.0)
                cwnd[i] = ssthresh[i]
                last_red[i] = t
                recover_end[i] = t + ref  # fast recovery: no growth for a round trip
                p = -np.expm1(path_log_keep[i])
                if p > 0 and draws.uniform(timeout_keys[i], step) < timeout_probability(p, w_lost):
                    phase[i] = STALLED  # too few duplicate ACKs: the retransmission timer fires
                    live[i] = False
                    next_rto_t[i] = t + rto[i]
                    stalled = True
    # growth: slow start, then congestion avoidance (LIA for coupled connections)
    ca = np.zeros(S, dtype=np.bool_)
    for i in range(S):
        lim = live[i] and x[i] >= 0.98 * w[i] and w[i] < limit[i]
        if lim and not react[i] and x[i] > 0 and t >= recover_end[i]:
            acked = x[i] * (dt / pkt_bits)
            if cwnd[i] < ssthresh[i]:
                v = cwnd[i] * np.exp2(acked / cwnd[i])
                cap_ = ssthresh[i] if ssthresh[i] > cwnd[i] else cwnd[i]
                cwnd[i] = v if v < cap_ else cap_
            else:
                ca[i] = True
    for c in range(n_conn):
        a, b = conn_ptr[c], conn_ptr[c + 1]
        n_open = 0
        tot_w = 0.0
        denom = 0.0
        best = 0.0
        for i in range(a, b):
            if live[i]:
                n_open += 1
                tot_w += cwnd[i]
                denom += cwnd[i] / rtt[i]
                v = cwnd[i] / (rtt[i] * rtt[i])
                if v > best:
                    best = v
        coupled = coupled_conn[c] and n_open > 1
        alpha = tot_w * best / (denom * denom) if coupled else 0.0
        for i in range(a, b):
            if ca[i]:
                acked = x[i] * (dt / pkt_bits)
                inc = 1.0 / cwnd[i]
                if coupled:
                    lia = alpha / tot_w
                    if lia < inc:
                        inc = lia
                v = cwnd[i] + acked * inc
                cwnd[i] = v if v < max_cwnd else max_cwnd
    # RTT estimation (RFC 6298 §2), one sample per round trip
    for i in range(S):
        if live[i] and x[i] > 0 and t >= next_sample_t[i]:
            r = rtt[i]
            if np.isnan(srtt[i]):
                rttvar[i] = r / 2.0
                srtt[i] = r
            else:
                rttvar[i] = 0.75 * rttvar[i] + 0.25 * abs(srtt[i] - r)
                srtt[i] = 0.875 * srtt[i] + 0.125 * r
            v = srtt[i] + max(granularity, 4.0 * rttvar[i])
            rto[i] = min(max_rto, max(min_rto, v))
            next_sample_t[i] = t + r
    return stalled
