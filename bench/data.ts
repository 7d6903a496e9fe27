/**
 * Deterministic synthetic data for the query benchmark: a seeded PRNG, Zipf-distributed words and
 * the value lists of the three benchmark types (author, book, review). Pure: no I/O.
 */

/** mulberry32: small, fast, good enough for test data, and the same sequence for the same seed. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Picks items with probability ∝ 1 / rank^s (rank 1 is the first item). */
export function zipf<T>(items: readonly T[], s = 1): (random: () => number) => T {
  const cumulative: number[] = [];
  let total = 0;
  items.forEach((_, i) => cumulative.push((total += 1 / (i + 1) ** s)));
  return (random) => {
    const target = random() * total;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (cumulative[mid]! < target) low = mid + 1;
      else high = mid;
    }
    return items[low]!;
  };
}

// Common words first (Zipf rank); several share the prefixes the `q` queries use ("mar", "sto").
export const VOCABULARY = (
  'the of and a in to is was for on with as by at from his her it an be this that which ' +
  'river stone story house night light water garden city winter summer market road king ' +
  'queen forest sea island mountain time world life love war home child mother father letter ' +
  'storm march marble margin marsh marine marvel mark martin stock stove stork stony ' +
  'journey secret shadow silver golden black white red green blue old new last first long ' +
  'little great dark bright silent hidden lost broken distant northern southern empire ' +
  'kingdom village harbour bridge tower castle church school station valley meadow field ' +
  'autumn spring morning evening dream memory song dance fire wind rain snow ice sun moon ' +
  'star sky earth iron glass paper book page word voice heart hand eye face name friend ' +
  'stranger traveller soldier sailor painter doctor teacher farmer hunter keeper maker ' +
  'crème brûlée café naïve über straße señor smörgåsbord'
).split(/\s+/);

/** The word that occurs in a handful of reviews only: the "rare word" search. */
export const RARE_WORD = 'zanzibar';

export const TAGS = [
  'fiction', 'history', 'science', 'biography', 'children', 'fantasy', 'mystery', 'poetry', 'travel', 'cooking',
  'art', 'music', 'philosophy', 'religion', 'economics', 'politics', 'nature', 'sports', 'health', 'drama',
];

export const FIRST_NAMES = [
  'Anna', 'John', 'Maria', 'Peter', 'Liis', 'Mark', 'Kadri', 'Jaan', 'Émile', 'Jürgen', 'Sofia', 'Olga', 'Ivan',
  'Martin', 'Lena', 'Tom', 'Eva', 'Max', 'Mia', 'Noah', 'Emma', 'Liam', 'Ava', 'Oskar', 'Karl', 'Hanna', 'Laura',
  'Marta', 'Sara', 'David', 'Daniel', 'Paul', 'Rita', 'Tiit', 'Mall', 'Madis', 'Siim', 'Mari', 'Mats', 'Zoë',
];

export const LAST_NAMES = [
  'Tamm', 'Saar', 'Sepp', 'Mägi', 'Kask', 'Kukk', 'Rebane', 'Ilves', 'Pärn', 'Koppel', 'Smith', 'Jones', 'Brown',
  'Miller', 'Davis', 'García', 'Müller', 'Schmidt', 'Dubois', 'Rossi', 'Novak', 'Nowak', 'Horvat', 'Larsen',
  'Virtanen', 'Korhonen', 'Nieminen', 'Ivanov', 'Petrov', 'Moreau', 'Martin', 'Bernard', 'Lefèvre', 'Öberg',
];

export type Sharing = 'private' | 'viewer' | 'domain' | 'public';

/** Most entities private to their owner, some shared with a second person, some domain, a few public. */
export function sharingOf(random: () => number): Sharing {
  const r = random();
  return r < 0.7 ? 'private' : r < 0.8 ? 'viewer' : r < 0.95 ? 'domain' : 'public';
}

export const pad = (n: number) => String(n).padStart(2, '0');

/** A real calendar date between two years, as YYYY-MM-DD. */
export function dateBetween(random: () => number, fromYear: number, toYear: number): string {
  const start = Date.UTC(fromYear, 0, 1);
  const end = Date.UTC(toYear, 11, 31);
  const day = new Date(start + Math.floor(random() * ((end - start) / 86_400_000 + 1)) * 86_400_000);
  return `${day.getUTCFullYear()}-${pad(day.getUTCMonth() + 1)}-${pad(day.getUTCDate())}`;
}

export function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** How many entities of each type a data set of `size` holds: 10 % authors, 40 % books, the rest reviews. */
export function shape(size: number): { author: number; book: number; review: number } {
  const author = Math.max(10, Math.round(size * 0.1));
  const book = Math.max(10, Math.round(size * 0.4));
  return { author, book, review: Math.max(10, size - author - book) };
}
