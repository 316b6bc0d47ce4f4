import { Link, isRouteErrorResponse, useRouteError } from 'react-router-dom';
import { Notice } from '../../components/Notice.tsx';
import { routePaths } from '../../routePaths.ts';

/** Any path that is not a route of spec §2. */
export function NotFoundPage() {
  return (
    <Notice title="Pagina niet gevonden" icon="globe" testId="not-found">
      <p className="notice-lead">Deze pagina bestaat niet (meer).</p>
      <p>
        <Link to={routePaths.home}>Terug naar de startpagina</Link>
      </p>
    </Notice>
  );
}

/** Last resort when a page crashes while rendering: say so in Dutch and log the cause. */
export function RouteErrorPage() {
  const error = useRouteError();
  console.error(error);
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFoundPage />;
  return (
    <Notice title="Er ging iets mis" icon="close" testId="route-error">
      <p className="notice-lead">Deze pagina kon niet worden getoond.</p>
      <p>
        Probeer het opnieuw of <a href="/">ga naar de startpagina</a>.
      </p>
    </Notice>
  );
}
