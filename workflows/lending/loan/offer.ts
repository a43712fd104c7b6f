import { setHandler } from '@temporalio/workflow';
import { LoanRefusal } from '../../../domain/lending/loan-lifecycle.ts';
import {
  acceptOfferUpdate,
  declineOfferUpdate,
  documentSignedSignal,
} from '../../../domain/lending/loan-process.ts';
import { type LoanState, refuse } from './state.ts';

/**
 * The offer: the customer accepts one (the loan takes its amount and term; its system documents are
 * the API's records, decision 0040, and reach the workflow as Approve's `documentsSigned`) or declines.
 * SignDocument's hint `documentSigned` announces the signature (decision 0088).
 */
export function handleOffer(state: LoanState): void {
  const { loan } = state;
  const offerOf = (offerId: string | undefined) =>
    offerId === undefined ? loan.offers[0] : loan.offers.find((offer) => offer.offerId === offerId);

  setHandler(
    acceptOfferUpdate,
    ({ by, offerId }) => {
      const offer = offerOf(offerId)!;
      state.move(state.allowed('acceptOffer'));
      Object.assign(loan, { acceptedOfferId: offer.offerId, amount: offer.amount, term: offer.term });
      return state.record({ by, comments: `offer ${offer.offerId} accepted` });
    },
    {
      validator: ({ offerId }) => {
        state.allowed('acceptOffer');
        if (!offerOf(offerId)) refuse(LoanRefusal.offerNotFound, `the loan has no offer ${offerId}`);
      },
    },
  );

  setHandler(
    declineOfferUpdate,
    ({ by }) => {
      state.move(state.allowed('declineOffer'));
      return state.record({ by });
    },
    { validator: (_request) => void state.allowed('declineOffer') },
  );

  setHandler(documentSignedSignal, () => state.events.signatures());
}
