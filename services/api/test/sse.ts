import { createParser } from 'eventsource-parser';

/** One Server-Sent Event as a client receives it, its data parsed as JSON. */
export interface SseEvent {
  event: string;
  id?: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data: any;
}

/**
 * A change stream read over a real socket (fetch), parsed by eventsource-parser as a browser's
 * EventSource would: every event kept in order; `next` waits for the next one that matches.
 */
export class SseReader {
  readonly events: SseEvent[] = [];
  /** Comments received (heartbeats). */
  comments = 0;
  private consumed = 0;
  private wake: () => void = () => {};
  private readonly abort = new AbortController();
  ended = false;

  private constructor(
    readonly status: number,
    readonly headers: Headers,
    /** The problem body when the stream was refused. */
    readonly problem: unknown,
  ) {}

  static async open(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
    const abort = new AbortController();
    const res = await fetch(url, { headers: { Accept: 'text/event-stream', ...headers }, signal: abort.signal });
    if (res.status !== 200) {
      const reader = new SseReader(res.status, res.headers, await res.json().catch(() => undefined));
      reader.ended = true;
      return reader;
    }
    const reader = new SseReader(res.status, res.headers, undefined);
    reader.abort.signal.addEventListener('abort', () => abort.abort());
    void reader.read(res.body!);
    return reader;
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const parser = createParser({
      onEvent: (message) => {
        this.events.push({ event: message.event ?? 'message', ...(message.id !== undefined ? { id: message.id } : {}), data: JSON.parse(message.data) });
        this.wake();
      },
      onComment: () => {
        this.comments++;
      },
    });
    const decoder = new TextDecoder();
    try {
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
    } catch {
      // Aborted by close(), or the server closed the connection.
    }
    this.ended = true;
    this.wake();
  }

  /** The next event not returned before that `accept` takes (skipping the others); fails after `timeoutMs`. */
  async next(accept: (event: SseEvent) => boolean = () => true, timeoutMs = 15_000): Promise<SseEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (this.consumed < this.events.length) {
        const event = this.events[this.consumed++]!;
        if (accept(event)) return event;
      }
      if (this.ended) throw new Error(`stream ended; events: ${JSON.stringify(this.events)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching event within ${timeoutMs} ms; events: ${JSON.stringify(this.events)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** The change events (not notices) received so far. */
  get changes(): SseEvent[] {
    return this.events.filter((event) => ['created', 'updated', 'deleted'].includes(event.event));
  }

  /** Waits until the server has ended the stream. */
  async closedByServer(timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ended) {
      if (Date.now() > deadline) throw new Error('the server did not close the stream');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  close(): void {
    this.abort.abort();
  }
}

/** Opens a stream of `db` and waits until it is live (its `ready` event). */
export async function liveStream(baseUrl: string, db: string, query = '', headers: Record<string, string> = {}): Promise<SseReader> {
  const reader = await SseReader.open(`${baseUrl}/api/${db}/changes${query ? `?${query}` : ''}`, headers);
  if (reader.status !== 200) throw new Error(`stream refused: ${reader.status} ${JSON.stringify(reader.problem)}`);
  await reader.next((event) => event.event === 'ready');
  return reader;
}
