import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './generated/messaging.ts';
import { type ExtraClientOptions, serviceUrl } from './shared.ts';

export type { components as MessagingComponents, paths as MessagingPaths };
export type MessagingClient = Client<paths>;
/** The error body of every messaging operation: `{ error: { code, message, fields? } }`. */
export type MessagingError = components['schemas']['Error'];

/**
 * A typed client of the messaging gateway (`/messaging`): every call carries the account's access token
 * as the `at` query parameter (the document's `accessToken` scheme), e.g.
 * `await messaging.POST('/sms', { body: { to, from, message } })`.
 */
export function createMessagingClient(
  baseUrl: string,
  accessToken: string,
  options: ExtraClientOptions = {},
): MessagingClient {
  const client = createClient<paths>({ ...options, baseUrl: serviceUrl(baseUrl, '/messaging') });
  client.use({
    onRequest({ request }) {
      const url = new URL(request.url);
      url.searchParams.set('at', accessToken);
      return new Request(url, request);
    },
  });
  return client;
}
