import { INLINE_TYPES, displayOf } from '@entia/domain';

describe('displayOf: a file is shown in the browser only when nothing of it can run', () => {
  it.each([
    ['image/png', 'image/png'],
    ['image/jpeg', 'image/jpeg'],
    ['image/gif', 'image/gif'],
    ['image/webp', 'image/webp'],
    ['image/avif', 'image/avif'],
    ['image/bmp', 'image/bmp'],
    ['application/pdf', 'application/pdf'],
    ['IMAGE/PNG', 'image/png'],
    ['Application/PDF', 'application/pdf'],
    ['text/plain', 'text/plain; charset=utf-8'],
    ['TEXT/PLAIN', 'text/plain; charset=utf-8'],
    // Not a declarable type (no parameters in a filetype), but a stored one is read the same way.
    ['text/plain; charset=utf-7', 'text/plain; charset=utf-8'],
    ['image/png; name="x.html"', 'image/png'],
  ])('%s is shown inline as %s', (filetype, contentType) => {
    expect(displayOf(filetype)).toEqual({ disposition: 'inline', contentType });
  });

  it.each([
    ['HTML', 'text/html'],
    ['XHTML', 'application/xhtml+xml'],
    ['SVG', 'image/svg+xml'],
    ['XML', 'application/xml'],
    ['XML as text', 'text/xml'],
    ['JavaScript', 'text/javascript'],
    ['JavaScript (application)', 'application/javascript'],
    ['JSON', 'application/json'],
    ['CSS', 'text/css'],
    ['a text type not listed', 'text/csv'],
    ['a script-bearing document', 'application/x-shockwave-flash'],
    ['an image type not listed', 'image/tiff'],
    ['an alias nobody declares', 'image/jpg'],
    ['the default', 'application/octet-stream'],
    ['a prefix of a listed type', 'image/pn'],
    ['a listed type with a suffix', 'image/pngx'],
    ['a listed type as a suffix', 'x-image/png'],
    ['empty', ''],
    ['not a MIME type', 'png'],
    ['prototype names', '__proto__'],
    ['prototype names', 'constructor'],
  ])('%s (%s) is saved as an attachment', (_case, filetype) => {
    expect(displayOf(filetype)).toEqual({ disposition: 'attachment' });
  });

  it('lists no type a browser runs', () => {
    for (const type of INLINE_TYPES) expect(type).not.toMatch(/html|xml|svg|script/);
  });
});
