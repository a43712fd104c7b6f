import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import { clientAddress } from '../../domain/client-address.ts';
import type { AppEnv } from './context.ts';

/**
 * The address of whoever called: the socket's peer, or the client named in X-Forwarded-For when that
 * peer is one of TRUSTED_PROXIES (domain/client-address.ts); never a forwarding header from anyone else.
 * Undefined where the transport has no socket (an in-process `app.request`).
 */
export function callerAddress(c: Context<AppEnv>): string | undefined {
  let socket: string | undefined;
  try {
    socket = getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
  if (!socket) return undefined;
  return clientAddress({
    socket,
    forwardedFor: c.req.header('x-forwarded-for'),
    trusted: c.get('deps').config.TRUSTED_PROXIES,
  });
}
