import { eq } from 'drizzle-orm';
import { createTransport, type Transporter } from 'nodemailer';
import { sealMailBody } from '../../credentials/lending/sealed-mail.ts';
import { newRecordId } from '../../credentials/lending/tenants.ts';
import { lendingEmailOutbox } from '../../db/schema/lending.ts';
import type { UseCaseDeps } from '../shared/deps.ts';

/**
 * E-mail to lending users (decision 0037). Every message is written to lending_email_outbox, the
 * record of what was sent, its body sealed (credentials/lending/sealed-mail.ts: it carries a one-time
 * code, which is never stored in clear); with LENDING_SMTP_URL it is also handed to that SMTP server
 * through nodemailer, after the answer (a slow server neither delays the caller nor tells it whether
 * the login exists), with the outcome written back (`sent_at`, and the sealed body dropped; or `error`,
 * the body kept sealed). Without an SMTP server the sealed body stays (tests open it there). The open-banking
 * gateway's outbox (ob_email_outbox) is bound to its agents and users and could not take these rows.
 */

export interface UserMail {
  tenantId: string;
  userId: string | null;
  kind: 'password_reset';
  recipient: string;
  subject: string;
  body: string;
}

const transports = new Map<string, Transporter>();
const transportOf = (url: string) => {
  let transport = transports.get(url);
  if (!transport) {
    transport = createTransport(url);
    transports.set(url, transport);
  }
  return transport;
};

export async function sendUserMail(
  deps: Pick<UseCaseDeps, 'db' | 'config' | 'logger'>,
  mail: UserMail,
): Promise<string> {
  const { db, config, logger } = deps;
  const messageId = newRecordId('eml');
  await db
    .insert(lendingEmailOutbox)
    .values({ id: messageId, ...mail, body: sealMailBody(config, messageId, mail.body) });
  // The body carries a one-time code: log the message, never its body.
  logger.info(
    { kind: 'email', messageId, mailKind: mail.kind, tenantId: mail.tenantId },
    'lending e-mail recorded in the outbox',
  );
  const smtpUrl = config.LENDING_SMTP_URL;
  if (smtpUrl) {
    void transportOf(smtpUrl)
      .sendMail({
        from: config.LENDING_MAIL_FROM,
        to: mail.recipient,
        subject: mail.subject,
        text: mail.body,
      })
      .then(
        () =>
          db
            .update(lendingEmailOutbox)
            .set({ sentAt: new Date(), body: null })
            .where(eq(lendingEmailOutbox.id, messageId)),
        (error: unknown) => {
          logger.warn(
            { kind: 'email', messageId, error: (error as Error).message },
            'lending e-mail not sent',
          );
          return db
            .update(lendingEmailOutbox)
            .set({ error: (error as Error).message.slice(0, 500) })
            .where(eq(lendingEmailOutbox.id, messageId));
        },
      )
      .catch((error: unknown) =>
        logger.error({ kind: 'email', messageId, error }, 'lending outbox not updated'),
      );
  }
  return messageId;
}
