import { createRoute, z } from '@hono/zod-openapi';
import { Refusal } from '../../application/shared/refusal.ts';
import type { Database } from '../../db/client.ts';
import { stepOf } from '../../domain/lending/loan-lifecycle.ts';
import type { LoanOffer } from '../../domain/lending/loan-process.ts';
import { calculateSchedule, type Schedule } from '../../domain/lending/schedule.ts';
import { defineLendingOperation, lendingSecurity, requireCustomer } from './auth.ts';
import { findCreditProduct, scheduleSchema, todayUtc } from './credit-product-records.ts';
import {
  customerLoan,
  type LoanRow,
  loanErrorResponses,
  loanIdParams,
  loanOfferSchema,
} from './loan-records.ts';
import { lendingPath } from './paths.ts';

export const offerWithScheduleSchema = loanOfferSchema
  .extend({
    schedule: scheduleSchema.nullable().openapi({
      description:
        'The repayment schedule of the offer if the loan started today (null if its product is gone)',
    }),
  })
  .openapi('LoanOfferWithSchedule');

/** An offer with its schedule under the loan's product (and promo code), starting today. */
export async function offerWithSchedule(db: Database, row: LoanRow, offer: LoanOffer) {
  const product = await findCreditProduct(db, row.tenantId, row.promoCode ?? row.productName);
  let schedule: Schedule | null = null;
  if (product) {
    try {
      schedule = calculateSchedule(product, {
        amount: offer.amount,
        term: offer.term,
        startDate: todayUtc(),
        promoCode: row.promoCode ?? undefined,
      });
    } catch {
      // The product changed its bounds since the offer: the offer stands, without a schedule.
    }
  }
  return { ...offer, schedule };
}

/** The reading operations' own refusal: 409 naming the status (or the missing feature). */
export function refuseUnlessReadable(row: LoanRow, operation: 'readOffer' | 'readOffers') {
  const step = stepOf(operation, row.status, { multipleOffers: row.multipleOffers });
  if (!step.allowed) throw Refusal.conflict(step.type, step.message);
}

/** `GET /Customer/Loans/{loanId}/LoanOffer`: the offer; only in Offer confirmation. */
export const loanOfferOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Customer/Loans/{loanId}/LoanOffer'),
      tags: ['Customer loans'],
      summary: 'The loan offer',
      description:
        'Only in Offer confirmation (else 409 `invalid_loan_status`): the first offer with its schedule.',
      security: lendingSecurity.user,
      request: { params: loanIdParams },
      responses: {
        200: {
          description: 'The offer',
          content: { 'application/json': { schema: offerWithScheduleSchema } },
        },
        ...loanErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const { customerId } = requireCustomer(c);
    const row = await customerLoan(c, customerId, c.req.valid('param').loanId);
    refuseUnlessReadable(row, 'readOffer');
    const [offer] = row.offers;
    if (!offer) throw Refusal.notFound('Offer');
    return c.json(await offerWithSchedule(c.get('deps').db, row, offer), 200);
  },
});

export const offersSchema = z.object({ offers: z.array(offerWithScheduleSchema) }).openapi('LoanOffers');
