import type { ReactNode } from 'react';
import { STATUS_PARTS, type AdminStatusJson, type CertificateJson, type DevServerStatusJson, type LastBackupJson, type StatusLevel, type StatusPart } from '@devplein/contract/status';
import {
  certificateText,
  containerCountsText,
  formatDateTime,
  humanBytes,
  LEVEL_LABELS,
} from '../../api/queries/status.ts';
import { AsyncContent } from '../../components/AsyncContent.tsx';

const PART_LABELS: Readonly<Record<StatusPart, string>> = {
  docker: 'Docker',
  proxy: 'Caddy',
  mysql: 'MariaDB',
  browser: 'Chromium',
  wireguard: 'WireGuard',
};

const DISK_LABELS: Readonly<Record<string, string>> = { docker: 'Schijf (Docker)', agent: 'Schijf (agent)' };

const LEVEL_MARKS: Readonly<Record<StatusLevel, string>> = { ok: '✓', warning: '!', bad: '✕' };

/** A judged value: colour, a mark and always the words, so colour is never the only sign. */
function Badge({ level, children }: { level: StatusLevel; children?: ReactNode }) {
  return (
    <span className={`status-badge status-${level}`} data-level={level}>
      <span className="status-mark" aria-hidden="true">
        {LEVEL_MARKS[level]}
      </span>
      {children ?? LEVEL_LABELS[level]}
    </span>
  );
}

/** One line of a card; without a `level` the value is a plain fact (a version, a count), not judged. */
function Check({ label, level, value, detail, testId }: { label: string; level?: StatusLevel; value: ReactNode; detail?: string; testId: string }) {
  return (
    <li className="status-check" data-testid={testId}>
      <span className="status-check-label">{label}</span>
      {level ? <Badge level={level}>{value}</Badge> : <span className="status-value">{value}</span>}
      {detail ? <span className="status-check-detail">{detail}</span> : null}
    </li>
  );
}

const worst = (levels: StatusLevel[]): StatusLevel => (levels.includes('bad') ? 'bad' : levels.includes('warning') ? 'warning' : 'ok');

/** The row's overall judgement: unreachable and broken parts are bad; low disk or a near certificate end a warning. */
function overallLevel(server: DevServerStatusJson): StatusLevel {
  if (!server.reachable) return 'bad';
  const levels: StatusLevel[] = [];
  if (server.error) levels.push('warning');
  if (server.parts) levels.push(...STATUS_PARTS.map((part) => (server.parts?.[part].ok ? 'ok' : 'bad') as StatusLevel));
  levels.push(...server.disks.map((disk) => disk.level));
  if (server.certificate) levels.push(server.certificate.level);
  if (server.lastBackup && !server.lastBackup.ok) levels.push('warning');
  return worst(levels);
}

const OVERALL_WORDS: Readonly<Record<StatusLevel, string>> = { ok: 'Alles in orde', warning: 'Let op', bad: 'Probleem' };

function CertificateCheck({ label, certificate, testId }: { label: string; certificate: CertificateJson; testId: string }) {
  return <Check label={label} level={certificate.level} value={certificateText(certificate)} detail={certificate.detail} testId={testId} />;
}

function BackupCheck({ backup, testId }: { backup: LastBackupJson | null; testId: string }) {
  if (!backup) return <Check label="Laatste back-up" level="warning" value="Nog geen back-up gemaakt" testId={testId} />;
  const when = backup.at ? formatDateTime(backup.at) : 'tijd onbekend';
  return (
    <Check
      label="Laatste back-up"
      level={backup.ok ? 'ok' : 'bad'}
      value={backup.ok ? `${when}, ${humanBytes(backup.sizeBytes)}, gelukt` : `${when}, mislukt`}
      detail={backup.message || undefined}
      testId={testId}
    />
  );
}

