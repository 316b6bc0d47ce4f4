import { useEffect, type ReactNode } from 'react';
import { Navigate } from 'react-router-dom';
import { useCurrentUser } from '../api/queries/user.ts';
import { NoAccess } from '../components/NoAccess.tsx';
import { goToPage } from '../navigation.ts';
import { routePaths } from '../routePaths.ts';
import { isAdmin, isVerified } from './roles.ts';

/** Who may open a route: anyone, signed-in users, or signed-in users with the admin flag. */
export type RouteAccess = 'public' | 'login' | 'admin';

/**
 * Applies spec §2/§6 to one route, using the user loaded at start-up:
 * signed out on a login route → the browser goes to /login; not activated → /not_verified;
 * admin route without the admin flag → a "Geen toegang" notice (the server refuses anyway).
 */
export function RouteGuard({ access, children }: { access: RouteAccess; children: ReactNode }) {
  const { user } = useCurrentUser();
  if (access === 'public') return children;
  if (user === null) return <RedirectToLogin />;
  if (!isVerified(user)) return <Navigate to={routePaths.notVerified} replace />;
  if (access === 'admin' && !isAdmin(user)) return <NoAccess />;
  return children;
}

/** A full page load (the spec sends "the browser" to the login address); replace avoids a back-button loop. */
function RedirectToLogin() {
  useEffect(() => {
    goToPage(routePaths.login, { replace: true });
  }, []);
  return (
    <p className="card redirect-note" role="status">
      Je moet eerst inloggen. Je wordt doorgestuurd naar de inlogpagina…
    </p>
  );
}
