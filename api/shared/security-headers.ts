import type { MiddlewareHandler } from 'hono';
import { secureHeaders } from 'hono/secure-headers';

/**
 * Security headers of every answer, through Hono's secure-headers middleware, chosen by what the
 * answer is once the operation has made it:
 * - HTML pages get Hono's defaults (HSTS, COOP/CORP same-origin, nosniff, no referrer, ...), framing
 *   refused, and a CSP that allows only the platform's own scripts, styles and images. A page that
 *   set its own headers keeps them (`overwrite: false`): the card page's CSP carries its nonce and
 *   the merchant's return origins (api/collect/card-page/responses.ts).
 * - Every other answer (JSON, ePay text, assets) gets nosniff, no referrer and no framing.
 */
const pageHeaders = secureHeaders({
  overwrite: false,
  xFrameOptions: 'DENY',
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    // The pages' one inline style sheet, and Swagger UI's style attributes.
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:'],
    fontSrc: ["'self'"],
    connectSrc: ["'self'"],
    baseUri: ["'none'"],
    frameAncestors: ["'none'"],
    objectSrc: ["'none'"],
  },
});

const answerHeaders = secureHeaders({
  overwrite: false,
  xFrameOptions: 'DENY',
  xContentTypeOptions: true,
  referrerPolicy: true,
  crossOriginResourcePolicy: false,
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  strictTransportSecurity: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
});

const nothing = async () => {};

export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  const isPage = c.res.headers.get('content-type')?.startsWith('text/html') ?? false;
  await (isPage ? pageHeaders : answerHeaders)(c, nothing);
};
