import { removeValue } from '@entia/domain';
import { DEFINITIONS, EDITOR, OWNER, STRANGER, caller, entityWith, hexId, thrown, val } from './fixtures';

/** A read-only value is refused on delete exactly as on write (400), whatever the caller's right. */

const CODE = hexId(0x311);
const stored = () => entityWith({ extra: { code: [val('code', { string: 'X1' }, CODE)] } });

describe('readonly on delete', () => {
  it.each([
    ['the owner', OWNER],
    ['an editor', EDITOR],
  ])('%s cannot delete a read-only value (400)', (_who, personId) => {
    const error = thrown(() => removeValue(stored(), CODE, caller(personId), DEFINITIONS));
    expect(error.kind).toBe('invalid');
    expect(error.message).toBe('code is read-only.');
  });

  it('is refused as read-only before the rights are asked, as a write is', () => {
    expect(thrown(() => removeValue(stored(), CODE, caller(STRANGER), DEFINITIONS)).kind).toBe('invalid');
  });
});
