// The few pieces of the WebAssembly binary format (core spec 5) that the build's scripts read and
// write: LEB128 integers and the module's sections.

/** The unsigned LEB128 integer at `at`: `[value, the offset after it]`. */
export function readLeb(bytes, at) {
  let value = 0;
  let shift = 0;
  for (;;) {
    const byte = bytes[at++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if (byte < 0x80) return [value, at];
  }
}

/** The signed LEB128 integer at `at` (an `i32.const`'s immediate): `[value, the offset after it]`. */
export function readSleb(bytes, at) {
  let value = 0;
  let shift = 0;
  let byte;
  do {
    byte = bytes[at++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  if (byte & 0x40) value -= 2 ** shift;
  return [value, at];
}

/** `value` as unsigned LEB128 bytes. */
export function leb(value) {
  const bytes = [];
  do {
    let byte = value & 0x7f;
    value = Math.floor(value / 128);
    if (value) byte |= 0x80;
    bytes.push(byte);
  } while (value);
  return bytes;
}

/** The module's sections in order: `{ id, at, start, end }` (`at`: the id byte; `start..end`: the contents). */
export function* sections(bytes) {
  let at = 8;
  while (at < bytes.length) {
    const [size, start] = readLeb(bytes, at + 1);
    yield { id: bytes[at], at, start, end: start + size };
    at = start + size;
  }
}
