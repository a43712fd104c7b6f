import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import { failureConverterPath } from './payload-codec.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const workflowsEntry = path.join(root, 'workflows', 'index.ts');
/** Workflow code may import only from these folders; their content decides whether a bundle is current. */
const BUNDLED_SOURCES = ['workflows', 'domain', 'activities'];

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return sourceFiles(full);
      return entry.name.endsWith('.ts') ? [full] : [];
    })
    .sort();
}

/** Hash of every source the bundle may contain, so a bundle is rebuilt exactly when its code changed. */
function sourceHash(): string {
  const hash = createHash('sha256');
  const files = [
    ...BUNDLED_SOURCES.flatMap((dir) => sourceFiles(path.join(root, dir))),
    failureConverterPath,
    workflowTracingPath,
  ];
  for (const file of files) {
    hash.update(path.relative(root, file));
    hash.update(readFileSync(file));
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * The traced bundle's workflow interceptors (platform/workflow-tracing.ts): a workflow span continuing the
 * trace of the request that started it, and the trace context handed to its activities.
 */
export const workflowTracingPath = path.join(root, 'platform', 'workflow-tracing.ts');

/**
 * Returns the path of a workflow bundle for the current sources, building it only when no bundle
 * for them exists yet (`npm run build` does this ahead of time; start-up then skips webpack).
 * `tracing`: the traced bundle (decision 0059), with the OpenTelemetry workflow interceptors and their
 * packages; the default bundle holds none of them, so that a platform without tracing pays no memory per
 * cached workflow for it.
 */
export async function ensureWorkflowBundle(
  buildDir = path.join(root, 'build'),
  log?: (line: string) => void,
  options: { tracing?: boolean } = {},
): Promise<string> {
  const file = path.join(buildDir, `workflow-bundle-${sourceHash()}${options.tracing ? '-traced' : ''}.js`);
  if (existsSync(file)) return file;
  const started = Date.now();
  const { code } = await bundleWorkflowCode({
    workflowsPath: workflowsEntry,
    ...(options.tracing ? { workflowInterceptorModules: [workflowTracingPath] } : {}),
    // Workflows encode their failures with the same converter as clients and workers (sealed messages).
    failureConverterPath,
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error },
  });
  mkdirSync(buildDir, { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, code);
  // Rename is atomic, so concurrent builders never expose a half-written bundle.
  renameSync(temporary, file);
  log?.(`Workflow bundle built in ${Date.now() - started} ms: ${path.relative(root, file)}`);
  return file;
}
