import type { Mail } from './mailer';

/** What an invitation e-mail says: to which database, from whom, the link, and until when. */
export interface InvitationLetter {
  to: string;
  db: string;
  inviter: string;
  link: string;
  expires: string;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * An invitation e-mail, in plain text and HTML. The link is only in the body; the subject names
 * the database. Everything of a person's own making (their name) is escaped in the HTML.
 */
export function invitationMail({ to, db, inviter, link, expires }: InvitationLetter): Mail {
  const by = inviter.trim() === '' ? '' : ` by ${inviter.trim()}`;
  const text = [
    `You have been invited${by} to the database "${db}".`,
    '',
    'Open the link below to choose how you sign in, and accept the invitation:',
    link,
    '',
    `The link can be used once, until ${expires}. If you did not expect this invitation, ignore this e-mail.`,
    '',
  ].join('\n');
  const byHtml = inviter.trim() === '' ? '' : ` by <strong>${escapeHtml(inviter.trim())}</strong>`;
  const html = [
    '<!doctype html>',
    '<html><body>',
    `<p>You have been invited${byHtml} to the database &quot;${escapeHtml(db)}&quot;.</p>`,
    `<p>Open the link below to choose how you sign in, and accept the invitation:</p>`,
    `<p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>`,
    `<p>The link can be used once, until ${escapeHtml(expires)}. If you did not expect this invitation, ignore this e-mail.</p>`,
    '</body></html>',
  ].join('\n');
  return { to, subject: `Invitation to the database "${db}"`, text, html };
}
