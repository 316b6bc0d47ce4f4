import { useAdminStatus } from '../../api/queries/status.ts';
import { AdminStatusPageView } from './AdminStatusPageView.tsx';
import { AgentLinksSection } from './AgentLinksSection.tsx';
import '../../styles/status.css';

/** /admin/status: every dev server's health, disks, containers, certificate and last backup (issue 21), asked again every 30 s. */
export function AdminStatusPage() {
  const { data, error, isLoading } = useAdminStatus();
  return (
    <>
      <AdminStatusPageView status={data} failed={error !== undefined && data === undefined} loading={isLoading} />
      <div className="page admin-page">
        <AgentLinksSection />
      </div>
    </>
  );
}
