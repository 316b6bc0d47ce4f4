import type { Project } from '../../api/queries/projects.ts';
import { AsyncContent } from '../../components/AsyncContent.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { matchesProjectSearch } from './projectSearch.ts';
import '../../styles/projects.css';

/** All approved projects (spec §2 "Projects"): a search box and a table. */
export function AdminProjectsPageView({
  projects,
  failed,
  loading,
  search,
  onSearch,
}: {
  projects: Project[] | undefined;
  failed: boolean;
  loading: boolean;
  search: string;
  onSearch: (search: string) => void;
}) {
  const shown = projects?.filter((project) => matchesProjectSearch(project, search)) ?? [];
  return (
    <div className="page admin-page">
      <header className="admin-page-header">
        <h1>Alle projecten</h1>
      </header>
      <input
        type="search"
        className="text-input project-search"
        value={search}
        placeholder="Zoek op naam, image, domein, student of klas"
        aria-label="Zoek projecten"
        onChange={(event) => onSearch(event.target.value)}
      />
      <AsyncContent
        data={projects}
        failed={failed}
        loading={loading}
        errorText="De projecten konden niet worden geladen. Probeer het later opnieuw."
        loadingText="Projecten laden…"
        empty="Er zijn op dit moment geen aanvragen met deze criteria"
        emptyTestId="no-projects"
        isEmpty={() => shown.length === 0}
      >
        {(projects) => (
          <DataTable
            columns={[
              { header: 'Naam' },
              { header: 'Image' },
              { header: 'Domein' },
              { header: 'Teamleden' },
            ]}
            rows={shown}
            testId="all-projects"
            after={
              <p className="muted table-count">
                {shown.length} van {projects.length} projecten
              </p>
            }
            renderRow={(project) => (
              <tr key={project.id} data-project={project.name}>
                <td>{project.name}</td>
                <td>{project.docker ?? 'geen image'}</td>
                <td>
                  <a href={`http://${project.domain}`} target="_blank" rel="noreferrer">
                    {project.domain}
                  </a>
                </td>
                <td>
                  {project.users.length === 0
                    ? <span className="muted">geen</span>
                    : project.users.map((user) => `${user.name} (${user.group?.cohort ?? 'geen klas'})`).join(', ')}
                </td>
              </tr>
            )}
          />
        )}
      </AsyncContent>
    </div>
  );
}
