// Exercises: default, named (renamed) and namespace imports of a relative
// module written with its extension, an npm default import, a
// re-export, a dynamic import with a destructured binding, a class
// extending an imported class, module-level code.
import math, { add as plus, Counter } from './math.mjs';
import * as m from './math.mjs';
import express from 'express';
export { range } from './math.mjs';

const app = express();

class Tally extends Counter {
  total() {
    return plus(this.value, m.mul(2, 3)) + math.add(1, 1);
  }
}

app.get('/', async (req, res) => {
  const { format } = await import('./format.js');
  res.send(format(new Tally().total()));
});

app.listen(3000);
