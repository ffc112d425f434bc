/**
 * The dashboard's CSV (dashboard/src/csv.ts): RFC 4180 quoting of commas, quotes and line breaks, and
 * cells a spreadsheet would run as formulas (= + - @ tab, carriage return) prefixed with ' as OWASP's
 * "CSV Injection" page recommends; plain numbers, negative ones included, stay numbers.
 */
import { describe, expect, it } from 'vitest';
import { toCsv } from '../../dashboard/src/csv';

describe('toCsv', () => {
  it('quotes commas, quotes and line breaks as RFC 4180 says, with CRLF between rows', () => {
    expect(
      toCsv([
        ['Line', 'Total'],
        ['a, b', '1,234'],
        ['say "hi"', '2'],
        ['two\nlines', '3'],
      ]),
    ).toBe('Line,Total\r\n"a, b","1,234"\r\n"say ""hi""",2\r\n"two\nlines",3');
  });

  it.each([
    ['=SUM(A1:A9)', `"'=SUM(A1:A9)"`],
    ['+cmd', `"'+cmd"`],
    ['-2+3', `"'-2+3"`],
    ['@SUM(1)', `"'@SUM(1)"`],
    ['\tx', `"'\tx"`],
    ['\rx', `"'\rx"`],
  ])('neutralises a formula: %j', (cell, out) => {
    expect(toCsv([[cell]])).toBe(out);
  });

  it.each(['-6.6%', '-12', '+3.5', '-1,234.5'])('keeps the number %s a number', (cell) => {
    expect(toCsv([[cell]])).toBe(cell.includes(',') ? `"${cell}"` : cell);
  });
});
