import { useCallback, useMemo, useState } from 'react';
import { ApiError } from '../../api/client.ts';
import {
  storeLevel,
  updateLevelStatus,
  updateLevels,
  useContentsOfCategory,
  withLevel,
  type AdminLevelCategory,
  type GroupStudent,
  type GroupStudentsMutator,
  type LevelContentItem,
  type LevelStatus,
  type StudentLevel,
} from '../../api/queries/adminLevels.ts';
import { MISSING_FIELDS_MESSAGE, NO_STUDENTS_MESSAGE } from '@devplein/contract/messages';
import { CategoryLevelsView, type BulkChange } from './CategoryLevelsView.tsx';

/** Spec §5/§8 alert texts of the bulk forms. */
export const MISSING_FIELDS_ALERT = MISSING_FIELDS_MESSAGE;
export const NO_STUDENTS_ALERT = NO_STUDENTS_MESSAGE;

function problemOf(error: unknown): string {
  if (error instanceof ApiError) return error.fieldMessages() || error.message;
  return error instanceof Error ? error.message : 'Er ging iets mis.';
}

const numbersOf = (category: AdminLevelCategory): number[] => Array.from({ length: category.number }, (_, index) => index + 1);

/** Level contents not loaded yet (one array, so the memoized rows keep their props). */
const NO_CONTENTS: LevelContentItem[] = [];

/**
 * One category's table and its two bulk forms (CategoryLevelsView draws them): the selection,
 * a cell's status or content stored at once (optimistically), and the bulk changes with the
 * exact alerts of spec §8.
 */
export function CategoryLevels({
  category,
  students,
  mutateStudents,
  contentReady,
}: {
  category: AdminLevelCategory;
  students: GroupStudent[];
  mutateStudents: GroupStudentsMutator;
  contentReady: boolean;
}) {
  const { data: contents } = useContentsOfCategory(category.id, contentReady);
  const options = contents ?? NO_CONTENTS;
  const [selected, setSelected] = useState<ReadonlySet<number>>(() => new Set());
  const [problem, setProblem] = useState<string | null>(null);
  const numbers = useMemo(() => numbersOf(category), [category]);
  const [busy, setBusy] = useState(false);

  // Students who left the group since the selection was made are not selected any more.
  const selectedIds = useMemo(() => students.filter((student) => selected.has(student.id)).map((student) => student.id), [students, selected]);
  const allSelected = students.length > 0 && selectedIds.length === students.length;

  const toggle = useCallback((studentId: number) => {
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(studentId)) next.delete(studentId);
      else next.add(studentId);
      return next;
    });
  }, []);

  const toggleAll = () => setSelected(allSelected ? new Set() : new Set(students.map((student) => student.id)));

  const changeStatus = useCallback(
    async (level: StudentLevel, status: LevelStatus) => {
      setProblem(null);
      // Optimistic: the colour changes at once; a refusal reloads the table.
      await mutateStudents((current) => withLevel(current, { ...level, status }), { revalidate: false });
      try {
        await updateLevelStatus(level.id, status);
      } catch (error) {
        setProblem(problemOf(error));
        await mutateStudents();
      }
    },
    [mutateStudents],
  );

  const changeContent = useCallback(
    async (studentId: number, number: number, level: StudentLevel | undefined, contentId: number | null) => {
      setProblem(null);
      // '-- levelinhoud' on a cell without a record: nothing to store.
      if (level === undefined && contentId === null) return;
      try {
        const stored = await storeLevel({ number, content_id: contentId, category_id: category.id, user: studentId });
        await mutateStudents(
          (current) =>
            withLevel(current, {
              id: stored.id,
              user_id: studentId,
              number,
              status: stored.status,
              level_category_id: category.id,
              level_content_id: stored.level_content_id,
            }),
          { revalidate: false },
        );
      } catch (error) {
        setProblem(problemOf(error));
        await mutateStudents();
      }
    },
    [category.id, mutateStudents],
  );

  async function applyBulk(change: BulkChange) {
    if (change.level === '' || change.status === '' || change.content === '') {
      window.alert(MISSING_FIELDS_ALERT);
      return;
    }
    if (selectedIds.length === 0) {
      window.alert(NO_STUDENTS_ALERT);
      return;
    }
    setBusy(true);
    setProblem(null);
    try {
      await updateLevels({
        level: Number(change.level),
        status: change.status as LevelStatus,
        category_id: category.id,
        ids: selectedIds,
        ...(change.content === undefined ? {} : { content_id: Number(change.content) }),
      });
      await mutateStudents();
    } catch (error) {
      setProblem(problemOf(error));
    } finally {
      setBusy(false);
    }
  }

  return (
    <CategoryLevelsView
      category={category}
      students={students}
      numbers={numbers}
      contents={options}
      selected={selected}
      selectedCount={selectedIds.length}
      allSelected={allSelected}
      problem={problem}
      busy={busy}
      onToggle={toggle}
      onToggleAll={toggleAll}
      onStatus={changeStatus}
      onContent={changeContent}
      onBulk={applyBulk}
    />
  );
}
