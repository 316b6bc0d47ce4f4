import { memo, useEffect, useRef, useState } from 'react';
import {
  LEVEL_STATUS_OPTIONS,
  contentLabel,
  type AdminLevelCategory,
  type GroupStudent,
  type LevelContentItem,
  type LevelStatus,
  type StudentLevel,
} from '../../api/queries/adminLevels.ts';

/** Accounts made by the yearly import are all named 'import': their e-mail tells them apart (§2). */
const displayName = (student: GroupStudent): string => (student.name === 'import' ? student.email : student.name);

/** What a bulk form asks for, as chosen ('' when a field was left on its placeholder). */
export interface BulkChange {
  level: string;
  status: string;
  /** The content form only. */
  content?: string;
}

export interface CategoryLevelsViewProps {
  category: AdminLevelCategory;
  students: GroupStudent[];
  /** The level columns, 1..category.number. */
  numbers: number[];
  contents: LevelContentItem[];
  selected: ReadonlySet<number>;
  /** How many of `students` are selected (students who left the group do not count). */
  selectedCount: number;
  allSelected: boolean;
  problem: string | null;
  busy: boolean;
  onToggle: (studentId: number) => void;
  onToggleAll: () => void;
  onStatus: (level: StudentLevel, status: LevelStatus) => Promise<void>;
  onContent: (studentId: number, number: number, level: StudentLevel | undefined, contentId: number | null) => Promise<void>;
  onBulk: (change: BulkChange) => Promise<void>;
}

/**
 * One category's table (select-all, student name, one column per level 1..number) and its two
 * bulk forms, drawn from props (CategoryLevels.tsx holds the behaviour). Rows are memoized: a
 * cell change re-renders only that student's row.
 */
export function CategoryLevelsView({
  category,
  students,
  numbers,
  contents,
  selected,
  selectedCount,
  allSelected,
  problem,
  busy,
  onToggle,
  onToggleAll,
  onStatus,
  onContent,
  onBulk,
}: CategoryLevelsViewProps) {
  const headingId = `level-category-${category.id}`;
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
                  indeterminate={selectedCount > 0 && !allSelected}
                  label={`Alle studenten selecteren (${category.title})`}
                  onChange={onToggleAll}
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
                contents={contents}
                checked={selected.has(student.id)}
                onToggle={onToggle}
                onStatus={onStatus}
                onContent={onContent}
              />
            ))}
          </tbody>
        </table>
      </div>
      <p className="selection-count" aria-live="polite">
        {selectedCount === 0 ? 'Geen studenten geselecteerd.' : `${selectedCount} van ${students.length} studenten geselecteerd.`}
      </p>
      <BulkForms category={category} numbers={numbers} contents={contents} busy={busy} onApply={onBulk} />
    </section>
  );
}

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
  busy,
  onApply,
}: {
  category: AdminLevelCategory;
  numbers: number[];
  contents: LevelContentItem[];
  busy: boolean;
  onApply: (change: BulkChange) => Promise<void>;
}) {
  const [content, setContent] = useState('');
  const [contentStatus, setContentStatus] = useState('');
  const [contentLevel, setContentLevel] = useState('');
  const [status, setStatus] = useState('');
  const [level, setLevel] = useState('');

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
          void onApply({ content, status: contentStatus, level: contentLevel });
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
          void onApply({ status, level });
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
