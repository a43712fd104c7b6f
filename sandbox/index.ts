import { startHttpParties } from './http-parties.ts';
import { startSmppCarrier } from './smpp-carrier.ts';

export interface SandboxOptions {
  host?: string;
  /** 0 picks a free port (tests). */
  smppPort: number;
  httpPort: number;
  smppSystemId: string;
  smppPassword: string;
  receiptDelayMs?: number;
  chatAppDelayMs?: number;
}

export type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

/** Starts every simulated outside party: the SMS carrier (SMPP) and the HTTP providers. */
export async function startSandbox(options: SandboxOptions) {
  const smpp = await startSmppCarrier({
    host: options.host ?? '127.0.0.1',
    port: options.smppPort,
    systemId: options.smppSystemId,
    password: options.smppPassword,
    ...(options.receiptDelayMs !== undefined ? { receiptDelayMs: options.receiptDelayMs } : {}),
  });
  const http = await startHttpParties({
    host: options.host ?? '127.0.0.1',
    port: options.httpPort,
    ...(options.chatAppDelayMs !== undefined ? { chatAppDelayMs: options.chatAppDelayMs } : {}),
  });
  return {
    smpp,
    http,
    async stop() {
      await Promise.allSettled([smpp.stop(), http.stop()]);
    },
  };
}
