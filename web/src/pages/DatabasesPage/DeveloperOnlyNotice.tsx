import { Notice } from '../../components/Notice.tsx';

/**
 * Shown on /databases and /vpn to signed-in users without the developer flag (spec §6: those
 * pages are for developers). The page asks the server nothing, which would answer 403 anyway.
 */
export function DeveloperOnlyNotice() {
  return (
    <Notice title="Geen toegang" icon="lock" testId="developer-only">
      <p className="notice-lead">Databases en de VPN zijn alleen voor ontwikkelaars.</p>
      <p>Denk je dat je hier wel bij zou moeten kunnen? Vraag het aan een docent.</p>
    </Notice>
  );
}
