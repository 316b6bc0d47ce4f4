import { describe, expect, it } from 'vitest';
import { presentCsv } from './present-csv.ts';

describe('presentCsv', () => {
  it('starts with a byte order mark, separates with ; and ends lines with CRLF', () => {
    const csv = presentCsv(['Naam', 'Klas'], [['Zoë de Vries', 'SD22'], ['Piet', null]]);
    expect(csv.startsWith('\uFEFF')).toBe(true);
    expect(csv.slice(1)).toBe('Naam;Klas\r\nZoë de Vries;SD22\r\nPiet;\r\n');
  });

  it('quotes cells with the separator, quotes or line breaks', () => {
    const csv = presentCsv(['a'], [['x;y'], ['zei "hoi"'], ['regel 1\nregel 2']]);
    expect(csv.slice(1)).toBe('a\r\n"x;y"\r\n"zei ""hoi"""\r\n"regel 1\nregel 2"\r\n');
  });

  it('turns formula-looking cells into text with a leading quote', () => {
    const cells = ['=HYPERLINK("http://x")', '+31 6', '-1', '@SUM(A1)', '\tx', 'gewoon'];
    const csv = presentCsv(['c'], cells.map((cell) => [cell]));
    const lines = csv.slice(1).split('\r\n').slice(1, -1);
    expect(lines).toEqual([`"'=HYPERLINK(""http://x"")"`, "'+31 6", "'-1", "'@SUM(A1)", "'\tx", 'gewoon']);
  });

  it('keeps numbers as numbers (a negative number is not a formula)', () => {
    expect(presentCsv(['n'], [[-3], [42]]).slice(1)).toBe('n\r\n-3\r\n42\r\n');
  });
});
