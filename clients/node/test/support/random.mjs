// A small seeded generator for the property tests, so a failing case is replayed from its seed.

/** mulberry32 from `seed`: `next()` in [0, 1), `next.int(n)`, `next.pick(list)`, `next.bytes(n)`. */
export function random(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  next.int = (n) => Math.floor(next() * n);
  next.pick = (list) => list[next.int(list.length)];
  next.bytes = (n) => Buffer.from(Array.from({ length: n }, () => next.int(256)));
  return next;
}
