// Public API of the ComfyUI client. Everything else in this folder is internal.
export { ComfyClient } from './client.js';
export type { ComfyClientOptions, CallOptions, PostPromptInput, ViewFile, UploadOptions } from './client.js';

export { ComfyRequestError, settle, describeFailure, failureFromError } from './observation.js';
export type { ComfyFailure, ComfyFailureKind, ComfyResult } from './observation.js';

export { missingNodeClassType, outputFiles, compareQueueItems } from './responses.js';
export type {
  PostPromptResult,
  PromptError,
  NodeErrors,
  QueueItem,
  QueueSnapshot,
  HistoryEntry,
  OutputFileRef,
} from './responses.js';

export type {
  NodeError,
  ValidationErrorItem,
  SystemStats,
  DeviceStats,
  NodeInfo,
  ObjectInfo,
  Features,
  UploadedImage,
} from './schemas.js';

export { PromptFollower, followPrompt, clientIdForAttempt } from './ws-follower.js';
export type { FollowerOptions } from './ws-follower.js';
export { parseWsFrame, parseWsText } from './ws-events.js';
export type { FollowEvent, ComfyEvent, ComfyWsMessage, EventContext } from './ws-events.js';
export { decodeBinaryFrame } from './binary-frames.js';
export type { BinaryFrame, PreviewFormat, PreviewMetadata } from './binary-frames.js';
export { fullJitterDelay } from './backoff.js';
export type { BackoffPolicy } from './backoff.js';

export { vramBreakdown, deviceBreakdown, gpuNameFromDevice } from './vram.js';
export type { VramBreakdown } from './vram.js';
export { comboValues, decodeInputSpec, checkWorkflowAgainstObjectInfo } from './capabilities.js';
export type { InputSpec, WorkflowProblem, CheckOptions } from './capabilities.js';
