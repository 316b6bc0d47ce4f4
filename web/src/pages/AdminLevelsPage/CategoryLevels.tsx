import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ApiError } from '../../api/client.ts';
import {
  LEVEL_STATUS_OPTIONS,
  contentLabel,
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

/** Spec §5/§8 alert texts of the bulk forms. */
export const MISSING_FIELDS_ALERT = MISSING_FIELDS_MESSAGE;
export const NO_STUDENTS_ALERT = NO_STUDENTS_MESSAGE;

/** Accounts made by the yearly import are all named 'import': their e-mail tells them apart (§2). */
const displayName = (student: GroupStudent): string => (student.name === 'import' ? student.email : student.name);

function problemOf(error: unknown): string {
  if (error instanceof ApiError) return error.fieldMessages() || error.message;
  return error instanceof Error ? error.message : 'Er ging iets mis.';
}

const numbersOf = (category: AdminLevelCategory): number[] => Array.from({ length: category.number }, (_, index) => index + 1);

/**
 * One category's table (select-all, student name, one column per level 1..number) and its two
 * bulk forms. Rows are memoized: a cell change re-renders only that student's row.
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
  const headingId = `level-category-${category.id}`;

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

  return (
    <section className="card student-levels" aria-labelledby={headingId} data-testid="category-levels">
      <h2 id={headingId}>{category.title}</h2>
      {problem !== null && (
        <p className="selection-count error-text" role="alert">
          {problem}
        </p>
      )}
      <div className="table-scroll">
        <table className="level-table">
          <thead>
            <tr>
              <th scope="col" className="select-column">
                <SelectAll
                  checked={allSelected}
                  indeterminate={selectedIds.length > 0 && !allSelected}
                  label={`Alle studenten selecteren (${category.title})`}
                  onChange={toggleAll}
                />
              </th>
              <th scope="col" className="name-column">
                Student
              </th>
              {numbers.map((number) => (
                <th key={number} scope="col">
                  {number}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {students.map((student) => (
              <StudentRow
                key={student.id}
                student={student}
                category={category}
                numbers={numbers}
                contents={options}
                checked={selected.has(student.id)}
                onToggle={toggle}
                onStatus={changeStatus}
                onContent={changeContent}
              />
            ))}
          </tbody>
        </table>
      </div>
      <p className="selection-count" aria-live="polite">
        {selectedIds.length === 0 ? 'Geen studenten geselecteerd.' : `${selectedIds.length} van ${students.length} studenten geselecteerd.`}
      </p>
      <BulkForms
        category={category}
        numbers={numbers}
        contents={options}
        selectedIds={selectedIds}
        onDone={async () => {
          await mutateStudents();
        }}
        onProblem={setProblem}
      />
    </section>
  );
}

const NO_CONTENTS: LevelContentItem[] = [];

function SelectAll({ checked, indeterminate, label, onChange }: { checked: boolean; indeterminate: boolean; label: string; onChange: () => void }) {
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (ref.current !== null) ref.current.indeterminate = indeterminate;
  }, [indeterminate]);
  return <input ref={ref} type="checkbox" checked={checked} aria-label={label} onChange={onChange} />;
}

interface StudentRowProps {
  student: GroupStudent;
  category: AdminLevelCategory;
  numbers: number[];
  contents: LevelContentItem[];
  checked: boolean;
  onToggle: (studentId: number) => void;
  onStatus: (level: StudentLevel, status: LevelStatus) => Promise<void>;
  onContent: (studentId: number, number: number, level: StudentLevel | undefined, contentId: number | null) => Promise<void>;
}

const StudentRow = memo(function StudentRow({ student, category, numbers, contents, checked, onToggle, onStatus, onContent }: StudentRowProps) {
  const name = displayName(student);
  const levelByNumber = new Map<number, StudentLevel>();
  for (const level of student.levels) {
    if (level.level_category_id === category.id) levelByNumber.set(level.number, level);
  }
  return (
    <tr data-testid="student-row" data-student={name}>
      <td className="select-column">
        <input type="checkbox" checked={checked} aria-label={`${name} selecteren`} onChange={() => onToggle(student.id)} />
      </td>
      <th scope="row" className="name-column">
        {name}
      </th>
      {numbers.map((number) => {
        const level = levelByNumber.get(number);
        return (
          <td
            key={number}
            className={`level-cell ${level === undefined ? 'level-empty' : `level-${level.status}`}`}
            data-testid="level-cell"
            data-number={number}
            data-status={level?.status ?? ''}
          >
            {level !== undefined && (
              <select
                aria-label={`Status level ${number} van ${name}`}
                value={level.status}
                onChange={(event) => void onStatus(level, event.target.value as LevelStatus)}
              >
                {LEVEL_STATUS_OPTIONS.map((option) => (
                  <option key={option.value} value={option.value}>
                    {option.label}
                  </option>
                ))}
              </select>
            )}
            <select
              aria-label={`Levelinhoud level ${number} van ${name}`}
              value={level?.level_content_id ?? ''}
              onChange={(event) => void onContent(student.id, number, level, event.target.value === '' ? null : Number(event.target.value))}
            >
              <option value="">-- levelinhoud</option>
              {contents.map((item) => (
                <option key={item.id} value={item.id}>
                  {contentLabel(item)}
                </option>
              ))}
            </select>
          </td>
        );
      })}
    </tr>
  );
});

/** The two bulk forms below a category (spec §2/§5), with the exact alerts of §8. */
function BulkForms({
  category,
  numbers,
  contents,
  selectedIds,
  onDone,
  onProblem,
}: {
  category: AdminLevelCategory;
  numbers: number[];
  contents: LevelContentItem[];
  selectedIds: number[];
  onDone: () => Promise<void>;
  onProblem: (problem: string | null) => void;
}) {
  const [content, setContent] = useState('');
  const [contentStatus, setContentStatus] = useState('');
  const [contentLevel, setContentLevel] = useState('');
  const [status, setStatus] = useState('');
  const [level, setLevel] = useState('');
  const [busy, setBusy] = useState(false);

  async function apply(change: { level: string; status: string; content?: string }) {
    if (change.level === '' || change.status === '' || change.content === '') {
      window.alert(MISSING_FIELDS_ALERT);
      return;
    }
    if (selectedIds.length === 0) {
      window.alert(NO_STUDENTS_ALERT);
      return;
    }
    setBusy(true);
    onProblem(null);
    try {
      await updateLevels({
        level: Number(change.level),
        status: change.status as LevelStatus,
        category_id: category.id,
        ids: selectedIds,
        ...(change.content === undefined ? {} : { content_id: Number(change.content) }),
      });
      await onDone();
    } catch (error) {
      onProblem(problemOf(error));
    } finally {
      setBusy(false);
    }
  }

  const statusOptions = LEVEL_STATUS_OPTIONS.map((option) => (
    <option key={option.value} value={option.value}>
      {option.label}
    </option>
  ));
  const levelOptions = numbers.map((number) => (
    <option key={number} value={number}>
      Level {number}
    </option>
  ));

  return (
    <div className="bulk-forms">
      <form
        className="bulk-form"
        aria-label={`Levelinhoud wijzigen (${category.title})`}
        onSubmit={(event) => {
          event.preventDefault();
          void apply({ content, status: contentStatus, level: contentLevel });
        }}
      >
        <h3>Levelinhoud wijzigen</h3>
        <div className="bulk-form-fields">
          <select aria-label="Levelinhoud" value={content} onChange={(event) => setContent(event.target.value)}>
            <option value="">-- levelinhoud</option>
            {contents.map((item) => (
              <option key={item.id} value={item.id}>
                {contentLabel(item)}
              </option>
            ))}
          </select>
          <select aria-label="Status" value={contentStatus} onChange={(event) => setContentStatus(event.target.value)}>
            <option value="">-- status</option>
            {statusOptions}
          </select>
          <select aria-label="Level" value={contentLevel} onChange={(event) => setContentLevel(event.target.value)}>
            <option value="">-- level</option>
            {levelOptions}
          </select>
        </div>
        <div>
          <button type="submit" className="button button-primary button-small" disabled={busy}>
            Inhoud wijzigen
          </button>
        </div>
      </form>
      <form
        className="bulk-form"
        aria-label={`Status wijzigen (${category.title})`}
        onSubmit={(event) => {
          event.preventDefault();
          void apply({ status, level });
        }}
      >
        <h3>Status wijzigen</h3>
        <div className="bulk-form-fields">
          <select aria-label="Status" value={status} onChange={(event) => setStatus(event.target.value)}>
            <option value="">-- status</option>
            {statusOptions}
          </select>
          <select aria-label="Level" value={level} onChange={(event) => setLevel(event.target.value)}>
            <option value="">-- level</option>
            {levelOptions}
          </select>
        </div>
        <div>
          <button type="submit" className="button button-primary button-small" disabled={busy}>
            Status wijzigen
          </button>
        </div>
      </form>
    </div>
  );
}
