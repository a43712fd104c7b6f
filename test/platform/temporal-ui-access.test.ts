import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { temporalUiAccess, temporalUiConfig } from '../../platform/temporal-ui.ts';

/**
 * How `npm run stack` configures the Temporal UI server's sign-in and codec (decision 0081), from the
 * variable names the `temporalio/ui` image reads (docker-compose.yml): with a sign-in the UI passes
 * its token to the codec server; without one it has no codec endpoint and shows payloads sealed.
 */

const API = 'https://platform.example';
const SIGN_IN = {
  TEMPORAL_AUTH_ENABLED: 'true',
  TEMPORAL_AUTH_PROVIDER_URL: 'https://id.example/realms/ops',
  TEMPORAL_AUTH_CLIENT_ID: 'temporal-ui',
  TEMPORAL_AUTH_CLIENT_SECRET: 'client-secret',
  TEMPORAL_AUTH_CALLBACK_URL: 'https://temporal.example/auth/sso/callback',
};

const written = (access: ReturnType<typeof temporalUiAccess>) =>
  parse(temporalUiConfig({ temporalAddress: '127.0.0.1:7233', port: 8080, ...access })) as {
    auth: { enabled: boolean; providers?: Record<string, unknown>[] };
    codec: { endpoint: string; passAccessToken: boolean };
    cors: { cookieInsecure: boolean };
  };

describe("the stack's Web UI access", () => {
  it("signs operators in and passes each one's token to the codec server", () => {
    const config = written(temporalUiAccess(SIGN_IN, API));
    expect(config.auth.enabled).toBe(true);
    expect(config.auth.providers?.[0]).toMatchObject({
      type: 'oidc',
      providerUrl: SIGN_IN.TEMPORAL_AUTH_PROVIDER_URL,
      clientId: 'temporal-ui',
      callbackUrl: SIGN_IN.TEMPORAL_AUTH_CALLBACK_URL,
      scopes: ['openid', 'email', 'profile'],
    });
    expect(config.codec).toMatchObject({ endpoint: `${API}/codec`, passAccessToken: true });
    expect(config.cors.cookieInsecure).toBe(false);
    const named = temporalUiAccess({ ...SIGN_IN, TEMPORAL_CODEC_ENDPOINT: 'https://codec.example' }, API);
    expect(named.codecEndpoint).toBe('https://codec.example');
  });

  it('gives the UI no codec endpoint without a sign-in: payloads show sealed', () => {
    const config = written(temporalUiAccess({}, API));
    expect(config.auth.enabled).toBe(false);
    expect(config.codec).toMatchObject({ endpoint: '', passAccessToken: false });
  });

  it('names what a sign-in lacks', () => {
    expect(() => temporalUiAccess({ TEMPORAL_AUTH_ENABLED: 'true' }, API)).toThrow(
      'TEMPORAL_AUTH_PROVIDER_URL: required with TEMPORAL_AUTH_ENABLED=true',
    );
  });
});
