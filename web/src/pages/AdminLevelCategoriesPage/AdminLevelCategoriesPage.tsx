import { useLevelCategories } from '../../api/queries/adminLevels.ts';
import { AdminLevelCategoriesPageView } from './AdminLevelCategoriesPageView.tsx';
import '../../styles/admin-levels.css';

/** /admin/levels/categories: every level category (spec §2 "Level categories list"). */
export function AdminLevelCategoriesPage() {
  const { data, error, isLoading } = useLevelCategories();
  return <AdminLevelCategoriesPageView categories={data} failed={error !== undefined} loading={isLoading} />;
}
