import { Link } from 'react-router-dom';
import type { LevelContentItem } from '../../api/queries/adminLevels.ts';
import { AsyncContent } from '../../components/AsyncContent.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { pathTo, routePaths } from '../../routePaths.ts';

/** Columns: name for students, name for teachers, category; an edit link per row; an add link. */
export function AdminLevelContentPageView({
  items,
  failed,
  loading,
}: {
  items: LevelContentItem[] | undefined;
  failed: boolean;
  loading: boolean;
}) {
  return (
    <div className="page admin-page">
      <header className="admin-page-header">
        <h1>Levelinhoud</h1>
        <Link to={routePaths.adminLevelContentCreate} className="button button-primary">
          Toevoegen
        </Link>
      </header>
      <AsyncContent
        data={items}
        failed={failed}
        loading={loading}
        errorText="De levelinhoud kon niet worden geladen. Probeer het later opnieuw."
        loadingText="Levelinhoud laden…"
        empty="Er is nog geen levelinhoud. Voeg die toe met ‘Toevoegen’."
      >
        {(items) => (
          <DataTable
            columns={[
              { header: 'Naam voor studenten' },
              { header: 'Naam voor docenten' },
              { header: 'Categorie' },
              { header: 'Opties' },
            ]}
            rows={items}
            testId="level-contents"
            renderRow={(item) => (
              <tr key={item.id}>
                <td>{item.title}</td>
                <td>{item.title_for_teachers ?? <span className="muted">—</span>}</td>
                <td>{item.category_title}</td>
                <td>
                  <Link to={pathTo('adminLevelContentEdit', { id: item.id })} aria-label={`${item.title} bewerken`}>
                    Bewerken
                  </Link>
                </td>
              </tr>
            )}
          />
        )}
      </AsyncContent>
    </div>
  );
}
