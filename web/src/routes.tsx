import { isValidElement, Suspense, type ReactNode } from 'react';
import { createBrowserRouter, matchRoutes, type RouteObject } from 'react-router-dom';
import { AppLayout, type RouteHandle } from './layout/AppLayout.tsx';
import { RouteGuard, type RouteAccess } from './layout/RouteGuard.tsx';
import { lazyPage, type LazyPage } from './lazyPage.ts';
import { HomePage } from './pages/HomePage/HomePage.tsx';
import { LoginPage } from './pages/LoginPage/LoginPage.tsx';
import { NotFoundPage, RouteErrorPage } from './pages/NotFoundPage/NotFoundPage.tsx';
import { NotVerifiedPage } from './pages/NotVerifiedPage/NotVerifiedPage.tsx';
import { routePaths, type RouteName } from './routePaths.ts';

// Every page but the few the shell itself sends people to (home, login, not verified; together under 1 KB gzip)
// loads on demand: a phone downloads the code of the page it opens, never the teachers' tools, the Markdown
// renderer or the realtime client of another page (bench/bundle.bench.ts lists what each page loads).
const WebsitesPage = lazyPage(() => import('./pages/WebsitesPage/WebsitesPage.tsx'), 'WebsitesPage');
const LevelsPage = lazyPage(() => import('./pages/LevelsPage/LevelsPage.tsx'), 'LevelsPage');
const ProfilePage = lazyPage(() => import('./pages/ProfilePage/ProfilePage.tsx'), 'ProfilePage');
const UsefulLinksPage = lazyPage(() => import('./pages/UsefulLinksPage/UsefulLinksPage.tsx'), 'UsefulLinksPage');
const GitGuidePage = lazyPage(() => import('./pages/GitGuidePage/GitGuidePage.tsx'), 'GitGuidePage');
const ExamsPage = lazyPage(() => import('./pages/ExamsPage/ExamsPage.tsx'), 'ExamsPage');
const LevelPage = lazyPage(() => import('./pages/LevelPage/LevelPage.tsx'), 'LevelPage');
const AdminLevelsPage = lazyPage(() => import('./pages/AdminLevelsPage/AdminLevelsPage.tsx'), 'AdminLevelsPage');
const AdminLevelContentPage = lazyPage(() => import('./pages/AdminLevelContentPage/AdminLevelContentPage.tsx'), 'AdminLevelContentPage');
const AdminLevelContentFormPage = lazyPage(() => import('./pages/AdminLevelContentFormPage/AdminLevelContentFormPage.tsx'), 'AdminLevelContentFormPage');
const AdminLevelCategoriesPage = lazyPage(() => import('./pages/AdminLevelCategoriesPage/AdminLevelCategoriesPage.tsx'), 'AdminLevelCategoriesPage');
const AdminLevelCategoryFormPage = lazyPage(() => import('./pages/AdminLevelCategoryFormPage/AdminLevelCategoryFormPage.tsx'), 'AdminLevelCategoryFormPage');
const DockersCreatePage = lazyPage(() => import('./pages/DockersCreatePage/DockersCreatePage.tsx'), 'DockersCreatePage');
const DockersPage = lazyPage(() => import('./pages/DockersPage/DockersPage.tsx'), 'DockersPage');
const AdminDockersPage = lazyPage(() => import('./pages/AdminDockersPage/AdminDockersPage.tsx'), 'AdminDockersPage');
const AdminDockerImagesPage = lazyPage(() => import('./pages/AdminDockerImagesPage/AdminDockerImagesPage.tsx'), 'AdminDockerImagesPage');
const AdminDockersOpenPage = lazyPage(() => import('./pages/AdminDockersOpenPage/AdminDockersOpenPage.tsx'), 'AdminDockersOpenPage');
const AdminProjectsPage = lazyPage(() => import('./pages/AdminProjectsPage/AdminProjectsPage.tsx'), 'AdminProjectsPage');
const AdminTeamsPage = lazyPage(() => import('./pages/AdminTeamsPage/AdminTeamsPage.tsx'), 'AdminTeamsPage');
const AdminGroupsPage = lazyPage(() => import('./pages/AdminGroupsPage/AdminGroupsPage.tsx'), 'AdminGroupsPage');
const AdminAuditPage = lazyPage(() => import('./pages/AdminAuditPage/AdminAuditPage.tsx'), 'AdminAuditPage');
const AdminStatusPage = lazyPage(() => import('./pages/AdminStatusPage/AdminStatusPage.tsx'), 'AdminStatusPage');
const AdminOverviewPage = lazyPage(() => import('./pages/AdminOverviewPage/AdminOverviewPage.tsx'), 'AdminOverviewPage');
const AdminUsersPage = lazyPage(() => import('./pages/AdminUsersPage/AdminUsersPage.tsx'), 'AdminUsersPage');
const AdminLicensesPage = lazyPage(() => import('./pages/AdminLicensesPage/AdminLicensesPage.tsx'), 'AdminLicensesPage');
const DatabasesPage = lazyPage(() => import('./pages/DatabasesPage/DatabasesPage.tsx'), 'DatabasesPage');
const VpnPage = lazyPage(() => import('./pages/VpnPage/VpnPage.tsx'), 'VpnPage');
const AdminIntroduceesPage = lazyPage(() => import('./pages/AdminIntroduceesPage/AdminIntroduceesPage.tsx'), 'AdminIntroduceesPage');

