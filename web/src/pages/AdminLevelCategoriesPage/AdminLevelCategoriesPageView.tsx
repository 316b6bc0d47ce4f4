import { Link } from 'react-router-dom';
import type { AdminLevelCategory } from '../../api/queries/adminLevels.ts';
import { AsyncContent } from '../../components/AsyncContent.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { pathTo, routePaths } from '../../routePaths.ts';

/** Columns Titel, Aantal, Icoontjes? (Ja/Nee), Opties; add link 'Toevoegen'. */
export function AdminLevelCategoriesPageView({
  categories,
  failed,
  loading,
}: {
  categories: AdminLevelCategory[] | undefined;
  failed: boolean;
  loading: boolean;
}) {
  return (
    <div className="page admin-page">
      <header className="admin-page-header">
        <h1>Levelcategorieën</h1>
        <Link to={routePaths.adminLevelCategoryCreate} className="button button-primary">
          Toevoegen
        </Link>
      </header>
      <AsyncContent
        data={categories}
        failed={failed}
        loading={loading}
        errorText="De categorieën konden niet worden geladen. Probeer het later opnieuw."
        loadingText="Categorieën laden…"
        empty="Er zijn nog geen categorieën. Voeg er een toe met ‘Toevoegen’."
      >
        {(categories) => (
          <DataTable
            columns={[
              { header: 'Titel' },
              { header: 'Aantal', className: 'numeric' },
              { header: 'Icoontjes?' },
              { header: 'Opties' },
            ]}
            rows={categories}
            testId="level-categories"
            renderRow={(category) => (
              <tr key={category.id}>
                <td>{category.title}</td>
                <td className="numeric">{category.number}</td>
                <td>
                  <span className={category.icons ? 'badge badge-yes' : 'badge'}>{category.icons ? 'Ja' : 'Nee'}</span>
                </td>
                <td>
                  <Link to={pathTo('adminLevelCategoryEdit', { id: category.id })} aria-label={`${category.title} bewerken`}>
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
