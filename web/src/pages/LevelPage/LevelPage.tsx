import { useParams } from 'react-router-dom';
import { useLevel } from '../../api/queries/levels.ts';
import { ApiError } from '../../api/client.ts';
import { LevelPageView } from './LevelPageView.tsx';

/** /level/{id}: one level with its courses (spec §2 Level detail). */
export function LevelPage() {
  const { id } = useParams();
  const { data, error, isLoading } = useLevel(id);
  const notFound = error instanceof ApiError && (error.status === 404 || error.status === 422);
  return <LevelPageView level={data} loading={isLoading} notFound={notFound} failed={error !== undefined && !notFound} />;
}
