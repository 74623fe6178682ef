type Waiter<T> = { resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void };

/**
 * The async iterator behind a stream's or a run's `for await`: updates are pushed as they arrive
 * and taken in order; `end()` finishes the iteration and `fail(e)` makes it throw `e` (whatever
 * was thrown, `undefined` included) after the queued updates. Nothing is queued after the end.
 * Calls of `next()` that wait are answered in the order they were made; `return()` (a `break` out
 * of `for await`) answers them `done` at once and detaches the iterator from its `Fanout`.
 *
 * @internal
 */
export class Queue<T> implements AsyncIterator<T> {
  #items: T[] = [];
  #head = 0;
  #ended = false;
  #failed = false;
  #error: unknown = undefined;
  #waiting: Array<Waiter<T>> = [];
  #detach: (() => void) | undefined;

  /** `detach`: called once, by `return()`, so that the producer stops pushing to it. */
  constructor(detach?: () => void) {
    this.#detach = detach;
  }

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
    this.#failed = true;
    this.#error = e;
    this.#wake();
  }

  /** Answers the waiting `next()` calls, in order, while there is something to answer. */
  #wake(): void {
    while (this.#waiting.length > 0) {
      const result = this.#take();
      if (result === undefined) return;
      const w = this.#waiting.shift() as Waiter<T>;
      result.then(w.resolve, w.reject);
    }
  }

  /** The next result, or `undefined` when it has to wait. */
  #take(): Promise<IteratorResult<T>> | undefined {
    if (this.#head < this.#items.length) {
      const value = this.#items[this.#head++] as T;
      if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
        this.#items = this.#items.slice(this.#head);
        this.#head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.#failed) {
      const e = this.#error;
      this.#failed = false;
      this.#error = undefined;
      return Promise.reject(e);
    }
    if (this.#ended) return Promise.resolve({ value: undefined, done: true });
    return undefined;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.#waiting.length === 0) {
      const result = this.#take();
      if (result !== undefined) return result;
    }
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
    });
  }

  return(): Promise<IteratorResult<T>> {
    this.#ended = true;
    this.#failed = false;
    this.#error = undefined;
    this.#items = [];
    this.#head = 0;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const w of waiting) w.resolve({ value: undefined, done: true });
    const detach = this.#detach;
    this.#detach = undefined;
    detach?.();
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
  /** The open iterators, each with the value of `#clock` when it was created. */
  #queues = new Map<Queue<T>, number>();
  /** Counts the deliveries begun. */
  #clock = 0;
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
    for (const q of this.#queues.keys()) Fanout.#close(q, failed, error);
    this.#queues.clear();
  }

  static #close<T>(q: Queue<T>, failed: boolean, error: unknown): void {
    if (failed) q.fail(error);
    else q.end();
  }

  /**
   * Runs `handle` (the handlers of `items`), then, if it returns `true`, delivers `items` to the
   * iterators that were open before it ran and still are: an iterator a handler creates starts
   * after these items ("from the moment the iterator is created"), one it leaves gets nothing.
   */
  deliver(items: readonly T[], handle: () => boolean): void {
    const mark = ++this.#clock;
    if (!handle()) return;
    for (const [q, born] of this.#queues) if (born < mark) q.push(items);
  }

  /** A new iterator, from now on. */
  iterator(): AsyncIterator<T> {
    if (this.#outcome !== undefined) {
      const q = new Queue<T>();
      Fanout.#close(q, this.#outcome.failed, this.#outcome.error);
      return q;
    }
    const q: Queue<T> = new Queue<T>(() => this.#queues.delete(q));
    this.#queues.set(q, this.#clock);
    return q;
  }
}
