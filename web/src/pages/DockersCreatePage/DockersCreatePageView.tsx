import { Link } from 'react-router-dom';
import type { Project } from '../../api/queries/projects.ts';
import { DockerRequestForm } from '../../components/DockerRequestForm.tsx';
import { pathTo } from '../../routePaths.ts';
import '../../styles/projects.css';

/** The request form page: the form, or what stands in for it while the edited request loads. */
export function DockersCreatePageView({
  editing,
  project,
  loadFailed,
  onSaved,
}: {
  editing: boolean;
  project: Project | undefined;
  loadFailed: boolean;
  onSaved: (project: Project) => void;
}) {
  if (editing && loadFailed) {
    return (
      <div className="page">
        <h1>Docker bewerken</h1>
        <p className="card error-text" role="alert">
          Deze aanvraag bestaat niet of is niet van jou. <Link to={pathTo('mydockers')}>Naar je dockers</Link>
        </p>
      </div>
    );
  }
  if (editing && project === undefined) {
    return (
      <div className="page">
        <p className="page-message" role="status">
          Aanvraag laden…
        </p>
      </div>
    );
  }
  return (
    <div className="page">
      <DockerRequestForm project={project} onSaved={onSaved} />
    </div>
  );
}
