import { describe, expect, it } from 'vitest';
import type { Project } from '../../api/queries/projects.ts';
import { matchesProjectSearch } from './projectSearch.ts';

const member = (id: number, name: string, cohort: string | null) => ({ id, name, group: cohort === null ? null : { id, cohort } });

const project = (overrides: Partial<Project>): Project => ({
  id: 1,
  docker_id: 2,
  name: 'webshop-groen',
  description: 'x'.repeat(40),
  domain: 'webshop-groen.dev.devplein.test',
  visible: '1',
  repro: null,
  branch: null,
  users: [],
  end_date: null,
  docker: 'PHP 8.3 + Apache',
  validated: true,
  deploy_token: null,
  created_at: '2026-01-01T00:00:00.000Z',
  ...overrides,
});

describe('matchesProjectSearch', () => {
  const seven = project({
    users: [
      member(1, 'Anna', 'SD20'),
      member(2, 'Bert', 'SD21'),
      member(3, 'Carla', 'SD21'),
      member(4, 'Dirk', 'SD21'),
      member(5, 'Eva', 'SD21'),
      member(6, 'Fleur', null),
      member(7, 'Gijs', 'SD23'),
    ],
  });

  it('matches everything for an empty term', () => {
    expect(matchesProjectSearch(seven, '  ')).toBe(true);
  });

  it('searches name, docker name and domain, case-insensitively', () => {
    expect(matchesProjectSearch(seven, 'WEBSHOP')).toBe(true);
    expect(matchesProjectSearch(seven, 'apache')).toBe(true);
    expect(matchesProjectSearch(seven, 'devplein.test')).toBe(true);
    expect(matchesProjectSearch(seven, 'python')).toBe(false);
  });

  it('searches the names and cohorts of the first six members only', () => {
    expect(matchesProjectSearch(seven, 'fleur')).toBe(true);
    expect(matchesProjectSearch(seven, 'sd20')).toBe(true);
    expect(matchesProjectSearch(seven, 'gijs')).toBe(false);
    expect(matchesProjectSearch(seven, 'sd23')).toBe(false);
  });

  it("'geen' matches projects without members", () => {
    expect(matchesProjectSearch(project({ users: [] }), 'geen')).toBe(true);
    expect(matchesProjectSearch(seven, 'geen')).toBe(false);
  });
});
