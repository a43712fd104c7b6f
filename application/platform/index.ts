import { facade } from '../shared/facade.ts';
import { codecSessionUrl, transcodePayloads } from './payload-codec.ts';

/**
 * The platform's own use cases (decision 0077): the operator's payload codec for the Temporal Web UI
 * and CLI (admin API, /codec). Named for what it serves; its spans are `platform.<useCase>`.
 */
export const payloadCodec = facade('platform', { transcodePayloads, codecSessionUrl });

export type { CodecCredential, CodecDirection } from './payload-codec.ts';
