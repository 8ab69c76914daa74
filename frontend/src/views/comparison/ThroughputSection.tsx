import { useCallback, type ReactNode } from "react";
import type { AccessPass, ResultDocument, ScenarioDocument } from "../../api/types";
import { LegendSwatch, MARKER_STYLE } from "../../components/chartKit";
import { PlaybackBar } from "../../components/PlaybackBar";
import { SatcomCapacityChart } from "../../components/SatcomCapacityChart";
import { ThroughputChart } from "../../components/ThroughputChart";
import { TimeBrush } from "../../components/TimeBrush";
import { EVENT_MARKER_KINDS, valuesAt } from "../../lib/chartData";
import { formatFixed3, formatSeconds } from "../../lib/format";
import { usePlayback } from "../../lib/playback";
import { QualityCharts } from "./QualityCharts";
import { ShownRun } from "./ShownRun";
import type { ChartSelection } from "./useChartSelection";
import type { ResultView } from "./useResultView";

interface ThroughputSectionProps {
  result: ResultDocument;
  view: ResultView;
  selection: ChartSelection;
  descriptions: Record<string, string>;
  name: string;
  point: number;
  pointPicker?: ReactNode;
  /** The scenario's SATCOM passes with their MODCOD steps (budgeted links), for the capacity chart; null: none. */
  satcom?: SatcomPasses | null;
}

/** The comparison's scenario and its access report (`POST /api/timeline?access=true` `access`). */
export interface SatcomPasses {
  doc: ScenarioDocument;
  passes: readonly AccessPass[];
}

/** "Throughput per flow": the shown run, subflow and marker toggles, the brush, one chart per strategy on shared axes,
 * the delay, jitter, loss and MOS of udp, voice and video flows and, with budgeted SATCOM links, their capacity over
 * the same time axis. */
export function ThroughputSection({ result, view, selection, descriptions, name, point, pointPicker, satcom }: ThroughputSectionProps) {
  const playback = usePlayback(result.scenario.run?.duration_s ?? view.domains.x[1]);
  // the charts' rule: the hovered time, else the time chosen on any slider of the page or played
  const ruleT = playback.hoverT ?? playback.t;
  const { timeWindow, setTimeWindow, markerKinds, setMarkerKind, showSubflows, setShowSubflows } = selection;
  const readout = useCallback(
    (t: number) => {
      const hover = valuesAt(view.series, t);
      return (
        <>
          <strong>t ≈ {formatSeconds(hover[0]?.t_s ?? t)} s</strong>
          {view.order.map((s) => (
            <span key={s} className="hover-item">
              <span className="swatch" style={{ background: view.colors[s] }} />
              {s}:{" "}
              {hover
                .filter((h) => h.strategy === s)
                .map((h) => `${h.flowId} ${formatFixed3(h.mbps)}`)
                .join(", ")}{" "}
              Mbit/s
            </span>
          ))}
        </>
      );
    },
    [view],
  );
  const presentKinds = EVENT_MARKER_KINDS.filter((k) => view.series.some((s) => s.markers.some((m) => m.kind === k)));

  return (
    <section aria-labelledby="charts-title">
      <div className="section-head">
        <h2 id="charts-title" className="section-title">
          Throughput per flow
        </h2>
        <PlaybackBar playback={playback} ariaLabel="Playback time (s)" outputLabel="Playback time" />
      </div>
      <ShownRun result={result} point={point} picker={pointPicker} />
      <div className="chart-controls">
        <label className="toggle">
          <input type="checkbox" checked={showSubflows} onChange={(e) => setShowSubflows(e.currentTarget.checked)} /> Show subflows
        </label>
        <fieldset className="marker-kinds">
          <legend>Markers</legend>
          {presentKinds.map((k) => (
            <label key={k} className="toggle">
              <input type="checkbox" checked={markerKinds.includes(k)} onChange={(e) => setMarkerKind(k, e.currentTarget.checked)} />{" "}
              <LegendSwatch item={{ key: k, kind: "marker", label: k, color: MARKER_STYLE[k]?.color ?? "#64748b", glyph: MARKER_STYLE[k]?.glyph }} /> {MARKER_STYLE[k]?.label ?? k}
            </label>
          ))}
          {!presentKinds.length ? <span className="muted small">no events</span> : null}
        </fieldset>
      </div>
      <div className="charts">
        {view.series.map((s) => (
          <ThroughputChart
            key={s.strategy}
            series={s}
            domains={view.domains}
            styles={view.styles}
            description={descriptions[s.strategy]}
            markerKinds={markerKinds}
            subflows={showSubflows ? view.subflows[s.strategy] : null}
            hoverT={ruleT}
            onHover={playback.setHoverT}
            view={timeWindow}
            onView={setTimeWindow}
            readout={readout}
            filename={name}
          />
        ))}
        <QualityCharts view={view} timeWindow={timeWindow} ruleT={ruleT} onHover={playback.setHoverT} name={name} />
        {satcom?.passes.some((p) => p.steps?.length) ? (
          <SatcomCapacityChart passes={satcom.passes} doc={satcom.doc} domain={view.domains.x} view={timeWindow} ruleT={ruleT} onHover={playback.setHoverT} filename={name} />
        ) : null}
      </div>
      {/* the overview below the charts, so that the first chart is above the fold at 1024×768 */}
      {view.series[0] ? <TimeBrush series={view.series[0]} domains={view.domains} styles={view.styles} view={timeWindow} onView={setTimeWindow} /> : null}
      <p className="muted small">Same axes in every chart. Hover a chart to read every strategy's values at that time, at the cursor; the routes and the map follow the hovered or played time.</p>
    </section>
  );
}
