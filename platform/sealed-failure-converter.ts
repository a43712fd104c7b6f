import { DefaultFailureConverter } from '@temporalio/common';

/**
 * Loaded by path (DataConverter.failureConverterPath) in workers, clients and the workflow bundle: a
 * failure's message and stack trace can carry customer data (a refused value, a party's answer), so
 * they travel as an encoded payload that the payload codec seals (platform/payload-codec.ts).
 */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
