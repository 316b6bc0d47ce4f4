import type { AuditAction } from '@devplein/contract/audit';
import { auditFacets, readAudit, type AuditFacetsJson, type AuditPageJson } from '@devplein/contract/http/admin-audit';
import type { AuditEntryJson as AuditEntry } from '@devplein/contract/users';
import { keyOf, useEndpoint } from '../endpoints.ts';
export type { AuditEntry };

/*
 * The audit trail (admins only, read-only): GET /api/admin/audit and its filter choices. Also the
 * Dutch names of actions and kinds, so the page and its tests share one list.
 */

export type AuditPage = AuditPageJson;
export type AuditFacets = AuditFacetsJson;

export interface AuditFilters {
  page: number;
  actor?: number;
  kind?: string;
}

export const AUDIT_PER_PAGE = 50;

const pageInput = (filters: AuditFilters) => ({ query: { page: filters.page, per_page: AUDIT_PER_PAGE, actor: filters.actor, kind: filters.kind } });

export const auditKeys = {
  list: (filters: AuditFilters) => keyOf(readAudit, pageInput(filters)),
  facets: keyOf(auditFacets, {}),
};

export function useAuditPage(filters: AuditFilters) {
  return useEndpoint(readAudit, pageInput(filters), { keepPreviousData: true });
}

export function useAuditFacets() {
  return useEndpoint(auditFacets, {});
}

/**
 * What each action means, in the words of the admin screens: every action the control plane
 * records has one (the type says so). Rows of actions no longer written show as they are.
 */
export const ACTION_LABELS: Readonly<Record<AuditAction, string>> = {
  'user.verify': 'Account geactiveerd',
  'user.disable': 'Account uitgeschakeld',
  'user.delete': 'Account verwijderd',
  'user.delete.unfinished': 'Verwijderen nog niet af (ontwikkelserver)',
  'user.developer': 'Ontwikkelaarsrechten gewijzigd',
  'user.admin': 'Beheerdersrechten gegeven',
  'user.access.revoke': 'Toegang op de ontwikkelserver ingetrokken',
  'user.access.restore': 'Toegang op de ontwikkelserver teruggegeven',
  'team.create': 'Team aangemaakt',
  'team.add-member': 'Teamlid toegevoegd',
  'team.remove-member': 'Teamlid verwijderd',
  'group.create': 'Klas aangemaakt',
  'group.add-member': 'Student aan klas toegevoegd',
  'group.remove-member': 'Student uit klas gehaald',
  'license.approve': 'Licentie goedgekeurd',
  'license.revoke': 'Licentie ingetrokken',
  'introducee.create': 'Meeloper aangemaakt',
  'introducee.delete': 'Meeloper verwijderd',
  'project.approve': 'Project goedgekeurd',
  'project.reject': 'Project afgekeurd',
  'project.update': 'Project bewerkt',
  'project.delete': 'Project verwijderd',
  'container.create': 'Container aangemaakt',
  'container.start': 'Container gestart',
  'container.stop': 'Container gestopt',
  'container.pause': 'Container gepauzeerd',
  'container.unpause': 'Container hervat',
  'container.restart': 'Container herstart',
  'container.delete': 'Container verwijderd',
  'container.adopt': 'Losse container aan een project gekoppeld',
  'container.suspend': 'Container stilgezet (project niet goedgekeurd)',
  'thumbnail.capture': 'Nieuwe schermafbeelding gevraagd',
  'docker-image.create': 'Image-optie toegevoegd',
  'docker-image.delete': 'Image-optie verwijderd',
  'docker-image.capabilities': 'Rechten van een image-optie gewijzigd',
  'docker-image.deploy': 'Git-deploy van een image-optie gewijzigd',
  'project.deploy': 'Git-deploy aangevraagd',
  'project.deploy-settings': 'Git-deploy-instellingen van een project gewijzigd',
  'project.webhook-secret': 'Nieuw webhookgeheim gemaakt',
  'project.git-token.drop': 'Opgeslagen Git-token van een project verwijderd',
  'project.access': 'SSH-toegang van project bijgewerkt',
  'level.status': 'Levelstatus gewijzigd',
  'level.content': 'Levelinhoud gekozen',
  'level.bulk-status': 'Levels in bulk gewijzigd',
  'level.bulk-content': 'Levels met inhoud in bulk gewijzigd',
  'level-category.create': 'Levelcategorie toegevoegd',
  'level-category.update': 'Levelcategorie bewerkt',
  'level-content.create': 'Levelinhoud toegevoegd',
  'level-content.update': 'Levelinhoud bewerkt',
  'export.users': 'Gebruikerslijst gedownload (CSV)',
  'export.levels': 'Levels van een klas gedownload (CSV)',
  'agent.invite': 'Ontwikkelserver uitgenodigd',
  'agent.join': 'Ontwikkelserver gekoppeld',
  'agent.renew': 'Certificaat van ontwikkelserver vernieuwd',
  'agent.revoke': 'Koppeling met ontwikkelserver ingetrokken',
};

