import { facade } from '../shared/facade.ts';
import { getWebhookDelivery, listWebhookDeliveries, replayWebhookDelivery } from './delivery.ts';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookEndpointSecret,
} from './endpoints.ts';

/** The shared webhook engine's use cases (decision 0077): an owner's deliveries and endpoints, in every service. */
export const webhooks = facade('webhooks', {
  listWebhookDeliveries,
  getWebhookDelivery,
  replayWebhookDelivery,
  listWebhookEndpoints,
  createWebhookEndpoint,
  rotateWebhookEndpointSecret,
  deleteWebhookEndpoint,
});

export {
  DELIVERY_STATUSES,
  type DeliveryStatus,
  type WebhookAttemptView,
  type WebhookDeliveryDetail,
  type WebhookDeliveryPage,
  type WebhookDeliveryView,
} from './delivery.ts';
export type { WebhookEndpointView } from './endpoints.ts';
export type { OwnedId, WebhookOwner } from './owner.ts';
