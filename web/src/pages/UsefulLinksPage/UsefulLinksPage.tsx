import { usefulLinks } from './useful-links.ts';
import { UsefulLinksPageView } from './UsefulLinksPageView.tsx';

/** /useful-links: the school's own links and learning material (spec §2 Useful links). */
export function UsefulLinksPage() {
  return <UsefulLinksPageView links={usefulLinks} />;
}
