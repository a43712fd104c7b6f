import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ImportEdge, importCircles, importGraph } from '../support/import-graph.ts';

/**
 * The seams of decision 0025, checked on the import graph of every source file (tests excluded):
 * a service never imports another service's internals; workflow code imports nothing with I/O;
 * `domain/` imports no I/O; activities never import workflows; no circle of imports spans two
 * top-level folders; and decision 0078's layers: `platform/` is the ground, `cmd/` the composition
 * root, and no import runs back up the layers but from `cmd/`.
 */

const SERVICES = ['messaging', 'collect', 'openbanking', 'lending'] as const;
const SERVICE_LAYERS = [
  'api',
  'application',
  'workflows',
  'activities',
  'domain',
  'connectors',
  'credentials',
  'sandbox',
  'platform',
  'cmd',
];

/** The service a file belongs to: `<layer>/<service>/...`, or `db/schema/<service>[-part].ts`. */
function serviceOf(file: string): string | undefined {
  const [layer, second, third] = file.split(path.sep);
  if (layer === 'db' && second === 'schema' && third) {
    return SERVICES.find((service) => third === `${service}.ts` || third.startsWith(`${service}-`));
  }
  if (layer && SERVICE_LAYERS.includes(layer) && second && third) {
    return SERVICES.find((service) => service === second);
  }
  return undefined;
}

const topFolder = (file: string) => file.split(path.sep)[0]!;
const describeEdge = (edge: ImportEdge) => `${edge.from} -> ${edge.to}${edge.typeOnly ? ' (type)' : ''}`;

/** Packages without I/O that pure rules may use. */
const PURE_PACKAGES = [
  '@temporalio/workflow',
  '@temporalio/common',
  'zod',
  'decimal.js',
  'ibantools',
  'ipaddr.js',
  'libphonenumber-js',
  'mcc-mnc-list',
  'node:crypto',
  // Parses camt statements in memory (domain/collect/statement.ts); no I/O.
  'fast-xml-parser',
];
const isPurePackage = (specifier: string) =>
  PURE_PACKAGES.some((name) => specifier === name || specifier.startsWith(`${name}/`));

/** What the workflow sandbox may run: workflow code, pure rules and the workflow SDK. */
const WORKFLOW_PACKAGES = ['@temporalio/workflow', '@temporalio/common'];

