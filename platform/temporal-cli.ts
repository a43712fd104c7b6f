import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { findGo, goInstall, isExecutable, platformCacheDir } from './go-install.ts';

/**
 * Finds (or provisions) the Temporal CLI that runs the embedded dev server, in this order:
 * TEMPORAL_CLI_PATH, `temporal` on PATH, the per-user cache folder, a pinned `go install` into that
 * cache. v1.5.1 is pinned because it is the last tag that `go install` can build (later tags carry
 * `replace` directives). The cache lives outside the clone so that fresh clones and CI reuse it.
 */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';

export function temporalCliCacheDir(): string {
  return platformCacheDir(`temporal-${TEMPORAL_CLI_VERSION}`);
}

function onPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, command);
    if (dir && isExecutable(candidate)) return candidate;
  }
  return undefined;
}

export class TemporalCliNotFound extends Error {
  constructor(detail: string) {
    super(
      `Temporal CLI not found (${detail}). Install it and set TEMPORAL_CLI_PATH, put \`temporal\` on PATH, ` +
        `or install Go so that it can be built with \`go install github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}\`.`,
    );
    this.name = 'TemporalCliNotFound';
  }
}

/** Returns the path of a usable Temporal CLI, building it with Go if needed (minutes, the first time). */
export async function resolveTemporalCli(
  options: { explicitPath?: string | undefined; log?: (line: string) => void } = {},
): Promise<string> {
  const log = options.log ?? ((line: string) => console.error(line));
  if (options.explicitPath) {
    if (!isExecutable(options.explicitPath)) {
      throw new TemporalCliNotFound(`TEMPORAL_CLI_PATH=${options.explicitPath} is not an executable file`);
    }
    return options.explicitPath;
  }
  const fromPath = onPath('temporal');
  if (fromPath) return fromPath;

  const cacheDir = temporalCliCacheDir();
  const cached = path.join(cacheDir, 'temporal');
  if (isExecutable(cached)) return cached;

  let go: string;
  try {
    go = findGo(`the Temporal CLI ${TEMPORAL_CLI_VERSION}`);
  } catch {
    throw new TemporalCliNotFound('no TEMPORAL_CLI_PATH, no `temporal` on PATH, no cached build, no Go');
  }
  await goInstall({
    go,
    dir: cacheDir,
    what: `the Temporal CLI ${TEMPORAL_CLI_VERSION} (first run only, ~5 min)`,
    log,
    isBuilt: () => isExecutable(cached),
    packages: [`github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`],
  });
  if (!existsSync(cached)) throw new TemporalCliNotFound(`go install finished but ${cached} is missing`);
  return cached;
}

export function temporalCliVersion(cliPath: string): string {
  const result = spawnSync(cliPath, ['--version'], { encoding: 'utf8' });
  return result.stdout.trim();
}
