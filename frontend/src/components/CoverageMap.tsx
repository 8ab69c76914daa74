/**
 * Coverage heat map of the scenario's access points at the scrubbed time: the air rate a station
 * would get at each point (`POST /api/coverage`, computed by the backend with the run planner's
 * radio rule, docs/radio.md), drawn on a canvas with the access points and a legend in Mbit/s.
 */
import { useEffect, useRef, useState } from "react";
import { scaleLinear } from "d3-scale";
import { api, isAbort } from "../api/client";
import type { CoveragePublic, ScenarioDocument } from "../api/types";
import { errorLines } from "../lib/errors";
import { formatSeconds } from "../lib/format";

const SIZE_PX = 320;
const CELLS = 48;

/** Colour of a rate: light yellow for the slowest MCS to dark blue for the fastest; none out of range. */
export function rateColor(levels: readonly number[]): (rate: number) => string | null {
  const top = levels.length ? levels[levels.length - 1]! : 1;
  const bottom = levels.length ? levels[0]! : 0;
  const scale = scaleLinear<string>()
    .domain([bottom, (bottom + top) / 2, top])
    .range(["#fde68a", "#34d399", "#1e3a8a"])
    .clamp(true);
  return (rate) => (rate > 0 ? scale(rate) : null);
}

export function CoverageMap({ doc, t }: { doc: ScenarioDocument; t: number }) {
  const hasRadio = doc.nodes.some((n) => n.kind === "access_point" && n.radio);
  const [grid, setGrid] = useState<CoveragePublic | null>(null);
  const [error, setError] = useState<string | null>(null);
  const canvas = useRef<HTMLCanvasElement | null>(null);

  useEffect(() => {
    if (!hasRadio) return;
    const ctl = new AbortController();
    const timer = window.setTimeout(() => {
      api
        .coverage(doc, t, CELLS, ctl.signal)
        .then((g) => {
          setGrid(g);
          setError(null);
        })
        .catch((err) => {
          if (!isAbort(err)) setError(errorLines(err).join(" "));
        });
    }, 150);
    return () => {
      window.clearTimeout(timer);
      ctl.abort();
    };
  }, [doc, t, hasRadio]);

  useEffect(() => {
    const el = canvas.current;
    const ctx = el?.getContext("2d");
    if (!el || !ctx || !grid) return;
    ctx.clearRect(0, 0, SIZE_PX, SIZE_PX);
    if (!grid.nx) return;
    const color = rateColor(grid.levels_mbps);
    const px = SIZE_PX / grid.nx;
    grid.rates_mbps.forEach((row, j) => {
      row.forEach((rate, i) => {
        const c = color(rate);
        if (!c) return;
        ctx.fillStyle = c;
        // row 0 is the southernmost: drawn at the bottom
        ctx.fillRect(i * px, SIZE_PX - (j + 1) * px, Math.ceil(px), Math.ceil(px));
      });
    });
    const span = grid.nx * grid.cell_m;
    ctx.fillStyle = "#111827";
    ctx.font = "11px sans-serif";
    for (const [ap, [x, y]] of Object.entries(grid.positions_m)) {
      const cx = ((x - grid.x_min_m) / span) * SIZE_PX;
      const cy = SIZE_PX - ((y - grid.y_min_m) / span) * SIZE_PX;
      ctx.beginPath();
      ctx.arc(cx, cy, 4, 0, 2 * Math.PI);
      ctx.fill();
      ctx.fillText(ap, cx + 6, cy - 6);
    }
  }, [grid]);

  if (!hasRadio) return null;
  const color = grid ? rateColor(grid.levels_mbps) : null;
  return (
    <section className="card coverage" aria-labelledby="coverage-title">
      <h2 id="coverage-title">Coverage at {formatSeconds(grid?.t_s ?? t)} s</h2>
      <p className="muted small">Air rate a station on the ground would get from the best access point (radio propagation).</p>
      {error ? <p className="field-error">{error}</p> : null}
      <canvas
        ref={canvas}
        width={SIZE_PX}
        height={SIZE_PX}
        role="img"
        aria-label={`Coverage heat map at ${formatSeconds(grid?.t_s ?? t)} s`}
        data-cells={grid?.nx ?? 0}
        className="coverage-canvas"
      />
      {grid && color ? (
        <>
          <p className="muted small">
            Square of {Math.round(grid.nx * grid.cell_m)} m a side; north up.
          </p>
          <ul className="legend" aria-label="Coverage legend (Mbit/s)">
            {grid.levels_mbps.map((r) => (
              <li key={r}>
                <svg width="16" height="16" viewBox="0 0 16 16" aria-hidden="true">
                  <rect x="1" y="1" width="14" height="14" fill={color(r) ?? "none"} />
                </svg>
                {r} Mbit/s
              </li>
            ))}
            <li>
              <svg width="16" height="16" viewBox="0 0 16 16" aria-hidden="true">
                <rect x="1" y="1" width="14" height="14" fill="none" stroke="#9ca3af" />
              </svg>
              out of range
            </li>
          </ul>
        </>
      ) : null}
    </section>
  );
}
