import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { jsonBody } from '../../shared/openapi.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import {
  bankVerificationResponses,
  saveDataSchema,
  verificationCaller,
  verifyingCustomer,
} from '../bank-verification-schemas.ts';
import { lendingPath } from '../paths.ts';

/** `POST /PaymentOptions/BankVerification/SaveData`: what the frame returned (decision 0042). */
export const bankVerificationSaveDataOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/PaymentOptions/BankVerification/SaveData'),
      tags: ['Payment options'],
      summary: 'Store the data the verification frame returned',
      description:
        'Body `{ loanId, state?, consentId? }`: the frame’s return (the `state` the gateway appended to the return ' +
        'URL). Each value given must be the pending verification’s (400 naming it otherwise); the time is recorded ' +
        'and the verification is processed at once (as IsDataProcessed). Nothing the frame sends is believed: the ' +
        'outcome comes from the gateway. No pending verification: 409 `no_pending_bank_verification`.',
      security: lendingSecurity.user,
      request: { body: jsonBody(saveDataSchema) },
      responses: bankVerificationResponses,
    }),
  handler: () => async (c) => {
    const data = c.req.valid('json');
    return c.json(
      await lending.saveFrameData(c.get('deps'), {
        customer: verifyingCustomer(c),
        ...data,
        caller: verificationCaller(c),
      }),
      200,
    );
  },
});
