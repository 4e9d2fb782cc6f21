/**
 * People, for an admin (the people class): who may use the farm and with which role. Add a person
 * (their token is shown here once — the store keeps only its hash — with the address that signs
 * them in), change a role, give a new token, revoke. The same users methods as the farm host's
 * `shotfarm users`; the server refuses an admin's own revocation or demotion from a page.
 */
import { useCallback, useEffect, useState } from 'react';
import { ROLES, type IssuedToken, type PersonView, type Role } from '../../../shared/people.js';
import { errorMessage } from '../../client/client.js';
import { Confirm } from '../../components/Confirm.js';
import { dateTime } from '../../lib/format.js';
import { useApp } from '../../store/app-store.js';

/** The token just issued, shown until dismissed: it cannot be shown again. */
function IssuedTokenBox({ issued, onDone }: { issued: IssuedToken; onDone: () => void }) {
  // The sign-in link `shotfarm users add` prints: the token in the fragment, never sent in a URL.
  const link = `${window.location.origin}/#signin=${issued.token}`;
  return (
    <div className="alert alert-ok issued-token" data-testid="issued-token" role="status">
      <div>
        <b>{issued.person.name}</b>'s token ({issued.person.role}) — shown this once; send it to them privately:
      </div>
      <div className="mono issued-token-value" data-testid="issued-token-value">
        {issued.token}
      </div>
      <div className="small">
        They open <span className="mono">{link.replace(issued.token, '<token>')}</span> with it, or paste it on the
        sign-in page.
      </div>
      <div className="issued-token-actions">
        <button type="button" className="btn btn-sm" onClick={() => void navigator.clipboard?.writeText(link)}>
          Copy sign-in link
        </button>
        <button type="button" className="btn btn-sm" onClick={() => void navigator.clipboard?.writeText(issued.token)}>
          Copy token
        </button>
        <button type="button" className="btn btn-sm btn-ghost" onClick={onDone} data-testid="issued-token-done">
          Done
        </button>
      </div>
    </div>
  );
}

export function PeoplePanel() {
  const client = useApp((s) => s.client);
  const notify = useApp((s) => s.notify);
  const me = useApp((s) => s.session?.name ?? null);
  // Bumped by people.changed: another admin's page or `shotfarm users` changed someone.
  const peopleTick = useApp((s) => s.peopleTick);
  const [people, setPeople] = useState<PersonView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('artist');
  const [issued, setIssued] = useState<IssuedToken | null>(null);
  const [revoking, setRevoking] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback(() => {
    client.call('users.list', {}).then(
      (p) => (setPeople(p), setError(null)),
      (err: unknown) => setError(errorMessage(err)),
    );
  }, [client]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: peopleTick is the reason to load again, not an input of load
  useEffect(load, [load, peopleTick]);

  const act = async (what: () => Promise<unknown>, done: string) => {
    setBusy(true);
    try {
      await what();
      notify('success', done);
      load();
    } catch (err) {
      notify('error', errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  const add = async () => {
    setBusy(true);
    try {
      const t = await client.call('users.add', { name: name.trim(), role });
      setIssued(t);
      setName('');
      load();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  const newToken = async (who: string) => {
    try {
      setIssued(await client.call('users.token', { name: who }));
      load();
    } catch (err) {
      notify('error', errorMessage(err));
    }
  };

  return (
    <section className="panel people-panel" data-testid="people-panel" data-needs="people">
      <div className="panel-head">
        <h2>People</h2>
        <span className="muted small">
          Who may use this farm, and what their role lets them do (docs: Studio farm → People and roles).
        </span>
      </div>
      <form className="people-add" onSubmit={(e) => (e.preventDefault(), void add())}>
        <label className="field field-inline">
          <span className="field-label">Name</span>
          <input
            className="input"
            value={name}
            onChange={(e) => (setName(e.target.value), setError(null))}
            placeholder="e.g. mira"
            maxLength={64}
            data-testid="person-name"
          />
        </label>
        <label className="field field-inline">
          <span className="field-label">Role</span>
          <select
            className="input"
            value={role}
            onChange={(e) => setRole(e.target.value as Role)}
            data-testid="person-role"
          >
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <button
          className="btn btn-sm btn-primary"
          type="submit"
          disabled={busy || name.trim() === ''}
          data-testid="person-add"
        >
          Add person
        </button>
      </form>
      {error && (
        <div className="err small" role="alert" data-testid="people-error">
          {error}
        </div>
      )}
      {issued && <IssuedTokenBox issued={issued} onDone={() => setIssued(null)} />}
      {people && (
        <table className="grid-table compact people-table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Role</th>
              <th>Added</th>
              <th>Status</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {people.map((p) => {
              const self = p.name === me;
              const revoked = p.revokedAt !== null;
              return (
                <tr key={p.name} data-person={p.name} data-revoked={revoked ? 'yes' : 'no'}>
                  <td>
                    <b className="truncate">{p.name}</b>
                    {self && <span className="muted small"> (you)</span>}
                  </td>
                  <td>
                    <select
                      className="input input-sm"
                      value={p.role}
                      disabled={busy || self || revoked}
                      aria-label={`Role of ${p.name}`}
                      data-action="set-role"
                      title={self ? 'You cannot change your own role while signed in.' : undefined}
                      onChange={(e) =>
                        void act(
                          () => client.call('users.setRole', { name: p.name, role: e.target.value as Role }),
                          `${p.name} is now ${e.target.value}.`,
                        )
                      }
                    >
                      {ROLES.map((r) => (
                        <option key={r} value={r}>
                          {r}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td className="small muted">{dateTime(p.createdAt)}</td>
                  <td className="small">
                    {revoked ? <span className="warn">revoked {dateTime(p.revokedAt)}</span> : 'active'}
                  </td>
                  <td className="people-actions">
                    <button
                      type="button"
                      className="btn btn-sm"
                      disabled={busy || self}
                      onClick={() => void newToken(p.name)}
                      data-action="new-token"
                      title={
                        self
                          ? 'Your own new token is given on the farm host: shotfarm users token NAME.'
                          : revoked
                            ? 'A new token signs them in again'
                            : 'Their old token stops working'
                      }
                    >
                      {revoked ? 'Restore with new token' : 'New token'}
                    </button>
                    {!revoked && (
                      <button
                        type="button"
                        className="btn btn-sm btn-danger-ghost"
                        disabled={busy || self}
                        onClick={() => setRevoking(p.name)}
                        data-action="revoke"
                        title={self ? 'You cannot revoke yourself while signed in.' : undefined}
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {revoking && (
        <Confirm
          title={`Revoke ${revoking}?`}
          confirmLabel={`Revoke ${revoking}`}
          danger
          onCancel={() => setRevoking(null)}
          onConfirm={() => {
            const who = revoking;
            setRevoking(null);
            void act(
              () => client.call('users.revoke', { name: who }),
              `${who} is revoked: their token stops working at their next call.`,
            );
          }}
        >
          Their token stops working at their next call, and an open page of theirs is signed out. The history keeps
          their name. A new token restores them.
        </Confirm>
      )}
    </section>
  );
}
