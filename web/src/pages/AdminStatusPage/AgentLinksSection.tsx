import { useState } from 'react';
import type { AgentInvitationInput, AgentInvitationJson } from '@devplein/contract/agent-links';
import { ApiError, type FieldErrors } from '../../api/client.ts';
import { inviteDevServer, revokeDevServer, useAgentLinks } from '../../api/queries/agentLinks.ts';
import { AgentLinksSectionView } from './AgentLinksSectionView.tsx';

/** The links' behaviour: invite (shows the one-time join command), revoke after a confirmation. */
export function AgentLinksSection() {
  const { data, error, isLoading } = useAgentLinks();
  const [invitation, setInvitation] = useState<AgentInvitationJson | null>(null);
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function invite(input: AgentInvitationInput): Promise<void> {
    setBusy(true);
    setFieldErrors({});
    setMessage(null);
    try {
      setInvitation(await inviteDevServer(input));
    } catch (failure) {
      if (failure instanceof ApiError) {
        setFieldErrors(failure.fieldErrors);
        setMessage(failure.message);
      } else setMessage('Uitnodigen is mislukt. Probeer het opnieuw.');
    } finally {
      setBusy(false);
    }
  }

  async function revoke(name: string): Promise<void> {
    if (!window.confirm(`Koppeling met ontwikkelserver ${name} intrekken? De control plane gebruikt deze server dan direct niet meer; opnieuw koppelen kan alleen met een nieuwe uitnodiging.`)) return;
    setMessage(null);
    try {
      await revokeDevServer(name);
    } catch (failure) {
      setMessage(failure instanceof ApiError ? failure.message : 'Intrekken is mislukt. Probeer het opnieuw.');
    }
  }

  return (
    <AgentLinksSectionView
      links={data}
      failed={error !== undefined && data === undefined}
      loading={isLoading}
      invitation={invitation}
      fieldErrors={fieldErrors}
      message={message}
      busy={busy}
      onInvite={(input) => void invite(input)}
      onRevoke={(name) => void revoke(name)}
    />
  );
}
