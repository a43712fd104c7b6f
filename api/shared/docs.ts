import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Hono } from 'hono';
import { type Html, html } from './html.ts';

const SWAGGER_ASSETS = new Set(['swagger-ui-bundle.js', 'swagger-ui.css', 'swagger-ui-standalone-preset.js']);
const CONTENT_TYPES: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css' };

/** Starts Swagger UI on the page's document; a file, not inline, so the pages' CSP allows no inline script. */
const REFERENCE_SCRIPT = `const reference = document.getElementById('reference');
SwaggerUIBundle({ url: reference.dataset.openapiUrl, dom_id: '#reference', deepLinking: true });
`;

/** Serves the Swagger UI assets from the local `swagger-ui-dist` package (no CDN). */
export function docsAssets(): Hono {
  const app = new Hono();
  const root = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  app.get('/reference.js', (c) =>
    c.body(REFERENCE_SCRIPT, 200, {
      'content-type': 'text/javascript',
      'cache-control': 'public, max-age=86400',
    }),
  );
  app.get('/:file', async (c) => {
    const file = c.req.param('file');
    if (!SWAGGER_ASSETS.has(file)) return c.notFound();
    const body = await readFile(path.join(root, file));
    return c.body(body, 200, {
      'content-type': CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream',
      'cache-control': 'public, max-age=86400',
    });
  });
  return app;
}

/** A browsable reference page for one service's OpenAPI document. */
export function referencePage(title: string, openapiUrl: string): Html {
  // The URL reaches the script as a JSON string literal; Hono escapes it as an attribute value.
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<link rel="stylesheet" href="/assets/swagger-ui/swagger-ui.css"></head>
<body><div id="reference" data-openapi-url="${openapiUrl}"></div>
<script src="/assets/swagger-ui/swagger-ui-bundle.js"></script>
<script src="/assets/swagger-ui/reference.js"></script>
</body></html>`;
}
