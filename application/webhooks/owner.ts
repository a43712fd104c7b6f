/**
 * Whose webhooks a request reads or changes: the service that sent them (`messaging`, `collect`, …) and
 * the authenticated owner in it (account, merchant, …). An owner never sees another owner's.
 */
export interface WebhookOwner {
  service: string;
  ownerId: string;
}
