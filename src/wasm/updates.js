// The Agent API stream updates of one drain, built from their split form (Rust:
// `agentwire::dialect::agent_api::SplitUpdates`, written by `Assembler::drain_updates_split`):
// plain message and content updates and text deltas as numbers in a table, the other updates as
// one JSON text, and every string of the table and the streamed text (the deltas, and the texts
// of `content` and `done` updates) as offsets into one string, so that text is neither escaped in
// wasm nor parsed here. Imported by src/wasm/agent_api.rs (wasm-bindgen copies this file next to
// the glue, under snippets/). Only fixed keys are ever assigned, never one read from the input.

const JSON_ENTRY = 0;
const TEXT_DELTA = 1;
const CONTENT_TEXT = 2;
const PLAIN_MESSAGE = 4;
const PLAIN_CONTENT = 5;
const TWO_32 = 4294967296;

// The texts cross as UTF-16 code units (well formed: written from a Rust `str`), which a string
// is made of without decoding UTF-8. Node's `Buffer` does that about 3x faster than its
// `TextDecoder` (Node 20); browsers have only `TextDecoder`.
const NodeBuffer = globalThis.process?.versions?.node ? globalThis.Buffer : undefined;
const utf16Decoder = new TextDecoder("utf-16le", { ignoreBOM: true });

/** The string of UTF-16 code units `units` (a `Uint16Array`). */
function utf16(units) {
  return NodeBuffer === undefined
    ? utf16Decoder.decode(units)
    : NodeBuffer.from(units.buffer, units.byteOffset, units.byteLength).toString("ucs2");
}

/** Puts a response's texts back: `table` from `i` holds their count, then per text the message's
 * position in `output`, the content's position, the start and end. Returns the index after them. */
function putTexts(response, text, table, i) {
  const end = i + 1 + 4 * table[i];
  for (let j = i + 1; j < end; j += 4) {
    response.output[table[j]].content[table[j + 1]].text = text.substring(table[j + 2], table[j + 3]);
  }
  return end;
}

/**
 * A response from its split form (`Assembler::response_split`): its JSON without the texts of its
 * text contents, and those texts.
 *
 * @param {string} json the response's JSON, without those texts
 * @param {Uint16Array} text the texts, in UTF-16 code units (a view into wasm memory)
 * @param {Uint32Array} table their count, then per text: message position, content position,
 *   start, end (a view into wasm memory)
 * @returns {object} the response (`AgentResponse`)
 */
export function buildResponse(json, text, table) {
  const response = JSON.parse(json);
  putTexts(response, utf16(text), table, 0);
  return response;
}

/**
 * The updates of one drain from their split form (`Assembler::drain_updates_split`).
 *
 * @param {string | undefined} json a JSON array of the updates that are not text deltas, in
 *   order (`undefined`: none)
 * @param {Uint16Array | undefined} text the streamed text and the deltas' message ids, in UTF-16
 *   code units (a view into wasm memory; `undefined`: empty)
 * @param {Uint32Array} table per update: 0 (the next update of `json`); 1 and the message id's
 *   start and end, the content's index, the delta's start and end (a text delta); or 2 and a
 *   start and end (the next update of `json`, whose `content.text` that is); or 3 and a response's
 *   texts (the next update of `json`, a `done`: see `buildResponse`); 4 and a plain message
 *   update, 5 and a plain content update (built here, field by field in serde's order: see
 *   `SplitUpdates::PLAIN_MESSAGE` and `PLAIN_CONTENT` for their numbers). Offsets are indexes into
 *   `text`. A view into wasm memory: read before anything else runs in wasm.
 * @param {object[] | undefined} into an array to append the updates to (a chunk fed in slices)
 * @returns {object[]} the updates (`StreamUpdate[]`): `into`, or a new array
 */
export function buildStreamUpdates(json, text, table, into) {
  const others = json === undefined ? [] : JSON.parse(json);
  text = text === undefined ? "" : utf16(text);
  if (table.length === others.length) {
    // No text: one entry per update (every text entry makes the table longer than `others`).
    if (into === undefined) return others;
    for (const u of others) into.push(u);
    return into;
  }
  const updates = into ?? [];
  let next = 0;
  let idStart = -1;
  let msgId = "";
  for (let i = 0; i < table.length; ) {
    const kind = table[i];
    if (kind === JSON_ENTRY) {
      updates.push(others[next++]);
      i += 1;
    } else if (kind === TEXT_DELTA) {
      // A message id is written once per run of deltas: the same offsets, the same string.
      if (table[i + 1] !== idStart) {
        idStart = table[i + 1];
        msgId = text.substring(idStart, table[i + 2]);
      }
      updates.push({ type: "textDelta", msgId, index: table[i + 3], delta: text.substring(table[i + 4], table[i + 5]) });
      i += 6;
    } else if (kind === PLAIN_MESSAGE) {
      const f = table[i + 1];
      const message = { object: "message" };
      if (f & 1) message.id = text.substring(table[i + 2], table[i + 3]);
      message.type = text.substring(table[i + 4], table[i + 5]);
      if (f & 2) message.status = text.substring(table[i + 6], table[i + 7]);
      if (f & 4) message.role = text.substring(table[i + 8], table[i + 9]);
      message.content = [];
      if (f & 8) message.sequence_number = table[i + 10] * TWO_32 + table[i + 11];
      updates.push({ type: "message", message });
      i += 12;
    } else if (kind === PLAIN_CONTENT) {
      const f = table[i + 4];
      const content = { object: "content", type: text.substring(table[i + 5], table[i + 6]) };
      if (f & 1) content.index = table[i + 7];
      if (f & 2) content.delta = table[i + 8] === 1;
      if (f & 4) content.msg_id = text.substring(table[i + 9], table[i + 10]);
      if (f & 8) content.status = text.substring(table[i + 11], table[i + 12]);
      if (f & 16) content.sequence_number = table[i + 13] * TWO_32 + table[i + 14];
      if (f & 32) content.text = text.substring(table[i + 15], table[i + 16]);
      updates.push({ type: "content", msgId: text.substring(table[i + 1], table[i + 2]), index: table[i + 3], content });
      i += 17;
    } else if (kind === CONTENT_TEXT) {
      const u = others[next++];
      u.content.text = text.substring(table[i + 1], table[i + 2]);
      updates.push(u);
      i += 3;
    } else {
      const u = others[next++];
      i = putTexts(u.response, text, table, i + 1);
      updates.push(u);
    }
  }
  return updates;
}
