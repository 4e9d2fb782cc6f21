// Types for the tests, which check that this script and electron/main/paths.ts agree on the path.
export declare const BINDING_FILE: string;
export declare function nativeBindingDir(root: string, electronVersion: string, platform?: string, arch?: string): string;
export declare function nativeBindingFile(root: string, electronVersion: string, platform?: string, arch?: string): string;
export type NativeBuildResult = { ok: true; file: string } | { ok: false; reasons: string[]; log: string | null; target: string };
export interface NativeBuildOptions {
  platform?: string;
  arch?: string;
  log?: (message: string) => void;
}
export declare function buildNativeBinding(root: string, electronVersion: string, o?: NativeBuildOptions): NativeBuildResult;
export declare function buildFailure(root: string, electronVersion: string, result: NativeBuildResult & { ok: false }): string;
export declare function reasonOf(output: string): string;
