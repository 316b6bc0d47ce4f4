// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { createMemoryRouter, matchRoutes, RouterProvider } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StaticCurrentUserProvider, type CurrentUser } from './api/queries/user.ts';
import { setPageLoader } from './navigation.ts';
import { routePaths } from './routePaths.ts';
import { appRoutes, buildRouteObjects } from './routes.tsx';
import { demoUsers } from '../../tests/support/web/users.ts';

let pagesLoaded: { path: string; replace: boolean }[];
let restorePageLoader: () => void;

beforeEach(() => {
  pagesLoaded = [];
  restorePageLoader = setPageLoader((path, { replace }) => pagesLoaded.push({ path, replace }));
  // ScrollRestoration scrolls on navigation; jsdom has no layout to scroll.
  vi.spyOn(window, 'scrollTo').mockImplementation(() => {});
});

afterEach(() => {
  cleanup();
  restorePageLoader();
  vi.restoreAllMocks();
  document.head.querySelector('meta[name="sso-provider"]')?.remove();
});

function renderAt(path: string, user: CurrentUser | null) {
  const router = createMemoryRouter(buildRouteObjects(), { initialEntries: [path] });
  render(
    <StaticCurrentUserProvider user={user}>
      <RouterProvider router={router} />
    </StaticCurrentUserProvider>,
  );
  return router;
}

const studentRoutes: [string, 'public' | 'login'][] = [
  ['/', 'public'],
  ['/websites', 'public'],
  ['/login', 'public'],
  ['/useful-links', 'login'],
  ['/useful-links/git', 'login'],
  ['/levels', 'login'],
  ['/level/3', 'login'],
  ['/profile/3/olga-ontwikkelaar', 'public'],
  ['/profile', 'login'],
  ['/exams', 'login'],
  ['/dockers/create', 'login'],
  ['/dockers', 'login'],
  ['/databases', 'login'],
  ['/vpn', 'login'],
  ['/not_verified', 'public'],
];

const adminRoutes = [
  '/admin/users',
  '/admin/users/teams',
  '/admin/levels',
  '/admin/levels/content',
  '/admin/levels/content/create',
  '/admin/levels/content/5',
  '/admin/levels/categories',
  '/admin/levels/categories/create',
  '/admin/levels/categories/5',
  '/admin/dockers',
  '/admin/dockers/open',
  '/admin/dockers/images',
  '/admin/licenses',
  '/admin/groups',
  '/admin/hangers',
  '/admin/audit',
  '/admin/status',
  '/admin/overzicht',
];

function accessOf(path: string) {
  const matches = matchRoutes(buildRouteObjects(), path) ?? [];
  const name = matches.at(-1)?.route.id;
  return appRoutes.find((route) => route.name === name)?.access;
}

describe('route table (spec §2)', () => {
  it.each(studentRoutes)('registers %s as %s', (path, access) => {
    expect(accessOf(path)).toBe(access);
  });

  it.each(adminRoutes)('registers %s as an admin route', (path) => {
    expect(accessOf(path)).toBe('admin');
  });

  it('registers /admin/projects with login only, as the spec defines it', () => {
    expect(accessOf('/admin/projects')).toBe('login');
  });

  it('names the dockers page mydockers', () => {
    expect(routePaths.mydockers).toBe('/dockers');
  });

  it('tags the groups and introducees (Meelopers) routes Developers', () => {
    const tagged = appRoutes.filter((route) => route.tags?.includes('Developers')).map((route) => routePaths[route.name]);
    expect(tagged).toEqual(['/admin/groups', '/admin/hangers']);
  });
});

