/** A card per workstation, live from `instance.changed` events; add / edit in a dialog. */
import { useMemo, useState } from 'react';
import { isHealthy, type InstanceView } from '../../../shared/domain.js';
import { Empty } from '../../components/Empty.js';
import { useMay } from '../../store/use-may.js';
import { useApp } from '../../store/app-store.js';
import { EnginesPanel } from './EnginesPanel.js';
import { InstanceCard } from './InstanceCard.js';
import { InstanceForm } from './InstanceForm.js';

export function WorkstationsView() {
  const byId = useApp((s) => s.instances);
  const instances = useMemo(() => Object.values(byId).sort((a, b) => a.name.localeCompare(b.name)), [byId]);
  const [editing, setEditing] = useState<InstanceView | 'new' | null>(null);
  const healthy = instances.filter((i) => isHealthy(i.health)).length;
  const { may } = useMay();
  return (
    <section className="view view-workstations">
      <div className="view-head">
        <div>
          <h1>Workstations</h1>
          <div className="muted">
            {instances.length} registered · {healthy} healthy
          </div>
        </div>
        {may('workstations') && (
          <button
            type="button"
            className="btn btn-primary"
            onClick={() => setEditing('new')}
            data-testid="add-instance"
            data-needs="workstations"
          >
            + Add workstation
          </button>
        )}
      </div>
      <EnginesPanel />
      {instances.length === 0 ? (
        <Empty title="No workstations yet">
          Add the URL of a ComfyUI server on your network, e.g. http://gpu-01:8188.
        </Empty>
      ) : (
        <div className="cards">
          {instances.map((i) => (
            <InstanceCard key={i.id} instance={i} onEdit={() => setEditing(i)} />
          ))}
        </div>
      )}
      {editing && <InstanceForm instance={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
    </section>
  );
}
