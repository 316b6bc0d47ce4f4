import { type FormEvent, useState } from 'react';
import type { AgentInvitationInput, AgentInvitationJson, AgentLinkJson } from '@devplein/contract/agent-links';
import type { FieldErrors } from '../../api/client.ts';
import { LINK_STATUS_LABELS } from '../../api/queries/agentLinks.ts';
import { formatDateTime } from '../../api/queries/status.ts';
import { AsyncContent } from '../../components/AsyncContent.tsx';
import { FieldError } from '../../components/FieldError.tsx';

/**
 * 'Ontwikkelservers koppelen' on the status page: every link (status, pinned certificate, a
 * revoke button for an active or invited one) and the invitation form, which shows the one-time
 * join command to paste on the new server.
 */
export function AgentLinksSectionView(props: {
  links: AgentLinkJson[] | undefined;
  failed: boolean;
  loading: boolean;
  invitation: AgentInvitationJson | null;
  fieldErrors: FieldErrors;
  message: string | null;
  busy: boolean;
  onInvite: (input: AgentInvitationInput) => void;
  onRevoke: (name: string) => void;
}) {
  const [form, setForm] = useState({ name: '', address: '', site_domain: '', db_host: '' });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    props.onInvite({ name: form.name, address: form.address, site_domain: form.site_domain, ...(form.db_host ? { db_host: form.db_host } : {}) });
  };
  const input = (field: keyof typeof form, label: string, placeholder: string) => (
    <label className="status-invite-field">
      <span>{label}</span>
      <input value={form[field]} placeholder={placeholder} onChange={(event) => setForm({ ...form, [field]: event.target.value })} name={field} />
      <FieldError messages={props.fieldErrors[field]} role="alert" className="status-field-error" />
    </label>
  );
  return (
    <section className="card status-links" data-testid="agent-links" aria-labelledby="agent-links-title">
      <h2 id="agent-links-title">Ontwikkelservers koppelen</h2>
      {props.message ? (
        <p className="status-links-message" role="alert">
          {props.message}
        </p>
      ) : null}
      <AsyncContent
        data={props.links}
        failed={props.failed}
        loading={props.loading && props.links === undefined}
        errorText="De koppelingen konden niet worden geladen."
        loadingText="Koppelingen ophalen…"
        isEmpty={(links) => links.length === 0}
        empty="Er zijn nog geen koppelingen."
      >
        {(links) => (
          <table className="status-links-table">
            <thead>
              <tr>
                <th>Naam</th>
                <th>Adres</th>
                <th>Sitedomein</th>
                <th>Koppeling</th>
                <th>Certificaat (sha256)</th>
                <th>
                  <span className="visually-hidden">Acties</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {links.map((link) => (
                <tr key={link.name} data-testid="agent-link" data-name={link.name} data-status={link.status}>
                  <td>{link.name}</td>
                  <td>{link.address}</td>
                  <td>{link.siteDomain}</td>
                  <td>
                    {LINK_STATUS_LABELS[link.status]}
                    {link.revokedAt ? ` op ${formatDateTime(link.revokedAt)}` : ''}
                  </td>
                  <td className="status-fingerprint" title={link.fingerprint ?? undefined}>
                    {link.fingerprint ? `${link.fingerprint.slice(0, 16)}…` : link.origin === 'config' ? 'uit de configuratie' : '—'}
                  </td>
                  <td>
                    {link.status !== 'revoked' ? (
                      <button type="button" className="button button-danger button-small" onClick={() => props.onRevoke(link.name)}>
                        Intrekken
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </AsyncContent>
      <form className="status-invite" onSubmit={submit} aria-label="Ontwikkelserver uitnodigen">
        <h3>Nieuwe ontwikkelserver uitnodigen</h3>
        <div className="status-invite-fields">
          {input('name', 'Naam', 'dev2')}
          {input('address', 'Adres van de agent', 'dev2.school.nl:7443')}
          {input('site_domain', 'Sitedomein', 'dev2.school.nl')}
          {input('db_host', 'MariaDB-adres in de VPN (optioneel)', '10.9.0.1')}
        </div>
        <button type="submit" className="button button-primary" disabled={props.busy}>
          Uitnodigen
        </button>
      </form>
      {props.invitation ? (
        <div className="status-join" data-testid="agent-join-command">
          <p>
            Voer dit eenmalig uit op de nieuwe server, in de uitgepakte bundel (geldig tot {formatDateTime(props.invitation.expiresAt)}):
          </p>
          <pre>{props.invitation.joinCommand}</pre>
          <p>Plak deze koppelcode als install.sh erom vraagt. Zo staat hij op geen opdrachtregel. De code wordt niet nog eens getoond.</p>
          <pre>{props.invitation.joinString}</pre>
        </div>
      ) : null}
    </section>
  );
}
