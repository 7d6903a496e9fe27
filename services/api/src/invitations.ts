import { invitationLink, type Value } from '@entia/domain';
import { createInvitation, withdrawInvitation, type NewInvitation, type Tenant } from '@entia/entities';
import type { Deps } from './deps';
import { problems } from './http/problem';
import { invitationMail } from './mail/invitation-mail';
import { mailFailure, type Mailer } from './mail/mailer';

/** An answered invitation as Entu's client reads it: `entu_user` with its `_id`, `email` and `invite`. */
type InvitationValue = Value & { email: string; invite: string; url?: string };

/**
 * Entu's "send invite" at the API's edge: the invitation is made
 * (`createInvitation`: rights, the person's e-mail, a single-use token) and then e-mailed through
 * SMTP_URL, or — without SMTP_URL — answered once to the inviter (`invite`: the token; `url`: the
 * link, when APP_URL is set). An e-mail the server does not take withdraws the invitation and is a
 * 503: nothing was written, nothing can be used. Log lines name the database, the person and the
 * invitation's id, never its token or link.
 */
export class InvitationSender {
  constructor(
    private readonly deps: Deps,
    private readonly mailer: Mailer | undefined,
  ) {}

  async send(tenant: Tenant, personId: string): Promise<{ _id: string; properties: InvitationValue[] }> {
    const invitation = await createInvitation(this.deps, tenant, personId);
    const logged = { db: tenant.name, person: personId, invitation: invitation.id };
    const appUrl = this.deps.config.APP_URL;
    if (!this.mailer) {
      this.deps.logger.info(logged, 'invitation made and answered to the inviter (no SMTP_URL)');
      return this.answer(invitation, invitation.token, appUrl === 'none' ? undefined : invitationLink(appUrl, tenant.name, invitation.token));
    }
    const link = invitationLink(appUrl, tenant.name, invitation.token);
    try {
      await this.mailer.send(invitationMail({ to: invitation.email, db: tenant.name, inviter: invitation.inviter.name, link, expires: invitation.expires }));
    } catch (error) {
      await withdrawInvitation(this.deps, invitation.token).catch(() => undefined);
      this.deps.logger.warn({ ...logged, ...mailFailure(error) }, 'invitation e-mail not sent: invitation withdrawn');
      throw problems.unavailable('The invitation e-mail could not be sent; nothing was sent or written: try again shortly.');
    }
    this.deps.logger.info(logged, 'invitation e-mailed');
    return this.answer(invitation, '***');
  }

  private answer(invitation: NewInvitation, invite: string, url?: string): { _id: string; properties: InvitationValue[] } {
    const value: InvitationValue = {
      _id: invitation.id,
      type: 'entu_user',
      string: invitation.email,
      email: invitation.email,
      invite,
      ...(url === undefined ? {} : { url }),
      created: { at: new Date().toISOString(), by: invitation.inviter._id },
    };
    return { _id: invitation.person._id, properties: [value] };
  }

  close(): void {
    this.mailer?.close();
  }
}
