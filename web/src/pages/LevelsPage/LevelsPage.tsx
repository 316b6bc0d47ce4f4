import { useLevelCategories } from '../../api/queries/levels.ts';
import { LevelsPageView } from './LevelsPageView.tsx';

/** /levels: the signed-in student's levels per category (spec §2 Levels). */
export function LevelsPage() {
  const { data, error, isLoading } = useLevelCategories();
  return <LevelsPageView categories={data} failed={error !== undefined} loading={isLoading} />;
}
