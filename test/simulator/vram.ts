// A small VRAM model that keeps the identities of comfyui-protocol.md §7 true:
//   torch_vram_total = PyTorch reserved, torch_vram_free = reserved − active,
//   vram_free = driver free + torch_vram_free,
//   not usable = vram_total − vram_free − torch_vram_total + torch_vram_free = other processes + CUDA context.
// A loaded checkpoint is PyTorch "active" memory; sampling adds activations while it runs.

const GB = 1024 ** 3;
/** CUDA context and library workspaces of the ComfyUI process itself (outside PyTorch's pool). */
export const CONTEXT_GB = 0.4;
/** Weights of one loaded checkpoint (an SDXL-sized model). */
export const CHECKPOINT_GB = 6.5;
/** Activations while a sampler runs at 1024². */
export const ACTIVATION_GB = 2.0;
/** Free headroom ComfyUI keeps (`--reserve-vram`, Linux default). */
export const RESERVE_GB = 0.4;

export class VramModel {
  loadedCkpt: string | null = null;
  sampling = false;
  /** PyTorch keeps freed blocks reserved until `empty_cache()` (called by /free unload_models). */
  private reservedGb = 0;

  constructor(
    readonly totalGb: number,
    public otherGb: number,
  ) {}

  private activeGb(): number {
    return (this.loadedCkpt ? CHECKPOINT_GB : 0) + (this.sampling ? ACTIVATION_GB : 0);
  }

  private touch(): void {
    this.reservedGb = Math.max(this.reservedGb, this.activeGb());
  }

  load(ckpt: string): void {
    this.loadedCkpt = ckpt;
    this.touch();
  }
  startSampling(): void {
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

  /** Would loading/sampling with this checkpoint exceed the device? (the OOM the sampler would hit) */
  wouldOom(): boolean {
    const need = this.otherGb + CONTEXT_GB + CHECKPOINT_GB + ACTIVATION_GB + RESERVE_GB;
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
