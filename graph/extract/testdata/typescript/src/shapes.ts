// Exercises: a namespace with an exported function, an object type
// alias, an overloaded function (kept once), a namespace-qualified call.

export namespace Geometry {
  export function area(w: number, h: number): number {
    return w * h;
  }
}

export type Point = { x: number; y: number };

export function point(x: number, y: number): Point;
export function point(x: number, y: number): Point {
  Geometry.area(x, y);
  return { x, y };
}
