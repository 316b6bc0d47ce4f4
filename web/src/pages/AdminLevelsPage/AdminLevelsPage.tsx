import { useEffect, useState } from 'react';
import {
  CONTENT_REFRESH_DELAY_MS,
  GROUP_SEARCH_TERM,
  useGroupStudents,
  useGroups,
  useLevelCategories,
} from '../../api/queries/adminLevels.ts';
import { AdminLevelsPageView } from './AdminLevelsPageView.tsx';
import '../../styles/admin-levels.css';

/**
 * /admin/levels, "Levels per student" (spec §2): pick a group, then per category a table of its
 * students' levels. The whole table is one request (GET /api/users/by-group/{id}); the content
 * selects get their options 300 ms after the levels loaded (spec §9).
 */
export function AdminLevelsPage() {
  const [groupId, setGroupId] = useState<number | null>(null);
  const groups = useGroups(GROUP_SEARCH_TERM);
  const categories = useLevelCategories();
  const students = useGroupStudents(groupId);
  const [contentReadyFor, setContentReadyFor] = useState<number | null>(null);

  const levelsLoaded = groupId !== null && students.data !== undefined;
  useEffect(() => {
    if (!levelsLoaded) return;
    const timer = setTimeout(() => setContentReadyFor(groupId), CONTENT_REFRESH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [levelsLoaded, groupId]);

  return (
    <AdminLevelsPageView
      groups={groups.data}
      groupsFailed={groups.error !== undefined}
      groupId={groupId}
      onChooseGroup={setGroupId}
      categories={categories.data}
      categoriesFailed={categories.error !== undefined}
      students={students.data}
      studentsFailed={students.error !== undefined}
      mutateStudents={students.mutate}
      contentReady={contentReadyFor !== null && contentReadyFor === groupId}
    />
  );
}
