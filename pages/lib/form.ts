// Form state and the field rules of data/forms.json, which the API checks
// too (formapi/rules.go): a field is checked once it has been touched
// (left or submitted); submitting touches every field (SPEC §5).
import { useState, type ChangeEvent } from 'react';
import { oneLine } from '../../data/forms.json';

export interface Check {
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  message: string;
}

export interface FieldRule {
  field: string;
  required?: string;
  checks?: Check[];
  // multiline fields may hold line breaks; every other one ends with the
  // oneLine check of forms.json.
  multiline?: boolean;
}

const compiled = new Map<string, RegExp>();
function regexp(pattern: string): RegExp {
  let re = compiled.get(pattern);
  if (!re) compiled.set(pattern, (re = new RegExp(pattern, 'u')));
  return re;
}

// check returns the message key of the first rule the value breaks, or ''.
// Lengths count characters (code points), as the Go side does.
export function check(rule: FieldRule, value: string): string {
  if (value.trim() === '') return rule.required ?? '';
  const length = [...value].length;
  const checks: Check[] = rule.multiline ? (rule.checks ?? []) : [...(rule.checks ?? []), oneLine];
  for (const c of checks) {
    if ((c.minLength && length < c.minLength) || (c.maxLength && length > c.maxLength) || (c.pattern && !regexp(c.pattern).test(value))) return c.message;
  }
  return '';
}

// maxLength is the tightest maximum of a field, for its maxlength attribute.
function maxLength(rule: FieldRule): number | undefined {
  const limits = (rule.checks ?? []).map((c) => c.maxLength ?? 0).filter((n) => n > 0);
  return limits.length ? Math.min(...limits) : undefined;
}

export interface FieldError {
  field: string;
  message: string;
}

// FieldBinding is what an input needs: spread it on <Field>.
export interface FieldBinding {
  name: string;
  value: string;
  error: string; // message key, '' when valid or not yet touched
  required: boolean;
  maxLength?: number;
  onChange(e: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>): void;
  onBlur(): void;
}

export function useForm<F extends string>(rules: FieldRule[], initial: Record<F, string>) {
  const [values, setValues] = useState(initial);
  const [touched, setTouched] = useState<Partial<Record<string, boolean>>>({});
  // submitted is SPEC §4's flag: once set, every field shows its error.
  const [submitted, setSubmitted] = useState(false);
  // Errors the server sent for fields, shown until the field changes.
  const [serverErrors, setServerErrors] = useState<Partial<Record<string, string>>>({});
  const ruleOf = (field: string) => rules.find((r) => r.field === field) ?? { field };
  const errorOf = (field: string) => check(ruleOf(field), String((values as Record<string, string>)[field] ?? ''));
  const fields = Object.keys(initial);
  return {
    values,
    submitted,
    valid: fields.every((f) => errorOf(f) === ''),
    // complete says whether these fields all meet their rules (a section
    // of a long form, for its progress).
    complete: (names: F[]) => names.every((f) => errorOf(f) === ''),
    field(name: F): FieldBinding {
      const rule = ruleOf(name);
      return {
        name,
        value: values[name],
        error: serverErrors[name] || (submitted || touched[name] ? errorOf(name) : ''),
        required: Boolean(rule.required),
        maxLength: maxLength(rule),
        onChange: (e) => {
          const value = e.target.value;
          setValues((v) => ({ ...v, [name]: value }));
          setServerErrors((s) => ({ ...s, [name]: '' }));
        },
        onBlur: () => setTouched((t) => ({ ...t, [name]: true })),
      };
    },
    // submit marks the form submitted, which shows every error; it returns
    // the first invalid field so the form can move focus there.
    submit(): F | undefined {
      setSubmitted(true);
      return fields.find((f) => errorOf(f) !== '') as F | undefined;
    },
    setServerErrors(list: FieldError[]) {
      setServerErrors(Object.fromEntries(list.filter((e) => fields.includes(e.field)).map((e) => [e.field, e.message])));
    },
    reset() {
      setValues(initial);
      setTouched({});
      setSubmitted(false);
      setServerErrors({});
    },
  };
}

// focusField moves focus to a form's field by name, so after a refused
// submit keyboard and screen-reader users land on the first error.
export function focusField(form: HTMLFormElement | null, name: string) {
  const el = form?.elements.namedItem(name);
  if (el instanceof HTMLElement) el.focus();
}
