import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { DataConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { type ReplayResult, Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import { platformDataConverter } from '../../platform/payload-codec.ts';
import { ensureWorkflowBundle } from '../../platform/workflow-bundle.ts';
import * as workflowTypes from '../../workflows/index.ts';
import { projectRoot } from '../support/import-graph.ts';

/**
 * Replay tests (issue 19, a release rule since 0.1.0: docs/releasing.md): histories of every workflow
 * type recorded at each release, kept in `test/replay/histories/<release>/<workflowType>/` and never
 * replaced, replayed against today's workflow code. A change that would break a process in flight (an
 * activity, timer or command in another order, a removed handler, a missing `patched()`) fails here
 * instead of in production. Record with `RECORD_HISTORIES_DIR=<dir> npx vitest run <files>` and copy the
 * ones worth keeping into the release's folder (see test/replay/README.md).
 */

const HISTORIES = path.join(projectRoot, 'test', 'replay', 'histories');

/**
 * The data converter the replaying worker decodes payloads with: the platform's, with the development
 * key the suite records under. Histories recorded since the payload codec hold sealed payloads; those
 * recorded before it (0.1.0's) hold plain ones, which the codec passes through.
 */
const REPLAY_DATA_CONVERTER: DataConverter = platformDataConverter({ PAYLOAD_CODEC_KEYS: [] });

/** `x.y.z` for the histories recorded at a release, `unreleased` for those recorded since the last one. */
const RELEASE_FOLDER = /^(\d+\.\d+\.\d+|unreleased)$/;

interface Fixture {
  release: string;
  workflowType: string;
  name: string;
  file: string;
}

const folders = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);

function fixtures(): Fixture[] {
  return folders(HISTORIES).flatMap((release) =>
    folders(path.join(HISTORIES, release)).flatMap((workflowType) =>
      folders(path.join(HISTORIES, release, workflowType))
        .filter((name) => name.endsWith('.binpb'))
        .map((name) => ({
          release,
          workflowType,
          name,
          file: path.join(HISTORIES, release, workflowType, name),
        })),
    ),
  );
}

/** Replays fixtures against the bundle of today's workflow code; answers the failures, by fixture. */
async function replayFailures(bundlePath: string, replayed: readonly Fixture[]) {
  async function* histories() {
    for (const fixture of replayed) {
      yield {
        workflowId: `${fixture.release}/${fixture.workflowType}/${fixture.name}`,
        history: temporal.api.history.v1.History.decode(readFileSync(fixture.file)),
      };
    }
  }
  const failures: string[] = [];
  const results: AsyncIterableIterator<ReplayResult> = Worker.runReplayHistories(
    { workflowBundle: { codePath: bundlePath }, dataConverter: REPLAY_DATA_CONVERTER },
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

const packageVersion = (
  JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string }
).version;

describe('replay of recorded histories', () => {
  it('keeps the histories by release: a folder per release (and `unreleased`), that of package.json’s version among them', () => {
    const releases = folders(HISTORIES);
    expect(releases.filter((release) => !RELEASE_FOLDER.test(release))).toEqual([]);
    expect(releases).toContain(packageVersion);
    expect(all.filter((fixture) => fixture.release === packageVersion).length).toBeGreaterThan(0);
  });

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

  it('every recorded history replays on the traced bundle too: tracing on or off is not a new version', async () => {
    // The OpenTelemetry workflow interceptors (decision 0059) add headers and sink calls, no command.
    const traced = await ensureWorkflowBundle(undefined, undefined, { tracing: true });
    expect(await replayFailures(traced, all)).toEqual([]);
    // Every history in one run (20 s on a quiet machine, near 60 s beside other files): the bundle and all.
  }, 180_000);
});
