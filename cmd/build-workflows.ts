import { ensureWorkflowBundle } from '../platform/workflow-bundle.ts';

// `npm run build`: builds the workflow bundles ahead of time so that worker start-up skips webpack: the
// plain one, and the traced one workers run when an OTLP endpoint is set (decision 0059).
for (const tracing of [false, true]) {
  const file = await ensureWorkflowBundle(undefined, (line) => console.log(line), { tracing });
  console.log(`Workflow bundle ready: ${file}`);
}
