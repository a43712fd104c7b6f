/** Moved to api/shared/public-url.ts (the payment-collection gateway hands out links too). */
export { publicBaseUrl } from '../shared/public-url.ts';
