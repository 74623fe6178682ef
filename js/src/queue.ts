import { ProtocolError } from "./errors.js";

/**
 * The async iterator behind a stream's or a run's `for await`: updates are pushed as they arrive
 * and taken in order; `end()` finishes the iteration and `fail(e)` makes it throw `e` after the
 * queued updates. Nothing is queued after the end.
 *
 * @internal
 */
export class Queue<T> implements AsyncIterator<T> {
  #items: T[] = [];
  #head = 0;
  #ended = false;
  #error: unknown = undefined;
  #waiting: { resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void } | undefined;

  push(items: readonly T[]): void {
    if (this.#ended) return;
    for (const u of items) this.#items.push(u);
    this.#wake();
  }

  end(): void {
    this.#ended = true;
    this.#wake();
  }

  fail(e: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#error = e ?? new ProtocolError("internal-error", "the stream failed", {});
    this.#wake();
  }

  #wake(): void {
    const w = this.#waiting;
    if (w === undefined) return;
    this.#waiting = undefined;
    this.next().then(w.resolve, w.reject);
  }

  next(): Promise<IteratorResult<T>> {
    if (this.#head < this.#items.length) {
      const value = this.#items[this.#head++] as T;
      if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
        this.#items = this.#items.slice(this.#head);
        this.#head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.#error !== undefined) {
      const e = this.#error;
      this.#error = undefined;
      return Promise.reject(e);
    }
    if (this.#ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
    });
  }

  return(): Promise<IteratorResult<T>> {
    this.#ended = true;
    this.#items = [];
    this.#head = 0;
    return Promise.resolve({ value: undefined, done: true });
  }
}

/**
 * The async iterators of one stream, run or chat. Each iterator gets the updates pushed after it
 * was created, and ends (or throws the outcome's error after its queued updates) when the outcome
 * given to `follow` settles. An iterator created after that ends at once, or throws the error: it
 * never waits for updates that cannot come.
 *
 * @internal
 */
export class Fanout<T> {
  #queues: Array<Queue<T>> = [];
  #outcome: { failed: boolean; error: unknown } | undefined;

  /**
   * Ends the iterators when `outcome` settles. Handling it here also keeps a caller that never
   * awaits it from an unhandled rejection.
   */
  follow(outcome: Promise<unknown>): void {
    outcome.then(
      () => this.#settle(false, undefined),
      (e: unknown) => this.#settle(true, e),
    );
  }

  #settle(failed: boolean, error: unknown): void {
    this.#outcome = { failed, error };
    for (const q of this.#queues) Fanout.#close(q, failed, error);
    this.#queues = [];
  }

  static #close<T>(q: Queue<T>, failed: boolean, error: unknown): void {
    if (failed) q.fail(error);
    else q.end();
  }

  /**
   * Runs `handle` (the handlers of `items`), then, if it returns `true`, delivers `items` to the
   * iterators that were open before it ran and still are: an iterator a handler creates starts
   * after these items ("from the moment the iterator is created").
   */
  deliver(items: readonly T[], handle: () => boolean): void {
    const recipients = [...this.#queues];
    if (!handle()) return;
    for (const q of recipients) if (this.#queues.includes(q)) q.push(items);
  }

  /** A new iterator, from now on. */
  iterator(): AsyncIterator<T> {
    const q = new Queue<T>();
    if (this.#outcome === undefined) this.#queues.push(q);
    else Fanout.#close(q, this.#outcome.failed, this.#outcome.error);
    return q;
  }
}
