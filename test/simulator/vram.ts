// A small VRAM model that keeps the identities of comfyui-protocol.md §7 true:
//   torch_vram_total = PyTorch reserved, torch_vram_free = reserved − active,
//   vram_free = driver free + torch_vram_free,
//   not usable = vram_total − vram_free − torch_vram_total + torch_vram_free = other processes + CUDA context.
// A loaded checkpoint is PyTorch "active" memory; sampling adds activations while it runs, released
// at its end. A checkpoint's "true need" (weights + activations at 1024², scaling with width ×
// height × batch × frames) may be set per checkpoint name (`vramNeeds`), apart from what any template
// declares: the farm is to learn it from /system_stats.

const GB = 1024 ** 3;
/** CUDA context and library workspaces of the ComfyUI process itself (outside PyTorch's pool). */
export const CONTEXT_GB = 0.4;
/** Weights of one loaded checkpoint (an SDXL-sized model). */
export const CHECKPOINT_GB = 6.5;
/** Activations while a sampler runs at 1024². */
export const ACTIVATION_GB = 2.0;
/** Free headroom ComfyUI keeps (`--reserve-vram`, Linux default). */
export const RESERVE_GB = 0.4;
/** The size activations are given at: 1024 × 1024, one image, one frame. */
export const REFERENCE_PIXELS = 1024 * 1024;

/** A checkpoint's memory: its weights, and its activations at 1024² (scaled by the prompt's pixels). */
export interface VramNeed {
  modelGb: number;
  activationGb: number;
}

export class VramModel {
  loadedCkpt: string | null = null;
  sampling = false;
  /** Checkpoint loads (a prompt needing a model other than the loaded one): the reloads a farm should avoid. */
  modelLoads = 0;
  /** Activations of the sampler running now (GB). */
  private activationGb = ACTIVATION_GB;
  /** PyTorch keeps freed blocks reserved until `empty_cache()` (called by /free unload_models). */
  private reservedGb = 0;

  constructor(
    readonly totalGb: number,
    public otherGb: number,
    private readonly needs: Readonly<Record<string, VramNeed>> = {},
  ) {}

  /** The checkpoint's true need for a prompt of `pixels` (width × height × batch × frames; 0: unknown, as 1024²). */
  trueNeedGb(ckpt: string | null, pixels: number): number {
    return this.modelGb(ckpt) + this.activationsFor(ckpt, pixels);
  }

  private modelGb(ckpt: string | null): number {
    return ckpt === null ? 0 : (this.needs[ckpt]?.modelGb ?? CHECKPOINT_GB);
  }

  private activationsFor(ckpt: string | null, pixels: number): number {
    const need = ckpt === null ? undefined : this.needs[ckpt];
    // Without a configured need the activations stay the fixed 2 GB older tests were written against.
    if (!need) return ACTIVATION_GB;
    return need.activationGb * (pixels > 0 ? pixels / REFERENCE_PIXELS : 1);
  }

  private activeGb(): number {
    return this.modelGb(this.loadedCkpt) + (this.sampling ? this.activationGb : 0);
  }

  private touch(): void {
    this.reservedGb = Math.max(this.reservedGb, this.activeGb());
  }

  load(ckpt: string): void {
    if (this.loadedCkpt !== ckpt) this.modelLoads++;
    this.loadedCkpt = ckpt;
    this.touch();
  }
  startSampling(pixels = 0): void {
    this.activationGb = this.activationsFor(this.loadedCkpt, pixels);
    this.sampling = true;
    this.touch();
  }
  stopSampling(): void {
    this.sampling = false;
  }

  /** `unload_all_models()` (+ `empty_cache()` when `emptyCache`). */
  unload(emptyCache: boolean): void {
    this.loadedCkpt = null;
    if (emptyCache) this.reservedGb = this.activeGb();
  }

  /** Would sampling with the loaded checkpoint at `pixels` exceed the device? (the OOM the sampler would hit) */
  wouldOom(pixels = 0): boolean {
    const need = this.otherGb + CONTEXT_GB + this.trueNeedGb(this.loadedCkpt, pixels) + RESERVE_GB;
    return need > this.totalGb;
  }

  device(gpuName: string): Record<string, unknown> {
    const total = this.totalGb * GB;
    const reserved = this.reservedGb * GB;
    const active = this.activeGb() * GB;
    const used = (this.otherGb + CONTEXT_GB) * GB + reserved;
    const driverFree = Math.max(0, total - used);
    const torchFree = reserved - active;
    return {
      name: `cuda:0 ${gpuName} : cudaMallocAsync`,
      type: 'cuda',
      index: 0,
      vram_total: Math.round(total),
      vram_free: Math.round(driverFree + torchFree),
      torch_vram_total: Math.round(reserved),
      torch_vram_free: Math.round(torchFree),
    };
  }
}
