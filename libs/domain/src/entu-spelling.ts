import { invalid } from './errors';
import type { ValueInput } from './write';

/**
 * Entu's name for an Entia credential property, as its web client writes it:
 * its edit form's "Generate API Key" sends `{type: 'entu_api_key', string: 'generate'}`. The
 * name is Entu's reserved credential name, so it means this whatever the type defines.
 */
const ENTU_NAMES: Readonly<Record<string, string>> = { entu_api_key: '_api_key' };

/** What Entu's client writes to ask for a key; anything else would look like choosing one's own key. */
const GENERATE = 'generate';

/**
 * The values as Entia writes them, and the name each was sent under: an `entu_api_key` item asks for
 * a new API key as `{type: '_api_key'}` does. A value of its own (other than "generate") is a 400:
 * the server makes every key.
 */
export function fromEntuSpelling(items: readonly ValueInput[]): { items: ValueInput[]; sentAs: string[] } {
  const sentAs = items.map((item) => item.type);
  const translated = items.map((item, index) => {
    if (item.type === ENTU_USER) throw invalid('Nothing was written.', [{ pointer: `/${index}`, message: invitationProblem(item) }]);
    const name = Object.hasOwn(ENTU_NAMES, item.type) ? ENTU_NAMES[item.type]! : undefined;
    if (name === undefined) return item;
    const { string, type: _entuName, ...rest } = item;
    if (string !== undefined && string !== GENERATE) {
      throw invalid('Nothing was written.', [{ pointer: `/${index}/string`, message: `${item.type} takes "${GENERATE}" or no value: the server generates the key` }]);
    }
    return { ...rest, type: name };
  });
  return { items: translated, sentAs };
}

/**
 * The written values named as they were sent: the answer lists them in the order of the request
 * (then the formula values that changed, never renamed), and Entu's client finds its new key by the
 * name it sent.
 */
export function inEntuSpelling<T extends { type: string }>(written: readonly T[], sentAs: readonly string[]): T[] {
  return written.map((value, index) => (index < sentAs.length && sentAs[index] !== value.type && Object.hasOwn(ENTU_NAMES, sentAs[index]!) ? { ...value, type: sentAs[index]! } : value));
}

/**
 * Entu's name for a person's way in: its edit form's "Send invite" writes
 * `{type: 'entu_user', string: 'send-invite'}`, which sends the person an invitation. Entia stores
 * nothing under the name: the invitation is a capability of its own, not a value.
 */
const ENTU_USER = 'entu_user';
const SEND_INVITE = 'send-invite';

/**
 * Whether a write is Entu's "send invite": exactly `[{type: 'entu_user', string: 'send-invite'}]`.
 * Alone, so that the write is the invitation and nothing else: an invitation whose e-mail fails
 * leaves nothing half written. Any other use of `entu_user` is refused by `fromEntuSpelling`.
 */
export function isEntuInvitation(items: readonly ValueInput[]): boolean {
  if (items.length !== 1) return false;
  const item = items[0]!;
  return item.type === ENTU_USER && item.string === SEND_INVITE && Object.keys(item).every((key) => key === 'type' || key === 'string');
}

function invitationProblem(item: ValueInput): string {
  if (item.string !== SEND_INVITE) return `${ENTU_USER} takes "${SEND_INVITE}" only: it sends the person an invitation`;
  const extra = Object.keys(item).find((key) => key !== 'type' && key !== 'string');
  if (extra !== undefined) return `${ENTU_USER} takes no ${JSON.stringify(extra.slice(0, 40))}: send {"type": "${ENTU_USER}", "string": "${SEND_INVITE}"}`;
  return `an invitation (${ENTU_USER}: "${SEND_INVITE}") is sent alone, to an existing person`;
}
