import { useEffect, useState } from 'react';
import { Outlet, ScrollRestoration, useLocation, useMatches } from 'react-router-dom';
import { useCurrentUser } from '../api/queries/user.ts';
import { SideMenu } from './SideMenu.tsx';
import { TopBar } from './TopBar.tsx';

const SIDE_MENU_ID = 'side-menu';

/** Route `handle` data: the page title shown in the browser tab. */
export interface RouteHandle {
  title?: string;
}

/**
 * The shell around every page: top bar, side menu (always visible on wide screens, a drawer on
 * phones), and the page itself.
 */
export function AppLayout() {
  const { user } = useCurrentUser();
  const location = useLocation();
  // The drawer is open only for the location it was opened at: any navigation gets a new
  // location key, so the mobile sidebar is closed before the next page renders (spec §2).
  const [menuOpenAt, setMenuOpenAt] = useState<string | null>(null);
  const menuOpen = menuOpenAt === location.key;
  const closeMenu = () => setMenuOpenAt(null);

  useEffect(() => {
    if (!menuOpen) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setMenuOpenAt(null);
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [menuOpen]);

  useDocumentTitle();

  return (
    <div className={menuOpen ? 'app-shell menu-open' : 'app-shell'}>
      <a className="skip-link" href="#inhoud">
        Naar de inhoud
      </a>
      <TopBar
        user={user}
        menuOpen={menuOpen}
        menuId={SIDE_MENU_ID}
        onToggleMenu={() => setMenuOpenAt(menuOpen ? null : location.key)}
      />
      <div className="app-body">
        <aside className="sidebar" data-open={menuOpen}>
          <SideMenu user={user} id={SIDE_MENU_ID} onNavigate={closeMenu} />
        </aside>
        {menuOpen && <div className="sidebar-backdrop" aria-hidden="true" onClick={closeMenu} />}
        <main className="content" id="inhoud" tabIndex={-1}>
          <Outlet />
        </main>
      </div>
      <ScrollRestoration />
    </div>
  );
}

/** Sets the tab title from the deepest route that names one. */
function useDocumentTitle() {
  const matches = useMatches();
  const title = matches
    .map((match) => (match.handle as RouteHandle | undefined)?.title)
    .filter((value): value is string => value !== undefined)
    .at(-1);
  useEffect(() => {
    document.title = title === undefined ? 'devplein' : `${title} · devplein`;
  }, [title]);
}
