import { spawn } from 'node:child_process';
import dns from 'node:dns';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { addressRefusal } from '../../domain/outbound-url.ts';
import { ConfigError, loadConfig } from '../../platform/config.ts';
import { type ResolveAll, resolvedPartyProblems } from '../../platform/production-parties.ts';
import { projectRoot } from '../support/import-graph.ts';
import { PRODUCTION_TEST_KEYS } from '../support/production-env.ts';

/**
 * PLATFORM_MODE=production refuses outside parties inside the platform's network (platform/
 * production-parties.ts) however their URL names them: `localhost` written fully qualified
 * (`localhost.`), and a host name, resolved at start-up, any of whose addresses is loopback, private,
 * link-local or otherwise special-purpose (issue 37, item 7).
 */

/** A production configuration whose parties are all at public addresses. */
const production: Record<string, string> = {
  ...PRODUCTION_TEST_KEYS,
  COLLECT_SIGNING_KEY: '-----BEGIN PRIVATE KEY-----\nMII...\n-----END PRIVATE KEY-----',
  COLLECT_ACQUIRER_ID: 'acme-acquirer',
  COLLECT_ACQUIRER_URL: 'https://93.184.216.34/api',
  COLLECT_ACQUIRER_API_KEY: 'acquirer-key-0123456789',
  COLLECT_COLLECTION_IBAN: 'GB82WEST12345698765432',
  COLLECT_COLLECTION_BENEFICIARY: 'Acme Collections',
  SMPP_URL: 'smpp://8.8.4.4:2775',
  SMPP_SYSTEM_ID: 'acme',
  SMPP_PASSWORD: 'secret',
  CHATAPP_URL: 'https://1.1.1.1/chatapp',
  CHATAPP_API_KEY: 'chat-key',
  CHATAPP_PHONE_NUMBER_ID: '106540352242922',
  CHATAPP_APP_SECRET: 'chat-app-secret',
  CHATAPP_VERIFY_TOKEN: 'chat-verify-token',
  HLR_URL: 'https://1.0.0.1/hlr',
  HLR_API_KEY: 'hlr-key',
  HLR_API_SECRET: 'hlr-secret',
  LENDING_BUREAU_URL: 'https://9.9.9.9/bureau',
  LENDING_BUREAU_API_KEY: 'bureau-key-0123456789',
  LENDING_COLLECT_URL: 'https://93.184.216.35/collect',
  LENDING_MESSAGING_URL: 'https://93.184.216.35/messaging',
  LENDING_MESSAGING_TOKEN: 'at_lending-token-0123456789',
  LENDING_OPENBANKING_URL: 'https://93.184.216.35/openbanking',
};

const problemsOf = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  return [];
};

/** `npm run api` with `env` alone: its exit code and what it printed. */
function startApi(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'cmd/api-main.ts'], {
    cwd: projectRoot,
    env: { PATH: process.env.PATH ?? '', HOME: os.homedir(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    }),
  );
}

/** This machine's own name, when it resolves (without the network: /etc/hosts) to an inward address. */
const inwardHostname = await dns.promises
  .lookup(os.hostname(), { all: true })
  .then((answers) => (answers.some(({ address }) => addressRefusal(address) !== null) ? os.hostname() : null))
  .catch(() => null);

describe('production party URLs', () => {
  it('accepts its public parties', () => {
    expect(problemsOf(production)).toEqual([]);
  });

  it.each([
    ['CHATAPP_URL', 'http://localhost.:5408/chatapp', 'localhost. is a loopback name'],
    ['SMPP_URL', 'smpp://LOCALHOST.:2775', 'localhost. is a loopback name'],
    ['HLR_URL', 'http://hlr.localhost.:5408/hlr', 'hlr.localhost. is a loopback name'],
  ])('refuses %s=%s, a loopback name written fully qualified', (variable, url, why) => {
    const problems = problemsOf({ ...production, [variable]: url });
    expect(problems.map((problem) => problem.variable)).toEqual([variable]);
    expect(problems[0]?.message).toContain(why);
  });

  it.runIf(inwardHostname)(
    'start-up resolves each party name and refuses one that resolves inward (this machine’s name)',
    async () => {
      const refused = await startApi({
        ...production,
        CHATAPP_URL: `http://${inwardHostname}:5408/chatapp`,
        LENDING_BUREAU_URL: 'http://localhost.:5408/bureau',
      });
      expect(refused.code, refused.output).toBe(78);
      expect(refused.output).toMatch(
        new RegExp(`CHATAPP_URL: must not name a loopback.*\\(name ${inwardHostname}: \\S+ is a \\w`),
      );
      expect(refused.output).toMatch(/LENDING_BUREAU_URL: must not name .*localhost\. is a loopback name/);
      expect(refused.output).toContain('PRODUCTION_ALLOW_PRIVATE_PARTIES');
    },
    90_000,
  );
});

describe('the start-up resolution of party names', () => {
  const rules = { partyUrls: ['CHATAPP_URL', 'HLR_URL', 'SMPP_URL'], sandboxValues: [] };
  const answers: Record<string, string[]> = {
    'chat.example': ['93.184.216.34', '10.0.0.7'],
    'hlr.example': ['2606:2800:220:1:248:1893:25c8:1946', '93.184.216.34'],
    'smsc.example': ['fe80::1'],
  };
  const resolve: ResolveAll = async (host) => {
    const addresses = answers[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address }));
  };
  const env = {
    CHATAPP_URL: 'https://chat.example/api',
    HLR_URL: 'https://hlr.example/api',
    SMPP_URL: 'smpp://smsc.example:2775',
  };

  it('refuses a name when ANY of its addresses is inward, and names the variable and the address', async () => {
    const { problems, warnings } = await resolvedPartyProblems(
      env,
      rules,
      { allowList: undefined, banks: undefined },
      resolve,
    );
    expect(problems).toEqual([
      {
        variable: 'CHATAPP_URL',
        message: expect.stringContaining('name chat.example: 10.0.0.7 is a private address'),
      },
      {
        variable: 'SMPP_URL',
        message: expect.stringContaining('name smsc.example: fe80::1 is a link-local address'),
      },
    ]);
    expect(warnings).toEqual([]);
  });

  it('accepts what PRODUCTION_ALLOW_PRIVATE_PARTIES lists, and warns of a name that does not resolve', async () => {
    const listed = await resolvedPartyProblems(
      { ...env, HLR_URL: 'https://hlr.missing.example/api' },
      rules,
      { allowList: ['10.0.0.0/24', 'smsc.example:2775'], banks: undefined },
      resolve,
    );
    expect(listed.problems).toEqual([]);
    expect(listed.warnings).toEqual([
      { variable: 'HLR_URL', message: 'hlr.missing.example does not resolve (ENOTFOUND): not checked' },
    ]);
  });
});