/** One screen of spec §2: its name, who may open it and what it shows. */
export interface AppRoute {
  name: RouteName;
  access: RouteAccess;
  title: string;
  element: ReactNode;
  /** Route group tags of the spec (e.g. 'Developers'); recorded, not enforced (spec: "not shown"). */
  tags?: readonly string[];
}

/**
 * Every route of spec §2 with its guard (components/NotYetAvailable stands in for a screen
 * whose issue has not landed yet).
 * /admin/projects needs only login in the spec's route definition (not the admin flag).
 */
export const appRoutes: readonly AppRoute[] = [
  { name: 'home', access: 'public', title: 'Home', element: <HomePage /> },
  { name: 'websites', access: 'public', title: 'Websites', element: <WebsitesPage /> },
  { name: 'login', access: 'public', title: 'Inloggen', element: <LoginPage /> },
  { name: 'usefulLinks', access: 'login', title: 'Handige links', element: <UsefulLinksPage /> },
  // Beyond the spec (issue 23): the students' guide to git deploys, under Handige links.
  { name: 'gitGuide', access: 'login', title: 'Je site bijwerken met git', element: <GitGuidePage /> },
  { name: 'levels', access: 'login', title: 'Levels', element: <LevelsPage /> },
  { name: 'level', access: 'login', title: 'Level', element: <LevelPage /> },
  { name: 'profile', access: 'public', title: 'Profiel', element: <ProfilePage /> },
  { name: 'myProfile', access: 'login', title: 'Profiel', element: <ProfilePage /> },
  { name: 'exams', access: 'login', title: 'Examens', element: <ExamsPage /> },
  { name: 'dockersCreate', access: 'login', title: 'Docker aanvragen', element: <DockersCreatePage /> },
  { name: 'mydockers', access: 'login', title: 'Dockers', element: <DockersPage /> },
  { name: 'databases', access: 'login', title: 'Databases', element: <DatabasesPage /> },
  { name: 'vpn', access: 'login', title: 'VPN', element: <VpnPage /> },
  { name: 'notVerified', access: 'public', title: 'Account niet geactiveerd', element: <NotVerifiedPage /> },
  { name: 'adminUsers', access: 'admin', title: 'Gebruikers', element: <AdminUsersPage /> },
  { name: 'adminTeams', access: 'admin', title: 'Teams', element: <AdminTeamsPage /> },
  { name: 'adminLevels', access: 'admin', title: 'Levels per student', element: <AdminLevelsPage /> },
  { name: 'adminLevelContent', access: 'admin', title: 'Levelinhoud', element: <AdminLevelContentPage /> },
  { name: 'adminLevelContentCreate', access: 'admin', title: 'Levelinhoud toevoegen', element: <AdminLevelContentFormPage /> },
  { name: 'adminLevelContentEdit', access: 'admin', title: 'Levelinhoud bewerken', element: <AdminLevelContentFormPage /> },
  { name: 'adminLevelCategories', access: 'admin', title: 'Levelcategorieën', element: <AdminLevelCategoriesPage /> },
  {
    name: 'adminLevelCategoryCreate',
    access: 'admin',
    title: 'Levelcategorie toevoegen',
    element: <AdminLevelCategoryFormPage />,
  },
  {
    name: 'adminLevelCategoryEdit',
    access: 'admin',
    title: 'Levelcategorie bewerken',
    element: <AdminLevelCategoryFormPage />,
  },
  { name: 'adminDockers', access: 'admin', title: 'Dockers', element: <AdminDockersPage /> },
  { name: 'adminDockerImages', access: 'admin', title: 'Image-opties', element: <AdminDockerImagesPage /> },
  { name: 'adminDockersOpen', access: 'admin', title: 'Projecten ter goedkeuring', element: <AdminDockersOpenPage /> },
  { name: 'adminProjects', access: 'login', title: 'Alle projecten', element: <AdminProjectsPage /> },
  { name: 'adminLicenses', access: 'admin', title: 'Licenties', element: <AdminLicensesPage /> },
  { name: 'adminGroups', access: 'admin', title: 'Groepen', element: <AdminGroupsPage />, tags: ['Developers'] },
  { name: 'adminIntroducees', access: 'admin', title: 'Meelopers', element: <AdminIntroduceesPage />, tags: ['Developers'] },
  // Beyond the spec (issue 4): the audit trail, for every admin.
  { name: 'adminAudit', access: 'admin', title: 'Logboek', element: <AdminAuditPage /> },
  // Beyond the spec (issue 21): the dev servers' health, for every admin.
  { name: 'adminStatus', access: 'admin', title: 'Status', element: <AdminStatusPage /> },
  // Beyond the spec (issue 22): the teachers' overview charts, for every admin.
  { name: 'adminOverview', access: 'admin', title: 'Overzicht', element: <AdminOverviewPage /> },
];

