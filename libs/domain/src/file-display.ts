/**
 * How a file value's signed URL asks storage to answer: shown in the browser
 * (`inline`, under the content type given here), or saved (`attachment`, under the type it was
 * stored with). `?download=true` always saves; this is the rule for the `url` of a value.
 */
export type FileDisplay = { disposition: 'inline'; contentType: string } | { disposition: 'attachment' };

/**
 * Types a browser shows without running anything of the file: raster images, PDF (in the browser's
 * sandboxed viewer) and plain text. Everything else — HTML, SVG, XML, scripts, and types nobody
 * listed — is saved: shown, it could run script in the storage's origin.
 */
export const INLINE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/bmp', 'application/pdf', 'text/plain'] as const;

const INLINE = new Set<string>(INLINE_TYPES);

/**
 * A declared `filetype` has no parameters (values/file.ts), so no charset: text is shown as UTF-8
 * (ASCII reads the same), rather than leaving the browser to guess.
 */
const TEXT_SHOWN_AS = 'text/plain; charset=utf-8';

/**
 * Whether a file of declared type `filetype` (a value's `filetype`, in any case) is shown inline,
 * and as which content type: the type in lower case, `text/plain` with its charset. The type shown
 * is always one of this list's, never the client's text verbatim.
 */
export function displayOf(filetype: string): FileDisplay {
  const essence = filetype.split(';', 1)[0]!.trim().toLowerCase();
  if (!INLINE.has(essence)) return { disposition: 'attachment' };
  return { disposition: 'inline', contentType: essence === 'text/plain' ? TEXT_SHOWN_AS : essence };
}
