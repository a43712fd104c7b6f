import { and, eq } from 'drizzle-orm';
import { filter as operatorsWhere } from 'mcc-mnc-list';
import type { HlrProvider } from '../../connectors/messaging/carriers.ts';
import type { Database } from '../../db/client.ts';
import { messagingHlrLookups } from '../../db/schema/messaging.ts';
import type { HlrLookupStatus, HlrResult } from '../../domain/messaging/processes.ts';

/**
 * Country of a mobile country code. A few MCCs serve several territories (e.g. 340: BL/GF/GP/MF/MQ);
 * the number's own country decides between them.
 */
export function countryOfMcc(mcc: string, numberCountry: string | null): string | null {
  const countries = new Set(
    operatorsWhere({ mcc })
      .flatMap((operator) => (operator.countryCode ?? '').split('/'))
      .filter((code) => /^[A-Z]{2}$/.test(code)),
  );
  if (numberCountry && countries.has(numberCountry)) return numberCountry;
  return [...countries][0] ?? numberCountry;
}

export interface HlrActivityDeps {
  db: Database;
  hlr: HlrProvider;
}

export function createHlrActivities({ db, hlr }: HlrActivityDeps) {
  return {
    /** Asks the HLR provider and maps its answer to the spec's result fields. */
    async lookupNumber(input: {
      lookupId: string;
      number: string;
      numberCountry: string | null;
    }): Promise<HlrResult> {
      const answer = await hlr.lookup(input.number);
      const network = answer.mcc && answer.mnc ? { mcc: answer.mcc, mnc: answer.mnc } : undefined;
      return {
        id: input.lookupId,
        error: answer.error,
        imsi: answer.imsi,
        country: network ? countryOfMcc(network.mcc, input.numberCountry) : input.numberCountry,
        operatorId: network ? network.mcc + network.mnc : null,
        mcc: network?.mcc ?? null,
        mnc: network?.mnc ?? null,
        ported: answer.ported,
      };
    },

    /** Writes the outcome once; a retried write leaves the first one in place. */
    async recordHlrResult(input: {
      lookupId: string;
      status: HlrLookupStatus;
      result: HlrResult;
    }): Promise<void> {
      await db
        .update(messagingHlrLookups)
        .set({ status: input.status, result: input.result, completedAt: new Date() })
        .where(and(eq(messagingHlrLookups.id, input.lookupId), eq(messagingHlrLookups.status, 'pending')));
    },
  };
}
