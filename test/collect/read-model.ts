import { asc, eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { collectObligationEvents, collectObligations } from '../../db/schema/collect.ts';

/** The gateway's read model of obligations, as the collect tests look at it. */

/** The obligation's row (undefined when none has this IDN). */
export const obligationRow = async (db: Database, idn: string) =>
  (await db.select().from(collectObligations).where(eq(collectObligations.idn, idn)))[0];

/** Every status the read model recorded for the obligation, in order. */
export const statusHistory = async (db: Database, idn: string) =>
  (
    await db
      .select({ status: collectObligationEvents.status })
      .from(collectObligationEvents)
      .where(eq(collectObligationEvents.idn, idn))
      .orderBy(asc(collectObligationEvents.id))
  ).map((event) => event.status);
