import { useEffect } from "react";
import { pageTitle } from "../lib/identity";

/**
 * Sets the browser tab's title to `pageTitle(...parts)` while the page is shown (back to "Subflow" after).
 *
 * Owns:
 * 1. `document.title` for the page that calls it.
 */
export function usePageTitle(...parts: (string | null | undefined)[]): void {
  const title = pageTitle(...parts);
  useEffect(() => {
    document.title = title;
    return () => {
      document.title = pageTitle();
    };
  }, [title]);
}
