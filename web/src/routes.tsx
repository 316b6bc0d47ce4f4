import { lazy, Suspense, type ReactNode } from 'react';
import { createBrowserRouter, type RouteObject } from 'react-router-dom';
import { AppLayout, type RouteHandle } from './layout/AppLayout.tsx';
import { RouteGuard, type RouteAccess } from './layout/RouteGuard.tsx';
import { HomePage } from './pages/HomePage/HomePage.tsx';
import { LoginPage } from './pages/LoginPage/LoginPage.tsx';
import { NotFoundPage, RouteErrorPage } from './pages/NotFoundPage/NotFoundPage.tsx';
import { NotVerifiedPage } from './pages/NotVerifiedPage/NotVerifiedPage.tsx';
import { WebsitesPage } from './pages/WebsitesPage/WebsitesPage.tsx';
import { LevelsPage } from './pages/LevelsPage/LevelsPage.tsx';
import { ProfilePage } from './pages/ProfilePage/ProfilePage.tsx';
import { UsefulLinksPage } from './pages/UsefulLinksPage/UsefulLinksPage.tsx';
import { ExamsPage } from './pages/ExamsPage/ExamsPage.tsx';
import { routePaths, type RouteName } from './routePaths.ts';

// Teachers' tools and the Markdown renderer load on demand: a student's phone does not download them up front.
const LevelPage = lazy(() => import('./pages/LevelPage/LevelPage.tsx').then((module) => ({ default: module.LevelPage })));
const AdminLevelsPage = lazy(() => import('./pages/AdminLevelsPage/AdminLevelsPage.tsx').then((module) => ({ default: module.AdminLevelsPage })));
const AdminLevelContentPage = lazy(() => import('./pages/AdminLevelContentPage/AdminLevelContentPage.tsx').then((module) => ({ default: module.AdminLevelContentPage })));
const AdminLevelContentFormPage = lazy(() => import('./pages/AdminLevelContentFormPage/AdminLevelContentFormPage.tsx').then((module) => ({ default: module.AdminLevelContentFormPage })));
const AdminLevelCategoriesPage = lazy(() => import('./pages/AdminLevelCategoriesPage/AdminLevelCategoriesPage.tsx').then((module) => ({ default: module.AdminLevelCategoriesPage })));
const AdminLevelCategoryFormPage = lazy(() => import('./pages/AdminLevelCategoryFormPage/AdminLevelCategoryFormPage.tsx').then((module) => ({ default: module.AdminLevelCategoryFormPage })));
const DockersCreatePage = lazy(() => import('./pages/DockersCreatePage/DockersCreatePage.tsx').then((module) => ({ default: module.DockersCreatePage })));
const DockersPage = lazy(() => import('./pages/DockersPage/DockersPage.tsx').then((module) => ({ default: module.DockersPage })));
const AdminDockersPage = lazy(() => import('./pages/AdminDockersPage/AdminDockersPage.tsx').then((module) => ({ default: module.AdminDockersPage })));
const AdminDockerImagesPage = lazy(() => import('./pages/AdminDockerImagesPage/AdminDockerImagesPage.tsx').then((module) => ({ default: module.AdminDockerImagesPage })));
const AdminDockersOpenPage = lazy(() => import('./pages/AdminDockersOpenPage/AdminDockersOpenPage.tsx').then((module) => ({ default: module.AdminDockersOpenPage })));
const AdminProjectsPage = lazy(() => import('./pages/AdminProjectsPage/AdminProjectsPage.tsx').then((module) => ({ default: module.AdminProjectsPage })));
const AdminTeamsPage = lazy(() => import('./pages/AdminTeamsPage/AdminTeamsPage.tsx').then((module) => ({ default: module.AdminTeamsPage })));
const AdminGroupsPage = lazy(() => import('./pages/AdminGroupsPage/AdminGroupsPage.tsx').then((module) => ({ default: module.AdminGroupsPage })));
const AdminAuditPage = lazy(() => import('./pages/AdminAuditPage/AdminAuditPage.tsx').then((module) => ({ default: module.AdminAuditPage })));
const AdminUsersPage = lazy(() => import('./pages/AdminUsersPage/AdminUsersPage.tsx').then((module) => ({ default: module.AdminUsersPage })));
const AdminLicensesPage = lazy(() => import('./pages/AdminLicensesPage/AdminLicensesPage.tsx').then((module) => ({ default: module.AdminLicensesPage })));
const DatabasesPage = lazy(() => import('./pages/DatabasesPage/DatabasesPage.tsx').then((module) => ({ default: module.DatabasesPage })));
const VpnPage = lazy(() => import('./pages/VpnPage/VpnPage.tsx').then((module) => ({ default: module.VpnPage })));
const AdminIntroduceesPage = lazy(() => import('./pages/AdminIntroduceesPage/AdminIntroduceesPage.tsx').then((module) => ({ default: module.AdminIntroduceesPage })));

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
];

/** The route objects for react-router: the app shell with every guarded screen inside it. */
export function buildRouteObjects(routes: readonly AppRoute[] = appRoutes): RouteObject[] {
  const pages: RouteObject[] = routes.map((route) => ({
    id: route.name,
    path: routePaths[route.name],
    handle: { title: route.title } satisfies RouteHandle,
    element: (
      <RouteGuard access={route.access} key={route.name}>
        <Suspense fallback={<p className="card redirect-note" role="status">Laden…</p>}>{route.element}</Suspense>
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

/** The browser router of the app. */
export function createAppRouter() {
  return createBrowserRouter(buildRouteObjects());
}
