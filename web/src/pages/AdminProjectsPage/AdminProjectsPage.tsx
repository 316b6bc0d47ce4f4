import { useState } from 'react';
import { useApprovedProjects } from '../../api/queries/projects.ts';
import { useCurrentUser } from '../../api/queries/user.ts';
import { NoAccess } from '../../components/NoAccess.tsx';
import { isAdmin } from '../../layout/roles.ts';
import { AdminProjectsPageView } from './AdminProjectsPageView.tsx';

/**
 * /admin/projects: all approved projects with a search. The route needs only login (spec §2);
 * the API answers admins only, so others get the "Geen toegang" notice without a request.
 */
export function AdminProjectsPage() {
  const { user } = useCurrentUser();
  const admin = isAdmin(user);
  const { data, error, isLoading } = useApprovedProjects(admin);
  const [search, setSearch] = useState('');
  if (!admin) return <NoAccess />;
  return (
    <AdminProjectsPageView projects={data} failed={error !== undefined} loading={isLoading} search={search} onSearch={setSearch} />
  );
}
