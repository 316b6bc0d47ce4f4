import { useDeploySettings } from '../../api/queries/deploys.ts';
import { GitGuidePageView } from './GitGuidePageView.tsx';

/** /useful-links/git: the students' guide to git deploys, with the school's allowed git servers. */
export function GitGuidePage() {
  const { data, error } = useDeploySettings();
  return <GitGuidePageView settings={data} settingsFailed={error !== undefined} />;
}
