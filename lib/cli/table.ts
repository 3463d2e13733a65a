/** A plain-text table with right-aligned numbers, for terminal output. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const numeric = headers.map(
    (_, i) => rows.length > 0 && rows.every((r) => /^[-\d.,$%×]+$/.test(r[i] ?? '')),
  );
  const fmtRow = (r: string[]) =>
    r
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return (
    [fmtRow(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(fmtRow)].join('\n') + '\n'
  );
}
