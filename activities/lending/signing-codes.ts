import { ApplicationFailure } from '@temporalio/activity';
import { and, eq } from 'drizzle-orm';
import { SmsNotSent, sendSms } from '../../connectors/lending/messaging.ts';
import { newSigningCode, signingCodeDigest } from '../../credentials/lending/signing-codes.ts';
import { lendingCustomers } from '../../db/schema/lending.ts';
import { lendingSigningCodes } from '../../db/schema/lending-documents.ts';
import { signingCodeBinding, signingCodeMessage } from '../../domain/lending/loan-documents.ts';
import {
  type SigningCodeRequest,
  type SigningCodeSent,
  SMS_NOT_SENT,
} from '../../domain/lending/sibling-processes.ts';
import type { ActivityDeps } from '../shared/deps.ts';

/**
 * The SMS with a document's signing code (decisions 0040, 0047), sent through the messaging gateway's
 * public HTTP API. The code is made here and exists in clear only in this function and in the SMS: the
 * row keeps its keyed digest, and neither the workflow's input nor its history carries it.
 */
export function createSigningCodeActivities({ db, config, logger }: ActivityDeps) {
  return {
    /**
     * Records a new code for the document and sends it to the customer's phone; once the gateway
     * accepted it every earlier code of the document is dead (only the latest counts). When the gateway
     * refuses, the new code is forgotten, the previous one stays as it was and the step fails as
     * `SmsNotSent` (not retried). A retry after a crash sends a fresh code, never the lost one.
     */
    async sendSigningCodeSms(request: SigningCodeRequest): Promise<SigningCodeSent> {
      // Read when called: the token and the lifetime may change while the worker runs (tests).
      const token = config.LENDING_MESSAGING_TOKEN;
      if (!token)
        throw ApplicationFailure.nonRetryable('LENDING_MESSAGING_TOKEN is not set', SMS_NOT_SENT, {
          code: 'messaging_not_configured',
        });
      const [customer] = await db
        .select({ details: lendingCustomers.details })
        .from(lendingCustomers)
        .where(
          and(eq(lendingCustomers.id, request.customerId), eq(lendingCustomers.tenantId, request.tenantId)),
        )
        .limit(1);
      const phone = customer?.details.phone;
      if (typeof phone !== 'string' || !phone)
        throw ApplicationFailure.nonRetryable('the customer has no phone number', SMS_NOT_SENT, {
          code: 'customer_phone_missing',
        });
      const ttl = config.LENDING_SIGNING_CODE_TTL;
      const code = newSigningCode();
      const now = new Date();
      const expiresAt = new Date(now.getTime() + ttl);
      const [issued] = await db
        .insert(lendingSigningCodes)
        .values({
          tenantId: request.tenantId,
          loanId: request.loanId,
          docTypeId: request.docTypeId,
          contentHash: request.contentHash,
          codeDigest: signingCodeDigest(config, signingCodeBinding(request, request), code),
          createdAt: now,
          expiresAt,
        })
        .returning({ id: lendingSigningCodes.id });
      const id = issued!.id;
      try {
        const sent = await sendSms(
          { baseUrl: request.messagingUrl, token, timeoutMs: config.LENDING_MESSAGING_REQUEST_TIMEOUT },
          {
            to: phone,
            from: config.LENDING_MESSAGING_SENDER,
            message: signingCodeMessage(request.documentName, request.loanId, code, Math.round(ttl / 60_000)),
            // The gateway keeps the text masked (issue 20): the code is in the SMS only.
            containsCode: true,
          },
          `lending-signing-code-${request.tenantId}-${id}`,
        );
        await db
          .update(lendingSigningCodes)
          .set({ messageId: sent.id })
          .where(eq(lendingSigningCodes.id, id));
      } catch (error) {
        // Not sent: this code never existed for the customer, so it must not kill the previous one.
        await db.delete(lendingSigningCodes).where(eq(lendingSigningCodes.id, id));
        if (error instanceof SmsNotSent) {
          logger.warn(
            {
              loanId: request.loanId,
              docTypeId: request.docTypeId,
              httpStatus: error.httpStatus,
              code: error.code,
              fields: error.fields,
            },
            'signing code SMS not accepted by the messaging gateway',
          );
          // The gateway refused the recipient: the answer names the customer's phone (issue 37 item 4).
          throw ApplicationFailure.nonRetryable(error.message, SMS_NOT_SENT, {
            code: 'sms_not_sent',
            ...(error.fields.includes('to') ? { field: 'phone' } : {}),
          });
        }
        throw error;
      }
      return { expiresAt: expiresAt.toISOString() };
    },
  };
}
