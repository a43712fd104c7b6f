import { describe, expect, it } from 'vitest';
import { type RawAnswer, type RawRequest, rawRequest } from '../support/raw-http.ts';
import { basePacket, credentials, packetParams, platform, setUpFuzzPlatform } from './fuzz-support.ts';

/**
 * Malformed input, case by case (the themes of the fuzz suite, fuzz-operations.test.ts): NUL bytes, lone
 * surrogates, malformed multipart, bad percent-encoding and headers Node refuses are each a 4xx in the
 * error shape of their service.
 */

setUpFuzzPlatform();

/** The three causes of the 500s the issue reports, each answered in its service's error shape. */
describe('malformed input: 4xx in the error shape of the service', () => {
  const send = (request: RawRequest) => rawRequest(platform.apiUrl, request);
  const json = (answer: RawAnswer) =>
    JSON.parse(answer.body) as { error: { code: string; fields?: unknown } };

  it('a NUL byte in a query, path or JSON value is 400 malformed_request, never a database error', async () => {
    const agent = [['x-agent-hash', credentials.agentHash]] as [string, string][];
    const query = await send({
      method: 'GET',
      target: '/openbanking/api/8/agent/users?text=a%00b',
      headers: agent,
    });
    expect({ status: query.status, code: json(query).error.code }).toEqual({
      status: 400,
      code: 'malformed_request',
    });
    expect(json(query).error.fields).toEqual([
      { field: 'text', message: 'the query parameter contains a NUL byte' },
    ]);
    const path = await send({
      method: 'GET',
      target: `/messaging/sms/a%00b?at=${credentials.messagingToken}`,
    });
    expect({ status: path.status, code: json(path).error.code }).toEqual({
      status: 400,
      code: 'malformed_request',
    });
    const body = await send({
      method: 'POST',
      target: `/messaging/sms?at=${credentials.messagingToken}`,
      headers: [['content-type', 'application/json']],
      body: JSON.stringify({ to: '+359888123456', from: '+359888000111', message: 'a\u0000b' }),
    });
    expect(json(body).error).toEqual({
      code: 'malformed_request',
      message: 'The request is malformed',
      fields: [{ field: 'message', message: 'the value contains a NUL byte' }],
    });
    expect(body.status).toBe(400);
  });

  it('a lone UTF-16 surrogate anywhere is 400 malformed_request naming the field, in every service', async () => {
    const lending: [string, string][] = [
      ['lender_ApiKey', credentials.lendingKey],
      ['lender_UserAuthToken', credentials.lendingToken],
      ['content-type', 'application/json'],
    ];
    const loanPath = `/lending/PublicApi/v7-12/Customer/Loans/${credentials.lendingLoanId}`;
    const cases: [RawRequest, string, string][] = [
      // JSON escapes: JSON.parse makes a lone surrogate of each; jsonb would refuse it.
      [
        {
          method: 'POST',
          target: `${loanPath}/Collaterals`,
          headers: lending,
          body: '{"description":"x\\ud800y"}',
        },
        'description',
        'the value is not well-formed Unicode (a lone UTF-16 surrogate)',
      ],
      [
        {
          method: 'PUT',
          target: `${loanPath}/CoApplicant`,
          headers: lending,
          body: '{"firstName":"A","lastName":"B","address":{"city":"\\udfffx"}}',
        },
        'address.city',
        'the value is not well-formed Unicode (a lone UTF-16 surrogate)',
      ],
      [
        { method: 'POST', target: `${loanPath}/Collaterals`, headers: lending, body: '{"a\\ud800":1}' },
        'a\ufffd',
        'the name is not well-formed Unicode (a lone UTF-16 surrogate)',
      ],
      [
        { method: 'POST', target: `${loanPath}/Collaterals`, headers: lending, body: '{"a":["\\u0000"]}' },
        'a.0',
        'the value contains a NUL byte',
      ],
      [
        {
          method: 'POST',
          target: `/messaging/sms?at=${credentials.messagingToken}`,
          headers: [['content-type', 'application/json']],
          body: '{"to":"+359888123456","from":"+359888000111","message":"\\ud83d"}',
        },
        'message',
        'the value is not well-formed Unicode (a lone UTF-16 surrogate)',
      ],
    ];
    for (const [request, field, message] of cases) {
      const answer = await send(request);
      expect({ target: request.target, status: answer.status, error: json(answer).error }).toEqual({
        target: request.target,
        status: 400,
        error: {
          code: 'malformed_request',
          message: 'The request is malformed',
          fields: [{ field, message }],
        },
      });
    }
    // A well-formed pair (an emoji) is accepted.
    const emoji = await send({
      method: 'POST',
      target: `${loanPath}/Collaterals`,
      headers: lending,
      body: '{"kind":"vehicle","description":"car \\ud83d\\ude97","value":"9500.00"}',
    });
    expect(emoji.status).toBe(200);
  });

  it('a NUL byte inside a signed ePay packet is ERR=BAD_ENCODED text', async () => {
    const lines = basePacket().map((line) => (line.startsWith('INVOICE=') ? 'INVOICE=1\u00002' : line));
    const { ENCODED, CHECKSUM } = packetParams(lines);
    for (const operation of ['/collect/notifications', '/collect/office/reg_bill.cgi']) {
      const answer = await send({
        method: 'GET',
        target: `${operation}?ENCODED=${ENCODED}&CHECKSUM=${CHECKSUM}`,
      });
      expect({ status: answer.status, body: answer.body.trimEnd() }).toEqual({
        status: 400,
        body: 'ERR=BAD_ENCODED\nERRMSG=the packet contains a NUL byte',
      });
    }
  });

  it('a malformed multipart body is refused in the shape of the collect endpoint it was sent to', async () => {
    const multipart: RawRequest = {
      method: 'POST',
      target: '/collect/v3main/',
      headers: [['content-type', 'multipart/form-data; boundary=xyz']],
      body: '--xyz\r\nContent-Disposition: form-data; name="ENCODED"\r\n\r\nabc',
    };
    const text = await send(multipart);
    expect({ status: text.status, body: text.body }).toEqual({
      status: 400,
      body: 'ERR=BAD_FIELD\nERRMSG=(body): the body is not valid multipart/form-data\nFIELD=(body)\n',
    });
    for (const target of ['/collect/', '/collect/card/pay']) {
      const page = await send({ ...multipart, target });
      expect(page.status).toBe(400);
      expect(page.headers['content-type']).toContain('text/html');
      expect(page.body).toContain('BAD_FIELD');
    }
    const messaging = await send({ ...multipart, target: `/messaging/sms?at=${credentials.messagingToken}` });
    expect(messaging.status).toBe(400);
    expect(json(messaging).error.code).toBe('malformed_request');
  });

  it('bad and double percent-encoding is 400: in the path, the query and a parameter decoded again', async () => {
    const agent = [['x-agent-hash', credentials.agentHash]] as [string, string][];
    for (const target of [
      '/openbanking/api/8/consent/iban/%E0%A4%A', // not UTF-8
      '/openbanking/api/8/consent/iban/%25E0%25A4%25A', // double-encoded: decoded again by the operation
      '/openbanking/api/8/agent/users?text=%zz',
    ]) {
      const answer = await send({ method: 'GET', target, headers: agent });
      expect({ target, status: answer.status, code: json(answer).error.code }).toEqual({
        target,
        status: 400,
        code: 'malformed_request',
      });
    }
    const oneTouch = await send({ method: 'GET', target: `/collect/xdev/api/api/code/get?APPID=%E0%A4%A` });
    expect(oneTouch.status).toBe(400);
    expect(JSON.parse(oneTouch.body)).toMatchObject({
      status: 'ERR',
      err: 'INVALID_PARAMETER',
      field: 'APPID',
    });
  });

  it('headers Node refuses (NUL, control bytes, oversize) are answered as JSON errors, not bare 400s', async () => {
    for (const [value, status, code] of [
      ['a\u0000b', 400, 'malformed_request'],
      ['a\u0001b', 400, 'malformed_request'],
      ['y'.repeat(20_000), 431, 'headers_too_large'],
    ] as const) {
      const answer = await send({ method: 'GET', target: '/health', headers: [['x-odd', value]] });
      expect({ status: answer.status, code: json(answer).error.code }).toEqual({ status, code });
    }
  });

  it('keeps a well-formed x-request-id and replaces any other', async () => {
    const kept = await send({ method: 'GET', target: '/health', headers: [['x-request-id', 'req-1.a:b']] });
    expect(kept.headers['x-request-id']).toBe('req-1.a:b');
    const odd = await send({
      method: 'GET',
      target: '/health',
      headers: [['x-request-id', `\u00ff${'r'.repeat(300)}`]],
    });
    expect(odd.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
