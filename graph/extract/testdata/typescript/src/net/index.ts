// Exercises: an index module (key "src/net"), interfaces with method
// signatures, one extending another, an enum, a template literal type
// alias, exported and module-private consts.

/** Anything that carries bytes. */
export interface Transport extends Closer {
  send(data: Uint8Array): Promise<number>;
  readonly name: string;
}

/** Something that can be closed. */
export interface Closer {
  close(): void;
}

/** How a connection ended. */
export enum NetError {
  Timeout = 1,
  Refused,
}

export type Address = `${string}:${number}`;

export const DEFAULT_PORT = 7000;
const registry = new Map<string, Transport>();
