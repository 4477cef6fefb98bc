import { useId, type ReactNode } from 'react';
import { useT } from '../lib/i18n';
import type { FieldBinding } from '../lib/form';

interface Props extends FieldBinding {
  label: string;
  type?: 'text' | 'email' | 'tel' | 'password';
  multiline?: boolean;
  autoComplete?: string;
  inputMode?: 'numeric' | 'email' | 'tel' | 'text';
  hint?: ReactNode;
}

// Field is a labelled input or textarea with its hint and its error,
// linked for screen readers (aria-describedby, aria-invalid). Validation
// is ours (noValidate forms), so errors read the same in every browser.
export function Field({ label, type = 'text', multiline, autoComplete, inputMode, hint, error, required, ...input }: Props) {
  const { t } = useT();
  const id = useId();
  const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  const common = {
    id,
    ...input,
    required,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': describedBy,
  };
  return (
    <div className={error ? 'field invalid' : 'field'}>
      <label htmlFor={id}>
        {label}
        {required && <span aria-hidden="true"> *</span>}
      </label>
      {hint && (
        <p className="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {multiline ? <textarea rows={5} {...common} /> : <input type={type} autoComplete={autoComplete} inputMode={inputMode} {...common} />}
      {error && (
        <p className="field-error" id={`${id}-error`}>
          {t(error)}
        </p>
      )}
    </div>
  );
}
