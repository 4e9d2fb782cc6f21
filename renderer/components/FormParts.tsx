/**
 * The pieces every form modal repeats (workstation forms, exports): the footer (test button or
 * note, Cancel, save), the test result block, the error line and a plain text field. Class names,
 * test ids and texts are the ones the e2e tests look for, so a form using these renders the same DOM
 * as before.
 */
import { type ReactNode, useEffect, useRef } from 'react';

/** The footer's "Test connection" button: asks once and saves nothing. */
export interface FooterTest {
  testing: boolean;
  disabled: boolean;
  onTest: () => void;
  testId: string;
  title?: string;
}

/**
 * A form's footer: at the left "Test connection" (`test`) or a short note (`note`, e.g. a line
 * count), then a spacer, Cancel and the primary save button (`children` is its text).
 */
export function FormFooter({
  test,
  note,
  onCancel,
  onSave,
  disabled,
  testId,
  children,
}: {
  test?: FooterTest;
  note?: ReactNode;
  onCancel: () => void;
  onSave: () => void;
  disabled: boolean;
  testId: string;
  children: ReactNode;
}) {
  return (
    <>
      {test && (
        <button
          type="button"
          className="btn"
          onClick={test.onTest}
          disabled={test.disabled}
          data-testid={test.testId}
          title={test.title}
        >
          {test.testing ? 'Testing…' : 'Test connection'}
        </button>
      )}
      {note !== undefined && <span className="muted">{note}</span>}
      <span className="spacer" />
      <button type="button" className="btn btn-ghost" onClick={onCancel}>
        Cancel
      </button>
      <button type="button" className="btn btn-primary" onClick={onSave} disabled={disabled} data-testid={testId}>
        {children}
      </button>
    </>
  );
}

/**
 * What "Test connection" found, in its green (answered) or red (did not) block; `data-ok` says
 * which. With `reveal`, the block is scrolled into sight each time that value (the result) changes:
 * for a form whose button is at the foot of a body that may scroll.
 */
export function TestResult({
  ok,
  testId,
  reveal,
  children,
}: {
  ok: boolean;
  testId: string;
  reveal?: object;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDivElement>(null);
  // (A block, not an expression: Chromium's scrollIntoView returns a promise, which React would take for a cleanup.)
  useEffect(() => {
    if (reveal) void ref.current?.scrollIntoView({ block: 'nearest' });
  }, [reveal]);
  return (
    <div
      ref={ref}
      className={`alert ${ok ? 'alert-ok' : 'alert-error'} conn-test`}
      role={ok ? 'status' : 'alert'}
      data-testid={testId}
      data-ok={ok ? 'yes' : 'no'}
    >
      {children}
    </div>
  );
}

/** The form's error line, or nothing. */
export function FormError({ error, testId }: { error: string | null; testId?: string }) {
  if (!error) return null;
  return (
    <div className="alert alert-error" role="alert" data-testid={testId}>
      {error}
    </div>
  );
}

/** A labelled control: the label's words above whatever input `children` is; `size` widens or narrows it in a grid. */
export function Field({
  label,
  size,
  title,
  children,
}: {
  label: ReactNode;
  size?: 'wide' | 'narrow';
  title?: string;
  children: ReactNode;
}) {
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: the control is `children`, inside the label (every caller passes an input, select or textarea).
    <label className={size ? `field field-${size}` : 'field'} title={title}>
      <span className="field-label">{label}</span>
      {children}
    </label>
  );
}

/** A labelled one-line text input; `data` carries the data-* attribute the tests address it by. */
export function TextField({
  label,
  value,
  onChange,
  placeholder,
  autoFocus,
  data,
}: {
  label: ReactNode;
  value: string;
  onChange: (value: string) => void;
  placeholder?: string;
  autoFocus?: boolean;
  data: Record<`data-${string}`, string>;
}) {
  return (
    <Field label={label}>
      <input
        className="input"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        placeholder={placeholder}
        autoFocus={autoFocus}
        {...data}
      />
    </Field>
  );
}

/** A labelled number input (the browser's spinner and bounds); `field` is its data-field name. */
export function NumberField({
  label,
  title,
  size,
  value,
  onChange,
  min,
  max,
  step,
  placeholder,
  field,
}: {
  label: ReactNode;
  title?: string;
  size?: 'wide' | 'narrow';
  value: string;
  onChange: (value: string) => void;
  min: number;
  max?: number;
  step?: number;
  placeholder?: string;
  field: string;
}) {
  return (
    <Field label={label} title={title} size={size}>
      <input
        className="input"
        type="number"
        min={min}
        max={max}
        step={step}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        placeholder={placeholder}
        data-field={field}
      />
    </Field>
  );
}

/** The capabilities field a workstation form ends with (data-field="tags"). */
export function TagsField({
  value,
  onChange,
  placeholder,
  lead = 'Tags',
}: {
  value: string;
  onChange: (value: string) => void;
  placeholder: string;
  lead?: string;
}) {
  return (
    <TextField
      label={
        <>
          {lead} <span className="muted">(capabilities, comma-separated)</span>
        </>
      }
      value={value}
      onChange={onChange}
      placeholder={placeholder}
      data={{ 'data-field': 'tags' }}
    />
  );
}
