import { useNavigate, useSearchParams } from 'react-router-dom';
import { useProject } from '../../api/queries/projects.ts';
import { pathTo } from '../../routePaths.ts';
import { DockersCreatePageView } from './DockersCreatePageView.tsx';

/** The id of the request to edit (`/dockers/create?id=12`), or null for a new request. */
function editedId(value: string | null): number | null {
  if (value === null || !/^\d{1,9}$/.test(value)) return null;
  return Number(value);
}

/**
 * /dockers/create: request a docker, or edit one (`?id=`). Success goes to the route named
 * mydockers (spec §2).
 */
export function DockersCreatePage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const id = editedId(params.get('id'));
  const project = useProject(id);
  return (
    <DockersCreatePageView
      editing={id !== null}
      project={project.data}
      loadFailed={project.error !== undefined}
      onSaved={() => void navigate(pathTo('mydockers'))}
    />
  );
}
