// Exercises: CommonJS: require of a relative module (destructured and
// whole), of a node: builtin and of an npm package; exports.f = function;
// exports.g = g marking a declaration public; a private helper.
'use strict';
const { add } = require('./math.mjs');
const path = require('node:path');
const clean = require('./util');
const lodash = require('lodash');

const ROOT = '/srv';

/** Joins parts under the root. */
exports.resolve = function resolve(...parts) {
  return path.join(ROOT, ...parts.map(normalize));
};

function normalize(p) {
  return lodash.trim(clean(p));
}

function total(xs) {
  return xs.reduce((a, b) => add(a, b), 0);
}

exports.total = total;
