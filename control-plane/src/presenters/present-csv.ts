import { stringify } from 'csv-stringify/sync';

/** One cell of an exported sheet: text, a number, or empty. */
export type CsvCell = string | number | null;

/**
 * A sheet as Excel (Dutch locale) opens it with a double click: UTF-8 with a byte order mark (so
 * 'é' stays 'é'), ';' between cells (',' is the decimal mark there), CRLF line ends. A cell that
 * starts with = + - @ (or a tab or CR) gets a leading ' so a spreadsheet shows it as text instead
 * of running it as a formula (a student can choose their own name: CSV injection, OWASP).
 */
export function presentCsv(header: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  return stringify([header, ...rows], {
    bom: true,
    delimiter: ';',
    record_delimiter: 'windows',
    escape_formulas: true,
    // A line break alone also ends a row in a spreadsheet: such a cell is quoted too.
    quoted_match: /[\r\n]/,
  });
}