function ServerCard({ server }: { server: DevServerStatusJson }) {
  const overall = overallLevel(server);
  return (
    <article className="card status-server" data-testid={`status-server-${server.name}`} aria-labelledby={`status-server-${server.name}-title`}>
      <header className="status-server-header">
        <div>
          <h2 id={`status-server-${server.name}-title`}>{server.name}</h2>
          <p className="status-server-domain">{server.siteDomain}</p>
        </div>
        {server.reachable ? (
          <Badge level={overall}>{OVERALL_WORDS[overall]}</Badge>
        ) : (
          <Badge level="bad">onbereikbaar</Badge>
        )}
      </header>
      {server.reachable && server.error ? (
        <p className="status-error" role="note">
          {server.error}
        </p>
      ) : null}
      <ul className="status-checks">
        <Check
          label="Bereikbaar"
          level={server.reachable ? 'ok' : 'bad'}
          value={server.reachable ? 'Ja' : 'onbereikbaar'}
          detail={server.reachable || !server.error ? server.address : `${server.address}: ${server.error}`}
          testId="status-reachable"
        />
        {server.contractVersion ? (
          <Check
            label="Contractversie"
            value={server.contractVersion}
            detail={server.agentVersion ? `agent ${server.agentVersion}${server.hostname ? ` op ${server.hostname}` : ''}` : undefined}
            testId="status-contract"
          />
        ) : null}
        {server.parts
          ? STATUS_PARTS.map((part) => {
              const health = server.parts?.[part];
              if (!health) return null;
              return (
                <Check
                  key={part}
                  label={PART_LABELS[part]}
                  level={health.ok ? 'ok' : 'bad'}
                  value={health.ok ? 'In orde' : 'Fout'}
                  detail={health.detail}
                  testId={`status-part-${part}`}
                />
              );
            })
          : null}
        {server.disks.map((disk) => (
          <Check
            key={disk.name}
            label={DISK_LABELS[disk.name] ?? `Schijf (${disk.name})`}
            level={disk.level}
            value={disk.ok ? `${humanBytes(disk.availableBytes)} vrij` : 'Niet te meten'}
            detail={disk.ok ? `van ${humanBytes(disk.totalBytes)}, ${disk.path}` : disk.error}
            testId={`status-disk-${disk.name}`}
          />
        ))}
        {server.containers ? (
          <Check
            label="Containers"
            value={`${server.containers.total} in totaal`}
            detail={`${containerCountsText(server.containers.byState)}; van devplein: ${containerCountsText(server.containers.managedByState)}`}
            testId="status-containers"
          />
        ) : null}
        {server.certificate ? <CertificateCheck label="Certificaat agent" certificate={server.certificate} testId="status-certificate" /> : null}
        {server.cpu && server.memory ? (
          <Check
            label="Belasting"
            value={`${server.cpu.load1m.toLocaleString('nl-NL', { maximumFractionDigits: 2 })} op ${server.cpu.cores} cores`}
            detail={`geheugen: ${humanBytes(server.memory.availableBytes)} vrij van ${humanBytes(server.memory.totalBytes)}`}
            testId="status-load"
          />
        ) : null}
        {/* Only the agent knows its host's backups: nothing to say while it does not answer or is too old. */}
        {server.collectedAt ? <BackupCheck backup={server.lastBackup} testId="status-backup" /> : null}
      </ul>
      {server.collectedAt ? <p className="status-collected">Gemeten {formatDateTime(server.collectedAt)}</p> : null}
    </article>
  );
}

/**
 * The status page: one card per dev server (reachability, contract version, the parts, disks,
 * containers, certificate, load, last backup) and a card for the control plane's own side of
 * the agent link. Every judged value shows its words next to its colour.
 */
export function AdminStatusPageView({ status, failed, loading }: { status: AdminStatusJson | undefined; failed: boolean; loading: boolean }) {
  return (
    <div className="page admin-page">
      <header className="admin-page-header">
        <h1>Status</h1>
      </header>
      <p className="admin-lead">
        De ontwikkelservers en hun onderdelen. Deze pagina ververst zichzelf elke 30 seconden
        {status ? ` (laatst ${formatDateTime(status.checkedAt)})` : ''}.
      </p>
      <AsyncContent
        data={status}
        failed={failed}
        loading={loading && status === undefined}
        errorText="De status kon niet worden geladen. Probeer het later opnieuw."
        loadingText="Status ophalen…"
        isEmpty={(data) => data.servers.length === 0}
        empty="Er zijn geen ontwikkelservers ingesteld."
      >
        {(data) => (
          <div className="status-grid">
            {data.servers.map((server) => (
              <ServerCard key={server.name} server={server} />
            ))}
            <article className="card status-server" data-testid="status-control-plane" aria-labelledby="status-control-plane-title">
              <header className="status-server-header">
                <h2 id="status-control-plane-title">Controlepaneel</h2>
              </header>
              <ul className="status-checks">
                {data.controlPlane.clientCertificate ? (
                  <CertificateCheck label="Clientcertificaat agentverbinding" certificate={data.controlPlane.clientCertificate} testId="status-cp-certificate" />
                ) : (
                  <Check label="Clientcertificaat agentverbinding" level="warning" value="Niet ingesteld" testId="status-cp-certificate" />
                )}
                {data.controlPlane.linkCa ? <CertificateCheck label="CA agentverbinding" certificate={data.controlPlane.linkCa} testId="status-cp-ca" /> : null}
                <BackupCheck backup={data.controlPlane.lastBackup} testId="status-cp-backup" />
              </ul>
              <p className="status-backup-note" data-testid="status-backup-not-included">
                Niet in de back-ups: {data.backupNotIncluded.join('; ')}.
              </p>
            </article>
          </div>
        )}
      </AsyncContent>
    </div>
  );
}
