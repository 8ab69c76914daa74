"""Vectorised kernel of the ``fluid`` engine for plans with many subflows.

Same model and equations as :mod:`subflow_agent.engines.fluid` (see its
docstring), with the per-step continuous dynamics — round-trip times, window
rates, scheduling, fluid queues, losses, window growth, RTT estimation — done
on NumPy arrays over all subflows at once, with the path incidence kept as
(subflow, resource) pairs (``M[i, l] = 1`` when subflow i crosses resource l;
products by M are gathers plus ``numpy.bincount``):

    RTT   = base_RTT + M·(q / C)
    A     = Mᵀ·x
    pass  = exp(M·log(departed / arrived)),  dropped = M·drop_fraction

Discrete events (segment changes, handshakes, retransmission timers, flow
start/stop/completion) are handled in Python for the few subflows they
concern. :func:`supports` says which plans this kernel takes: single-path
flows with the ``bare`` handover, MPTCP (LIA) and CMT (uncoupled)
multipath, NewReno congestion control. The fluid engine dispatches to it for
large plans and runs everything else itself; tests pin both to the same
results on plans both accept.

Random link-loss draws come from ``numpy.random.default_rng(seed)``, so runs
with lossy links are deterministic for a seed but not draw-for-draw identical
to the scalar kernel; queue-overflow draws are counter-based
(:mod:`subflow_agent.engines.draws`) and identical in both.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from subflow.plan import RunPlan
from subflow.results import EngineOutput, FlowResult, SubflowResult

from subflow_agent.engines import draws

CLOCK_GRANULARITY_S = 0.001
MAX_CWND_PACKETS = 1e5

# phases
DEAD, HANDSHAKE, OPEN, STALLED = 0, 1, 2, 3


def supports(plan: RunPlan) -> bool:
    """True if this kernel implements every feature ``plan`` uses."""
    if plan.transport.congestion_control != "newreno":
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
    """Simulate ``plan`` (see :func:`subflow_agent.engines.fluid.run` for the contract)."""
    if not supports(plan):
        raise ValueError("plan uses features the vectorised kernel does not implement")
    tr = plan.transport
    pkt_bits = tr.mss_bytes * 8.0
    rbuf_bits = math.inf if tr.rbuf_bytes is None else tr.rbuf_bytes * 8.0
    rng = np.random.default_rng(plan.seed)
    resources = plan.resources
    rindex = {r.id: i for i, r in enumerate(resources)}
    n_res = len(resources)
    cap = np.array([r.capacity_mbps * 1e6 for r in resources])
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
    inc_rows = np.zeros(0, dtype=np.int64)  # incidence (subflow, resource) pairs of the current paths
    inc_cols = np.zeros(0, dtype=np.int64)

    row_ptr = np.zeros(0, dtype=np.int64)  # start of each path's run in inc_cols
    path_rows = np.zeros(0, dtype=np.int64)  # the subflows that have a path

    # the loop works on the resources that current paths use ("u" arrays, local indices)
    used = np.zeros(0, dtype=np.int64)
    inc_local = np.zeros(0, dtype=np.int64)
    cap_u = capdt_u = buf_u = queue_u = np.zeros(0)

    def path_sum(v: np.ndarray) -> np.ndarray:
        """M·v: per subflow, the sum of a per-(used-)resource quantity along its path."""
        out = np.zeros(S)
        if len(path_rows):
            out[path_rows] = np.add.reduceat(v[inc_local], row_ptr)
        return out

    def resource_sum(v: np.ndarray) -> np.ndarray:
        """Mᵀ·v: per used resource, the sum of a per-subflow quantity over the subflows crossing it."""
        return np.bincount(inc_local, weights=v[inc_rows], minlength=len(used))

    def set_path(slot: int, sp) -> None:
        nonlocal matrix_dirty
        paths[slot] = sp.nodes
        res_lists[slot] = [rindex[r] for r in sp.resources]
        base_rtt[slot] = max(1e-4, 2 * float(delay_s[res_lists[slot]].sum()))
        path_log_keep[slot] = float(log_keep[res_lists[slot]].sum())
        limit[slot] = math.inf if sp.rate_limit_mbps is None else sp.rate_limit_mbps * 1e6
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

    def refresh_state(t: float) -> tuple[np.ndarray, float]:
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
            if has_path[slot]:
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
    any_coupled = bool(coupled_conn.any())
    any_finite = bool(np.isfinite(remaining_bits).any())
    any_random_loss = bool((log_keep < 0).any())
    changes = [(c.t_s, rindex[c.resource], c.capacity_mbps * 1e6) for c in plan.capacity_changes]
    next_change = 0
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
            inc_rows = np.array([i for i in with_path for _ in res_lists[i]], dtype=np.int64)
            inc_cols = np.array([r for i in with_path for r in res_lists[i]], dtype=np.int64)
            path_rows = np.array(with_path, dtype=np.int64)
            row_ptr = np.cumsum([0] + [len(res_lists[i]) for i in with_path[:-1]]).astype(np.int64)
            queue[used] = queue_u  # keep the queues of resources that leave the working set,
            queue_t[used] = t  # and drain them at their capacity while no path uses them
            used, inc_local = np.unique(inc_cols, return_inverse=True)
            inc_local = inc_local.astype(np.int64)
            cap_u, capdt_u, buf_u = cap[used], cap_dt[used], buf[used]
            queue_u = np.maximum(0.0, queue[used] - cap_u * (t - queue_t[used]))
            matrix_dirty = False
        if state_dirty or t >= next_state_t:
            live, next_state_t = refresh_state(t)
            state_dirty = False
        # ---- rates
        rtt = base_rtt + path_sum(queue_u / cap_u)
        w = np.minimum(cwnd * pkt_bits / rtt, limit)
        w = np.where(live, w, 0.0)
        budget = np.minimum(demand, remaining_bits / dt)
        if rbuf_bits < math.inf:
            max_rtt = np.zeros(n_conn)
            np.maximum.at(max_rtt, conn_of[live], rtt[live])
            budget = np.where(max_rtt > 0, np.minimum(budget, rbuf_bits / np.maximum(max_rtt, 1e-12)), budget)
        if any_multipath:
            # fill each connection's budget in scheduler order (LowRTT; CMT: slowest first)
            key_rtt = np.where(np.isnan(srtt), rtt, srtt)
            key = np.where(slow_first_conn[conn_of], -key_rtt, key_rtt)
            order_idx = np.lexsort((key, conn_of))
            w_sorted = w[order_idx]
            csum = np.cumsum(w_sorted)
            conn_sorted = conn_of[order_idx]
            starts = np.searchsorted(conn_sorted, conn_idx)
            base = np.where(starts > 0, csum[np.maximum(starts - 1, 0)], 0.0)
            before = csum - w_sorted - base[conn_sorted]
            x_sorted = np.clip(budget[conn_sorted] - before, 0.0, w_sorted)
            x = np.empty(S)
            x[order_idx] = x_sorted
        else:  # one subflow carries each connection at a time
            x = np.minimum(w, budget[conn_of])
        limited = live & (x >= 0.98 * w) & (w < limit)
        # ---- queues
        arrived = resource_sum(x) * dt
        qa = queue_u + arrived
        departed = np.minimum(qa, capdt_u)
        q = qa - capdt_u
        over = q > buf_u
        overflow = bool(over.any())
        np.clip(q, 0.0, buf_u, out=queue_u)
        pass_frac = np.divide(departed, arrived, out=np.ones(len(used)), where=arrived > 0)
        through = np.exp(path_log_keep + path_sum(np.log(pass_frac)))
        if overflow:
            drop_frac = np.divide(q - buf_u, arrived, out=np.zeros(len(used)), where=over & (arrived > 0))
            dropped = path_sum(drop_frac)
        got = x * dt * through
        bits[:, b] += got
        # ---- losses
        sent_pkts = x * (dt / pkt_bits)
        if any_random_loss:
            p_rand = -np.expm1(path_log_keep)
            lost = (p_rand > 0) & (rng.random(S) < -np.expm1(-sent_pkts * p_rand)) & (x > 0)
        else:
            lost = np.zeros(S, dtype=bool)
        if overflow:
            hit = (dropped > 0) & (x > 0)
            if hit.any():
                u = draws.uniform_array(draw_keys, step)
                lost |= hit & (u < -np.expm1(-sent_pkts * np.minimum(1.0, dropped)))
        if lost.any():
            retrans += lost
            loss_at = np.where(lost & np.isinf(loss_at), t + rtt, loss_at)
        react = (loss_at <= t) & (x > 0)
        if react.any():
            loss_at[react] = np.inf
            ref = np.where(np.isnan(srtt), rtt, srtt)
            reduce = react & (t - last_red >= ref)
            ssthresh = np.where(reduce, np.maximum(cwnd / 2.0, 2.0), ssthresh)
            cwnd = np.where(reduce, ssthresh, cwnd)
            last_red = np.where(reduce, t, last_red)
            grow = limited & ~react & (x > 0)
        else:
            grow = limited & (x > 0)
        # ---- growth
        acked = sent_pkts
        ss = grow & (cwnd < ssthresh)
        cwnd = np.where(ss, np.minimum(cwnd * np.exp2(acked / cwnd), np.maximum(ssthresh, cwnd)), cwnd)
        ca = grow & ~ss
        # LIA (RFC 6356) per coupled connection with more than one open subflow
        open_live = live & (x >= 0)
        inc = 1.0 / cwnd
        if any_coupled:
            n_open = np.bincount(conn_of[open_live], minlength=n_conn)
            coupled = coupled_conn & (n_open > 1)
        if any_coupled and coupled.any():
            sel = open_live & coupled[conn_of]
            tot_w = np.bincount(conn_of[sel], weights=cwnd[sel], minlength=n_conn)
            denom = np.bincount(conn_of[sel], weights=cwnd[sel] / rtt[sel], minlength=n_conn)
            best = np.zeros(n_conn)
            np.maximum.at(best, conn_of[sel], cwnd[sel] / (rtt[sel] * rtt[sel]))
            with np.errstate(divide="ignore", invalid="ignore"):
                alpha = tot_w * best / (denom * denom)
                lia = np.minimum(alpha[conn_of] / tot_w[conn_of], inc)
            inc = np.where(coupled[conn_of], lia, inc)
        cwnd = np.where(ca, np.minimum(cwnd + acked * inc, MAX_CWND_PACKETS), cwnd)
        # ---- RTT estimation (RFC 6298 §2), one sample per round trip
        sample = live & (x > 0) & (t >= next_sample_t)
        if sample.any():
            r = rtt[sample]
            first = np.isnan(srtt[sample])
            sr, rv = srtt[sample], rttvar[sample]
            rv = np.where(first, r / 2.0, 0.75 * rv + 0.25 * np.abs(sr - r))
            sr = np.where(first, r, 0.875 * sr + 0.125 * r)
            srtt[sample], rttvar[sample] = sr, rv
            rto[sample] = np.minimum(tr.max_rto_s, np.maximum(tr.min_rto_s, sr + np.maximum(CLOCK_GRANULARITY_S, 4 * rv)))
            next_sample_t[sample] = t + r
        # ---- finite transfers
        if any_finite:
            delivered = np.bincount(conn_of, weights=got, minlength=n_conn)
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
