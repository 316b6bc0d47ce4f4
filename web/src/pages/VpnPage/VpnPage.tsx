import { useState } from 'react';
import { createVpn, useVpn } from '../../api/queries/vpn.ts';
import { useCurrentUser } from '../../api/queries/user.ts';
import { canSeeDeveloperTools } from '../../layout/roles.ts';
import { DeveloperOnlyNotice } from '../DatabasesPage/DeveloperOnlyNotice.tsx';
import { serverMessage } from '../DatabasesPage/serverMessage.ts';
import { VpnPageView } from './VpnPageView.tsx';

/**
 * /vpn: the signed-in developer's WireGuard configuration (spec §2 VPN). Users who are not
 * developers get a notice and no request is made (the server would answer 403).
 */
export function VpnPage() {
  const { user } = useCurrentUser();
  if (!canSeeDeveloperTools(user)) return <DeveloperOnlyNotice />;
  return <DeveloperVpn />;
}

function DeveloperVpn() {
  const { vpn, error, mutate } = useVpn();
  const [creating, setCreating] = useState(false);
  const [createError, setCreateError] = useState<string | null>(null);

  const create = async () => {
    setCreating(true);
    setCreateError(null);
    try {
      await createVpn();
      // POST answers only the identifier; GET /api/vpn has the address too.
      await mutate();
    } catch (failure) {
      setCreateError(serverMessage(failure, 'Aanmaken is niet gelukt. Probeer het later opnieuw.'));
    } finally {
      setCreating(false);
    }
  };

  return (
    <VpnPageView
      vpn={vpn}
      loadError={error !== undefined ? serverMessage(error, 'Je VPN-configuratie kon niet worden geladen. Probeer het later opnieuw.') : null}
      creating={creating}
      createError={createError}
      onCreate={() => void create()}
    />
  );
}
