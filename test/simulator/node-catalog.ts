// The node classes the simulator can "install", in the exact /object_info shape that ComfyUI 0.3.64
// answers (see test/fixtures/comfyui-recorded/object_info_*.json). Model-backed nodes (checkpoints, LoRAs)
// take their combo lists from the instance's `models` option, so validation and /object_info agree.

/** An input spec as ComfyUI serialises it: `[type]` or `[type, options]`; a combo's type is a list. */
export type InputSpec = [string | string[]] | [string | string[], Record<string, unknown>];

export interface NodeInfo {
  input: { required: Record<string, InputSpec>; optional?: Record<string, InputSpec>; hidden?: Record<string, string> };
  input_order: { required: string[]; optional?: string[]; hidden?: string[] };
  output: string[];
  output_is_list: boolean[];
  output_name: string[];
  name: string;
  display_name: string | null;
  description: string;
  python_module: string;
  category: string;
  output_node: boolean;
  [extra: string]: unknown;
}

/** How a class behaves when executed; not part of the wire format. */
export interface NodeTraits {
  /** Sends `progress` ticks (one per step) and checks the interrupt flag on each. */
  sampler?: boolean;
  /** Writes images: 'output' for SaveImage, 'temp' for PreviewImage. */
  saves?: 'output' | 'temp';
  /** Writes the whole batch as one animated WebP (SaveAnimatedWEBP) instead of a PNG per image. */
  animated?: boolean;
  /** Holds a checkpoint (its input name), so VRAM and model-load time apply. */
  checkpointInput?: string;
  /** ComfyUI skips combo checks for inputs a node validates itself (LoadImage's file check). */
  customValidated?: string[];
}

export interface NodeClass {
  info: NodeInfo;
  traits: NodeTraits;
}

export const DEFAULT_SAMPLERS = [
  'euler',
  'euler_cfg_pp',
  'euler_ancestral',
  'euler_ancestral_cfg_pp',
  'heun',
  'heunpp2',
  'dpm_2',
  'dpm_2_ancestral',
  'lms',
  'dpm_fast',
  'dpm_adaptive',
  'dpmpp_2s_ancestral',
  'dpmpp_sde',
  'dpmpp_2m',
  'dpmpp_2m_sde',
  'dpmpp_3m_sde',
  'ddpm',
  'lcm',
  'ipndm',
  'deis',
  'ddim',
  'uni_pc',
  'uni_pc_bh2',
];
export const DEFAULT_SCHEDULERS = [
  'simple',
  'sgm_uniform',
  'karras',
  'exponential',
  'ddim_uniform',
  'beta',
  'normal',
  'linear_quadratic',
  'kl_optimal',
];

export const DEFAULT_NODE_CLASSES = [
  'EmptyImage',
  'ImageInvert',
  'ImageBlur',
  'ImageScale',
  'ImageToMask',
  'MaskToImage',
  'SaveImage',
  'PreviewImage',
  'CheckpointLoaderSimple',
  'KSampler',
  'CLIPTextEncode',
  'VAEDecode',
  'VAEEncode',
  'EmptyLatentImage',
  'LoadImage',
  'LoraLoader',
  // Stable Video Diffusion image-to-video (resources/templates/motion-i2v.json).
  'ImageOnlyCheckpointLoader',
  'SVD_img2vid_Conditioning',
  'VideoLinearCFGGuidance',
  'SaveAnimatedWEBP',
];

const INT_SIZE = { default: 512, min: 1, max: 16384, step: 1 };
const VIDEO_MODULE = 'comfy_extras.nodes_video_model';

function node(
  name: string,
  required: Record<string, InputSpec>,
  output: string[],
  meta: {
    display: string | null;
    category: string;
    module?: string;
    description?: string;
    outputNode?: boolean;
    hidden?: boolean;
    outputNames?: string[];
    extra?: Record<string, unknown>;
  },
): NodeInfo {
  const info: NodeInfo = {
    input: { required },
    input_order: { required: Object.keys(required) },
    output,
    output_is_list: output.map(() => false),
    output_name: meta.outputNames ?? output,
    name,
    display_name: meta.display,
    description: meta.description ?? '',
    python_module: meta.module ?? 'nodes',
    category: meta.category,
    output_node: meta.outputNode ?? false,
  };
  if (meta.hidden) {
    info.input.hidden = { prompt: 'PROMPT', extra_pnginfo: 'EXTRA_PNGINFO' };
    info.input_order.hidden = ['prompt', 'extra_pnginfo'];
  }
  return Object.assign(info, meta.extra ?? {});
}

