/** Moved to the application layer (decision 0046); re-exported for the handlers not yet on use cases. */
export { assertOutboundUrlField } from '../../application/shared/outbound-url.ts';
