import type { AdminLevelCategory, Group, GroupStudent, GroupStudentsMutator } from '../../api/queries/adminLevels.ts';
import { AsyncContent } from '../../components/AsyncContent.tsx';
import { CategoryLevels } from './CategoryLevels.tsx';
import { pathOf } from '@devplein/contract/http/endpoint';
import { exportGroupLevels } from '@devplein/contract/http/admin-exports';

/** Group selector ('-' first, options show the cohort) and, once chosen, one section per category. */
export function AdminLevelsPageView({
  groups,
  groupsFailed,
  groupId,
  onChooseGroup,
  categories,
  categoriesFailed,
  students,
  studentsFailed,
  mutateStudents,
  contentReady,
}: {
  groups: Group[] | undefined;
  groupsFailed: boolean;
  groupId: number | null;
  onChooseGroup: (groupId: number | null) => void;
  categories: AdminLevelCategory[] | undefined;
  categoriesFailed: boolean;
  students: GroupStudent[] | undefined;
  studentsFailed: boolean;
  mutateStudents: GroupStudentsMutator;
  contentReady: boolean;
}) {
  return (
    <div className="page admin-page admin-levels-page">
      <header className="admin-page-header">
        <h1>Levels per student</h1>
        {groupId !== null && (
          <a className="button button-secondary button-small" href={pathOf(exportGroupLevels, { groupId })} download>
            Levels van deze groep downloaden (CSV)
          </a>
        )}
      </header>
      <div className="card group-picker">
        <label htmlFor="level-group" className="field-label">
          Groep
        </label>
        <select
          id="level-group"
          value={groupId ?? ''}
          onChange={(event) => onChooseGroup(event.target.value === '' ? null : Number(event.target.value))}
        >
          <option value="">-</option>
          {groups?.map((group) => (
            <option key={group.id} value={group.id}>
              {group.cohort}
            </option>
          ))}
        </select>
        {groupsFailed && (
          <span className="error-text" role="alert">
            De groepen konden niet worden geladen.
          </span>
        )}
        <div className="level-legend" aria-hidden="true">
          <span>
            <i className="level-locked" /> Locked
          </span>
          <span>
            <i className="level-open" /> Open
          </span>
          <span>
            <i className="level-success" /> Success
          </span>
          <span>
            <i className="level-empty" /> Nog geen level
          </span>
        </div>
      </div>

      {groupId === null ? (
        <p className="page-message">Kies een groep om de levels van de studenten te zien.</p>
      ) : (
        <AsyncContent
          data={students === undefined || categories === undefined ? undefined : { students, categories }}
          failed={studentsFailed || categoriesFailed}
          errorText="De levels van deze groep konden niet worden geladen. Probeer het later opnieuw."
          loadingText="Levels laden…"
          empty={students?.length === 0 ? 'Deze groep heeft nog geen studenten.' : 'Er zijn nog geen levelcategorieën.'}
          isEmpty={(loaded) => loaded.students.length === 0 || loaded.categories.length === 0}
        >
          {(loaded) =>
            loaded.categories.map((category) => (
              <CategoryLevels
                key={`${groupId}-${category.id}`}
                category={category}
                students={loaded.students}
                mutateStudents={mutateStudents}
                contentReady={contentReady}
              />
            ))
          }
        </AsyncContent>
      )}
    </div>
  );
}
