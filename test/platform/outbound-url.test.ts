import { type AddressInfo, createServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  addressRefusal,
  checkOutboundUrl,
  outboundUrlPolicy,
  parseOutboundAllowList,
} from '../../domain/outbound-url.ts';
import { ConfigError, loadConfig } from '../../platform/config.ts';
import {
  classifyFetchError,
  createOutboundFetch,
  describeFetchError,
  type ResolveAll,
} from '../../platform/outbound-http.ts';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';

const production = outboundUrlPolicy({ PLATFORM_MODE: 'production', OUTBOUND_URL_ALLOWLIST: undefined });
const sandbox = outboundUrlPolicy({ PLATFORM_MODE: 'sandbox', OUTBOUND_URL_ALLOWLIST: undefined });
const withList = (list: string) =>
  outboundUrlPolicy({ PLATFORM_MODE: 'production', OUTBOUND_URL_ALLOWLIST: parseOutboundAllowList(list) });

/** A resolver that knows only the names given (a DNS answer the test controls). */
const resolver =
  (names: Record<string, string[]>): ResolveAll =>
  async (hostname) => {
    const addresses = names[hostname];
    if (!addresses)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

describe('outbound-URL policy: which addresses are refused', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['169.254.169.254', 'linkLocal'],
    ['fe80::1', 'linkLocal'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['255.255.255.255', 'broadcast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'linkLocal'],
    ['::ffff:10.0.0.1', 'private'],
    ['64:ff9b::a00:1', 'private'],
  ])('%s is refused (%s)', (address, range) => {
    expect(addressRefusal(address)).toBe(range);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:93.184.216.34'])(
    '%s (public) is allowed',
    (address) => {
      expect(addressRefusal(address)).toBeNull();
    },
  );

  it('refuses non-http(s) schemes and internal IP literals in every spelling, at registration', () => {
    for (const url of [
      'ftp://example.com/x',
      'file:///etc/passwd',
      'gopher://example.com/',
      'http://127.0.0.1:7243/',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://[::1]:3000/admin',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:a9fe:a9fe]/latest/meta-data',
      'http://169.254.169.254/latest/meta-data',
      'https://10.0.0.7/hook',
      'not a url',
    ]) {
      expect(checkOutboundUrl(production, url).ok, url).toBe(false);
    }
    expect(checkOutboundUrl(production, 'http://169.254.169.254/').ok).toBe(false);
    const refused = checkOutboundUrl(production, 'http://169.254.169.254/latest');
    expect(refused.ok ? '' : refused.reason).toMatch(/link-local/);
  });

  it('lets names and public addresses pass registration (names are checked on the resolved address)', () => {
    for (const url of ['https://example.com/dlr', 'http://93.184.216.34/x', 'http://localhost:8080/x']) {
      expect(checkOutboundUrl(production, url).ok, url).toBe(true);
    }
  });

  it('allows loopback by default in sandbox mode only; other internal ranges only when listed', () => {
    expect(checkOutboundUrl(sandbox, 'http://127.0.0.1:4010/x').ok).toBe(true);
    expect(checkOutboundUrl(sandbox, 'http://[::1]:4010/x').ok).toBe(true);
    expect(checkOutboundUrl(sandbox, 'http://169.254.169.254/').ok).toBe(false);
    expect(checkOutboundUrl(sandbox, 'http://10.0.0.7/').ok).toBe(false);
    expect(checkOutboundUrl(production, 'http://127.0.0.1:4010/x').ok).toBe(false);

    const listed = withList('10.20.0.0/16, merchant.internal:8443 192.168.7.7:80');
    expect(checkOutboundUrl(listed, 'http://10.20.3.4:9000/').ok).toBe(true);
    expect(checkOutboundUrl(listed, 'http://10.21.0.1/').ok).toBe(false);
    expect(checkOutboundUrl(listed, 'http://192.168.7.7/notify').ok).toBe(true);
    expect(checkOutboundUrl(listed, 'http://192.168.7.7:81/notify').ok).toBe(false);
    // An explicit empty list in sandbox mode: nothing internal.
    expect(
      checkOutboundUrl(
        outboundUrlPolicy({
          PLATFORM_MODE: 'sandbox',
          OUTBOUND_URL_ALLOWLIST: parseOutboundAllowList('none'),
        }),
        'http://127.0.0.1/',
      ).ok,
    ).toBe(false);
  });

  it('OUTBOUND_URL_ALLOWLIST is validated at start, naming the variable', () => {
    expect(loadConfig({ OUTBOUND_URL_ALLOWLIST: '10.0.0.0/8,sandbox:4030' }).OUTBOUND_URL_ALLOWLIST).toEqual([
      '10.0.0.0/8',
      'sandbox:4030',
    ]);
    expect(loadConfig({}).OUTBOUND_URL_ALLOWLIST).toBeUndefined();
    for (const bad of ['10.0.0.0/33', 'sandbox', 'http://x:1', 'host:99999']) {
      let error: unknown;
      try {
        loadConfig({ OUTBOUND_URL_ALLOWLIST: bad });
      } catch (caught) {
        error = caught;
      }
      expect(error, bad).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems[0]!.variable).toBe('OUTBOUND_URL_ALLOWLIST');
    }
  });
});

