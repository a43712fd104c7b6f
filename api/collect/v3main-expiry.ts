import { createRoute } from '@hono/zod-openapi';
import { collect } from '../../application/collect/index.ts';
import { formatExpTime } from '../../domain/epay-time.ts';
import { defineOperation } from '../shared/operation.ts';
import {
  authenticationErrors,
  encodedQuerySchema,
  protocolHandler,
  requestParams,
  textAnswer,
  textResponses,
} from './protocol.ts';

/**
 * GET /v3main: moves the expiry of an open obligation, hold or payout of the merchant. The workflow's
 * timer is re-armed with the new time; a closed obligation cannot be changed.
 */
export const v3mainExpiryOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/v3main',
      tags: ['Obligations'],
      summary: 'Change the expiry of an obligation (ChangeExpiryPayload)',
      description:
        'Packet: `MIN`, `IDN`, `EXP_TIME` (`DD.MM.YYYY[ hh:mm[:ss]]`, Europe/Sofia; in the future and within ' +
        'COLLECT_MAX_EXPIRY). Works on any open obligation, hold or payout of the merchant (earlier or later). ' +
        'Answers `IDN`, `STATUS`, `EXP_TIME` (the new expiry).',
      request: { query: encodedQuerySchema },
      responses: textResponses('Changed', 'IDN=1234567890\nSTATUS=PENDING\nEXP_TIME=15.08.2027 18:00:00\n', [
        ...authenticationErrors,
        'NOT_FOUND',
        'EXPIRED',
        'ALREADY_PAID',
        'ALREADY_FINAL',
      ]),
    }),
  handler: () =>
    protocolHandler(async (c) => {
      const changed = await collect.changeExpiry(c.get('deps'), await requestParams(c));
      return textAnswer(c, {
        IDN: changed.idn,
        STATUS: changed.status,
        EXP_TIME: formatExpTime(changed.expiresAt),
      });
    }),
});
