/**
 * The fixed costs of the chat wire format, from OpenAI's published recipe for counting chat
 * tokens (openai-cookbook, "How to count tokens with tiktoken"): exact for plain-text messages
 * on GPT-3.5/4/4o. The rest are documented estimates (docs/tokenizers.md), chosen to err high.
 */

/** `<|start|>{role}<|message|>…<|end|>` framing around every message. */
export const TOKENS_PER_MESSAGE = 3;
/** A `name` on a message costs one token beyond its text. */
export const TOKENS_PER_NAME = 1;
/** Every reply is primed with `<|start|>assistant<|message|>`. */
export const REPLY_PRIMING_TOKENS = 3;

/** Framing of one tool call (name + arguments are counted as text); community-measured. */
export const TOKENS_PER_TOOL_CALL = 3;
/** Framing of the tool-definition block, on top of its rendered text; community-measured. */
export const TOOL_DEFINITIONS_OVERHEAD = 9;

/** OpenAI image at `detail: low`: a fixed 85 tokens whatever its size. */
export const IMAGE_TOKENS_LOW_DETAIL = 85;
/**
 * OpenAI image at `high`/`auto`, size unknown (we never fetch or decode it): priced as a
 * 1024×1024 image, 85 + 170 per 512-px tile × 4 tiles.
 */
export const IMAGE_TOKENS_DEFAULT = 765;
/** Anthropic image, size unknown: its documented ceiling (~1.15 MP / 750 px per token). */
export const IMAGE_TOKENS_MESSAGES_STYLE = 1600;
