import { RouterProvider } from 'react-router-dom';
import { CurrentUserProvider, useCurrentUser } from './api/queries/user.ts';
import { createAppRouter } from './routes.tsx';

/**
 * Loads the signed-in user first, then starts the router: route guards decide on the user
 * "loaded at start-up" (spec §2), so no page renders before that answer (or its 8 s timeout).
 */
export function App() {
  return (
    <CurrentUserProvider>
      <AppRouter />
    </CurrentUserProvider>
  );
}

let router: ReturnType<typeof createAppRouter> | undefined;

/** One router for the page's lifetime (it listens to the browser history from creation). */
function appRouter() {
  router ??= createAppRouter();
  return router;
}

function AppRouter() {
  const { isLoading } = useCurrentUser();
  if (isLoading) {
    return (
      <div className="splash" role="status" aria-live="polite">
        <span className="brand-mark" aria-hidden="true">
          d
        </span>
        <span>devplein wordt geladen…</span>
      </div>
    );
  }
  return <RouterProvider router={appRouter()} />;
}
