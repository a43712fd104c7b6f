import { asc } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { messagingCarriers, messagingRoutes } from '../../db/schema/messaging.ts';
import type { CarrierSettings, Route } from '../../domain/messaging/carrier-routes.ts';
import type { LongMessageMode } from '../../domain/messaging/segments.ts';
import type { Config } from '../../platform/config.ts';
import { openSecret, sealSecret, secretBoxKey } from '../shared/secret-box.ts';

/**
 * The SMPP passwords of the operator's carriers (decision 0079), encrypted at rest like the other secrets
 * the platform must present (credentials/shared/secret-box.ts): AES-256-GCM with MESSAGING_SECRET_KEY,
 * the carrier's name as additional data.
 */

const DEVELOPMENT_KEY_SEED = 'integration-platform messaging development key';

type KeyConfig = Pick<Config, 'MESSAGING_SECRET_KEY' | 'PLATFORM_MODE'>;

function carrierKey(config: KeyConfig): Buffer {
  return secretBoxKey(
    config.MESSAGING_SECRET_KEY,
    config.PLATFORM_MODE,
    'MESSAGING_SECRET_KEY',
    DEVELOPMENT_KEY_SEED,
  );
}

const additionalData = (name: string) => `messaging-carrier:${name}`;

export function sealCarrierPassword(config: KeyConfig, name: string, password: string): string {
  return sealSecret(carrierKey(config), additionalData(name), password);
}

/** Every carrier with its password open, and every route, as the worker's router reads them. */
export async function loadCarriersAndRoutes(
  db: Database,
  config: KeyConfig,
): Promise<{ carriers: CarrierSettings[]; routes: Route[] }> {
  const [carrierRows, routeRows] = await Promise.all([
    db.select().from(messagingCarriers).orderBy(asc(messagingCarriers.name)),
    db.select().from(messagingRoutes).orderBy(asc(messagingRoutes.name)),
  ]);
  const key = carrierRows.length > 0 ? carrierKey(config) : undefined;
  return {
    carriers: carrierRows.map((row) => {
      // A password that does not open (MESSAGING_SECRET_KEY changed) disables its carrier, not the others.
      const password = tryOpen(key!, row.name, row.passwordSealed);
      return {
        name: row.name,
        url: row.url,
        systemId: row.systemId,
        password: password ?? '',
        window: row.window,
        submitRate: row.submitRate,
        longMessages: row.longMessages as LongMessageMode,
        enabled: row.enabled && password !== undefined,
      };
    }),
    routes: routeRows.map((row) => ({
      name: row.name,
      prefix: row.prefix,
      mccMnc: row.mccMnc,
      priority: row.priority,
      carriers: row.carriers,
      enabled: row.enabled,
    })),
  };
}

function tryOpen(key: Buffer, name: string, sealed: string): string | undefined {
  try {
    return openSecret(key, additionalData(name), sealed, `carrier ${name}`);
  } catch {
    return undefined;
  }
}
