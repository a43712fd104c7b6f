import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../platform/config.ts';

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
      loadConfig({ PLATFORM_MODE: 'production', COLLECT_SECRET_KEY: 'ab'.repeat(32) });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.map((problem) => problem.variable).sort()).toEqual([
      'COLLECT_SIGNING_KEY',
      'OPENBANKING_KEY_ENCRYPTION_KEY',
    ]);
  });
});
