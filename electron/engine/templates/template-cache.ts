/**
 * Templates by id, read once: a stored version never changes (an edit is a new version), so one
 * cache serves the engine's whole life. The engine builds one and passes it through its context to
 * the handlers, the job views and the scheduler.
 */
import type { Db } from '../store/database.js';
import { templateById, type StoredTemplate } from '../store/template-store.js';

export class TemplateCache {
  private readonly byId = new Map<number, StoredTemplate>();

  constructor(private readonly db: Db) {}

  get(id: number): StoredTemplate {
    let t = this.byId.get(id);
    if (!t) {
      t = templateById(this.db, id) as StoredTemplate;
      this.byId.set(id, t);
    }
    return t;
  }
}
