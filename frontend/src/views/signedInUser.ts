/**
 * The signed-in user, for pages that show or hide what depends on it (the admin links, a project
 * owner's buttons). The layout provides it; what a page may actually do is still the API's answer.
 *
 * Owns:
 * 1. `SignedInUser` — the context (null while signed out or checking);
 * 2. `useSignedInUser` — reads it.
 */
import { createContext, useContext } from "react";
import type { UserPublic } from "../api/types";

export const SignedInUser = createContext<UserPublic | null>(null);

export function useSignedInUser(): UserPublic | null {
  return useContext(SignedInUser);
}
