import { describe, expect, it } from 'vitest';

import { handThrough } from './hand-through.js';

class Base {
  shared(): string {
    return 'base default';
  }
}

class Inner extends Base {
  state = { n: 1 };
  arrow = (x: number) => x * 2;
  private level = 0;
  override shared(): string {
    return 'inner';
  }
  added(a: number, b: number): number {
    return a + b + this.level;
  }
  get depth(): number {
    return this.level;
  }
  set depth(value: number) {
    this.level = value;
  }
  kept(): string {
    return 'inner kept';
  }
  withheld(): string {
    return 'inner lease';
  }
}

class Outer extends Base {
  constructor(readonly inner: Inner) {
    super();
    handThrough(this, inner, Base.prototype, ['withheld']);
  }
  kept(): string {
    return 'outer kept';
  }
}

describe('handThrough', () => {
  it('hands through methods and accessors the outer class does not define, the base class’s defaults included', () => {
    const inner = new Inner();
    const outer = new Outer(inner) as Outer & Partial<Inner>;
    expect(outer.added!(1, 2)).toBe(3);
    expect(outer.arrow!(4)).toBe(8);
    // The base class gives `shared` a default; the inner's own answer wins.
    expect(outer.shared()).toBe('inner');
    outer.depth = 5;
    expect(inner.depth).toBe(5);
    expect(outer.depth).toBe(5);
    expect(outer.added!(1, 2)).toBe(8);
  });

  it('keeps what the outer class defines, what it withholds, and the inner’s state to itself', () => {
    const outer = new Outer(new Inner()) as Outer & Partial<Inner>;
    expect(outer.kept()).toBe('outer kept');
    expect('withheld' in outer).toBe(false);
    expect('state' in outer).toBe(false);
  });

  it('reaches the inner at call time: a method the inner replaces later is the one called', () => {
    const inner = new Inner();
    const outer = new Outer(inner) as Outer & Partial<Inner>;
    inner.added = () => 42;
    expect(outer.added!(1, 2)).toBe(42);
  });
});
