/** Web Mercator metres of a latitude/longitude (Leaflet's `SphericalMercator`), for schematic x/y drawings. */
import L from "leaflet";
import type { Projector } from "../lib/geo";

export const mercatorMetres: Projector = (p) => {
  const q = L.Projection.SphericalMercator.project(L.latLng(p.lat_deg, p.lon_deg));
  return { x_m: q.x, y_m: q.y };
};