/** Shown while a page's code arrives (styled by app.css: the page's own CSS is not there yet). */
function PageLoading() {
  return (
    <p className="card redirect-note" role="status" data-testid="page-loading">
      Pagina laden…
    </p>
  );
}

/** The route objects for react-router: the app shell with every guarded screen inside it. */
export function buildRouteObjects(routes: readonly AppRoute[] = appRoutes): RouteObject[] {
  const pages: RouteObject[] = routes.map((route) => ({
    id: route.name,
    path: routePaths[route.name],
    handle: { title: route.title } satisfies RouteHandle,
    element: (
      <RouteGuard access={route.access} key={route.name}>
        <Suspense fallback={<PageLoading />}>{route.element}</Suspense>
      </RouteGuard>
    ),
  }));
  return [
    {
      path: '/',
      element: <AppLayout />,
      errorElement: (
        <main className="content">
          <RouteErrorPage />
        </main>
      ),
      children: [
        {
          errorElement: <RouteErrorPage />,
          children: [...pages, { path: '*', element: <NotFoundPage />, handle: { title: 'Niet gevonden' } }],
        },
      ],
    },
  ];
}

const isLazyPage = (type: unknown): type is LazyPage => typeof type === 'object' && type !== null && 'preload' in type;

/**
 * Starts fetching the code of the page at `pathname` (the address the app was opened at), so it
 * arrives while the app still waits for the signed-in user instead of after it. Admin pages wait
 * for the user: a student who types an admin address does not download the page.
 */
export function preloadPageAt(pathname: string): void {
  const name = matchRoutes(buildRouteObjects(), pathname)?.at(-1)?.route.id;
  const route = appRoutes.find((candidate) => candidate.name === name);
  if (route === undefined || route.access === 'admin' || !isValidElement(route.element)) return;
  if (isLazyPage(route.element.type)) route.element.type.preload();
}

/** The browser router of the app. */
export function createAppRouter() {
  return createBrowserRouter(buildRouteObjects());
}
