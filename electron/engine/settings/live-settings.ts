/**
 * The farm settings and state as the running farm sees them. The scheduler and its runners keep
 * one live SchedulerConfig (built here) and read `config.x` at each decision; this module writes
 * the stored settings into it in place. It re-reads them when this process changed one (`reload`,
 * called by the handlers) and when another process did: at every probe interval it compares the
 * farm's few `settings` rows with what it last applied — one small indexed read — so a CLI `settings
 * set` or `farm stop` reaches a running `serve` or app within one probe interval.
 */
import { FARM_SETTING_KEYS, type FarmSettingKey, type FarmState } from '../../../shared/farm-settings.js';
import type { Timers } from '../clock.js';
import type { EventBus } from '../event-bus.js';
import type { FarmTeller } from '../notices/notice-outbox.js';
import type { SettingsPort } from '../handlers/context.js';
import { schedulerConfig, type SchedulerConfig } from './farm-config.js';
import type { Db } from '../store/database.js';
import { farmRowsFingerprint, readFarmSettings, type FolderDefaults } from './farm-settings.js';
import { readFarmState } from './farm-state.js';
import { usedRoots } from './output-roots.js';
import { entryOf, type SettingValue } from './setting-entries.js';
import { storedSettings, type SettingsReader } from './setting-reader.js';

/** What the farm state is applied to (the scheduler). */
export interface FarmStateTarget {
  readonly farmState: FarmState;
  /** paused: no new dispatch; stopped: also interrupt, remove and requeue what runs; running: dispatch. */
  applyFarmState(state: FarmState): Promise<void>;
}

export interface LiveSettingsDeps {
  db: Db;
  timers: Timers;
  events: EventBus;
  log: (message: string) => void;
  /** The engine's own output folder: output_root's default. */
  defaultOutputRoot: string;
  /** The engine's own releases folder (`<data>/releases`): releases_root's default. */
  defaultReleasesRoot: string;
  /** The other engines on this database: told when a setting or the farm state was changed here. */
  others?: Pick<FarmTeller, 'settings' | 'farm'>;
}

export class LiveSettings implements SettingsPort {
  /** Defaults and the host's `over`: what a setting returns to when it is reset. */
  private base: SchedulerConfig | null = null;
  private live: SchedulerConfig | null = null;
  private target: FarmStateTarget | null = null;
  private timer: unknown = null;
  /** The rows as last applied. */
  private seen = '';
  /** Problems with stored rows, as last logged (said once, not at every tick). */
  private said = '';
  /** Reloads run one after another: a stop must finish before the next state is applied. */
  private chain: Promise<void> = Promise.resolve();

  private readonly reader: SettingsReader;

  constructor(private readonly d: LiveSettingsDeps) {
    this.reader = storedSettings(d.db, this.folderDefaults);
  }

  get<K extends FarmSettingKey>(key: K): SettingValue<K> {
    return this.reader.get(key);
  }

  get defaultOutputRoot(): string {
    return this.d.defaultOutputRoot;
  }

  get folderDefaults(): FolderDefaults {
    return { output_root: this.d.defaultOutputRoot, releases_root: this.d.defaultReleasesRoot };
  }

  /** The current root first, then the engine's own, then every root set before. */
  outputRoots(): string[] {
    return [...new Set([this.get('output_root'), this.d.defaultOutputRoot, ...usedRoots(this.d.db)])];
  }

  /** The live config for the scheduler: the defaults, then `over`, then the operator's settings. */
  schedulerConfig(over: Partial<SchedulerConfig>): SchedulerConfig {
    this.base = schedulerConfig(this.d.defaultOutputRoot, over);
    this.live = schedulerConfig(this.d.defaultOutputRoot, over);
    this.applySettings(this.live, this.base);
    return this.live;
  }

  /** The scheduler started (it read the farm state itself): follow changes from now on. */
  attach(target: FarmStateTarget): void {
    this.target = target;
    this.seen = farmRowsFingerprint(this.d.db);
    this.arm();
  }

  /**
   * Something was changed: apply it now. Resolves once applied (a stop: once its prompts are
   * requeued). `changed` says what this process changed, which the other engines are told; without
   * it, another process changed something (its notice was heard, or the rows were seen to move).
   */
  reload(changed?: 'settings' | 'farm'): Promise<void> {
    if (changed === 'settings') this.d.others?.settings();
    if (changed === 'farm') this.d.others?.farm();
    this.chain = this.chain
      .then(() => this.apply())
      .catch((err: unknown) => this.d.log(`applying the farm settings failed: ${(err as Error).stack ?? String(err)}`));
    return this.chain;
  }

  /** The engine is closing: stop watching, and let a reload in progress finish. */
  async close(): Promise<void> {
    this.target = null;
    this.d.timers.clearTimeout(this.timer);
    this.timer = null;
    await this.chain;
  }

  private async apply(): Promise<void> {
    if (this.live && this.base) {
      this.seen = farmRowsFingerprint(this.d.db);
      this.applySettings(this.live, this.base);
    }
    const target = this.target;
    if (!target) return;
    const recorded = readFarmState(this.d.db);
    if (recorded.state === target.farmState) return;
    await target.applyFarmState(recorded.state);
    this.d.events.emit('farm.changed', { farm: recorded });
  }

  /** Writes every setting into `live` in place: the operator's value, else the base's. */
  private applySettings(live: SchedulerConfig, base: SchedulerConfig): void {
    const { values, problems } = readFarmSettings(this.d.db);
    const said = problems.join('; ');
    if (said && said !== this.said) this.d.log(`farm settings: ${said}`);
    this.said = said;
    for (const key of FARM_SETTING_KEYS) {
      const field = entryOf(key).live;
      if (!field) continue;
      const v = values[key];
      field.put(live, v !== undefined ? v : field.of(base));
    }
  }

  /** The cross-process check, at the probe interval in force. */
  private arm(): void {
    if (!this.target || !this.live) return;
    this.timer = this.d.timers.setTimeout(() => {
      this.timer = null;
      if (!this.target) return;
      try {
        const rows = farmRowsFingerprint(this.d.db);
        if (rows !== this.seen) {
          this.seen = rows;
          void this.reload();
        }
      } catch (err) {
        this.d.log(`checking the farm settings failed: ${(err as Error).message}`);
      }
      this.arm();
    }, this.live.probeIntervalMs);
  }
}
