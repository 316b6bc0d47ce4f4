import { Notice } from './Notice.tsx';

/** Shown on admin pages to signed-in users without the admin flag (spec §6). */
export function NoAccess() {
  return (
    <Notice title="Geen toegang" icon="lock" testId="no-access">
      <p className="notice-lead">Deze pagina is alleen voor beheerders.</p>
      <p>Denk je dat je hier wel bij zou moeten kunnen? Vraag het aan een docent.</p>
    </Notice>
  );
}
