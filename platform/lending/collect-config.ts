import { z } from 'zod';
import { duration, optionalUrl } from '../config-fields.ts';

/**
 * Where the lending platform reaches the payment-collection gateway as its merchant (disbursements,
 * decision 0041): LENDING_COLLECT_URL, the gateway's base URL (`.../collect`). Unset in sandbox mode,
 * the platform's own API: `PUBLIC_BASE_URL/collect`, else `http://127.0.0.1:PORT/collect`
 * (connectors/lending/collect-gateway.ts collectGatewayUrl). Production must name it.
 */
export const lendingCollectConfig = z.object({
  LENDING_COLLECT_URL: optionalUrl,
  /** One request to the gateway (a payout registration, the notification key); slower ones are retried. */
  LENDING_COLLECT_REQUEST_TIMEOUT: duration('15s'),
});

/** Unset, lending would pay out through this machine's own gateway: production names it. */
export const lendingCollectProductionKeys = ['LENDING_COLLECT_URL'] as const;

/** A sibling service: in production not on loopback or private addresses unless allow-listed. */
export const lendingCollectPartyUrls = ['LENDING_COLLECT_URL'] as const;
