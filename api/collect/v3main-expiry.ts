import { createRoute } from '@hono/zod-openapi';
import { ChangeExpiryPayload, parsePayload } from '../../domain/collect/payloads.ts';
import { changeExpiryUpdate } from '../../domain/collect/processes.ts';
import { formatExpTime } from '../../domain/epay-time.ts';
import { defineOperation } from '../shared/operation.ts';
import {
  authenticate,
  authenticationErrors,
  encodedQuerySchema,
  findOwnObligation,
  protocolHandler,
  requestParams,
  textAnswer,
  textResponses,
  updateObligation,
} from './protocol.ts';
import { checkNewExpiry } from './registration.ts';

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
      const deps = c.get('deps');
      const { merchant, packet } = await authenticate(deps, await requestParams(c));
      const change = parsePayload(ChangeExpiryPayload, packet);
      const expiresAt = checkNewExpiry(deps, change.expTime);
      const row = await findOwnObligation(deps, merchant.min, change.idn);
      const outcome = await updateObligation(deps, row, (handle) =>
        handle.executeUpdate(changeExpiryUpdate, { args: [{ expiresAt: expiresAt.toISOString() }] }),
      );
      return textAnswer(c, {
        IDN: row.idn,
        STATUS: outcome.status,
        EXP_TIME: formatExpTime(new Date(outcome.expiresAt)),
      });
    }),
});
