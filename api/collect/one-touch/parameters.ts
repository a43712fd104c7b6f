import { z } from '@hono/zod-openapi';

/**
 * The parameters shared by the one-touch operations (the pairing and payment use cases are in
 * application/collect/one-touch.ts).
 */

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

/** The credential of a paired device's call. */
export const deviceCredentialOf = (query: { APPID: string; DEVICEID: string; TOKEN: string }) => ({
  appId: query.APPID,
  deviceId: query.DEVICEID,
  token: query.TOKEN,
});
