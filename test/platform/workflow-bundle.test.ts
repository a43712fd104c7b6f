import { readFileSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';

/**
 * The workflow bundle stays light (issue 24): with `reuseV8Context` every cached workflow gets its own
 * copy of every bundled module's top-level state, so a schema library or a table-building module in
 * the bundle costs memory per open process. Workflow code imports types and pure rules only;
 * validation stays at the API and activity boundaries.
 */

/** Packages workflow code may bring into the bundle, and why. */
const ALLOWED_PACKAGES = new Map([
  ['@temporalio/workflow', 'the workflow API'],
  ['@temporalio/common', 'the workflow API'],
  ['nexus-rpc', 'loaded by @temporalio/workflow'],
  ['long', 'loaded by @temporalio/common'],
  ['ms', 'loaded by @temporalio/common'],
  ['decimal.js', 'exact money in loan schedules (domain/lending); one constructor, no tables'],
]);

/** Own folders whose modules may be bundled: workflow code, pure rules and the sealed failure converter. */
const ALLOWED_OWN = [/^workflows\//, /^domain\//, /^platform\/sealed-failure-converter\.ts$/];

/** The module ids webpack writes in the bundle (`/***\/ "./node_modules/zod/lib/index.js"`). */
function bundledModules(code: string): string[] {
  return [...code.matchAll(/^\/\*\*\*\/ "\.\/([^"]+)"/gm)].map((match) => match[1]!);
}

const packageOf = (module: string) =>
  module
    .slice('node_modules/'.length)
    .split('/')
    .slice(0, module.startsWith('node_modules/@') ? 2 : 1)
    .join('/');

describe('the workflow bundle', () => {
  const code = readFileSync(inject('workflowBundlePath'), 'utf8');
  const modules = bundledModules(code);

  it('lists its modules (the check below reads them)', () => {
    expect(modules.length).toBeGreaterThan(50);
    expect(modules).toContain('workflows/index.ts');
  });

  it('holds no package outside the allow-list: no zod, ibantools, drizzle, hono or phone tables', () => {
    const packages = new Set(modules.filter((m) => m.startsWith('node_modules/')).map(packageOf));
    expect([...packages].filter((name) => !ALLOWED_PACKAGES.has(name)).sort()).toEqual([]);
  });

  it('holds only workflow code and pure rules of its own: no API, application, activity or database module', () => {
    const own = modules.filter((m) => !m.startsWith('node_modules/'));
    expect(own.filter((m) => !ALLOWED_OWN.some((pattern) => pattern.test(m)))).toEqual([]);
  });
});
