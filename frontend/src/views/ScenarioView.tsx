import { useEffect, useId, useMemo, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { api, isAbort } from "../api/client";
import type { ComparisonSummary, NodeKind, ScenarioPublic, ScenarioNode, StrategyInfo } from "../api/types";
import { ErrorList } from "../components/ErrorList";
import { Legend } from "../components/Legend";
import { TopologyGraph } from "../components/TopologyGraph";
import { errorLines } from "../lib/errors";
import { kindName } from "../lib/topology";

const DEFAULT_STRATEGIES = ["sptcp", "mptcp"];

function nodeDetails(n: ScenarioNode): [string, string][] {
  const rows: [string, string][] = [
    ["Kind", kindName(n.kind)],
    ["Position", `(${n.position?.x_m ?? 0} m, ${n.position?.y_m ?? 0} m)`],
  ];
  if (n.kind === "access_point") {
    rows.push(["Range", `${n.range_m} m`]);
    if (n.association_delay_s !== undefined) rows.push(["Association delay", `${n.association_delay_s} s`]);
    if (n.wireless_bandwidth_mbps !== undefined) rows.push(["Wireless bandwidth", `${n.wireless_bandwidth_mbps} Mbit/s`]);
  }
  if (n.kind === "station") {
    const m = n.mobility;
    rows.push(["Mobility", m ? m.model.replace("_", " ") : "static"]);
    if (m?.model === "linear") rows.push(["Speed", `${m.speed_mps} m/s`]);
  }
  if (n.kind === "satellite" && n.orbit) rows.push(["Orbit", n.orbit.toUpperCase()]);
  return rows;
}

interface PickerProps {
  scenarioId: string;
  onClose: () => void;
}

function StrategyPicker({ scenarioId, onClose }: PickerProps) {
  const navigate = useNavigate();
  const titleId = useId();
  const [strategies, setStrategies] = useState<StrategyInfo[] | null>(null);
  const [chosen, setChosen] = useState<string[]>(DEFAULT_STRATEGIES);
  const [errors, setErrors] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    const ctl = new AbortController();
    api
      .listStrategies(ctl.signal)
      .then((list) => {
        setStrategies(list);
        setChosen((c) => c.filter((name) => list.some((s) => s.name === name)));
      })
      .catch((err) => {
        if (!isAbort(err)) setErrors(errorLines(err));
      });
    return () => ctl.abort();
  }, []);

  const toggle = (name: string, on: boolean) =>
    setChosen((c) => (on ? [...c.filter((x) => x !== name), name] : c.filter((x) => x !== name)));

  const run = async () => {
    setBusy(true);
    setErrors([]);
    try {
      // keep the registry's order, not the click order
      const ordered = (strategies ?? []).map((s) => s.name).filter((n) => chosen.includes(n));
      const c = await api.startComparison(scenarioId, { strategies: ordered, engine: "fluid" });
      navigate(`/scenarios/${encodeURIComponent(scenarioId)}/comparisons/${encodeURIComponent(String(c.id))}`);
    } catch (err) {
      setErrors(errorLines(err));
      setBusy(false);
    }
  };

  return (
    <section className="card picker" role="dialog" aria-labelledby={titleId}>
      <h2 id={titleId}>Compare strategies</h2>
      <p className="muted">Each selected strategy runs on this scenario with the fluid engine.</p>
      {strategies === null && !errors.length ? <p className="muted">Loading strategies…</p> : null}
      <fieldset className="strategy-options">
        <legend className="visually-hidden">Strategies</legend>
        {(strategies ?? []).map((s) => (
          <label key={s.name} className="strategy-option">
            <input
              type="checkbox"
              checked={chosen.includes(s.name)}
              onChange={(e) => toggle(s.name, e.currentTarget.checked)}
              aria-labelledby={`${titleId}-${s.name}`}
              aria-describedby={`${titleId}-${s.name}-desc`}
            />
            <span>
              <span id={`${titleId}-${s.name}`} className="strategy-name">
                {s.name}
              </span>
              {s.multipath ? <span className="badge badge-soft">multipath</span> : null}
              <span id={`${titleId}-${s.name}-desc`} className="strategy-desc">
                {s.description}
              </span>
            </span>
          </label>
        ))}
      </fieldset>
      <ErrorList title="The comparison was not started:" items={errors} />
      <div className="actions">
        <button type="button" className="btn" onClick={onClose} disabled={busy}>
          Cancel
        </button>
        <button
          type="button"
          className="btn btn-primary"
          onClick={run}
          disabled={busy || chosen.length === 0 || strategies === null}
        >
          {busy ? "Starting…" : "Run"}
        </button>
      </div>
    </section>
  );
}

function statusClass(status: string): string {
  return `status status-${status}`;
}

