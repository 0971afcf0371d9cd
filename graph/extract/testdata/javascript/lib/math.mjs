// Exercises: ES module exports (a function, an arrow-function const, a
// class with a #private method and a getter/setter pair, a generator), an
// object as the default export, JSDoc.

/** Adds two numbers. */
export function add(a, b) {
  return a + b;
}

/** Multiplies. */
export const mul = (a, b) => a * b;

export class Counter {
  #count = 0;
  get value() {
    return this.#count;
  }
  set value(v) {
    this.#count = v;
  }
  #bump() {
    this.#count = add(this.#count, 1);
  }
  tick() {
    this.#bump();
    return this.value;
  }
}

export function* range(n) {
  for (let i = 0; i < n; i++) yield i;
}

export default { add, mul };
