// Exercises: an index module (key "src"), re-exports (named with a type,
// star, a default re-exported under a name, a namespace), a side-effect
// import.
export { Client, type ClientOptions } from './net/client';
export * from './net';
export { default as Backoff } from './retry';
export * as shapes from './shapes';
import './polyfill';
