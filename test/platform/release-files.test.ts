import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { projectRoot } from '../support/import-graph.ts';

/**
 * The release's files hold together (no Docker engine is needed to check them): the image's commands
 * are the npm scripts of the same name, docker-compose.yml runs only those, the image tag, the changelog
 * and db/releases.json follow package.json's version.
 */

const read = (file: string) => readFileSync(path.join(projectRoot, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as { version: string; scripts: Record<string, string> };

/** `<command>) exec node --import tsx <file> "$@" ;;` lines of docker/entrypoint.sh. */
const entrypointCommands = new Map(
  [...read('docker/entrypoint.sh').matchAll(/^\s+([a-z-]+)\) exec node --import tsx (\S+) "\$@" ;;$/gm)].map(
    (match) => [match[1] ?? '', match[2] ?? ''],
  ),
);

interface ComposeService {
  image?: string;
  build?: string;
  command?: string[];
  depends_on?: Record<string, { condition: string }>;
}
const compose = parse(read('docker-compose.yml'), { merge: true }) as {
  services: Record<string, ComposeService>;
};

describe('release files', () => {
  it('the image runs each command by the file of the npm script of the same name', () => {
    expect([...entrypointCommands.keys()].sort()).toEqual(['admin', 'api', 'migrate', 'sandbox', 'worker']);
    for (const [command, file] of entrypointCommands) {
      expect(existsSync(path.join(projectRoot, file)), file).toBe(true);
      expect(pkg.scripts[command], command).toBe(`tsx ${file}`);
    }
    const dockerfile = read('Dockerfile');
    expect(dockerfile).toMatch(/^ENTRYPOINT \["\/app\/docker\/entrypoint\.sh"\]$/m);
    expect(dockerfile).toMatch(/^CMD \["api"\]$/m);
    accessSync(path.join(projectRoot, 'docker', 'entrypoint.sh'), constants.X_OK);
  });

  it('docker-compose.yml runs api, workers and migrations from that image, Temporal on PostgreSQL', () => {
    const { services } = compose;
    expect(Object.keys(services).sort()).toEqual(
      expect.arrayContaining(['api', 'migrate', 'postgres', 'temporal', 'worker']),
    );
    const platform = Object.entries(services).filter(([, service]) => service.build === '.');
    expect(platform.map(([name]) => name).sort()).toEqual(['api', 'migrate', 'sandbox', 'worker']);
    for (const [name, service] of platform) {
      expect(service.image, name).toBe(`\${PLATFORM_IMAGE:-integration-platform:${pkg.version}}`);
      expect(entrypointCommands.has(service.command?.[0] ?? ''), `${name}: ${service.command}`).toBe(true);
      expect(service.command?.[0]).toBe(name);
    }
    for (const name of ['api', 'worker'])
      expect(services[name]?.depends_on?.migrate?.condition).toBe('service_completed_successfully');
    expect(services.temporal?.depends_on?.postgres?.condition).toBe('service_healthy');
  });

  it('the changelog has a section for package.json’s version, and db/releases.json freezes its migrations', () => {
    expect(read('CHANGELOG.md')).toMatch(
      new RegExp(`^## \\[${pkg.version.replaceAll('.', '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}$`, 'm'),
    );
    const manifest = JSON.parse(read('db/releases.json')) as { releases: { version: string }[] };
    expect(manifest.releases.map((release) => release.version)).toContain(pkg.version);
  });
});
