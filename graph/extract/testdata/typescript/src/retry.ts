// Exercises: a default-exported class (key "src/retry.default", name
// Backoff), a static factory, an exported function calling a private one.

/** Doubles a delay up to a cap. */
export default class Backoff {
  constructor(
    private initial = 100,
    private cap = 10_000,
  ) {}

  static standard(): Backoff {
    return new Backoff();
  }

  next(attempt: number): number {
    return Math.min(this.initial * 2 ** attempt, this.cap);
  }
}

/** Spreads a delay by ±25%. */
export function jitter(ms: number): number {
  return ms * spread();
}

function spread(): number {
  return 0.75 + Math.random() / 2;
}
