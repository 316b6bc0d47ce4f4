import { Notice } from './Notice.tsx';

/**
 * Stands in for a screen whose issue has not landed yet. It says so plainly and shows no data,
 * so nobody mistakes it for a working page.
 */
export function NotYetAvailable({ title }: { title: string }) {
  return (
    <Notice title={title} icon="clock" testId="not-yet-available">
      <p className="notice-lead">Deze pagina is nog niet beschikbaar.</p>
      <p>Dit onderdeel komt in een volgende versie van devplein.</p>
    </Notice>
  );
}
