import type { ChatRequest } from '../canonical/chat-request.js';
import type { NativeRequest, UpstreamTarget, WireFormat } from '../providers/index.js';
import type { AppliedCompression } from './apply-compression.js';
import type { GatewayError } from './errors.js';
import type { StoredContext } from './unseen-prompt.js';

/**
 * What a surface offers admission when the client's body may go upstream as it was sent: plain
 * data, read by admission, never called back. Admission passes it through when the model's
 * first target accepts `format` natively (its adapter says so) and no gateway tools or pending
 * turn need the canonical shape.
 */
export interface NativeOffer {
  format: WireFormat;
  /** The client's body, as the compression engine reads it in this format. */
  body: Record<string, unknown>;
  /**
   * Undefined when the canonical request carries everything the body holds; else the error the
   * translated path answers. Such a request goes native or is refused, and a native failure is final.
   */
  untranslatable: GatewayError | undefined;
  /** Members of the body the canonical estimate already counts (the prompt's text and the tools). */
  counted: ReadonlySet<string>;
  /** What the body makes the provider bill beyond what it carries; read for a key with a ceiling only. */
  storedContext: (body: Record<string, unknown>) => StoredContext[];
  /** The body's member that carries the output cap of a key with a ceiling (`max_tokens`, `max_output_tokens`). */
  outputCapMember: string;
  /** The format's request headers as the client sent them, forwarded to a native upstream. */
  wireHeaders?: Readonly<Record<string, string | undefined>> | undefined;
  /** The debug member that says which path served the request (`messages_path`, `responses_path`). */
  debugMember: string;
}

/** The debug member naming the path a request took, when it had a native offer. */
export interface ServedPath {
  readonly member: string;
  readonly value: 'native' | 'translated_fallback';
}

/**
 * How an admitted request is answered, decided once and never edited: the targets it goes to,
 * the body they get, and what compression did to that body. A native failure that falls back
 * builds a new translated plan for the remaining targets (`translatedFallback`).
 */
export type Plan = TranslatedPlan | NativePlan;

/** The canonical request (compressed, gateway tools injected, output cap set) to every target, translated by its adapter. */
export interface TranslatedPlan {
  readonly native: undefined;
  readonly targets: readonly UpstreamTarget[];
  readonly body: ChatRequest;
  readonly compression: AppliedCompression | undefined;
  readonly path: ServedPath | undefined;
}

/** The client's own body (compressed in its own form, output cap set) to the leading targets that accept its format. */
export interface NativePlan {
  readonly native: NativeRequest;
  readonly targets: readonly UpstreamTarget[];
  /** The canonical request as admitted, uncompressed: what a translated fallback compresses and sends. */
  readonly body: ChatRequest;
  readonly compression: AppliedCompression | undefined;
  readonly path: ServedPath;
  /** The targets a translated plan takes over when every native one failed; empty when the body is not translatable. */
  readonly fallback: readonly UpstreamTarget[];
}