/** Kinds (the part of an action before the dot) by their Dutch name. */
export const KIND_LABELS: Readonly<Record<string, string>> = {
  user: 'Accounts',
  team: 'Teams',
  group: 'Klassen',
  license: 'Licenties',
  introducee: 'Meelopers',
  project: 'Projecten',
  container: 'Containers',
  level: 'Levels',
  'level-category': 'Levelcategorieën',
  'level-content': 'Levelinhoud',
  export: 'Downloads',
  thumbnail: 'Schermafbeeldingen',
  'docker-image': 'Image-opties',
  agent: 'Ontwikkelservers',
};

/** Subject types as a noun, for the Onderwerp column. */
const SUBJECT_LABELS: Readonly<Record<string, string>> = {
  user: 'Gebruiker',
  team: 'Team',
  group: 'Klas',
  license: 'Licentie',
  introducee: 'Meeloper',
  project: 'Project',
  container: 'Container',
  level: 'Level',
  'level-category': 'Levelcategorie',
  'level-content': 'Levelinhoud',
  users: 'Alle gebruikers',
  docker_image: 'Image-optie',
  agent_link: 'Ontwikkelserver',
};

export const actionLabel = (action: string): string => (ACTION_LABELS as Readonly<Record<string, string>>)[action] ?? action;
export const kindLabel = (kind: string): string => KIND_LABELS[kind] ?? kind;

/** 'Gebruiker Sam de Vries (#4)', 'Level #12', or '—' without a subject. */
export function subjectLabel(entry: Pick<AuditEntry, 'subject_type' | 'subject_id' | 'subject_name'>): string {
  if (entry.subject_type === null) return '—';
  const noun = SUBJECT_LABELS[entry.subject_type] ?? entry.subject_type;
  // 'all': the subject is the whole list (a download of every user), not one record. A name
  // (a dev server's) is shown as it is, a number as '#12'.
  const raw = entry.subject_id === null || entry.subject_id === 'all' ? '' : entry.subject_id;
  const id = /^\d+$/.test(raw) ? `#${raw}` : raw;
  return entry.subject_name ? `${noun} ${entry.subject_name} (${id})` : `${noun} ${id}`.trim();
}

/** One line of the compact before/after diff. */
export interface DiffLine {
  key: string;
  before?: string;
  after?: string;
}

const MAX_VALUE_LENGTH = 60;

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;
const timestamp = new Intl.DateTimeFormat('nl-NL', { dateStyle: 'medium', timeStyle: 'short' });

function showValue(value: unknown): string {
  if (value === null || value === undefined) return '—';
  // Timestamps (disabled_at, email_verified_at, ...) read as a Dutch date, not as ISO text.
  if (typeof value === 'string' && ISO_TIMESTAMP.test(value)) return timestamp.format(new Date(value));
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > MAX_VALUE_LENGTH ? `${text.slice(0, MAX_VALUE_LENGTH - 1)}…` : text;
}

/**
 * The fields that differ between before and after (unchanged ones are left out): a created
 * record has only `after` values, a deleted one only `before` values.
 */
export function diffLines(before: Record<string, unknown> | null, after: Record<string, unknown> | null): DiffLine[] {
  const keys = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  const lines: DiffLine[] = [];
  for (const key of keys) {
    const inBefore = before !== null && key in before;
    const inAfter = after !== null && key in after;
    if (inBefore && inAfter && JSON.stringify(before[key]) === JSON.stringify(after[key])) continue;
    lines.push({
      key,
      ...(inBefore ? { before: showValue(before[key]) } : {}),
      ...(inAfter ? { after: showValue(after[key]) } : {}),
    });
  }
  return lines;
}
