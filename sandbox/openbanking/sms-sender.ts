import smpp, { type Pdu } from 'smpp';

/**
 * How a sandbox bank sends its one-time codes: as an SMPP 3.4 client of the SMS carrier (the sandbox
 * SMSC of sandbox/messaging in tests and `npm start`), one short transmitter session per message, the
 * way a bank's own SMS gateway would talk to its carrier. No receipt is asked for.
 */

export interface SmsCarrierAccount {
  /** smpp://host:port */
  url: string;
  systemId: string;
  password: string;
}

export type SmsSender = (message: { to: string; from: string; text: string }) => Promise<void>;

export function smppSmsSender(account: SmsCarrierAccount, timeoutMs = 5_000): SmsSender {
  return (message) =>
    new Promise<void>((resolve, reject) => {
      let done = false;
      const finish = (error?: Error) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        session.close();
        if (error) reject(error);
        else resolve();
      };
      const timer = setTimeout(
        () => finish(new Error(`SMS not submitted within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const session = smpp.connect({ url: account.url }, () => {
        session.bind_transmitter({ system_id: account.systemId, password: account.password }, (bind: Pdu) => {
          if (bind.command_status !== 0)
            return finish(new Error(`SMPP bind refused (${bind.command_status})`));
          session.submit_sm(
            {
              source_addr_ton: 5,
              source_addr: message.from,
              dest_addr_ton: 1,
              dest_addr_npi: 1,
              destination_addr: message.to.replace(/^\+/, ''),
              short_message: message.text,
              registered_delivery: 0,
            },
            (submitted: Pdu) =>
              finish(
                submitted.command_status === 0
                  ? undefined
                  : new Error(`SMPP submit refused (${submitted.command_status})`),
              ),
          );
        });
      });
      session.on('error', (error: Error) => finish(error));
    });
}
