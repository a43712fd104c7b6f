import { serve } from '@hono/node-server';
import { createLocalUiCodecApi } from '../api/admin/codec.ts';
import type { UseCaseDeps } from '../application/shared/deps.ts';
import { freePort } from '../platform/net.ts';

/**
 * `npm start`'s codec endpoint for the dev server's own Web UI (decision 0081): in sandbox mode the UI
 * decodes on the first click, with no sign-in and no setting to paste. A listener of its own on
 * 127.0.0.1 (never the API's HOST), answering only the UI's origin (api/admin/codec.ts,
 * createLocalUiCodecApi). Its port is chosen before the dev server starts, which is given its URL
 * (`--ui-codec-endpoint`); it serves once the platform's dependencies exist.
 */
export interface WebUiCodec {
  /** What the dev server's UI is given: `http://127.0.0.1:<port>`. */
  url: string;
  /** Starts answering (the UI's requests before this are refused by the OS, and show sealed payloads). */
  serve(deps: UseCaseDeps): Promise<{ stop(): Promise<void> }>;
}

export async function reserveWebUiCodec({ uiPort }: { uiPort: number }): Promise<WebUiCodec> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    async serve(deps) {
      const app = createLocalUiCodecApi(deps, {
        uiOrigins: [`http://127.0.0.1:${uiPort}`, `http://localhost:${uiPort}`],
        hosts: [`127.0.0.1:${port}`, `localhost:${port}`],
      });
      const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' });
      await new Promise((resolve, reject) => {
        server.once('listening', resolve);
        server.once('error', reject);
      });
      return {
        stop: () =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            if ('closeAllConnections' in server) server.closeAllConnections();
          }),
      };
    },
  };
}
