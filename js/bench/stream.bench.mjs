// Decode + assemble of the 1,000-message Agent API corpus: the JavaScript anchors of
// ../shared/bench/anchors.mjs and agentwire's AgentStreamDecoder on the same chunks, in this process.
import { mbPerSec, timeInterleaved } from "./harness.mjs";

/** agentwire's result in the shape `checkMessages` reads (what the anchors' assembler builds). */
function messages(response) {
  return response.output.map((m) => ({
    id: m.id,
    type: m.type,
    role: m.role,
    status: m.status,
    content: m.content.map((c) => (c.type === "text" ? { type: "text", text: c.text } : { type: c.type, data: c.data })),
  }));
}

/**
 * Feeds every chunk to a decoder, then reads the response. A consumer of the updates reads each
 * one (here: the length of the text deltas), as a UI rendering them would, and takes the final
 * response from the `done` update (as `AgentClient`'s `response` does); with `updates: false` it
 * asks the decoder for it.
 */
export function decode(AgentStreamDecoder, chunks, options) {
  const decoder = new AgentStreamDecoder(options);
  try {
    let text = 0;
    let done;
    const consume = (updates) => {
      for (const u of updates) {
        if (u.type === "textDelta") text += u.delta.length;
        else if (u.type === "done") done = u.response;
      }
    };
    for (const chunk of chunks) consume(decoder.feed(chunk));
    consume(decoder.finish());
    const result = messages(done ?? decoder.response());
    result.textDeltaChars = text;
    result.fromDone = done !== undefined;
    return result;
  } finally {
    decoder.free();
  }
}

export const agentwireVariants = {
  "agentwire per-event": {},
  "agentwire batch": { batch: true },
  "agentwire final only": { updates: false },
};

export async function run({ agentwire, log, anchors, corpus, runs }) {
  const { splitChunks, pipelines, checkMessages } = anchors;
  const chunks = splitChunks(corpus.bytes);
  let streamedChars = 0;
  for (const m of corpus.expected) if (m.content[0].type === "text") streamedChars += m.content[0].text.length;
  const contestants = {};
  for (const [name, pipeline] of Object.entries(pipelines)) contestants[name] = () => pipeline(chunks);
  for (const [name, options] of Object.entries(agentwireVariants)) {
    contestants[name] = () => decode(agentwire.AgentStreamDecoder, chunks, options);
  }
  const results = await timeInterleaved(contestants, {
    runs,
    check: (got, name) => {
      checkMessages(got, corpus.expected);
      // The updates carried every piece of text exactly once (the final-only decoder sends none).
      const updates = agentwireVariants[name]?.updates !== false && name in agentwireVariants;
      if (updates && got.textDeltaChars !== streamedChars) {
        throw new Error(`text deltas carried ${got.textDeltaChars} chars, the corpus streams ${streamedChars}`);
      }
      if (updates && !got.fromDone) throw new Error("no done update");
    },
  });
  const anchorNames = Object.keys(pipelines);
  for (const [name, r] of Object.entries(results)) {
    const row = {
      medianMs: r.medianMs,
      mbPerSec: mbPerSec(corpus.bytes.length, r.medianMs),
      eventsPerSec: corpus.events / (r.medianMs / 1e3),
      minMs: r.minMs,
      maxMs: r.maxMs,
      runs: r.runs,
    };
    if (name.startsWith("agentwire")) {
      row.ratios = Object.fromEntries(anchorNames.map((a) => [a, results[a].medianMs / r.medianMs]));
      // On a busy machine the fastest run is the least disturbed one: the ratio of minimums.
      row.minRatios = Object.fromEntries(anchorNames.map((a) => [a, results[a].minMs / r.minMs]));
    }
    log(name, row);
  }
  log("corpus", {
    bytes: corpus.bytes.length,
    events: corpus.events,
    chunks: chunks.length,
    messages: corpus.expected.length,
  });
}
