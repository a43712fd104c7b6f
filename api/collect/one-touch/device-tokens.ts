import { createHash } from 'node:crypto';
import { z } from '@hono/zod-openapi';
import { and, eq, gt, isNull } from 'drizzle-orm';
import { oneTouchAppExists } from '../../../credentials/collect/one-touch-apps.ts';
import type { Database } from '../../../db/client.ts';
import { collectOneTouchTokens } from '../../../db/schema/collect-one-touch.ts';
import { OneTouchError } from './responses.ts';

/**
 * The parameters and credential checks shared by the one-touch operations. Pairing a device with an
 * application: `code/get` registers the device and hands out a short-lived,
 * single-use code; `token/get` exchanges it for an access token bound to that application and device;
 * `token/invalidate` ends the token. In this gateway the customer's consent (ePay.bg's hosted
 * authorisation page) is simulated: the sandbox user is deemed to have authorised the device, so
 * `code/get` answers the code at once (docs/collect.md, decision 0013).
 */

/** SHA-256 hex: codes and tokens are kept only as hashes. */
export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export const text = (max: number) => z.string().min(1).max(max);
/** Printable identifiers without spaces, as apps send them. */
export const identifier = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[\x21-\x7e]+$/, 'printable characters without spaces');

export const appIdParameter = identifier(128).openapi({
  description: 'Application id (issued with the application)',
  example: '2143960160650364377823089976443473298565',
});
export const deviceIdParameter = identifier(128).openapi({
  description:
    'Unique id of the device (Vendor ID on iOS, ANDROID_ID on Android, or a stored UUID on the web)',
  example: 'b7f4c2e0-9d1a-4e55-8a61-3c2f9b0d7e11',
});
export const tokenParameter = identifier(200).openapi({
  description: 'Access token from `token/get`',
  example: 'ot_3q2-7wEXAMPLE',
});

export async function requireApp(db: Database, appId: string): Promise<void> {
  if (!(await oneTouchAppExists(db, appId))) {
    throw new OneTouchError(401, 'INVALID_APP', 'APPID names no application', 'APPID');
  }
}

const invalidToken = () =>
  new OneTouchError(401, 'INVALID_TOKEN', 'TOKEN is not valid for this application and device', 'TOKEN');

/** A device's call: the application exists (INVALID_APP) and the token is live for it and the device. */
export async function requireDeviceToken(
  db: Database,
  query: { APPID: string; DEVICEID: string; TOKEN: string },
): Promise<{ tokenId: string }> {
  await requireApp(db, query.APPID);
  return requireToken(db, query.APPID, query.DEVICEID, query.TOKEN);
}

/** The token's id when it is live and bound to this application and device; INVALID_TOKEN otherwise. */
async function requireToken(
  db: Database,
  appId: string,
  deviceId: string,
  token: string,
): Promise<{ tokenId: string }> {
  const [row] = await db
    .select({ id: collectOneTouchTokens.id })
    .from(collectOneTouchTokens)
    .where(
      and(
        eq(collectOneTouchTokens.tokenHash, sha256(token)),
        eq(collectOneTouchTokens.appId, appId),
        eq(collectOneTouchTokens.deviceId, deviceId),
        isNull(collectOneTouchTokens.invalidatedAt),
        gt(collectOneTouchTokens.expiresAt, new Date()),
      ),
    )
    .limit(1);
  if (!row) throw invalidToken();
  return { tokenId: row.id };
}