/** Builds the installed classes; unknown names in `names` are ignored (they cannot be simulated). */
export function buildCatalog(
  names: string[],
  models: Record<string, string[]>,
  inputFiles: () => string[],
): Map<string, NodeClass> {
  const ckpts = models['checkpoints'] ?? [];
  const loras = models['loras'] ?? [];
  const all: Record<string, () => NodeClass> = {
    EmptyImage: () => ({
      traits: {},
      info: node(
        'EmptyImage',
        {
          width: ['INT', { ...INT_SIZE }],
          height: ['INT', { ...INT_SIZE }],
          batch_size: ['INT', { default: 1, min: 1, max: 4096 }],
          color: ['INT', { default: 0, min: 0, max: 16777215, step: 1, display: 'color' }],
        },
        ['IMAGE'],
        { display: 'EmptyImage', category: 'image' },
      ),
    }),
    ImageInvert: () => ({
      traits: {},
      info: node('ImageInvert', { image: ['IMAGE'] }, ['IMAGE'], { display: 'Invert Image', category: 'image' }),
    }),
    ImageBlur: () => ({
      traits: {},
      info: node(
        'ImageBlur',
        {
          image: ['IMAGE', {}],
          blur_radius: ['INT', { default: 1, min: 1, max: 31, step: 1 }],
          sigma: ['FLOAT', { default: 1.0, min: 0.1, max: 10.0, step: 0.1 }],
        },
        ['IMAGE'],
        {
          display: null,
          category: 'image/postprocessing',
          module: 'comfy_extras.nodes_post_processing',
          // A V3-API node in 0.3.64: these extra keys are what the recording shows.
          extra: { output_tooltips: [null], deprecated: false, experimental: false, api_node: false },
        },
      ),
    }),
    ImageScale: () => ({
      traits: {},
      info: node(
        'ImageScale',
        {
          image: ['IMAGE'],
          upscale_method: [['nearest-exact', 'bilinear', 'area', 'bicubic', 'lanczos']],
          width: ['INT', { default: 512, min: 0, max: 16384, step: 1 }],
          height: ['INT', { default: 512, min: 0, max: 16384, step: 1 }],
          crop: [['disabled', 'center']],
        },
        ['IMAGE'],
        { display: 'Upscale Image', category: 'image/upscaling' },
      ),
    }),
    ImageToMask: () => ({
      traits: {},
      info: node('ImageToMask', { image: ['IMAGE'], channel: [['red', 'green', 'blue', 'alpha']] }, ['MASK'], {
        display: 'Convert Image to Mask',
        category: 'mask',
        module: 'comfy_extras.nodes_mask',
      }),
    }),
    MaskToImage: () => ({
      traits: {},
      info: node('MaskToImage', { mask: ['MASK'] }, ['IMAGE'], {
        display: 'Convert Mask to Image',
        category: 'mask',
        module: 'comfy_extras.nodes_mask',
      }),
    }),
    SaveImage: () => ({
      traits: { saves: 'output' },
      info: node(
        'SaveImage',
        {
          images: ['IMAGE', { tooltip: 'The images to save.' }],
          filename_prefix: [
            'STRING',
            {
              default: 'ComfyUI',
              tooltip:
                'The prefix for the file to save. This may include formatting information such as %date:yyyy-MM-dd% or %Empty Latent Image.width% to include values from nodes.',
            },
          ],
        },
        [],
        {
          display: 'Save Image',
          category: 'image',
          outputNode: true,
          hidden: true,
          description: 'Saves the input images to your ComfyUI output directory.',
        },
      ),
    }),
    PreviewImage: () => ({
      traits: { saves: 'temp' },
      info: node('PreviewImage', { images: ['IMAGE'] }, [], {
        display: 'Preview Image',
        category: 'image',
        outputNode: true,
        hidden: true,
        description: 'Saves the input images to your ComfyUI output directory.',
      }),
    }),
    CheckpointLoaderSimple: () => ({
      traits: { checkpointInput: 'ckpt_name' },
      info: node(
        'CheckpointLoaderSimple',
        {
          ckpt_name: [ckpts, { tooltip: 'The name of the checkpoint (model) to load.' }],
        },
        ['MODEL', 'CLIP', 'VAE'],
        {
          display: 'Load Checkpoint',
          category: 'loaders',
          description: 'Loads a diffusion model checkpoint, diffusion models are used to denoise latents.',
          extra: {
            output_tooltips: [
              'The model used for denoising latents.',
              'The CLIP model used for encoding text prompts.',
              'The VAE model used for encoding and decoding images to and from latent space.',
            ],
          },
        },
      ),
    }),
    KSampler: () => ({
      traits: { sampler: true },
      info: node(
        'KSampler',
        {
          model: ['MODEL', { tooltip: 'The model used for denoising the input latent.' }],
          seed: [
            'INT',
            {
              default: 0,
              min: 0,
              // biome-ignore lint/correctness/noPrecisionLoss: ComfyUI's own maximum (2^64 - 1) as its /object_info sends it; JSON loses the same precision.
              max: 18446744073709551615,
              control_after_generate: true,
              tooltip: 'The random seed used for creating the noise.',
            },
          ],
          steps: [
            'INT',
            { default: 20, min: 1, max: 10000, tooltip: 'The number of steps used in the denoising process.' },
          ],
          cfg: ['FLOAT', { default: 8.0, min: 0.0, max: 100.0, step: 0.1, round: 0.01 }],
          sampler_name: [DEFAULT_SAMPLERS, {}],
          scheduler: [DEFAULT_SCHEDULERS, {}],
          positive: ['CONDITIONING'],
          negative: ['CONDITIONING'],
          latent_image: ['LATENT'],
          denoise: ['FLOAT', { default: 1.0, min: 0.0, max: 1.0, step: 0.01 }],
        },
        ['LATENT'],
        {
          display: 'KSampler',
          category: 'sampling',
          description: 'Uses the provided model, positive and negative conditioning to denoise the latent image.',
        },
      ),
    }),
    CLIPTextEncode: () => ({
      traits: {},
      info: node(
        'CLIPTextEncode',
        {
          text: ['STRING', { multiline: true, dynamicPrompts: true }],
          clip: ['CLIP'],
        },
        ['CONDITIONING'],
        { display: 'CLIP Text Encode (Prompt)', category: 'conditioning' },
      ),
    }),
    VAEDecode: () => ({
      traits: {},
      info: node('VAEDecode', { samples: ['LATENT'], vae: ['VAE'] }, ['IMAGE'], {
        display: 'VAE Decode',
        category: 'latent',
      }),
    }),
    VAEEncode: () => ({
      traits: {},
      info: node('VAEEncode', { pixels: ['IMAGE'], vae: ['VAE'] }, ['LATENT'], {
        display: 'VAE Encode',
        category: 'latent',
      }),
    }),
    EmptyLatentImage: () => ({
      traits: {},
      info: node(
        'EmptyLatentImage',
        {
          width: ['INT', { default: 512, min: 16, max: 16384, step: 8 }],
          height: ['INT', { default: 512, min: 16, max: 16384, step: 8 }],
          batch_size: ['INT', { default: 1, min: 1, max: 4096 }],
        },
        ['LATENT'],
        { display: 'Empty Latent Image', category: 'latent' },
      ),
    }),
    // ComfyUI lists the input folder each time INPUT_TYPES is read: a getter keeps that live while
    // the rest of the catalog is built once.
    LoadImage: () => ({
      traits: { customValidated: ['image'] },
      get info() {
        return node(
          'LoadImage',
          {
            image: [inputFiles(), { image_upload: true }],
          },
          ['IMAGE', 'MASK'],
          { display: 'Load Image', category: 'image' },
        );
      },
    }),
    LoraLoader: () => ({
      traits: {},
      info: node(
        'LoraLoader',
        {
          model: ['MODEL'],
          clip: ['CLIP'],
          lora_name: [loras, {}],
          strength_model: ['FLOAT', { default: 1.0, min: -100.0, max: 100.0, step: 0.01 }],
          strength_clip: ['FLOAT', { default: 1.0, min: -100.0, max: 100.0, step: 0.01 }],
        },
        ['MODEL', 'CLIP'],
        { display: 'Load LoRA', category: 'loaders' },
      ),
    }),
    // The SVD classes as 0.3.64 declares them (classic INPUT_TYPES nodes in comfy_extras/nodes_video_model.py
    // and nodes_images.py: no display-name mapping except the loader's, so display_name is the class name).
    ImageOnlyCheckpointLoader: () => ({
      traits: { checkpointInput: 'ckpt_name' },
      info: node(
        'ImageOnlyCheckpointLoader',
        {
          ckpt_name: [ckpts],
        },
        ['MODEL', 'CLIP_VISION', 'VAE'],
        {
          display: 'Image Only Checkpoint Loader (img2vid model)',
          category: 'loaders/video_models',
          module: VIDEO_MODULE,
        },
      ),
    }),
    SVD_img2vid_Conditioning: () => ({
      traits: {},
      info: node(
        'SVD_img2vid_Conditioning',
        {
          clip_vision: ['CLIP_VISION'],
          init_image: ['IMAGE'],
          vae: ['VAE'],
          width: ['INT', { default: 1024, min: 16, max: 16384, step: 8 }],
          height: ['INT', { default: 576, min: 16, max: 16384, step: 8 }],
          video_frames: ['INT', { default: 14, min: 1, max: 4096 }],
          motion_bucket_id: ['INT', { default: 127, min: 1, max: 1023 }],
          fps: ['INT', { default: 6, min: 1, max: 1024 }],
          augmentation_level: ['FLOAT', { default: 0.0, min: 0.0, max: 10.0, step: 0.01 }],
        },
        ['CONDITIONING', 'CONDITIONING', 'LATENT'],
        {
          display: 'SVD_img2vid_Conditioning',
          category: 'conditioning/video_models',
          module: VIDEO_MODULE,
          outputNames: ['positive', 'negative', 'latent'],
        },
      ),
    }),
    VideoLinearCFGGuidance: () => ({
      traits: {},
      info: node(
        'VideoLinearCFGGuidance',
        {
          model: ['MODEL'],
          min_cfg: ['FLOAT', { default: 1.0, min: 0.0, max: 100.0, step: 0.5, round: 0.01 }],
        },
        ['MODEL'],
        { display: 'VideoLinearCFGGuidance', category: 'sampling/video_models', module: VIDEO_MODULE },
      ),
    }),
    SaveAnimatedWEBP: () => ({
      traits: { saves: 'output', animated: true },
      info: node(
        'SaveAnimatedWEBP',
        {
          images: ['IMAGE'],
          filename_prefix: ['STRING', { default: 'ComfyUI' }],
          fps: ['FLOAT', { default: 6.0, min: 0.01, max: 1000.0, step: 0.01 }],
          lossless: ['BOOLEAN', { default: true }],
          quality: ['INT', { default: 80, min: 0, max: 100 }],
          method: [['default', 'fastest', 'slowest']],
        },
        [],
        {
          display: 'SaveAnimatedWEBP',
          category: 'image/animation',
          module: 'comfy_extras.nodes_images',
          outputNode: true,
          hidden: true,
        },
      ),
    }),
  };
  const out = new Map<string, NodeClass>();
  for (const n of names) {
    const make = all[n];
    if (make) out.set(n, make());
  }
  return out;
}

/** The `[type, options]` pair the validator reports as `input_config` (options default to `{}`). */
export function inputConfig(spec: InputSpec): [string | string[], Record<string, unknown>] {
  return [spec[0], spec[1] ?? {}];
}
