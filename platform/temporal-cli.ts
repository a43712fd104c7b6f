import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Finds (or provisions) the Temporal CLI that runs the embedded dev server, in this order:
 * TEMPORAL_CLI_PATH, `temporal` on PATH, the per-user cache folder, a pinned `go install` into that
 * cache. v1.5.1 is pinned because it is the last tag that `go install` can build (later tags carry
 * `replace` directives). The cache lives outside the clone so that fresh clones and CI reuse it.
 */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';

export function temporalCliCacheDir(): string {
  const cacheRoot = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cacheRoot, 'integration-platform', `temporal-${TEMPORAL_CLI_VERSION}`);
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, command);
    if (dir && isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function findGo(): string | undefined {
  return onPath('go') ?? (isExecutable('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
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

  const go = findGo();
  if (!go)
    throw new TemporalCliNotFound('no TEMPORAL_CLI_PATH, no `temporal` on PATH, no cached build, no Go');

  mkdirSync(cacheDir, { recursive: true });
  log(
    `Building the Temporal CLI ${TEMPORAL_CLI_VERSION} with Go into ${cacheDir} (first run only, ~5 min)...`,
  );
  const started = Date.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(go, ['install', `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`], {
      env: { ...process.env, GOBIN: cacheDir, GOFLAGS: '-mod=mod' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const progress = setInterval(
      () => log(`  ...still building the Temporal CLI (${Math.round((Date.now() - started) / 1000)} s)`),
      30_000,
    );
    let output = '';
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(progress);
      if (code === 0) resolve();
      else reject(new TemporalCliNotFound(`go install failed with exit code ${code}:\n${output}`));
    });
  });
  if (!existsSync(cached)) throw new TemporalCliNotFound(`go install finished but ${cached} is missing`);
  log(`Temporal CLI built in ${Math.round((Date.now() - started) / 1000)} s.`);
  return cached;
}

export function temporalCliVersion(cliPath: string): string {
  const result = spawnSync(cliPath, ['--version'], { encoding: 'utf8' });
  return result.stdout.trim();
}