describe('guards', () => {
  it('sends a signed-out visitor of a login route to /login with a full page load', () => {
    renderAt('/dockers', null);
    expect(pagesLoaded).toEqual([{ path: '/login', replace: true }]);
    expect(screen.queryByTestId('not-yet-available')).toBeNull();
  });

  it('sends a signed-out visitor of an admin route to /login too', () => {
    renderAt('/admin/users', null);
    expect(pagesLoaded).toEqual([{ path: '/login', replace: true }]);
  });

  it('lets signed-out visitors see public pages', () => {
    renderAt('/websites', null);
    expect(screen.queryByText(/Je moet eerst inloggen/)).toBeNull();
    expect(pagesLoaded).toEqual([]);
  });

  it('sends a not-activated user on a login route to /not_verified', () => {
    const router = renderAt('/dockers', demoUsers.notVerified);
    expect(router.state.location.pathname).toBe('/not_verified');
    expect(screen.getByText('Sorry je account is nog niet geactiveerd!')).toBeTruthy();
    expect(screen.getByText('Vraag een vak docent om je account te activeren.')).toBeTruthy();
  });

  it('shows "Geen toegang" on an admin route to a user without the admin flag', () => {
    renderAt('/admin/users', demoUsers.developer);
    expect(screen.getByRole('heading', { name: 'Geen toegang' })).toBeTruthy();
    expect(screen.queryByTestId('not-yet-available')).toBeNull();
  });

  it('opens admin routes for admins', async () => {
    renderAt('/admin/users', demoUsers.teacherAdmin);
    // Admin pages are lazy chunks: allow for a busy machine importing them.
    expect(await screen.findByRole('heading', { name: 'Gebruikers', level: 1 }, { timeout: 10_000 })).toBeTruthy();
    expect(screen.queryByTestId('no-access')).toBeNull();
  });

  it('opens /admin/projects for any signed-in user (the page itself says "Geen toegang" to non-admins)', async () => {
    const router = renderAt('/admin/projects', demoUsers.student);
    expect(await screen.findByTestId('no-access', {}, { timeout: 10_000 })).toBeTruthy();
    expect(router.state.location.pathname).toBe('/admin/projects');
  });

  it('shows a Dutch loading state while a lazy page arrives, then the page itself (a deep link)', async () => {
    // No other test opens /exams, so its lazy chunk is not loaded yet.
    renderAt('/exams', demoUsers.student);
    expect(screen.getByTestId('page-loading').textContent).toBe('Pagina laden…');
    expect(screen.getByRole('status').textContent).toBe('Pagina laden…');
    expect(await screen.findByTestId('exams', {}, { timeout: 10_000 })).toBeTruthy();
    expect(screen.queryByTestId('page-loading')).toBeNull();
  });

  it('shows a Dutch not-found page for unknown paths', () => {
    renderAt('/bestaat-niet', null);
    expect(screen.getByRole('heading', { name: 'Pagina niet gevonden' })).toBeTruthy();
  });
});

describe('screens of this issue', () => {
  it('login: one link to /auth/{sso-provider}', () => {
    const meta = document.createElement('meta');
    meta.name = 'sso-provider';
    meta.content = 'schoolsso';
    document.head.append(meta);
    renderAt('/login', null);
    const main = screen.getByRole('main');
    const links = within(main).getAllByRole('link');
    expect(links).toHaveLength(1);
    expect(links[0]?.textContent).toBe('Inloggen met je schoolaccount');
    expect(links[0]?.getAttribute('href')).toBe('/auth/schoolsso');
  });

  it('login: falls back to the default provider when the placeholder was not filled', () => {
    const meta = document.createElement('meta');
    meta.name = 'sso-provider';
    meta.content = '__SSO_PROVIDER__';
    document.head.append(meta);
    renderAt('/login', null);
    expect(screen.getByRole('link', { name: 'Inloggen met je schoolaccount' }).getAttribute('href')).toBe('/auth/school');
  });

  it('home: points to the websites and to login when signed out', () => {
    renderAt('/', null);
    const main = screen.getByRole('main');
    const targets = within(main)
      .getAllByRole('link')
      .map((link) => link.getAttribute('href'));
    expect(targets).toEqual(['/websites', '/login']);
  });
});

