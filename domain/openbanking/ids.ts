import { randomBytes, randomUUID } from 'node:crypto';

/** Our ids of the gateway's rows: `<prefix>_` + 32 hex characters (`con_…`, `agt_…`, `crd_…`). */
export const newId = (prefix: string) => `${prefix}_${randomUUID().replaceAll('-', '')}`;

/** ibanId: our opaque id of an account (never the IBAN); see IBAN_ID_PATTERN. */
export const newIbanId = () => `iba_${randomBytes(12).toString('hex')}`;
