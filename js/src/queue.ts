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
