// Exercises: a class extending an npm class and implementing an interface
// of its index module, a default import (retry's Backoff) and a named one,
// a namespace import, npm packages (default, named, scoped subpath), type
// imports from '.', private, #private and protected members, a static
// method, constructor parameter properties, arrow-function consts
// (exported and not), this calls, generics, JSDoc.
import Backoff, { jitter } from '../retry';
import * as shapes from '../shapes';
import { EventEmitter } from 'events';
import pino from 'pino';
import { trace } from '@otel/api/trace';
import type { Transport, Address } from '.';
import { NetError, DEFAULT_PORT } from './index';

const log = pino();

/** Options of a Client. */
export interface ClientOptions {
  timeout?: number;
  backoff?: Backoff;
}

/**
 * A client of one server.
 *
 * It retries with exponential backoff.
 */
export class Client extends EventEmitter implements Transport {
  readonly name = 'client';
  #attempts = 0;
  private backoff: Backoff;

  constructor(private readonly addr: Address, options: ClientOptions = {}) {
    super();
    this.backoff = options.backoff ?? Backoff.standard();
  }

  /** Connects, retrying with backoff. */
  async connect(): Promise<void> {
    for (let i = 0; i < 5; i++) {
      const sent = await this.send(new Uint8Array([1]));
      if (sent > 0) {
        this.emit('connected', shapes.point(i, DEFAULT_PORT));
        return;
      }
      await sleep(jitter(this.backoff.next(i)));
    }
    throw new Error(String(NetError.Timeout));
  }

  async send(data: Uint8Array): Promise<number> {
    this.#attempts++;
    return trace(() => data.length);
  }

  close(): void {
    log.info('closed');
  }

  protected reset(): void {
    this.#attempts = 0;
  }

  static parse(addr: string): Client {
    return new Client(addr as Address);
  }
}

/** Waits ms milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const clamp = (n: number, max: number) => Math.min(n, max);

export function connectAll(addrs: string[]): Client[] {
  return addrs.map((a) => Client.parse(a)).filter(() => clamp(1, 2) > 0);
}
