import { describe, expect, it } from 'vitest';
import { readUsefulLinks, usefulLinks } from './useful-links.ts';

describe('the useful links config (config/useful-links.json)', () => {
  it('has the eight internal links of the spec', () => {
    expect(usefulLinks.internal.map((link) => link.key)).toEqual([
      'git',
      'programmeerhulp',
      'scrumboard',
      'rooster',
      'webmail',
      'studentenadministratie',
      'stages',
      'examens',
    ]);
  });

  it('has a tutorial site with language sections and the PHP framework documentation', () => {
    expect(usefulLinks.learning.filter((link) => link.url.includes('w3schools.com')).length).toBeGreaterThan(1);
    expect(usefulLinks.learning.some((link) => link.url.startsWith('https://laravel.com/docs'))).toBe(true);
  });

  it('leaves out entries that are not http(s) links', () => {
    const links = readUsefulLinks({
      internal: [
        { key: 'a', label: 'A', description: '', url: 'javascript:alert(1)' },
        { key: 'b', label: 'B', description: '', url: 'https://b.test' },
        { key: 'c' },
      ],
    });
    expect(links).toEqual({ internal: [{ key: 'b', label: 'B', description: '', url: 'https://b.test' }], learning: [] });
  });
});
