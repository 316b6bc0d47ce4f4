import { useOverviewAutoStops, useOverviewCohorts, useOverviewHosts, useOverviewTopContainers } from '../../api/queries/overview.ts';
import { AdminOverviewPageView } from './AdminOverviewPageView.tsx';
import '../../styles/overview.css';

const loaded = <T,>(result: { data: T | undefined; error: unknown; isLoading: boolean }) => ({
  data: result.data,
  failed: result.error !== undefined && result.data === undefined,
  loading: result.isLoading,
});

/** /admin/overzicht: the teachers' overview (issue 22), asked again every minute (the top containers every 15 s). */
export function AdminOverviewPage() {
  const hosts = useOverviewHosts();
  const autoStops = useOverviewAutoStops();
  const cohorts = useOverviewCohorts();
  const topContainers = useOverviewTopContainers();
  return <AdminOverviewPageView hosts={loaded(hosts)} autoStops={loaded(autoStops)} cohorts={loaded(cohorts)} topContainers={loaded(topContainers)} />;
}
