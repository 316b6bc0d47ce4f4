import { AdminDockersPageView } from './AdminDockersPageView.tsx';
import { useAdminDockerActions } from './useAdminDockerActions.ts';

/** /admin/dockers: every container of the dockerserver (state and actions in useAdminDockerActions). */
export function AdminDockersPage() {
  return <AdminDockersPageView {...useAdminDockerActions()} />;
}
