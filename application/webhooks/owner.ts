/**
 * Whose webhooks a request reads or changes: the service that sent them (`messaging`, `collect`, …) and
 * the authenticated owner in it (account, merchant, …). An owner never sees another owner's.
 */
export interface WebhookOwner {
  service: string;
  ownerId: string;
}

/** One delivery or endpoint of an owner, by id: another owner's is "not found". */
export interface OwnedId {
  owner: WebhookOwner;
  id: string;
}
