// Package llm sends prompt packs to a language model server and records
// what comes back (design §14, `ctx llm`).
//
// Its nouns:
//
//   - A Prompt is a pack composed into text (§14.2): named Sections in a
//     fixed order, the stable ones first — the system prefix, the task,
//     the retrieved context, the recent notes, the response instruction —
//     so that two prompts about the same store share a long prefix and a
//     server's prompt cache stays warm. Compose builds one from a JSON
//     pack, ComposeText from any other text; both are deterministic.
//   - An API is a server protocol: llama.cpp's native POST /completion, or
//     the OpenAI-compatible POST /v1/chat/completions (llama.cpp, Ollama,
//     vLLM, hosted APIs). Complete sends a prompt with Options and returns
//     a Response (text, Usage with cached and new prompt tokens when the
//     server reports them, Timings), streaming text to a callback as it
//     arrives. A request the server refused before reading it (connection
//     refused, 429, 503) is retried with backoff; every other failure is
//     an *Error wrapping one of the package's sentinels, and nothing is
//     retried that the server may have acted on.
//   - A Decoder reads a text/event-stream (server-sent events), the
//     streaming format of both APIs.
//   - The Cache is the local prefix-cache state (§14.4,
//     .ctx/local/llm-cache): per server and slot, the hashes and token
//     estimates of the last prompt's prefixes at each section boundary.
//     Ask picks the llama.cpp slot whose last prompt shares the longest
//     prefix with the new one, so that the server continues from its KV
//     cache, and records the new prompt afterwards.
//   - An Observation is what a response holds (§14.3): its fenced code
//     blocks, its decision-like statements and the project paths and
//     symbols it mentions, resolved through the index (Mentions). Observe
//     builds one; it also redacts secrets from the text that would be
//     stored, and computes the blob id that text has.
//   - Record writes an observation to the store under the writer lock: a
//     note (an observation node), the response blob, an edge batch (the
//     note derived_from the commit the context came from, and mentions
//     of each path and symbol, evidence tool llm), a summary line in
//     today's log, and one step: a commit, or a step of the active
//     staging session. On failure it takes back what it wrote.
//
// Library code here never reads the wall clock (Options.Clock) or the
// process environment (the caller passes the API key's value).
package llm
