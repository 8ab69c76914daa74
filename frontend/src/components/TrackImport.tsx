/**
 * Import a ship's or vehicle's track for one node: GPX, AIS (CSV of MMSI/time/lat/lon/SOG/COG) or
 * NMEA AIVDM sentences, sent to `POST /api/scenarios/{id}/nodes/{node}/track`. The server parses
 * it (gpxpy, pyais), makes the node's mobility a `waypoints` track and stores a new version,
 * which the editor then shows; a bad file is refused naming the field or line, nothing stored.
 */
import { useId, useState } from "react";
import { api, type TrackFormat } from "../api/client";
import type { ScenarioPublic } from "../api/types";
import { errorLines } from "../lib/errors";
import { FieldErrors } from "./Legend";

const FORMATS: { value: TrackFormat; label: string }[] = [
  { value: "gpx", label: "GPX" },
  { value: "ais-csv", label: "AIS (CSV)" },
  { value: "nmea", label: "NMEA (AIVDM)" },
];

export function TrackImport({
  scenarioId,
  version,
  nodeId,
  disabled,
  onImported,
}: {
  scenarioId: string | null;
  /** The saved version being edited (If-Match). */
  version?: number;
  nodeId: string;
  disabled?: string | null;
  onImported: (s: ScenarioPublic) => void;
}) {
  const id = useId();
  const [format, setFormat] = useState<TrackFormat>("gpx");
  const [mmsi, setMmsi] = useState("");
  const [busy, setBusy] = useState(false);
  const [problems, setProblems] = useState<string[]>([]);
  const [note, setNote] = useState<string | null>(null);
  const why = !scenarioId ? "Save the scenario first." : disabled ?? null;

  const upload = async (file: File) => {
    if (!scenarioId) return;
    setBusy(true);
    setProblems([]);
    setNote(null);
    try {
      const s = await api.importTrack(scenarioId, nodeId, file, format, mmsi.trim() || undefined, version);
      setNote(`Imported ${file.name}: version ${s.version}.`);
      onImported(s);
    } catch (err) {
      setProblems(errorLines(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <fieldset className="track-import">
      <legend>Import a track</legend>
      <div className="field-grid">
        <label className="field">
          <span className="field-label">Track format</span>
          <select value={format} onChange={(e) => setFormat(e.currentTarget.value as TrackFormat)} disabled={!!why || busy}>
            {FORMATS.map((f) => (
              <option key={f.value} value={f.value}>
                {f.label}
              </option>
            ))}
          </select>
        </label>
        {format !== "gpx" ? (
          <label className="field">
            <span className="field-label">MMSI (if the file has several vessels)</span>
            <input type="text" inputMode="numeric" value={mmsi} onChange={(e) => setMmsi(e.currentTarget.value)} disabled={!!why || busy} />
          </label>
        ) : null}
        <label className="field field-wide" htmlFor={`${id}-file`}>
          <span className="field-label">Track file for {nodeId}</span>
        </label>
        <input
          id={`${id}-file`}
          type="file"
          accept=".gpx,.csv,.txt,.nmea,.log"
          aria-label={`Track file for ${nodeId}`}
          disabled={!!why || busy}
          onChange={(e) => {
            const f = e.currentTarget.files?.[0];
            e.currentTarget.value = "";
            if (f) void upload(f);
          }}
        />
      </div>
      {scenarioId ? (
        <p className="small">
          <a href={api.trackGpxUrl(scenarioId, nodeId)} download>
            Download {nodeId}'s track (GPX, saved version)
          </a>
        </p>
      ) : null}
      {why ? <p className="muted small">{why}</p> : null}
      {busy ? <p className="muted small">Importing…</p> : null}
      {note ? (
        <p className="muted small" role="status">
          {note}
        </p>
      ) : null}
      <FieldErrors errors={problems} />
    </fieldset>
  );
}
