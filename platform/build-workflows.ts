import { ensureWorkflowBundle } from './workflow-bundle.ts';

// `npm run build`: builds the workflow bundle ahead of time so that worker start-up skips webpack.
const file = await ensureWorkflowBundle(undefined, (line) => console.log(line));
console.log(`Workflow bundle ready: ${file}`);
