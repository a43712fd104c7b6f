import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { type ReplayResult, Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import { platformDataConverter } from '../../platform/payload-codec.ts';
import * as workflowTypes from '../../workflows/index.ts';
import { projectRoot } from '../support/import-graph.ts';

/**
 * Replay tests (issue 19): histories recorded from earlier releases of each workflow type, replayed
 * against today's workflow code. A change that would break a process in flight (an activity, timer or
 * command in another order, a removed handler, a missing `patched()`) fails here instead of in
 * production. Record new fixtures with `RECORD_HISTORIES_DIR=<dir> npx vitest run <files>` and copy the
 * ones worth keeping into `test/replay/histories/<workflowType>/` (see test/replay/README.md).
 */

const HISTORIES = path.join(projectRoot, 'test', 'replay', 'histories');

interface Fixture {
  workflowType: string;
  name: string;
  file: string;
}

function fixtures(): Fixture[] {
  if (!existsSync(HISTORIES)) return [];
  return readdirSync(HISTORIES).flatMap((workflowType) =>
    readdirSync(path.join(HISTORIES, workflowType))
      .filter((name) => name.endsWith('.binpb'))
      .map((name) => ({ workflowType, name, file: path.join(HISTORIES, workflowType, name) })),
  );
}

/** Replays fixtures against the bundle of today's workflow code; answers the failures, by fixture. */
async function replayFailures(bundlePath: string, replayed: readonly Fixture[]) {
  async function* histories() {
    for (const fixture of replayed) {
      yield {
        workflowId: `${fixture.workflowType}/${fixture.name}`,
        history: temporal.api.history.v1.History.decode(readFileSync(fixture.file)),
      };
    }
  }
  const failures: string[] = [];
  const results: AsyncIterableIterator<ReplayResult> = Worker.runReplayHistories(
    // The platform's data converter: fixtures recorded since the payload codec are sealed (dev key).
    {
      workflowBundle: { codePath: bundlePath },
      dataConverter: platformDataConverter({ PAYLOAD_CODEC_KEYS: [] }),
    },
    histories(),
  );
  for await (const result of results) {
    if (result.error) failures.push(`${result.workflowId}: ${result.error.name}: ${result.error.message}`);
  }
  return failures;
}

/** Functions the workflow modules export that are steps of other workflows, not workflow types. */
const WORKFLOW_STEPS = ['notifyMerchant'];

const all = fixtures();
const byType = new Map<string, Fixture[]>();
for (const fixture of all)
  byType.set(fixture.workflowType, [...(byType.get(fixture.workflowType) ?? []), fixture]);

describe('replay of recorded histories', () => {
  it('has at least one recorded history of every workflow type the worker runs', () => {
    const types = Object.entries(workflowTypes)
      .filter(([name, value]) => typeof value === 'function' && !WORKFLOW_STEPS.includes(name))
      .map(([name]) => name)
      .sort();
    expect(types.length).toBeGreaterThan(10);
    expect(types.filter((type) => !byType.has(type))).toEqual([]);
  });

  it.each([...byType.keys()].sort())('%s: every recorded history replays on today’s code', async (type) => {
    const replayed = byType.get(type) ?? [];
    expect(replayed.length).toBeGreaterThan(0);
    expect(await replayFailures(inject('workflowBundlePath'), replayed)).toEqual([]);
  });
});
