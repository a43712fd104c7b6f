import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Baselines } from './context.ts';
import type { Measured } from './load.ts';

/** One line of the results table: a measured operation beside the baseline it is compared with. */
export interface ResultRow {
  section: string;
  operation: string;
  /** e.g. "812 req/s" or "412 MB". */
  figure: string;
  /** "p50 / p99" in ms, when it is a rate. */
  latency?: string;
  baseline?: { label: string; figure: string; perSecond: number };
  perSecond?: number;
  /** The issue's target ratio, e.g. 0.8. */
  target?: number;
  note?: string;
}

const rows: ResultRow[] = [];

export const rate = (m: Measured, unit = 'req/s') =>
  `${m.perSecond.toFixed(m.perSecond < 100 ? 1 : 0)} ${unit}${m.failed ? ` (${m.failed} failed)` : ''}`;
export const latency = (m: Measured) => `${fmtMs(m.p50)} / ${fmtMs(m.p99)}`;
const fmtMs = (ms: number) =>
  Number.isNaN(ms) ? 'n/a' : ms >= 10_000 ? `${(ms / 1000).toFixed(0)} s` : `${ms.toFixed(0)} ms`;
export const mb = (bytes: number | undefined) =>
  bytes === undefined ? 'n/a' : `${(bytes / 1024 / 1024).toFixed(0)} MB`;

/** The baseline of every process measured end to end: (c), the minimal workflow started and awaited. */
export const endToEndBaseline = (baselines: Baselines) => ({
  label: '(c) minimal workflow end to end',
  figure: rate(baselines.endToEnd, 'workflows/s'),
  perSecond: baselines.endToEnd.perSecond,
});
export const seconds = (value: number) => `${value.toFixed(value < 10 ? 1 : 0)} s`;

function ratioOf(row: ResultRow): string {
  if (!row.baseline || row.perSecond === undefined || !row.baseline.perSecond) return '';
  const ratio = row.perSecond / row.baseline.perSecond;
  const verdict = row.target === undefined ? '' : ratio >= row.target ? ' ✓' : ` (target ${row.target})`;
  return `${ratio.toFixed(2)}${verdict}`;
}

/** Records a row and prints it at once (a long run shows its progress). */
export function report(row: ResultRow): void {
  rows.push(row);
  const baseline = row.baseline
    ? `; baseline ${row.baseline.label}: ${row.baseline.figure}; ratio ${ratioOf(row)}`
    : '';
  console.log(
    `  ${row.operation}: ${row.figure}${row.latency ? `, p50/p99 ${row.latency}` : ''}${baseline}${row.note ? ` — ${row.note}` : ''}`,
  );
}

/** The whole table, printed and written to bench/results/latest.md (bench/README.md's tables come from it). */
export function writeResults(header: string[]): string {
  const cell = (text: string | undefined) => (text ?? '').replaceAll('|', '\\|');
  const lines = [
    '# Benchmark results',
    '',
    ...header.map((line) => `- ${line}`),
    '',
    '| section | operation | figure | p50 / p99 | baseline | ratio |',
    '|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${cell(row.section)} | ${cell(row.operation)}${row.note ? ` (${cell(row.note)})` : ''} | ${cell(row.figure)} | ${cell(row.latency)} | ${
          row.baseline ? `${cell(row.baseline.label)}: ${cell(row.baseline.figure)}` : ''
        } | ${ratioOf(row)} |`,
    ),
    '',
  ];
  const markdown = lines.join('\n');
  const file = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results', 'latest.md');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, markdown);
  console.log(`\n${markdown}`);
  console.log(`Written to ${path.relative(process.cwd(), file)}.`);
  return markdown;
}

export const machine = () =>
  `${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown'}), ${mb(os.totalmem())} memory; load average at start ${os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')}`;
