import { NavLink } from "react-router";
import type { UserPublic } from "../api/types";

/**
 * The top navigation: every signed-in user's pages, and the admin pages for admins only (a
 * non-admin who opens one directly is shown the API's refusal there).
 */
export function MainNav({ user }: { user: UserPublic }) {
  return (
    <nav className="main-nav" aria-label="Main">
      <NavLink to="/" end>
        Scenarios
      </NavLink>
      <NavLink to="/projects">Projects</NavLink>
      <NavLink to="/account">API tokens</NavLink>
      {user.is_admin ? (
        <>
          <NavLink to="/admin/users">Users</NavLink>
          <NavLink to="/admin/audit">Audit log</NavLink>
        </>
      ) : null}
    </nav>
  );
}
