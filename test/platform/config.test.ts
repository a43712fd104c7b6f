import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../platform/config.ts';

/** What a production process must be given besides its keys: the carriers and the card acquirer, explicitly. */
const PRODUCTION_CARRIERS = {
  COLLECT_ACQUIRER_ID: 'acme-acquirer',
  COLLECT_ACQUIRER_URL: 'https://acquirer.example/api',
  COLLECT_ACQUIRER_API_KEY: 'acquirer-key-0123456789',
  COLLECT_COLLECTION_IBAN: 'GB82WEST12345698765432',
  COLLECT_COLLECTION_BENEFICIARY: 'Acme Collections',
  SMPP_URL: 'smpp://smsc.example:2775',
  SMPP_SYSTEM_ID: 'acme',
  SMPP_PASSWORD: 'secret',
  CHATAPP_URL: 'https://chat.example/api',
  CHATAPP_API_KEY: 'chat-key',
  CHATAPP_PHONE_NUMBER_ID: '106540352242922',
  CHATAPP_APP_SECRET: 'chat-app-secret',
  CHATAPP_VERIFY_TOKEN: 'chat-verify-token',
  HLR_URL: 'https://hlr.example/api',
  HLR_API_KEY: 'hlr-key',
  HLR_API_SECRET: 'hlr-secret',
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
  PAYLOAD_CODEC_KEYS: `prod-2026:${'45'.repeat(32)}`,
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

  it('reads how the SMSC bind sends long messages, and names a value it does not know', () => {
    expect(loadConfig({})).toMatchObject({
      SMPP_LONG_MESSAGES: 'message_payload',
      SMPP_UDH_REFERENCE_BITS: 8,
    });
    expect(loadConfig({ SMPP_LONG_MESSAGES: 'udh', SMPP_UDH_REFERENCE_BITS: '16' })).toMatchObject({
      SMPP_LONG_MESSAGES: 'udh',
      SMPP_UDH_REFERENCE_BITS: 16,
    });
    expect(JSON.stringify(problemsOf({ SMPP_LONG_MESSAGES: 'split', SMPP_UDH_REFERENCE_BITS: '7' }))).toMatch(
      /SMPP_LONG_MESSAGES[\s\S]*SMPP_UDH_REFERENCE_BITS/,
    );
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
      'PAYLOAD_CODEC_KEYS',
      'WEBHOOK_SECRET_KEY',
    ]);
  });

  it('reads the payload keys (first encrypts) and refuses malformed ones or the development key in production', () => {
    const keys = loadConfig({
      PAYLOAD_CODEC_KEYS: `new-2:${'12'.repeat(32)}, old-1:${'34'.repeat(32)}`,
    }).PAYLOAD_CODEC_KEYS;
    expect(keys.map((key) => key.id)).toEqual(['new-2', 'old-1']);
    expect(keys[0]?.key.toString('hex')).toBe('12'.repeat(32));
    expect(loadConfig({}).PAYLOAD_CODEC_KEYS).toEqual([]);
    for (const malformed of ['k1', `k1:${'12'.repeat(16)}`, `k1:${'12'.repeat(32)} k1:${'34'.repeat(32)}`])
      expect(problemsOf({ PAYLOAD_CODEC_KEYS: malformed }).map((problem) => problem.variable)).toEqual([
        'PAYLOAD_CODEC_KEYS',
      ]);
    const developmentKey = createHash('sha256')
      .update('integration-platform development payload key')
      .digest('hex');
    expect(
      problemsOf({
        PLATFORM_MODE: 'production',
        ...PRODUCTION_KEYS,
        ...PRODUCTION_CARRIERS,
        PUBLIC_BASE_URL: 'https://gateway.example',
        PAYLOAD_CODEC_KEYS: `mine:${developmentKey}`,
      }),
    ).toEqual([
      {
        variable: 'PAYLOAD_CODEC_KEYS',
        message: 'holds the published development key; production needs keys of its own',
      },
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

  describe('production refuses sandbox parties, naming each variable and why, all at once', () => {
    const production = {
      PLATFORM_MODE: 'production',
      ...PRODUCTION_KEYS,
      ...PRODUCTION_CARRIERS,
      PUBLIC_BASE_URL: 'https://gw.example',
    };
    const bank = (xs2aBaseUrl: string) =>
      JSON.stringify([{ code: 'acme-bank', name: 'Acme', country: 'BG', bic: 'UNCRBGSF', xs2aBaseUrl }]);

    it('accepts a production configuration with its own parties (public addresses, names)', () => {
      expect(problemsOf({ ...production, OPENBANKING_BANKS: bank('https://xs2a.acme.example/v1') })).toEqual(
        [],
      );
      expect(
        problemsOf({
          ...production,
          COLLECT_ACQUIRER_URL: 'https://93.184.216.34/api',
          SMPP_URL: 'smpp://8.8.4.4:2775',
        }),
      ).toEqual([]);
    });

    it.each([
      ['COLLECT_ACQUIRER_API_KEY', 'sandbox-acquirer-key-0000', "the sandbox acquirer's published key"],
      ['LENDING_BUREAU_API_KEY', 'sandbox-bureau-key-0000', "the sandbox bureau's published key"],
      ['CHATAPP_API_KEY', 'sandbox-chatapp-key', "the sandbox chat-app provider's published key"],
      ['HLR_API_KEY', 'sandbox-hlr-key', "the sandbox HLR provider's published key"],
      [
        'CHATAPP_APP_SECRET',
        'sandbox-chatapp-app-secret',
        "the sandbox chat-app provider's published app secret",
      ],
      [
        'CHATAPP_VERIFY_TOKEN',
        'sandbox-chatapp-verify-token',
        "the sandbox chat-app provider's published verify token",
      ],
      ['HLR_API_SECRET', 'sandbox-hlr-secret', "the sandbox HLR provider's published secret"],
      ['SMPP_PASSWORD', 'sandbox', "the sandbox SMSC's published password"],
      ['COLLECT_COLLECTION_IBAN', 'BG80BNBG96611020345678', "the sandbox's test account"],
      ['COLLECT_COLLECTION_IBAN', 'bg80 bnbg 9661 1020 3456 78', "the sandbox's test account"],
    ])('refuses %s=%s (%s)', (variable, value, why) => {
      const problems = problemsOf({ ...production, [variable]: value });
      expect(problems.map((problem) => problem.variable)).toEqual([variable]);
      expect(problems[0]?.message).toContain(why);
    });

    it.each([
      ['COLLECT_ACQUIRER_URL', 'http://127.0.0.1:4040', '127.0.0.1 is a loopback address'],
      ['LENDING_BUREAU_URL', 'http://10.1.2.3/bureau', '10.1.2.3 is a private address'],
      ['OPENBANKING_BANK_DIRECTORY_URL', 'http://169.254.169.254/directory', 'is a link-local address'],
      ['SMPP_URL', 'smpp://192.168.1.10:2775', '192.168.1.10 is a private address'],
      ['SMPP_URL', 'smpp://2130706433:2775', '127.0.0.1 is a loopback address'],
      ['CHATAPP_URL', 'http://localhost:4010/chatapp', 'localhost is a loopback name'],
      ['HLR_URL', 'http://[::1]:4010/hlr', '::1 is a loopback address'],
      ['LENDING_COLLECT_URL', 'http://[fd00::1]/collect', 'fd00::1 is a private (unique-local) address'],
      ['LENDING_MESSAGING_URL', 'http://100.64.0.1/messaging', 'is a shared (CGNAT) address'],
      ['LENDING_OPENBANKING_URL', 'http://[::ffff:127.0.0.1]/openbanking', 'is a loopback address'],
    ])('refuses %s=%s: %s', (variable, url, why) => {
      const problems = problemsOf({ ...production, [variable]: url });
      expect(problems.map((problem) => problem.variable)).toEqual([variable]);
      expect(problems[0]?.message).toContain(why);
      expect(problems[0]?.message).toContain('PRODUCTION_ALLOW_PRIVATE_PARTIES');
    });

    it('refuses a configured bank at a private address, naming the bank', () => {
      const problems = problemsOf({ ...production, OPENBANKING_BANKS: bank('http://10.0.0.8:8443/xs2a') });
      expect(problems).toEqual([
        {
          variable: 'OPENBANKING_BANKS',
          message: expect.stringContaining('bank acme-bank: 10.0.0.8 is a private address'),
        },
      ]);
    });

    it('lists every refusal at once, with the missing variables', () => {
      const { LENDING_DATA_KEY: _key, ...withoutDataKey } = production;
      const problems = problemsOf({
        ...withoutDataKey,
        COLLECT_ACQUIRER_URL: 'http://127.0.0.1:4040',
        COLLECT_ACQUIRER_API_KEY: 'sandbox-acquirer-key-0000',
        COLLECT_COLLECTION_IBAN: 'BG80BNBG96611020345678',
        LENDING_BUREAU_URL: 'http://127.0.0.1:4050',
      });
      expect(problems.map((problem) => problem.variable).sort()).toEqual([
        'COLLECT_ACQUIRER_API_KEY',
        'COLLECT_ACQUIRER_URL',
        'COLLECT_COLLECTION_IBAN',
        'LENDING_BUREAU_URL',
        'LENDING_DATA_KEY',
      ]);
    });

    it('accepts private parties PRODUCTION_ALLOW_PRIVATE_PARTIES lists, and only those', () => {
      const privateParties = {
        ...production,
        COLLECT_ACQUIRER_URL: 'http://127.0.0.1:4040',
        CHATAPP_URL: 'http://localhost:4010/chatapp',
        LENDING_BUREAU_URL: 'http://10.1.2.3:8080/bureau',
        SMPP_URL: 'smpp://10.1.2.4:2775',
      };
      expect(
        problemsOf({ ...privateParties, PRODUCTION_ALLOW_PRIVATE_PARTIES: '127.0.0.0/8, 10.1.2.0/24' }),
      ).toEqual([]);
      // A host:port entry allows that port only; what is not listed is still refused.
      expect(
        problemsOf({
          ...privateParties,
          PRODUCTION_ALLOW_PRIVATE_PARTIES: '127.0.0.1:4040,localhost:4010,10.1.2.3',
        }).map((problem) => problem.variable),
      ).toEqual(['SMPP_URL']);
      expect(problemsOf({ ...production, PRODUCTION_ALLOW_PRIVATE_PARTIES: 'not-a-range' })).toEqual([
        { variable: 'PRODUCTION_ALLOW_PRIVATE_PARTIES', message: expect.stringContaining('not-a-range') },
      ]);
    });

    it('sandbox mode keeps its loopback parties and published keys', () => {
      expect(
        problemsOf({
          COLLECT_ACQUIRER_URL: 'http://127.0.0.1:4040',
          COLLECT_ACQUIRER_API_KEY: 'sandbox-acquirer-key-0000',
        }),
      ).toEqual([]);
    });
  });
});
