/**
 * What a test platform started with PLATFORM_MODE=production is given besides the sandbox parties
 * isolated-platform.ts names: the keys production requires, credentials of its own at the sandbox
 * carriers (production refuses their published ones), an IBAN that is not the sandbox's, and the
 * loopback address its sandbox parties listen at, allow-listed as an operator would
 * (PRODUCTION_ALLOW_PRIVATE_PARTIES, platform/production-parties.ts).
 */
export const PRODUCTION_TEST_KEYS = {
  PLATFORM_MODE: 'production',
  PUBLIC_BASE_URL: 'https://gateway.example.test',
  COLLECT_SECRET_KEY: 'ab'.repeat(32),
  OPENBANKING_KEY_ENCRYPTION_KEY: 'cd'.repeat(32),
  WEBHOOK_SECRET_KEY: 'ef'.repeat(32),
  LENDING_DATA_KEY: '01'.repeat(32),
  PAYLOAD_CODEC_KEYS: `test-1:${'23'.repeat(32)}`,
  // Lending's open-banking agent (decision 0042): production names the gateway and the agent hash.
  LENDING_OPENBANKING_URL: 'https://gateway.example.test/openbanking',
  LENDING_OPENBANKING_AGENT_HASH: `agent_${'A'.repeat(43)}`,
} as const;

export const PRODUCTION_TEST_ENV = {
  ...PRODUCTION_TEST_KEYS,
  SMPP_PASSWORD: 'production-test-smpp',
  CHATAPP_API_KEY: 'production-test-chatapp-key',
  CHATAPP_APP_SECRET: 'production-test-chatapp-app-secret',
  CHATAPP_VERIFY_TOKEN: 'production-test-chatapp-verify-token',
  HLR_API_KEY: 'production-test-hlr-key',
  HLR_API_SECRET: 'production-test-hlr-secret',
  COLLECT_COLLECTION_IBAN: 'GB82WEST12345698765432',
  PRODUCTION_ALLOW_PRIVATE_PARTIES: '127.0.0.1',
} as const;
