import { useLevelContents } from '../../api/queries/adminLevels.ts';
import { AdminLevelContentPageView } from './AdminLevelContentPageView.tsx';
import '../../styles/admin-levels.css';

/** /admin/levels/content: every level content item (spec §2 "Level content list"). */
export function AdminLevelContentPage() {
  const { data, error, isLoading } = useLevelContents();
  return <AdminLevelContentPageView items={data} failed={error !== undefined} loading={isLoading} />;
}
