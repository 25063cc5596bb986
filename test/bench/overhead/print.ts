/** The benchmark's tables: console.table for a terminal, or Markdown for docs/benchmarks.md (`--markdown`). */
export type Row = Record<string, string | number>;

export function printTable(title: string, rows: Row[], markdown: boolean): void {
  console.log(`\n${title}`);
  if (!markdown) {
    console.table(rows);
    return;
  }
  const columns = Object.keys(rows[0] ?? {});
  console.log(`| ${columns.join(' | ')} |`);
  console.log(`|${columns.map(() => '---').join('|')}|`);
  for (const row of rows) console.log(`| ${columns.map((column) => String(row[column] ?? '')).join(' | ')} |`);
}

export const fixed = (value: number | undefined, digits = 2): string => (value === undefined || Number.isNaN(value) ? '' : value.toFixed(digits));
export const ratio = (value: number | undefined): string => (value === undefined ? '' : `${value.toFixed(2)}×`);
export const megabytes = (value: number | undefined): string => (value === undefined ? '' : `${value >= 0 ? '' : '−'}${Math.abs(value).toFixed(0)} MB`);
export const bytes = (value: number): string => `${value.toLocaleString('en-US')} B (${(value / 1024).toFixed(0)} KiB)`;
