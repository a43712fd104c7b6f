import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/**
 * Writes the history of every workflow on the server to `<dir>/<type>/<workflowId>~<runId>.binpb`
 * (the History protobuf, binary: every event type round-trips, which Temporal's JSON form does not
 * for all of them in this SDK).
 */
export async function recordHistories(address: string, dir: string): Promise<void> {
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  let count = 0;
  for await (const execution of client.workflow.list()) {
    try {
      const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
      const folder = path.join(dir, execution.type);
      mkdirSync(folder, { recursive: true });
      const file = `${execution.workflowId}~${execution.runId}.binpb`.replace(/[^A-Za-z0-9._~-]/g, '_');
      writeFileSync(path.join(folder, file), temporal.api.history.v1.History.encode(history).finish());
      count += 1;
    } catch (error) {
      console.error(`not recorded: ${execution.workflowId} (${(error as Error).message})`);
    }
  }
  console.error(`recorded ${count} histories into ${dir}`);
  await connection.close();
}
