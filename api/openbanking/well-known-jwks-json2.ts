import { jwksOperation } from './well-known-jwks-json.ts';

/** `GET /api/6/.well-known/jwks.json2`: the spec's second path of the published key set (the same document). */
export const wellKnownJwksJson2Operation = jwksOperation('/.well-known/jwks.json2', 'jwksSecondPath');
