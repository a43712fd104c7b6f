import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** The `ports:` entries of one service of docker-compose.yml (read as text: two-space indented services). */
function publishedPorts(compose: string, service: string): string[] {
  const lines = compose.split('\n');
  const start = lines.indexOf(`  ${service}:`);
  if (start < 0) throw new Error(`no service ${service}`);
  const end = lines.findIndex((line, i) => i > start && /^ {2}\S/.test(line));
  const block = lines.slice(start + 1, end < 0 ? undefined : end);
  const ports: string[] = [];
  let inPorts = false;
  for (const line of block) {
    if (/^ {4}ports:/.test(line)) inPorts = true;
    else if (/^ {4}\S/.test(line)) inPorts = false;
    else if (inPorts) {
      const entry = /^\s+-\s+"?([^"#\s]+)"?/.exec(line)?.[1];
      if (entry) ports.push(entry);
    }
  }
  return ports;
}

describe('docker-compose.yml', () => {
  const compose = readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8');

  it('publishes Temporal and its Web UI on the host loopback only', () => {
    expect(publishedPorts(compose, 'temporal')).toEqual(['127.0.0.1:7233:7233']);
    expect(publishedPorts(compose, 'temporal-ui')).toEqual(['127.0.0.1:8080:8080']);
  });

  it('says how to secure them before exposing them', () => {
    expect(compose).toMatch(/mTLS/);
    expect(compose).toMatch(/authenticat/i);
  });
});
