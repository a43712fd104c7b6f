import type { Context } from 'hono';
import type { FlowOrigin, PsuRequest } from '../../application/openbanking/index.ts';
import { callerAddress } from '../shared/caller-address.ts';
import type { AppEnv } from '../shared/context.ts';
import { publicBaseUrl } from './public-url.ts';

/** What the request says of the user present (PSU): `x-psu-ip-address`, the caller's address, the browser. */
export const psuRequestOf = (c: Context<AppEnv>, userAgent: string | undefined): PsuRequest => ({
  ipHeader: c.req.header('x-psu-ip-address'),
  callerIp: callerAddress(c),
  userAgent,
});

/** The PSU and the public base URL of the bank's callback, for the use cases that start a flow. */
export const flowOriginOf = (c: Context<AppEnv>, userAgent: string | undefined): FlowOrigin => ({
  psu: psuRequestOf(c, userAgent),
  baseUrl: publicBaseUrl(c),
});