describe('top menu and mobile sidebar', () => {
  it('shows Home, the profile link with the user name and an Uitloggen button (no link: logging out is a POST) when signed in', () => {
    renderAt('/', demoUsers.student);
    const top = screen.getByRole('navigation', { name: 'Hoofdmenu' });
    expect(within(top).getByRole('link', { name: 'Home' }).getAttribute('href')).toBe('/');
    expect(within(top).getByRole('link', { name: 'Sam Student' }).getAttribute('href')).toBe('/profile/7/sam-student');
    expect(within(top).queryByRole('link', { name: 'Uitloggen' })).toBeNull();
    expect(within(top).getByRole('button', { name: 'Uitloggen' }).className).toContain('top-link');
    expect(top.querySelector('a[href="/logout"]')).toBeNull();
  });

  it('logs out with POST /logout and the CSRF token, then loads the page the server names', async () => {
    const meta = document.createElement('meta');
    meta.name = 'csrf-token';
    meta.content = 'token-123';
    document.head.append(meta);
    const requests: { url: string; init: RequestInit }[] = [];
    vi.stubGlobal('fetch', (url: string, init: RequestInit) => {
      requests.push({ url, init });
      return Promise.resolve(new Response(JSON.stringify({ redirect: 'https://idp.school.test/logout?id_token_hint=x' }), { status: 200, headers: { 'Content-Type': 'application/json' } }));
    });
    try {
      renderAt('/', demoUsers.student);
      await act(async () => {
        fireEvent.click(within(screen.getByRole('navigation', { name: 'Hoofdmenu' })).getByRole('button', { name: 'Uitloggen' }));
      });
      await vi.waitFor(() => expect(pagesLoaded).toHaveLength(1));
      expect(requests.map((request) => [request.url, request.init.method, new Headers(request.init.headers).get('X-CSRF-TOKEN')])).toEqual([['/logout', 'POST', 'token-123']]);
      expect(pagesLoaded).toEqual([{ path: 'https://idp.school.test/logout?id_token_hint=x', replace: false }]);
    } finally {
      meta.remove();
      vi.unstubAllGlobals();
    }
  });

  it('loads the home page when the logout request fails (a session that already ended answers 419)', async () => {
    vi.stubGlobal('fetch', () => Promise.resolve(new Response(JSON.stringify({ message: 'Je sessie is verlopen' }), { status: 419, headers: { 'Content-Type': 'application/json' } })));
    vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      renderAt('/dockers', demoUsers.student);
      await act(async () => {
        fireEvent.click(within(screen.getByRole('navigation', { name: 'Hoofdmenu' })).getByRole('button', { name: 'Uitloggen' }));
      });
      await vi.waitFor(() => expect(pagesLoaded).toEqual([{ path: '/', replace: false }]));
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('shows only Home when signed out', () => {
    renderAt('/', null);
    const top = screen.getByRole('navigation', { name: 'Hoofdmenu' });
    expect(within(top).getAllByRole('link').map((link) => link.textContent)).toEqual(['Home']);
  });

  it('closes the mobile sidebar on every navigation', async () => {
    const router = renderAt('/', demoUsers.student);
    const menuButton = screen.getByRole('button', { name: 'Menu' });
    expect(menuButton.getAttribute('aria-expanded')).toBe('false');

    fireEvent.click(menuButton);
    expect(menuButton.getAttribute('aria-expanded')).toBe('true');
    fireEvent.click(within(screen.getByRole('navigation', { name: 'Zijmenu' })).getByRole('link', { name: 'Websites' }));
    expect(router.state.location.pathname).toBe('/websites');
    expect(menuButton.getAttribute('aria-expanded')).toBe('false');

    // Also when the navigation does not come from the menu itself (e.g. browser back).
    fireEvent.click(menuButton);
    expect(menuButton.getAttribute('aria-expanded')).toBe('true');
    await act(() => router.navigate(-1));
    expect(router.state.location.pathname).toBe('/');
    expect(menuButton.getAttribute('aria-expanded')).toBe('false');
  });

  it('closes the mobile sidebar with Escape', () => {
    renderAt('/', demoUsers.student);
    const menuButton = screen.getByRole('button', { name: 'Menu' });
    fireEvent.click(menuButton);
    fireEvent.keyDown(window, { key: 'Escape' });
    expect(menuButton.getAttribute('aria-expanded')).toBe('false');
  });
});
