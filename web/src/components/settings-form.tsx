import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { JsonSchema } from '../pages/projects/types.js';
import { FieldError } from './form.js';

type Settings = Record<string, unknown>;

/** The allowed values of an enum-like schema: TypeBox writes a union of literals as anyOf/const. */
function choices(schema: JsonSchema | undefined): unknown[] | null {
  if (!schema) return null;
  if (schema.enum) return schema.enum;
  if (schema.anyOf?.every((option) => 'const' in option)) return schema.anyOf.map((option) => option.const);
  return null;
}

/**
 * A form for a component version's settings, drawn from its JSON schema: text and number
 * inputs, checkboxes for booleans and for lists of fixed values. Anything else is edited as
 * JSON. The server checks the result against the same schema and names the member at fault
 * (`settings.url`), which is shown under that field.
 */
export function SettingsForm({
  schema,
  value,
  onChange,
  error,
  disabled = false,
}: {
  schema: JsonSchema;
  value: Settings;
  onChange: (value: Settings) => void;
  error: unknown;
  disabled?: boolean;
}) {
  const properties = Object.entries(schema.properties ?? {});
  if (properties.length === 0) return <p class="muted small">This component has no settings.</p>;
  const set = (name: string, member: unknown) => {
    const next = { ...value };
    if (member === undefined) delete next[name];
    else next[name] = member;
    onChange(next);
  };
  return (
    <div class="settings-form">
      {properties.map(([name, property]) => (
        <SettingField
          key={name}
          name={name}
          schema={property}
          required={schema.required?.includes(name) ?? false}
          value={value[name]}
          onChange={(member) => set(name, member)}
          error={error}
          disabled={disabled}
        />
      ))}
    </div>
  );
}

function SettingField({
  name,
  schema,
  required,
  value,
  onChange,
  error,
  disabled,
}: {
  name: string;
  schema: JsonSchema;
  required: boolean;
  value: unknown;
  onChange: (value: unknown) => void;
  error: unknown;
  disabled: boolean;
}) {
  const hint = [schema.description, required ? null : 'optional'].filter(Boolean).join(' · ');
  const title = (
    <>
      <code>{name}</code> {hint && <span class="muted">({hint})</span>}
    </>
  );
  const fieldError = <FieldError error={error} param={`settings.${name}`} />;
  const options = choices(schema.items);

  if (schema.type === 'array' && options) {
    const chosen = Array.isArray(value) ? value : [];
    return (
      <fieldset class="checks">
        <legend>{title}</legend>
        {options.map((option) => (
          <label class="check" key={String(option)}>
            <input
              type="checkbox"
              name={`settings.${name}`}
              value={String(option)}
              disabled={disabled}
              checked={chosen.includes(option)}
              onChange={(e) => {
                const next = e.currentTarget.checked ? [...chosen, option] : chosen.filter((c) => c !== option);
                // An empty list means "none"; leaving the member out means "all": unticking everything omits it.
                onChange(next.length > 0 ? options.filter((o) => next.includes(o)) : undefined);
              }}
            />
            {String(option)}
          </label>
        ))}
        {fieldError}
      </fieldset>
    );
  }
  if (schema.type === 'boolean') {
    return (
      <label class="check">
        <input
          type="checkbox"
          name={`settings.${name}`}
          disabled={disabled}
          checked={value === true}
          onChange={(e) => onChange(e.currentTarget.checked)}
        />
        {title}
        {fieldError}
      </label>
    );
  }
  if (schema.type === 'integer' || schema.type === 'number') {
    return (
      <label>
        {title}
        <input
          type="number"
          name={`settings.${name}`}
          disabled={disabled}
          required={required}
          min={schema.minimum}
          max={schema.maximum}
          step={schema.type === 'integer' ? 1 : 'any'}
          value={typeof value === 'number' ? String(value) : ''}
          onInput={(e) => onChange(e.currentTarget.value === '' ? undefined : Number(e.currentTarget.value))}
        />
        {fieldError}
      </label>
    );
  }
  if (schema.type === 'string' && !choices(schema)) {
    return (
      <label>
        {title}
        <input
          type="text"
          name={`settings.${name}`}
          disabled={disabled}
          required={required}
          maxLength={schema.maxLength}
          value={typeof value === 'string' ? value : ''}
          onInput={(e) => onChange(e.currentTarget.value === '' ? undefined : e.currentTarget.value)}
        />
        {fieldError}
      </label>
    );
  }
  return (
    <JsonField
      title={title}
      name={name}
      value={value}
      onChange={onChange}
      disabled={disabled}
      fieldError={fieldError}
    />
  );
}

/** A member the form has no widget for, edited as JSON; invalid JSON is kept as typed and flagged. */
function JsonField({
  title,
  name,
  value,
  onChange,
  disabled,
  fieldError,
}: {
  title: ComponentChildren;
  name: string;
  value: unknown;
  onChange: (value: unknown) => void;
  disabled: boolean;
  fieldError: ComponentChildren;
}) {
  const [text, setText] = useState(value === undefined ? '' : JSON.stringify(value, null, 2));
  const [bad, setBad] = useState(false);
  return (
    <label>
      {title}
      <textarea
        name={`settings.${name}`}
        class="mono"
        rows={4}
        disabled={disabled}
        aria-invalid={bad}
        value={text}
        onInput={(e) => {
          const typed = e.currentTarget.value;
          setText(typed);
          if (typed.trim() === '') {
            setBad(false);
            onChange(undefined);
            return;
          }
          try {
            onChange(JSON.parse(typed));
            setBad(false);
          } catch {
            setBad(true);
          }
        }}
      />
      {bad && <span class="field-error">Not valid JSON yet.</span>}
      {fieldError}
    </label>
  );
}
