/*
 * Group commit (docs/knowledge-base-search.md, "Full text"): while a write under a key is in flight, the changes that
 * arrive for the same key wait and go together in the next one, and each caller's promise settles when the write
 * holding its changes does. Many collections trained at once in one process (`npm start`'s queue) then share a few
 * updates of a knowledge base's shared items (the full-text `n` item, the vector version) instead of queueing one
 * write each; a caller still awaits its own changes before it goes on. A lone caller's changes go at once.
 */
export class GroupCommit<C> {
  private readonly waiting = new Map<string, { changes: C; settle: ((error?: unknown) => void)[] }>();
  private readonly inFlight = new Set<string>();

  /**
   * `empty` makes the changes nobody has made yet, `merge` adds a caller's changes into them, `send` stores one
   * group's changes of one item (its failure fails every caller of that group).
   */
  constructor(
    private readonly empty: () => C,
    private readonly merge: (into: C, changes: C) => void,
    private readonly send: (key: string, changes: C) => Promise<void>,
  ) {}

  /** Adds `changes` to the item `key`; resolves once they are stored. */
  add(key: string, changes: C): Promise<void> {
    let entry = this.waiting.get(key);
    if (entry === undefined) {
      entry = { changes: this.empty(), settle: [] };
      this.waiting.set(key, entry);
    }
    this.merge(entry.changes, changes);
    const settle = entry.settle;
    const stored = new Promise<void>((resolve, reject) =>
      settle.push((error) => (error === undefined ? resolve() : reject(error))),
    );
    if (!this.inFlight.has(key)) void this.drain(key);
    return stored;
  }

  private async drain(key: string): Promise<void> {
    this.inFlight.add(key);
    try {
      for (let entry = this.waiting.get(key); entry !== undefined; entry = this.waiting.get(key)) {
        this.waiting.delete(key);
        let failure: unknown;
        try {
          await this.send(key, entry.changes);
        } catch (error) {
          failure = error ?? new Error('the grouped update failed');
        }
        for (const settle of entry.settle) settle(failure);
      }
    } finally {
      this.inFlight.delete(key);
    }
  }
}