describe('outbound fetch: the policy at connect time, on the resolved address', () => {
  it('refuses a name that resolves to loopback in production, without connecting', async () => {
    const receiver = await startReceiver();
    try {
      const port = new URL(receiver.url).port;
      const url = `http://localhost:${port}/hooks`;
      expect(checkOutboundUrl(production, url).ok).toBe(true); // passes registration
      const failure = await createOutboundFetch(production)(url, { method: 'POST', body: '{}' }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(classifyFetchError(failure)).toBe('refused_by_policy');
      expect(describeFetchError(failure)).toBe('refused_by_policy');
      expect(receiver.requests).toHaveLength(0);
    } finally {
      await receiver.stop();
    }
  });

  it('checks every resolved address (a rebinding name with one internal address is refused)', async () => {
    const resolve = resolver({ 'rebind.example': ['93.184.216.34', '10.0.0.5'] });
    const failure = await createOutboundFetch(production, { resolve })('http://rebind.example/').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(classifyFetchError(failure)).toBe('refused_by_policy');
  });

  it('connects to the address it checked (the resolver’s answer, not a second lookup)', async () => {
    const receiver = await startReceiver(() => ({ status: 204 }));
    try {
      const port = new URL(receiver.url).port;
      const resolve = resolver({ 'receiver.example': ['127.0.0.1'] });
      const listed = withList(`receiver.example:${port}`);
      const response = await createOutboundFetch(listed, { resolve })(`http://receiver.example:${port}/x`, {
        method: 'POST',
        body: 'hi',
      });
      expect(response.status).toBe(204);
      expect(receiver.requests).toHaveLength(1);
      expect(receiver.requests[0]!.headers.host).toBe(`receiver.example:${port}`);
      // The same name on another port is not listed: loopback, refused.
      const other = await createOutboundFetch(listed, { resolve })('http://receiver.example:8089/x').then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(classifyFetchError(other)).toBe('refused_by_policy');
      // Sandbox mode allows loopback by default.
      const sandboxed = await createOutboundFetch(sandbox, { resolve })(`http://receiver.example:${port}/x`);
      expect(sandboxed.status).toBe(204);
    } finally {
      await receiver.stop();
    }
  });

  it('refuses an internal IP literal and a bad scheme before any connection', async () => {
    for (const url of ['http://127.0.0.1:1/', 'http://[::ffff:7f00:1]:1/', 'file:///etc/passwd']) {
      const failure = await createOutboundFetch(production)(url).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(classifyFetchError(failure), url).toBe('refused_by_policy');
    }
  });

  it('reports coarse outcomes: connection_failed, host_not_found, timeout, tls_error', async () => {
    const send = createOutboundFetch(sandbox, {
      resolve: resolver({ 'closed.example': ['127.0.0.1'] }),
    });
    const receiver = await startReceiver();
    const port = new URL(receiver.url).port;
    await receiver.stop(); // nothing listens there any more
    const refused = await send(`http://closed.example:${port}/`).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(classifyFetchError(refused)).toBe('connection_failed');
    expect(describeFetchError(refused)).toBe('connection_failed');

    const unknown = await send('http://nowhere.example/').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(classifyFetchError(unknown)).toBe('host_not_found');
    expect(describeFetchError(unknown)).toBe('host_not_found');

    // A server that accepts and never answers.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const silentPort = (silent.address() as AddressInfo).port;
    try {
      const slow = await createOutboundFetch(sandbox)(`http://127.0.0.1:${silentPort}/`, {
        signal: AbortSignal.timeout(300),
      }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(classifyFetchError(slow)).toBe('timeout');
      expect(describeFetchError(slow)).toBe('timeout');
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }

    // https to a server that speaks plain HTTP: a TLS failure.
    const plain = await startReceiver();
    try {
      const tls = await createOutboundFetch(sandbox)(plain.url.replace('http:', 'https:'), {
        signal: AbortSignal.timeout(2000),
      }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(classifyFetchError(tls)).toBe('tls_error');
      expect(describeFetchError(tls)).toBe('tls_error');
    } finally {
      await plain.stop();
    }
  });

  it('an error text never carries an address, a port or a socket code in production', () => {
    for (const code of ['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'EPIPE']) {
      const error = new TypeError('fetch failed', {
        cause: Object.assign(new Error(`connect ${code} 10.0.0.5:5432`), { code }),
      });
      expect(describeFetchError(error)).toBe('connection_failed');
    }
  });
});
