/** Basemap settings (this browser): an optional raster tile URL drawn under the offline coastlines. */
import { useId, useState } from "react";
import { loadTileUrl, saveTileUrl } from "../lib/mapSettings";

export function MapSettings() {
  const id = useId();
  const [value, setValue] = useState(() => loadTileUrl() ?? "");
  const [problem, setProblem] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const save = (url: string) => {
    const p = saveTileUrl(url);
    setProblem(p);
    setNote(p ? null : url.trim() ? "Saved: tiles are drawn under the coastlines." : "Cleared: the offline basemap only.");
    if (!p) setValue(url.trim());
  };
  return (
    <details className="map-settings">
      <summary className="small">Map settings</summary>
      <label htmlFor={`${id}-tiles`} className="small">
        Tile URL (optional; kept in this browser). A template with {"{z}"}, {"{x}"} and {"{y}"}, e.g. a tile server on your network. Empty: the built-in coastlines and country outlines
        (Natural Earth), which need no network.
      </label>
      <input id={`${id}-tiles`} type="text" value={value} placeholder="https://tiles.example.org/{z}/{x}/{y}.png" onChange={(e) => setValue(e.currentTarget.value)} aria-invalid={problem ? true : undefined} />
      <div className="actions">
        <button type="button" className="btn btn-small" onClick={() => save(value)}>
          Save tile URL
        </button>
        <button type="button" className="btn btn-small" onClick={() => save("")}>
          Clear
        </button>
      </div>
      {problem ? <p className="field-error">{problem}</p> : null}
      {note ? <p className="muted small">{note}</p> : null}
    </details>
  );
}
