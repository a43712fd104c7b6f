import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../platform/config.ts';

/** What a production process must be given besides its keys: the carriers and the card acquirer, explicitly. */
const PRODUCTION_CARRIERS = {
  COLLECT_ACQUIRER_ID: 'acme-acquirer',
  COLLECT_ACQUIRER_URL: 'https://acquirer.example/api',
  COLLECT_ACQUIRER_API_KEY: 'acquirer-key-0123456789',
  COLLECT_COLLECTION_IBAN: 'BG80BNBG96611020345678',
  COLLECT_COLLECTION_BENEFICIARY: 'Acme Collections',
  SMPP_URL: 'smpp://smsc.example:2775',
  SMPP_SYSTEM_ID: 'acme',
  SMPP_PASSWORD: 'secret',
  CHATAPP_URL: 'https://chat.example/api',
  CHATAPP_API_KEY: 'chat-key',
  HLR_URL: 'https://hlr.example/api',
  HLR_API_KEY: 'hlr-key',
  LENDING_BUREAU_URL: 'https://bureau.example/api',
  LENDING_BUREAU_API_KEY: 'bureau-key-0123456789',
  LENDING_COLLECT_URL: 'https://gateway.example/collect',
  LENDING_MESSAGING_URL: 'https://gateway.example/messaging',
  LENDING_MESSAGING_TOKEN: 'at_lending-token-0123456789',
  LENDING_OPENBANKING_URL: 'https://gateway.example/openbanking',
  LENDING_OPENBANKING_AGENT_HASH: `agent_${'A'.repeat(43)}`,
};
const PRODUCTION_KEYS = {
  COLLECT_SECRET_KEY: 'ab'.repeat(32),
  COLLECT_SIGNING_KEY: '-----BEGIN PRIVATE KEY-----\nMII...\n-----END PRIVATE KEY-----',
  OPENBANKING_KEY_ENCRYPTION_KEY: 'cd'.repeat(32),
  WEBHOOK_SECRET_KEY: 'ef'.repeat(32),
  LENDING_DATA_KEY: '01'.repeat(32),
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

describe('configuration', () => {
  it('applies documented defaults', () => {
    const config = loadConfig({});
    expect(config.PORT).toBe(3000);
    expect(config.WEBHOOK_RETRY_SCHEDULE).toEqual([
      5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000,
    ]);
    expect(config.SENDER_ID_CONFIRMATION_TIMEOUT).toBe(7 * 86_400_000);
  });

  it('points the sandbox provider URLs at SMPP_PORT and SANDBOX_HTTP_PORT unless they are set', () => {
    expect(loadConfig({})).toMatchObject({
      SMPP_URL: 'smpp://127.0.0.1:2775',
      CHATAPP_URL: 'http://127.0.0.1:4010/chatapp',
      HLR_URL: 'http://127.0.0.1:4010/hlr',
    });
    expect(loadConfig({ SMPP_PORT: '12775', SANDBOX_HTTP_PORT: '14010' })).toMatchObject({
      SMPP_URL: 'smpp://127.0.0.1:12775',
      CHATAPP_URL: 'http://127.0.0.1:14010/chatapp',
      HLR_URL: 'http://127.0.0.1:14010/hlr',
    });
    const explicit = {
      SMPP_URL: 'smpp://smsc.example:2775',
      CHATAPP_URL: 'https://chat.example/api',
      HLR_URL: 'https://hlr.example/api',
    };
    expect(loadConfig({ SMPP_PORT: '12775', SANDBOX_HTTP_PORT: '14010', ...explicit })).toMatchObject(
      explicit,
    );
  });

  it.each([
    ['PORT', 'seventy'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'not a url'],
    ['SMS_RECEIPT_TIMEOUT', '2 weeks'],
    ['WEBHOOK_RETRY_SCHEDULE', '5s,,soon'],
    ['LOG_LEVEL', 'loud'],
    ['PLATFORM_MODE', 'staging'],
  ])('stops on a bad %s (%s) with a message naming the variable', (variable, value) => {
    let error: unknown;
    try {
      loadConfig({ [variable]: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.map((problem) => problem.variable)).toEqual([variable]);
    expect((error as ConfigError).message).toContain(`${variable}:`);
  });

  it('refuses production mode without the keys that sandbox mode generates, naming each', () => {
    let error: unknown;
    try {
      loadConfig({
        PLATFORM_MODE: 'production',
        COLLECT_SECRET_KEY: 'ab'.repeat(32),
        ...PRODUCTION_CARRIERS,
        PUBLIC_BASE_URL: 'https://gateway.example',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.map((problem) => problem.variable).sort()).toEqual([
      'COLLECT_SIGNING_KEY',
      'LENDING_DATA_KEY',
      'OPENBANKING_KEY_ENCRYPTION_KEY',
      'WEBHOOK_SECRET_KEY',
    ]);
  });

  it('refuses production mode that would fall back to the sandbox carriers, naming each variable', () => {
    const problems = problemsOf({
      PLATFORM_MODE: 'production',
      ...PRODUCTION_KEYS,
      PUBLIC_BASE_URL: 'https://gw.example',
    });
    expect(problems.map((problem) => problem.variable).sort()).toEqual(
      Object.keys(PRODUCTION_CARRIERS).sort(),
    );
    for (const problem of problems) expect(problem.message).toContain('PLATFORM_MODE=production');
    // One missing is named alone; an empty value counts as missing.
    const { HLR_API_KEY: _hlrKey, ...withoutHlrKey } = PRODUCTION_CARRIERS;
    expect(
      problemsOf({
        PLATFORM_MODE: 'production',
        ...PRODUCTION_KEYS,
        ...withoutHlrKey,
        SMPP_PASSWORD: '',
        PUBLIC_BASE_URL: 'https://gw.example',
      }).map((problem) => problem.variable),
    ).toEqual(['SMPP_PASSWORD', 'HLR_API_KEY']);
    const config = loadConfig({
      PLATFORM_MODE: 'production',
      ...PRODUCTION_KEYS,
      ...PRODUCTION_CARRIERS,
      PUBLIC_BASE_URL: 'https://gw.example',
    });
    expect(config).toMatchObject(PRODUCTION_CARRIERS);
  });

  it('requires PUBLIC_BASE_URL whenever NODE_ENV=production or PLATFORM_MODE=production', () => {
    const production = { PLATFORM_MODE: 'production', ...PRODUCTION_KEYS, ...PRODUCTION_CARRIERS };
    for (const env of [
      production as Record<string, string>,
      { NODE_ENV: 'production' },
      { NODE_ENV: 'production', PUBLIC_BASE_URL: '' },
    ]) {
      const problems = problemsOf(env);
      expect(problems.map((problem) => problem.variable)).toEqual(['PUBLIC_BASE_URL']);
      expect(problems[0]?.message).toMatch(/=production/);
    }
    expect(
      loadConfig({ NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://gw.example' }).PUBLIC_BASE_URL,
    ).toBe('https://gw.example');
    // Development and tests may leave it unset (links then use the API's own listening address).
    expect(loadConfig({}).PUBLIC_BASE_URL).toBeUndefined();
    expect(loadConfig({ NODE_ENV: 'test' }).PUBLIC_BASE_URL).toBeUndefined();
  });
});
