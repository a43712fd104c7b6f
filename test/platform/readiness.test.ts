import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { platformDataConverter } from '../../platform/payload-codec.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform({ worker: 'none' });
});
afterAll(async () => {
  await platform?.stop();
});

async function health() {
  const response = await fetch(`${platform.apiUrl}/health`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('readiness with two task queues (decision 0024)', () => {
  it('is ready only once workers poll both the business and the delivery task queue', async () => {
    expect(await health()).toEqual({
      status: 503,
      body: { status: 'starting', notReady: ['worker', 'delivery-worker'] },
    });

    // A worker of the business lane alone (as a worker process of an older release would run it). The
    // SDK runtime is the platform's (its client connects natively); where it is not installed yet, keep
    // this one quiet.
    if (!Runtime._instance) Runtime.install({ logger: new DefaultLogger('ERROR') });
    const connection = await NativeConnection.connect({ address: platform.config.TEMPORAL_ADDRESS });
    const businessOnly = await Worker.create({
      connection,
      namespace: platform.config.TEMPORAL_NAMESPACE,
      taskQueue: platform.config.TEMPORAL_TASK_QUEUE,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      dataConverter: platformDataConverter(platform.config),
    });
    try {
      await businessOnly.runUntil(
        eventually(
          async () => {
            const { body } = await health();
            return JSON.stringify(body.notReady) === '["delivery-worker"]' ? true : undefined;
          },
          15_000,
          'only the delivery worker missing',
        ),
      );
    } finally {
      await connection.close();
    }

    await platform.startWorker();
    await eventually(async () => ((await health()).status === 200 ? true : undefined), 15_000, 'ready');
    expect((await health()).body).toEqual({ status: 'ok' });
  });
});
