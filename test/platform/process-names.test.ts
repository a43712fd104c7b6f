import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as workflowTypes from '../../workflows/index.ts';
import { projectRoot } from '../support/import-graph.ts';

/**
 * One name per process in every layer (decision 0077): docs/glossary.md's process table names each
 * process and its files in each layer. Every workflow type the worker runs has a row; every file a row
 * names exists and is named after its process (the file, or the folder it is in), so that whoever knows
 * one layer finds the others; the row's workflow file exports its workflow types.
 */

const LAYERS = ['api', 'application', 'workflows', 'activities', 'test'] as const;
type Layer = (typeof LAYERS)[number];

interface ProcessRow {
  process: string;
  workflowTypes: string[];
  files: Record<Layer, string[]>;
}

/** The backticked words of a table cell. */
const ticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

function processTable(): ProcessRow[] {
  const glossary = readFileSync(path.join(projectRoot, 'docs', 'glossary.md'), 'utf8');
  const section = glossary.split(/^## /m).find((part) => part.startsWith('Processes'));
  if (!section) throw new Error('docs/glossary.md has no "## Processes" section');
  const rows = section.split('\n').filter((line) => line.startsWith('| **'));
  return rows.map((line) => {
    const [, name, types, ...cells] = line.split('|').map((cell) => cell.trim());
    return {
      // The bold part names the process; words after it are a note (`**delivery** (webhooks)`).
      process: /\*\*([^*]+)\*\*/.exec(name!)?.[1] ?? name!,
      workflowTypes: ticked(types!),
      files: Object.fromEntries(
        LAYERS.map((layer, i) => [layer, ticked(cells[i] ?? '')]),
      ) as ProcessRow['files'],
    };
  });
}

/** The files a pattern names: a path, or a path whose last part has `*` (`api/messaging/sms-*.ts`). */
function filesOf(pattern: string): string[] {
  if (!pattern.includes('*')) return existsSync(path.join(projectRoot, pattern)) ? [pattern] : [];
  const folder = path.dirname(pattern);
  const [prefix, suffix] = path.basename(pattern).split('*') as [string, string];
  if (!existsSync(path.join(projectRoot, folder))) return [];
  return readdirSync(path.join(projectRoot, folder))
    .filter((name) => name.startsWith(prefix) && name.endsWith(suffix))
    .map((name) => path.join(folder, name));
}

/**
 * Whether a file is named after `process`: its name or its folder's is the process's name (or its plural),
 * alone or first (`sms-batch.ts`, `payments-rules.test.ts`, `consent/state.ts`).
 */
function namedAfter(file: string, process: string): boolean {
  const parts = file.replace(/\.(browser\.)?test\.ts$|\.ts$/, '').split('/');
  return parts
    .slice(2)
    .some((part) => [process, `${process}s`].some((name) => part === name || part.startsWith(`${name}-`)));
}

/** api/ files are named by their spec operation's path (decision 0025): they must exist, not carry the name. */
const NAMED_LAYERS: readonly Layer[] = ['application', 'workflows', 'activities', 'test'];

const table = processTable();

describe('one name per process (docs/glossary.md, processes)', () => {
  it('has a row for every workflow type the worker runs, and no type twice', () => {
    const listed = table.flatMap((row) => row.workflowTypes);
    const running = Object.entries(workflowTypes)
      .filter(([, value]) => typeof value === 'function')
      .map(([name]) => name);
    expect(running.length).toBeGreaterThan(20);
    expect(running.filter((type) => !listed.includes(type))).toEqual([]);
    expect(listed.filter((type, i) => listed.indexOf(type) !== i)).toEqual([]);
  });

  it.each(table.map((row) => [row.process, row] as const))(
    '%s: every layer’s files exist and carry the name',
    (_, row) => {
      const problems: string[] = [];
      for (const layer of LAYERS) {
        for (const pattern of row.files[layer]) {
          const files = filesOf(pattern);
          if (files.length === 0) problems.push(`${pattern}: no such file`);
          for (const file of NAMED_LAYERS.includes(layer) ? files : []) {
            if (!namedAfter(file, row.process)) problems.push(`${file}: not named after ${row.process}`);
          }
        }
      }
      expect(problems).toEqual([]);
    },
  );

  it.each(table.filter((row) => row.workflowTypes.length > 0).map((row) => [row.process, row] as const))(
    '%s: its workflow file exports its workflow types',
    async (_, row) => {
      const exported = new Set<string>();
      for (const file of row.files.workflows.flatMap(filesOf)) {
        for (const name of Object.keys(await import(path.join(projectRoot, file)))) exported.add(name);
      }
      expect(row.workflowTypes.filter((type) => !exported.has(type))).toEqual([]);
    },
  );
});