/**
 * The layers from the ground up (decision 0078); folders of one rank may import each other. `sandbox/`
 * (the simulated outside parties) and `bench/` sit aside: they may stand on any layer, and no layer but
 * `cmd/` imports them.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['domain'],
  ['platform'],
  ['db'],
  ['credentials', 'connectors'],
  ['activities', 'workflows'],
  ['application'],
  ['api'],
  ['cmd'],
];
const LAYER_RANK = new Map(
  LAYERS.flatMap((folders, rank) => folders.map((folder) => [folder, rank] as const)),
);
const CMD_RANK = LAYER_RANK.get('cmd')!;

describe('import rules (decisions 0025, 0046, 0078)', () => {
  const edges = importGraph();

  it('reads the whole house', () => {
    // A broken reader would pass every rule below; the house has hundreds of imports in every layer.
    for (const folder of ['api', 'workflows', 'activities', 'domain', 'platform', 'cmd']) {
      expect(edges.filter((edge) => topFolder(edge.from) === folder).length, folder).toBeGreaterThan(20);
    }
  });

  it('a service never imports another service’s internals', () => {
    const crossing = edges.filter((edge) => {
      if (!edge.local) return false;
      const from = serviceOf(edge.from);
      const to = serviceOf(edge.to);
      return from !== undefined && to !== undefined && from !== to;
    });
    expect(crossing.map(describeEdge)).toEqual([]);
  });

  it('workflow code imports only workflow code, domain/ and the workflow SDK (types aside)', () => {
    const outside = edges.filter(
      (edge) =>
        topFolder(edge.from) === 'workflows' &&
        !edge.typeOnly &&
        (edge.local
          ? !['workflows', 'domain'].includes(topFolder(edge.to))
          : !WORKFLOW_PACKAGES.includes(edge.to)),
    );
    expect(outside.map(describeEdge)).toEqual([]);
  });

  it('domain/ imports no I/O: only domain/ and pure packages', () => {
    const impure = edges.filter(
      (edge) =>
        topFolder(edge.from) === 'domain' &&
        !edge.typeOnly &&
        (edge.local ? topFolder(edge.to) !== 'domain' : !isPurePackage(edge.to)),
    );
    expect(impure.map(describeEdge)).toEqual([]);
  });

  it('activities never import workflow modules', () => {
    const back = edges.filter(
      (edge) => edge.local && topFolder(edge.from) === 'activities' && topFolder(edge.to) === 'workflows',
    );
    expect(back.map(describeEdge)).toEqual([]);
  });

  // Decision 0046: HTTP handlers parse, call one use case and map its answer; use cases are the only
  // code that talks to the engine and the read models for a request.
  it('no HTTP framework below the HTTP layer: hono only in api/, cmd/ (wiring), sandbox/ and bench/', () => {
    const below = edges.filter(
      (edge) =>
        !edge.local &&
        (edge.to === 'hono' || edge.to.startsWith('hono/') || edge.to.startsWith('@hono/')) &&
        !['api', 'cmd', 'sandbox', 'bench'].includes(topFolder(edge.from)),
    );
    expect(below.map(describeEdge)).toEqual([]);
  });

  it('nothing but the API’s own wiring imports api/ (not even its types)', () => {
    const upward = edges.filter(
      (edge) =>
        edge.local &&
        topFolder(edge.to) === 'api' &&
        !['api', 'cmd', 'bench'].includes(topFolder(edge.from)) &&
        // The simulated parties' pages use the one page helper.
        !(topFolder(edge.from) === 'sandbox' && edge.to.startsWith(`api${path.sep}shared${path.sep}`)),
    );
    expect(upward.map(describeEdge)).toEqual([]);
  });

  /** What only use cases may touch: the engine, workflow and activity code, the read models. */
  const behindUseCases = (edge: ImportEdge) =>
    edge.local
      ? ['workflows', 'activities', 'db'].includes(topFolder(edge.to))
      : edge.to.startsWith('@temporalio/') || edge.to === 'drizzle-orm' || edge.to.startsWith('drizzle-orm/');
  const apiFolderOf = (file: string) => (topFolder(file) === 'api' ? file.split(path.sep)[1] : undefined);

  it.each([...SERVICES, 'admin', 'shared'])(
    'api/%s calls use cases: no engine, workflow or read-model import',
    (folder) => {
      const direct = edges.filter((edge) => apiFolderOf(edge.from) === folder && behindUseCases(edge));
      expect(direct.map(describeEdge)).toEqual([]);
    },
  );

  // Decision 0078: the ground stands on pure rules only; the composition root stands on everything and
  // nothing stands on it; every other import runs down the layers.
  it('platform/ (the ground) imports only platform/ and domain/, types included', () => {
    const up = edges.filter(
      (edge) =>
        edge.local &&
        topFolder(edge.from) === 'platform' &&
        !['platform', 'domain'].includes(topFolder(edge.to)),
    );
    expect(up.map(describeEdge)).toEqual([]);
  });

  it('nothing but cmd/ (and bench/, test/) imports cmd/ (the composition root)', () => {
    const intoRoot = edges.filter(
      (edge) =>
        edge.local && topFolder(edge.to) === 'cmd' && !['cmd', 'bench'].includes(topFolder(edge.from)),
    );
    expect(intoRoot.map(describeEdge)).toEqual([]);
  });

  it('no import runs back up the layers, except from cmd/', () => {
    const up = edges.filter((edge) => {
      if (!edge.local || topFolder(edge.from) === topFolder(edge.to)) return false;
      const from = LAYER_RANK.get(topFolder(edge.from));
      const to = LAYER_RANK.get(topFolder(edge.to));
      // The folders aside (sandbox/, bench/) stand on the layers; of the layers only cmd/ starts them.
      if (from === undefined) return false;
      if (to === undefined) return from !== CMD_RANK;
      return to > from && from !== CMD_RANK;
    });
    expect(up.map(describeEdge)).toEqual([]);
  });

  it('no circle of imports spans two top-level folders', () => {
    const spanning = importCircles(edges).filter((circle) => new Set(circle.map(topFolder)).size > 1);
    expect(spanning).toEqual([]);
  });
});
