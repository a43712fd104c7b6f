import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import type { AppEnv } from './context.ts';

/**
 * The base of links the gateway hands to outside parties (the redirect URI the bank sends the
 * customer's browser back to, the AIS e-mail link, the card acquirer's 3-D Secure return): PUBLIC_BASE_URL, which the configuration requires
 * whenever NODE_ENV=production or PLATFORM_MODE=production (platform/config.ts). Unset (development,
 * tests), the address this API is listening at: the configured HOST (or, listening on all interfaces,
 * the local address the connection arrived at) and the socket's port. Never the request's Host header
 * or URL, which whoever calls the API chooses.
 */
export function publicBaseUrl<E extends AppEnv>(c: Context<E>): string {
  const { config } = c.get('deps');
  if (config.PUBLIC_BASE_URL) return config.PUBLIC_BASE_URL.replace(/\/+$/, '');
  const socket = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket;
  const anyInterface = ['', '0.0.0.0', '::', '[::]'].includes(config.HOST);
  const host = (anyInterface ? socket?.localAddress?.replace(/^::ffff:/, '') : config.HOST) ?? '127.0.0.1';
  const port = socket?.localPort ?? config.PORT;
  return `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;
}
