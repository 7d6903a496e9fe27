import type { Config } from '@entia/config';
import nodemailer from 'nodemailer';

/** One e-mail: plain text and HTML, to one address. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Sends e-mail; rejects when the server does not take the message. */
export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): void;
}

/** What of a failed delivery may be logged: the SMTP codes, never the message text (a server may echo what it was sent). */
export function mailFailure(error: unknown): { code?: string; responseCode?: number; command?: string } {
  const { code, responseCode, command } = (error ?? {}) as { code?: unknown; responseCode?: unknown; command?: unknown };
  return {
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof responseCode === 'number' ? { responseCode } : {}),
    ...(typeof command === 'string' ? { command } : {}),
  };
}

/**
 * The SMTP server of SMTP_URL (nodemailer; a connection per message, as invitations are rare;
 * STARTTLS when offered on smtp://, TLS on smtps://), or undefined when SMTP_URL is `none`. Nothing of it logs: nodemailer's
 * own logger is off, and the URL (which may hold a password) is never shown.
 */
export function smtpMailer(config: Pick<Config, 'SMTP_URL' | 'SMTP_FROM'>): Mailer | undefined {
  if (config.SMTP_URL === 'none') return undefined;
  const transport = nodemailer.createTransport({
    url: config.SMTP_URL,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
    logger: false,
    debug: false,
  } as Parameters<typeof nodemailer.createTransport>[0]);
  return {
    async send(mail) {
      await transport.sendMail({
        from: config.SMTP_FROM,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        // The message is ours alone: nothing in it is fetched from a file or a URL.
        disableFileAccess: true,
        disableUrlAccess: true,
      });
    },
    close() {
      transport.close();
    },
  };
}
