import { createRoute, z } from '@hono/zod-openapi';
import { collectSigningKey } from '../../credentials/collect/signing-key.ts';
import { defineOperation } from '../shared/operation.ts';

/**
 * GET /.well-known/notification-key.pem: the public key that verifies every merchant notification's
 * SIGNATURE (the merchant's side of reading notifications).
 */
export const wellKnownNotificationKeyOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/.well-known/notification-key.pem',
      tags: ['Notifications'],
      summary: 'Public key of notification signatures',
      description:
        'The RSA public key (SPKI, PEM) of the gateway. Every notification carries `SIGNATURE`: base64 of ' +
        'an RSASSA-PKCS1-v1_5 SHA-256 signature over the `ENCODED` text exactly as POSTed. ' +
        'Example: `openssl dgst -sha256 -verify notification-key.pem -signature sig.bin encoded.txt`.',
      responses: {
        200: {
          description: 'PEM text',
          content: {
            'application/x-pem-file': {
              schema: z.string().openapi({ example: '-----BEGIN PUBLIC KEY-----' }),
            },
          },
        },
      },
    }),
  handler: () => (c) => {
    const key = collectSigningKey(c.get('deps').config);
    return c.body(key.publicKeyPem, 200, {
      'content-type': 'application/x-pem-file',
      'cache-control': 'public, max-age=300',
    });
  },
});
