/** A titled chart with its legend and "CSV", "SVG" and "PNG" export buttons (exports carry the title and legend). */
import { useId, useRef, type ReactNode } from "react";
import { downloadCsv, downloadPng, downloadSvg } from "./chartExport";
import { ChartLegend, type LegendItem } from "./chartKit";

export interface ChartFrameProps {
  title: string;
  /** file name without extension */
  filename: string;
  csv?: () => string;
  description?: ReactNode;
  testId?: string;
  children: ReactNode;
  headingLevel?: 2 | 3;
  /** every line, band, bar and marker kind drawn (page and exports) */
  legend?: readonly LegendItem[];
  /** title written into exports (default: `title`) */
  exportTitle?: string;
}

export function ChartFrame({ title, filename, csv, description, testId, children, headingLevel = 3, legend = [], exportTitle }: ChartFrameProps) {
  const ref = useRef<HTMLElement | null>(null);
  const headingId = useId();
  const svg = () => ref.current?.querySelector("svg.chart-svg") as SVGSVGElement | null;
  const H = headingLevel === 2 ? "h2" : "h3";
  return (
    <figure className="chart" data-testid={testId} aria-labelledby={headingId} ref={ref}>
      <figcaption>
        <div className="chart-head">
          <H id={headingId} className="chart-title">
            {title}
          </H>
          <div className="chart-export" role="group" aria-label={`Export ${title}`}>
            {csv ? (
              <button type="button" className="btn btn-small" onClick={() => downloadCsv(csv(), `${filename}.csv`)}>
                CSV
              </button>
            ) : null}
            <button type="button" className="btn btn-small" onClick={() => svg() && downloadSvg(svg()!, `${filename}.svg`, exportTitle ?? title, legend)}>
              SVG
            </button>
            <button type="button" className="btn btn-small" onClick={() => svg() && void downloadPng(svg()!, `${filename}.png`, exportTitle ?? title, legend)}>
              PNG
            </button>
          </div>
        </div>
        {description ? <div className="chart-desc">{description}</div> : null}
      </figcaption>
      {children}
      <ChartLegend items={legend} label={`Legend, ${title}`} />
    </figure>
  );
}