export function ScenarioView() {
  const { id = "" } = useParams();
  const [item, setItem] = useState<ScenarioPublic | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  const [comparisons, setComparisons] = useState<ComparisonSummary[]>([]);
  const [picking, setPicking] = useState(false);
  const [selected, setSelected] = useState<string | null>(null);

  useEffect(() => {
    const ctl = new AbortController();
    setItem(null);
    setErrors([]);
    api
      .getScenario(id, ctl.signal)
      .then(setItem)
      .catch((err) => {
        if (!isAbort(err)) setErrors(errorLines(err));
      });
    api
      .listComparisons(id, ctl.signal)
      .then((p) => setComparisons(p.data))
      .catch(() => setComparisons([]));
    return () => ctl.abort();
  }, [id]);

  const doc = item?.scenario;
  const kinds = useMemo(() => [...new Set((doc?.nodes ?? []).map((n) => n.kind))] as NodeKind[], [doc]);
  const selectedNode = doc?.nodes.find((n) => n.id === selected) ?? null;

  if (errors.length) {
    return (
      <>
        <Breadcrumbs />
        <ErrorList title="Could not load the scenario:" items={errors} />
      </>
    );
  }
  if (!item || !doc) return <p className="muted">Loading…</p>;

  return (
    <>
      <Breadcrumbs name={item.name} />
      <div className="page-head">
        <div>
          <h1>
            {item.name} <span className="badge">v{item.version}</span>
          </h1>
          {item.description ? <p className="description">{item.description}</p> : null}
        </div>
        <div className="head-actions">
          <button
            type="button"
            className="btn btn-primary"
            onClick={() => setPicking((p) => !p)}
            aria-expanded={picking}
          >
            Compare
          </button>
        </div>
      </div>

      {picking ? <StrategyPicker scenarioId={id} onClose={() => setPicking(false)} /> : null}

      <div className="scenario-grid">
        <section className="card topology-card" aria-labelledby="topology-title">
          <div className="card-head">
            <h2 id="topology-title">Topology</h2>
            <span className="muted small">
              {doc.nodes.length} nodes · {(doc.links ?? []).length} links · {(doc.flows ?? []).length} flows
            </span>
          </div>
          <TopologyGraph doc={doc} label={`Topology of ${item.name}`} onSelectNode={setSelected} />
          <Legend kinds={kinds} />
        </section>

        <aside className="side">
          <section className="card" aria-labelledby="node-title">
            <h2 id="node-title">{selectedNode ? selectedNode.label || selectedNode.id : "Node"}</h2>
            {selectedNode ? (
              <dl className="details">
                <div className="details-row">
                  <dt>Id</dt>
                  <dd>
                    <code>{selectedNode.id}</code>
                  </dd>
                </div>
                {nodeDetails(selectedNode).map(([k, v]) => (
                  <div key={k} className="details-row">
                    <dt>{k}</dt>
                    <dd>{v}</dd>
                  </div>
                ))}
              </dl>
            ) : (
              <p className="muted small">Select a node in the drawing to see its settings.</p>
            )}
          </section>

          <section className="card" aria-labelledby="flows-title">
            <h2 id="flows-title">Flows</h2>
            {(doc.flows ?? []).length ? (
              <table className="compact">
                <thead>
                  <tr>
                    <th scope="col">Id</th>
                    <th scope="col">From → to</th>
                    <th scope="col" className="num">
                      Rate
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {(doc.flows ?? []).map((f) => (
                    <tr key={f.id}>
                      <td>
                        <code>{f.id}</code>
                      </td>
                      <td>
                        {f.src} → {f.dst}
                      </td>
                      <td className="num">{f.rate_mbps == null ? "bulk" : `${f.rate_mbps} Mbit/s`}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : (
              <p className="muted small">No flows.</p>
            )}
            <p className="muted small">
              Run: {doc.run?.duration_s ?? 100} s, sampled every {doc.run?.interval_s ?? 1} s.
            </p>
          </section>

          <section className="card" aria-labelledby="history-title">
            <h2 id="history-title">Comparisons</h2>
            {comparisons.length ? (
              <ul className="history">
                {comparisons.map((c) => (
                  <li key={String(c.id)}>
                    <Link
                      to={`/scenarios/${encodeURIComponent(id)}/comparisons/${encodeURIComponent(String(c.id))}`}
                    >
                      {c.strategies.join(" vs ")}
                    </Link>
                    <span className={statusClass(c.status)}>{c.status}</span>
                    <span className="muted small">{new Date(c.created_at).toLocaleString()}</span>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="muted small">None yet. Press Compare to run one.</p>
            )}
          </section>
        </aside>
      </div>
    </>
  );
}

function Breadcrumbs({ name }: { name?: string }) {
  return (
    <nav className="breadcrumbs" aria-label="Breadcrumb">
      <Link to="/">Scenarios</Link>
      {name ? (
        <>
          <span aria-hidden="true"> / </span>
          <span aria-current="page">{name}</span>
        </>
      ) : null}
    </nav>
  );
}
