import { appendFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import smpp, { type Pdu, type Session } from 'smpp';

/**
 * An independent SMPP carrier for crash tests (issue 37): its own OS process, its own code (nothing of
 * the platform's, not even the sandbox SMSC), and its own log as the judge. Run as
 * `node --import tsx test/support/smpp-carrier-process.ts <log file>`; prints `{"listening":<port>}`.
 *
 * Every bind is accepted. Every submit_sm is logged (one JSON line appended to the log file before it is
 * answered: id, source, destination, text) and answered with submit_sm_resp after RESPONSE_DELAY_MS (a
 * carrier across a network: at any moment a window of submissions is unanswered), then receipted with a
 * deliver_sm (stat:DELIVRD) after RECEIPT_DELAY_MS on a bound session — except a destination ending in
 * `99`, which never gets one. A receipt not acknowledged (session closed, refused) is sent again later.
 */

const logFile = process.argv[2];
if (!logFile) throw new Error('usage: smpp-carrier-process.ts <log file>');
const RESPONSE_DELAY_MS = Number(process.env.RESPONSE_DELAY_MS ?? 40);
const RECEIPT_DELAY_MS = Number(process.env.RECEIPT_DELAY_MS ?? 300);
const RETRY_MS = 500;

interface Receipt {
  id: string;
  source: string;
  destination: string;
}

const bound = new Set<Session>();
const waiting: Receipt[] = [];
let counter = 0;

const log = (entry: Record<string, unknown>) =>
  appendFileSync(logFile, `${JSON.stringify({ at: new Date().toISOString(), ...entry })}\n`);

const yymmddhhmm = (date: Date) => date.toISOString().replace(/\D/g, '').slice(2, 12);

function sendReceipt(receipt: Receipt) {
  const session = [...bound][0];
  if (!session) {
    waiting.push(receipt);
    return;
  }
  let settled = false;
  // Refused, or unacknowledged when its session closes: sent again (on the next bind).
  const again = () => {
    if (settled) return;
    settled = true;
    setTimeout(() => sendReceipt(receipt), RETRY_MS);
  };
  const now = yymmddhhmm(new Date());
  session.deliver_sm(
    {
      source_addr_ton: 1,
      source_addr_npi: 1,
      source_addr: receipt.destination,
      destination_addr: receipt.source,
      esm_class: 0x04,
      data_coding: 0,
      short_message: `id:${receipt.id} sub:001 dlvrd:001 submit date:${now} done date:${now} stat:DELIVRD err:000 text:`,
      receipted_message_id: receipt.id,
      message_state: 2,
    },
    (response: Pdu) => {
      if (response.command_status !== 0) return again();
      settled = true;
      log({ event: 'receipt_acknowledged', id: receipt.id });
    },
  );
  session.once('close', again);
}

const server = smpp.createServer({}, (session: Session) => {
  session.setMaxListeners(0);
  session.on('error', () => {});
  session.on('close', () => bound.delete(session));
  session.on('pdu', (pdu: Pdu) => {
    switch (pdu.command) {
      case 'bind_transceiver':
      case 'bind_receiver':
      case 'bind_transmitter':
        session.send(pdu.response({ system_id: 'CRASHTESTSMSC' }));
        if (pdu.command !== 'bind_transmitter') {
          bound.add(session);
          for (const receipt of waiting.splice(0)) sendReceipt(receipt);
        }
        return;
      case 'submit_sm': {
        counter += 1;
        const id = `c${process.pid}-${counter}`;
        const message = pdu.short_message ?? pdu.message_payload;
        const text = Buffer.isBuffer(message) ? message.toString('latin1') : String(message?.message ?? '');
        const receipt = { id, source: pdu.source_addr ?? '', destination: pdu.destination_addr ?? '' };
        log({ event: 'submit_sm', ...receipt, text });
        setTimeout(() => {
          session.send(pdu.response({ message_id: id }));
          if (!receipt.destination.endsWith('99')) setTimeout(() => sendReceipt(receipt), RECEIPT_DELAY_MS);
        }, RESPONSE_DELAY_MS);
        return;
      }
      case 'enquire_link':
        session.send(pdu.response());
        return;
      case 'unbind':
        bound.delete(session);
        session.send(pdu.response(), () => session.close());
        return;
      default:
        if (!pdu.isResponse()) session.send(pdu.response({ command_status: smpp.errors.ESME_RINVCMDID }));
    }
  });
});

server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ listening: (server.address() as AddressInfo).port }));
});
