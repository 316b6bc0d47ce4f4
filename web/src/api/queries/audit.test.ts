import { describe, expect, it } from 'vitest';
import { actionLabel, auditKeys, diffLines, kindLabel, subjectLabel } from './audit.ts';

describe('audit helpers', () => {
  it('names actions and kinds in Dutch, unknown ones as they are', () => {
    expect(actionLabel('user.disable')).toBe('Account uitgeschakeld');
    expect(actionLabel('level.status')).toBe('Levelstatus gewijzigd');
    expect(actionLabel('user.access.revoke')).toBe('Toegang op de ontwikkelserver ingetrokken');
    expect(actionLabel('user.developer')).toBe('Ontwikkelaarsrechten gewijzigd');
    expect(actionLabel('user.admin')).toBe('Beheerdersrechten gegeven');
    expect(actionLabel('thing.happened')).toBe('thing.happened');
    // Actions that showed as raw codes in the Logboek before every action had to have a name.
    expect(actionLabel('agent.invite')).toBe('Ontwikkelserver uitgenodigd');
    expect(actionLabel('agent.revoke')).toBe('Koppeling met ontwikkelserver ingetrokken');
    expect(actionLabel('container.unpause')).toBe('Container hervat');
    expect(actionLabel('docker-image.capabilities')).toBe('Rechten van een image-optie gewijzigd');
    expect(kindLabel('agent')).toBe('Ontwikkelservers');
    expect(subjectLabel({ subject_type: 'agent_link', subject_id: 'dev2', subject_name: null })).toBe('Ontwikkelserver dev2');
    expect(kindLabel('user')).toBe('Accounts');
    expect(kindLabel('thing')).toBe('thing');
  });

  it('shows only what changed: before → after, a created value alone', () => {
    expect(diffLines({ status: 'locked', user_id: 4 }, { status: 'open', user_id: 4 })).toEqual([
      { key: 'status', before: 'locked', after: 'open' },
    ]);
    expect(diffLines(null, { title: 'Nieuw', icons: true })).toEqual([
      { key: 'title', after: 'Nieuw' },
      { key: 'icons', after: 'true' },
    ]);
    expect(diffLines({ disabled_at: null }, { disabled_at: '2026-09-01T09:01:00.000Z' })[0]).toMatchObject({ before: '—' });
    expect(diffLines({ disabled_at: null }, { disabled_at: '2026-09-01T09:01:00.000Z' })[0]!.after).toMatch(/2026/);
    expect(diffLines({ ids: [] }, { ids: Array.from({ length: 40 }, (_, i) => i + 100) })[0]!.after).toMatch(/…$/);
    expect(diffLines(null, null)).toEqual([]);
  });

  it('labels subjects with the user name when there is one', () => {
    expect(subjectLabel({ subject_type: 'user', subject_id: '4', subject_name: 'Sam Student' })).toBe('Gebruiker Sam Student (#4)');
    expect(subjectLabel({ subject_type: 'level', subject_id: '12', subject_name: null })).toBe('Level #12');
    expect(subjectLabel({ subject_type: null, subject_id: null, subject_name: null })).toBe('—');
  });

  it('builds list keys with only the filters that are set', () => {
    expect(auditKeys.list({ page: 2 })).toBe('/api/admin/audit?page=2&per_page=50');
    expect(auditKeys.list({ page: 1, actor: 3, kind: 'user' })).toBe('/api/admin/audit?page=1&per_page=50&actor=3&kind=user');
  });
});
