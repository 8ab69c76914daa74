/**
 * The user's map settings, kept in this browser (localStorage): an optional raster tile URL
 * template drawn under the offline basemap. None by default (Subflow works without internet).
 */

export const TILE_URL_KEY = "subflow.map.tileUrl";

/** `https://…/{z}/{x}/{y}.png`-style template: http(s) or a same-origin path, with {z}, {x} and {y}. */
export function validTileUrl(url: string): string | null {
  const u = url.trim();
  if (!u) return null;
  if (!/^(https?:\/\/|\/)/i.test(u)) return "The tile URL must start with http://, https:// or /.";
  for (const k of ["{z}", "{x}", "{y}"]) if (!u.includes(k)) return `The tile URL must contain ${k}.`;
  return null;
}

type Store = Pick<Storage, "getItem" | "setItem" | "removeItem">;

function store(): Store | null {
  try {
    return typeof localStorage === "undefined" ? null : localStorage;
  } catch {
    return null;
  }
}

/** The saved tile URL, or null (none, or one that is no longer valid). */
export function loadTileUrl(s: Store | null = store()): string | null {
  const v = s?.getItem(TILE_URL_KEY) ?? null;
  return v && validTileUrl(v) === null ? v.trim() : null;
}

/** Save (or with "" clear) the tile URL; returns the problem with it instead of saving, if any. */
export function saveTileUrl(url: string, s: Store | null = store()): string | null {
  const problem = validTileUrl(url);
  if (problem) return problem;
  if (!url.trim()) s?.removeItem(TILE_URL_KEY);
  else s?.setItem(TILE_URL_KEY, url.trim());
  if (typeof window !== "undefined") window.dispatchEvent(new Event(TILE_URL_KEY));
  return null;
}
