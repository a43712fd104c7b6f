// The messaging gateway's workflow types, for the worker's bundle (workflows/index.ts).
export { hlrLookup } from './hlr.ts';
export { inboundMessage } from './inbound.ts';
export { numberVerification } from './numbers.ts';
export { senderIdRegistration } from './sender-id.ts';
export { messageDelivery } from './sms.ts';
export { messageBatch } from './sms-batch.ts';
